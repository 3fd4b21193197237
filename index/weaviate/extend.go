package weaviate

import (
	"context"
	"fmt"
)

// extend runs an import with spec.Base > 0: it adds sentences Base.. to a
// complete collection of Base sentences (or resumes such an extension).
func (c *Client) extend(ctx context.Context, spec ImportSpec, old Manifest, found bool, at func(i int) (Sentence, error)) error {
	total := spec.Base + spec.Count
	if !found {
		return fmt.Errorf("%w: collection %s has no reqa manifest to extend", ErrIncomplete, spec.Collection)
	}
	start := 0
	switch {
	case old.ModelHash != spec.ModelHash:
		return fmt.Errorf("%w: collection %s holds model %s, this import has %s", ErrOtherModel, spec.Collection, old.ModelHash, spec.ModelHash)
	case old.Format != FormatVersion || old.Dim != spec.Dim:
		return fmt.Errorf("%w: collection %s holds vectors of dimension %d (format %d), this import has %d", ErrSchema, spec.Collection, old.Dim, old.Format, spec.Dim)
	case old.Complete && old.Sentences == spec.Base:
		start = spec.Base
	case old.Complete && old.Sentences == total && !spec.Restart:
		if spec.Progress != nil {
			spec.Progress(total, total)
		}
		return nil
	case !old.Complete && old.Sentences == total && old.Imported >= spec.Base:
		start = old.Imported
		if spec.Restart {
			start = spec.Base
		}
	case !old.Complete:
		return fmt.Errorf("%w: collection %s: %d of %d sentences written, never finished (re-run the import that began it)", ErrIncomplete, spec.Collection, old.Imported, old.Sentences)
	default:
		return fmt.Errorf("%w: collection %s holds %d sentences, this extension starts at %d", ErrSchema, spec.Collection, old.Sentences, spec.Base)
	}
	shifted := spec
	shifted.Base, shifted.Count, shifted.Restart = 0, total, false
	m := Manifest{Collection: spec.Collection, ModelHash: spec.ModelHash, Sentences: total, Dim: spec.Dim, Imported: start, Format: FormatVersion}
	// Incomplete before the first new object is written.
	if err := c.putManifest(ctx, m); err != nil {
		return err
	}
	if err := c.ensureClass(ctx, sentenceClass(spec.Collection, spec.Layout, spec.Tokenizers...)); err != nil {
		return err
	}
	return c.write(ctx, shifted, m, start, func(i int) (Sentence, error) { return at(i - spec.Base) })
}
