package weaviate

import (
	"context"
	"errors"
	"fmt"
)

// Check asks the engine, before any work is spent on an import, whether
// spec can run: the engine answers (and accepts the client's credentials),
// its version is supported, and the collection is missing or holds an
// import spec can continue — built by the same model (spec.ModelHash),
// of the same dimension, count and format, with a compatible schema; for
// an extension (spec.Base > 0), a complete collection of Base sentences
// (or an extension of it under way). It writes nothing. Errors wrap the
// sentinels Import's would: [ErrUnreachable], [ErrAuth], [ErrRedirect],
// [ErrDeadline], [ErrVersion], [ErrOtherModel], [ErrSchema],
// [ErrIncomplete].
func (c *Client) Check(ctx context.Context, spec ImportSpec) error {
	if err := CheckName(spec.Collection); err != nil {
		return err
	}
	if spec.ModelHash == "" || spec.Dim <= 0 || spec.Count < 0 {
		return fmt.Errorf("weaviate: import into %s: need a model hash, a dimension > 0 and a count ≥ 0", spec.Collection)
	}
	if _, err := c.Version(ctx); err != nil {
		return err
	}
	var (
		old   Manifest
		found bool
	)
	if _, err := c.getClass(ctx, MetaCollection); err == nil {
		if old, found, err = c.Manifest(ctx, spec.Collection); err != nil {
			return err
		}
	} else if !errors.Is(err, ErrNoCollection) {
		return err
	}
	if err := checkManifest(spec, old, found); err != nil {
		return err
	}
	got, err := c.getClass(ctx, spec.Collection)
	switch {
	case errors.Is(err, ErrNoCollection):
		return nil
	case err != nil:
		return err
	case !found:
		return fmt.Errorf("%w: collection %s exists without a reqa manifest (not made by reqa?)", ErrSchema, spec.Collection)
	}
	return compatible(sentenceClass(spec.Collection, spec.Layout, spec.Tokenizers...), *got)
}

// checkManifest refuses an import of spec into a collection whose
// manifest is old (found: it has one) when Import would refuse it.
func checkManifest(spec ImportSpec, old Manifest, found bool) error {
	if spec.Base == 0 {
		switch {
		case !found:
			return nil
		case old.ModelHash != spec.ModelHash:
			return fmt.Errorf("%w: collection %s holds model %s, this import has %s (drop it first)", ErrOtherModel, spec.Collection, old.ModelHash, spec.ModelHash)
		case old.Format != FormatVersion || old.Sentences != spec.Count || old.Dim != spec.Dim:
			return fmt.Errorf("%w: collection %s holds an import of %d sentences of dimension %d (format %d), this one has %d of %d (drop it first)",
				ErrSchema, spec.Collection, old.Sentences, old.Dim, old.Format, spec.Count, spec.Dim)
		}
		return nil
	}
	total := spec.Base + spec.Count
	switch {
	case !found:
		return fmt.Errorf("%w: collection %s has no reqa manifest to extend", ErrIncomplete, spec.Collection)
	case old.ModelHash != spec.ModelHash:
		return fmt.Errorf("%w: collection %s holds model %s, this import has %s", ErrOtherModel, spec.Collection, old.ModelHash, spec.ModelHash)
	case old.Format != FormatVersion || old.Dim != spec.Dim:
		return fmt.Errorf("%w: collection %s holds vectors of dimension %d (format %d), this import has %d", ErrSchema, spec.Collection, old.Dim, old.Format, spec.Dim)
	case old.Complete && (old.Sentences == spec.Base || old.Sentences == total):
		return nil
	case !old.Complete && old.Sentences == total && old.Imported >= spec.Base:
		return nil
	case !old.Complete:
		return fmt.Errorf("%w: collection %s: %d of %d sentences written, never finished (re-run the import that began it)", ErrIncomplete, spec.Collection, old.Imported, old.Sentences)
	}
	return fmt.Errorf("%w: collection %s holds %d sentences, this extension starts at %d", ErrSchema, spec.Collection, old.Sentences, spec.Base)
}
