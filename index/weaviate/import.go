package weaviate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
)

// Manifest is what reqa records about a collection, in the [MetaCollection]
// object of that collection. Complete is set only after every sentence was
// written and the collection counted.
type Manifest struct {
	Collection string `json:"collection"`
	ModelHash  string `json:"modelHash"`
	Sentences  int    `json:"sentences"` // sentences the import writes
	Dim        int    `json:"dim"`       // vector dimension
	Imported   int    `json:"imported"`  // sentences 0..Imported-1 are written (a watermark)
	Complete   bool   `json:"complete"`
	Format     int    `json:"format"`
}

// Manifest returns the manifest of collection; found is false when there is
// none (never imported, or dropped).
func (c *Client) Manifest(ctx context.Context, collection string) (m Manifest, found bool, err error) {
	var obj struct {
		Properties Manifest `json:"properties"`
	}
	q := url.Values{}
	if c.consistency != "" {
		q.Set("consistency_level", c.consistency)
	}
	err = c.do(ctx, http.MethodGet, "/v1/objects/"+MetaCollection+"/"+manifestID(collection), q, nil, &obj, ErrNoCollection)
	if errors.Is(err, ErrNoCollection) {
		return Manifest{}, false, nil
	}
	if err != nil {
		return Manifest{}, false, fmt.Errorf("manifest of %s: %w", collection, err)
	}
	return obj.Properties, true, nil
}

func (c *Client) putManifest(ctx context.Context, m Manifest) error {
	obj := batchObject{Class: MetaCollection, ID: manifestID(m.Collection), Properties: map[string]any{
		"collection": m.Collection, "modelHash": m.ModelHash, "sentences": m.Sentences, "dim": m.Dim,
		"imported": m.Imported, "complete": m.Complete, "format": m.Format,
	}}
	if err := c.batch(ctx, []batchObject{obj}); err != nil {
		return fmt.Errorf("write manifest of %s: %w", m.Collection, err)
	}
	return nil
}

// Sentence is one candidate sentence as reqa writes it.
type Sentence struct {
	ID       int      // reqa's sentence id
	Text     string   // the sentence
	Context  string   // its context
	Title    string   // document title, if any
	Headings []string // heading path, if any
	Source   string   // file or URL, if any
	Tokens   []string // reqa's WordPiece tokens of sentence + context (none may hold white space: Weaviate splits on unicode.IsSpace)
	// More holds further tokenizers' tokens of sentence + context, by
	// tokenizer name (one for each of ImportSpec.Tokenizers).
	More   map[string][]string
	Ext    string // the candidate's dataset id, if any
	Start  int    // the sentence's byte offsets in Context
	End    int
	Kind   string // document block kind, if any
	Vector []float32
}

// ImportSpec describes one import.
type ImportSpec struct {
	Collection string
	ModelHash  string // identifies the encoder (and adapter) that made the vectors
	Dim        int    // vector dimension; every Sentence.Vector must have it
	Count      int    // number of sentences: the source is read at 0..Count-1
	Layout     Layout // replicas and shards, used when the collection is created
	BatchSize  int    // objects per batch request (default 256)
	// Progress, if set, is called after every batch with the sentences
	// written so far (including those a resumed import skipped).
	Progress func(done, total int)
	// Restart re-sends every sentence even if the manifest says an earlier
	// run wrote some or all of them.
	Restart bool
	// Base, when > 0, extends a complete collection of Base sentences:
	// the import writes sentences Base..Base+Count-1 (at is still called
	// with 0..Count-1) and the manifest then counts Base+Count. An
	// interrupted extension resumes the same way as an import.
	Base int
	// Settle overrides the package's Settle wait (tests of fakes set it
	// short).
	Settle time.Duration
	// Tokenizers names further tokenizers whose tokens each Sentence holds
	// in More, each searchable by BM25 in property TokenProp(name).
	Tokenizers []string
}

// Settle is how long Import waits after the last write before it marks
// the collection complete. Weaviate 1.35.2's BM25 (BlockMax WAND) misses
// top-k documents whose postings are still in a memtable; nodes run with
// PERSISTENCE_MEMTABLES_FLUSH_DIRTY_AFTER_SECONDS=1 (see the package
// documentation), so after this wait a complete collection answers
// exactly.
const Settle = 3 * time.Second

// Import writes sentences 0..spec.Count-1 (read through at) into the
// collection, creating it and its manifest when missing.
//
// It is idempotent and resumable: object ids are derived from the
// collection and sentence id, so re-sending overwrites; the manifest's
// watermark records how far a run got and a later run with the same model
// hash and count starts there; a complete collection is left as it is
// (unless spec.Restart). A collection built by another model is refused
// ([ErrOtherModel]; [Client.Drop] it first), as is one of another count or
// dimension ([ErrSchema]). The manifest is marked complete only after the
// last batch was accepted and the collection holds exactly spec.Count
// objects.
func (c *Client) Import(ctx context.Context, spec ImportSpec, at func(i int) (Sentence, error)) error {
	if err := CheckName(spec.Collection); err != nil {
		return err
	}
	if spec.ModelHash == "" || spec.Dim <= 0 || spec.Count < 0 {
		return fmt.Errorf("weaviate: import into %s: need a model hash, a dimension > 0 and a count ≥ 0", spec.Collection)
	}
	if _, err := c.Version(ctx); err != nil {
		return err
	}
	if err := c.ensureClass(ctx, metaClass(spec.Layout)); err != nil {
		return err
	}
	old, found, err := c.Manifest(ctx, spec.Collection)
	if err != nil {
		return err
	}
	if err := checkManifest(spec, old, found); err != nil {
		return err // as Check reports it
	}
	if spec.Base > 0 {
		return c.extend(ctx, spec, old, found, at)
	}
	start := 0
	if found {
		switch {
		case old.ModelHash != spec.ModelHash:
			return fmt.Errorf("%w: collection %s holds model %s, this import has %s (drop it first)", ErrOtherModel, spec.Collection, old.ModelHash, spec.ModelHash)
		case old.Format != FormatVersion || old.Sentences != spec.Count || old.Dim != spec.Dim:
			return fmt.Errorf("%w: collection %s holds an import of %d sentences of dimension %d (format %d), this one has %d of %d (drop it first)",
				ErrSchema, spec.Collection, old.Sentences, old.Dim, old.Format, spec.Count, spec.Dim)
		case old.Complete && !spec.Restart:
			if spec.Progress != nil {
				spec.Progress(spec.Count, spec.Count)
			}
			return nil
		case !spec.Restart:
			start = min(old.Imported, spec.Count)
		}
	} else if _, err := c.getClass(ctx, spec.Collection); err == nil {
		return fmt.Errorf("%w: collection %s exists without a reqa manifest (not made by reqa?)", ErrSchema, spec.Collection)
	} else if !errors.Is(err, ErrNoCollection) {
		return err
	}
	m := Manifest{Collection: spec.Collection, ModelHash: spec.ModelHash, Sentences: spec.Count, Dim: spec.Dim,
		Imported: start, Format: FormatVersion}
	// Incomplete before the first object is written.
	if err := c.putManifest(ctx, m); err != nil {
		return err
	}
	if err := c.ensureClass(ctx, sentenceClass(spec.Collection, spec.Layout, spec.Tokenizers...)); err != nil {
		return err
	}
	return c.write(ctx, spec, m, start, at)
}

// write sends sentences start..spec.Count-1 in batches, moving the
// manifest m's watermark, then counts the collection and marks m
// complete.
func (c *Client) write(ctx context.Context, spec ImportSpec, m Manifest, start int, at func(i int) (Sentence, error)) error {
	bs := spec.BatchSize
	if bs <= 0 {
		bs = 256
	}
	if spec.Progress != nil {
		spec.Progress(start, spec.Count)
	}
	objs := make([]batchObject, 0, bs)
	const watermarkEvery = 8 // batches between manifest updates
	for i, nb := start, 0; i < spec.Count; nb++ {
		objs = objs[:0]
		end := min(i+bs, spec.Count)
		for j := i; j < end; j++ {
			s, err := at(j)
			if err != nil {
				return fmt.Errorf("import into %s: sentence %d: %w", spec.Collection, j, err)
			}
			o, err := sentenceObject(spec, s)
			if err != nil {
				return err
			}
			objs = append(objs, o)
		}
		if err := c.batch(ctx, objs); err != nil {
			return fmt.Errorf("import into %s: sentences %d-%d: %w", spec.Collection, i, end-1, err)
		}
		i = end
		if nb%watermarkEvery == watermarkEvery-1 || i == spec.Count {
			m.Imported = i
			if err := c.putManifest(ctx, m); err != nil {
				return err
			}
		}
		if spec.Progress != nil {
			spec.Progress(i, spec.Count)
		}
	}
	n, err := c.Count(ctx, spec.Collection)
	if err != nil {
		return err
	}
	if n != spec.Count {
		return fmt.Errorf("%w: collection %s holds %d objects after writing %d sentences (duplicate sentence ids?)", ErrIncomplete, spec.Collection, n, spec.Count)
	}
	// Let the nodes flush what the import left in memtables before the
	// collection is declared complete (see Settle).
	if err := sleep(ctx, cmp.Or(spec.Settle, Settle)); err != nil {
		return err
	}
	m.Imported, m.Complete = spec.Count, true
	return c.putManifest(ctx, m)
}

func sentenceObject(spec ImportSpec, s Sentence) (batchObject, error) {
	if len(s.Vector) != spec.Dim {
		return batchObject{}, fmt.Errorf("import into %s: sentence %d: vector of dimension %d, want %d", spec.Collection, s.ID, len(s.Vector), spec.Dim)
	}
	props := map[string]any{
		PropID: s.ID, PropSentence: s.Text, PropContext: s.Context, PropTitle: s.Title,
		PropSource: s.Source, PropExt: s.Ext, PropStart: s.Start, PropEnd: s.End, PropKind: s.Kind,
	}
	lists := map[string][]string{PropTokens: s.Tokens}
	for _, t := range spec.Tokenizers {
		toks, ok := s.More[t]
		if !ok {
			return batchObject{}, fmt.Errorf("import into %s: sentence %d: no %s tokens", spec.Collection, s.ID, t)
		}
		lists[TokenProp(t)] = toks
	}
	for prop, toks := range lists {
		for _, t := range toks {
			if t == "" || strings.ContainsFunc(t, unicode.IsSpace) {
				return batchObject{}, fmt.Errorf("import into %s: sentence %d: token %q is empty or holds white space", spec.Collection, s.ID, t)
			}
		}
		props[prop] = strings.Join(toks, " ")
	}
	if len(s.Headings) > 0 {
		props[PropHeadings] = s.Headings
	}
	return batchObject{Class: spec.Collection, ID: ObjectID(spec.Collection, s.ID), Properties: props, Vector: s.Vector}, nil
}

type batchObject struct {
	Class      string         `json:"class"`
	ID         string         `json:"id"`
	Properties map[string]any `json:"properties"`
	Vector     []float32      `json:"vector,omitempty"`
}

// batch writes objects through /v1/batch/objects. Objects the server
// rejects one by one (the answer's per-object errors) are re-sent with
// backoff, at most retry.Attempts times in all.
func (c *Client) batch(ctx context.Context, objs []batchObject) error {
	q := url.Values{}
	if c.consistency != "" {
		q.Set("consistency_level", c.consistency)
	}
	pending := objs
	var lastErr string
	for attempt := 0; attempt < c.retry.Attempts; attempt++ {
		if attempt > 0 {
			if err := sleep(ctx, c.backoff(attempt)); err != nil {
				return fmt.Errorf("weaviate: batch: %w (last error: %s)", err, lastErr)
			}
		}
		var answer []struct {
			ID     string `json:"id"`
			Result struct {
				Errors *struct {
					Error []struct {
						Message string `json:"message"`
					} `json:"error"`
				} `json:"errors"`
			} `json:"result"`
		}
		if err := c.do(ctx, http.MethodPost, "/v1/batch/objects", q, map[string]any{"objects": pending}, &answer, nil); err != nil {
			return err
		}
		failed := map[string]string{}
		for _, a := range answer {
			if a.Result.Errors != nil && len(a.Result.Errors.Error) > 0 {
				failed[a.ID] = a.Result.Errors.Error[0].Message
			}
		}
		if len(answer) != len(pending) && len(failed) == 0 {
			return fmt.Errorf("weaviate: batch of %d objects answered with %d results", len(pending), len(answer))
		}
		if len(failed) == 0 {
			return nil
		}
		next := make([]batchObject, 0, len(failed))
		for _, o := range pending {
			if msg, ok := failed[o.ID]; ok {
				next = append(next, o)
				lastErr = fmt.Sprintf("object %s: %s", o.ID, msg)
			}
		}
		pending = next
	}
	return fmt.Errorf("weaviate: batch: %d objects still refused after %d attempts; last: %s", len(pending), c.retry.Attempts, lastErr)
}

// Count returns the number of objects in the collection.
func (c *Client) Count(ctx context.Context, collection string) (int, error) {
	if err := CheckName(collection); err != nil {
		return 0, err
	}
	var out struct {
		Aggregate map[string][]struct {
			Meta struct {
				Count int `json:"count"`
			} `json:"meta"`
		} `json:"Aggregate"`
	}
	if err := c.graphQL(ctx, "{ Aggregate { "+collection+" { meta { count } } } }", &out); err != nil {
		return 0, fmt.Errorf("count %s: %w", collection, err)
	}
	rows := out.Aggregate[collection]
	if len(rows) != 1 {
		return 0, fmt.Errorf("count %s: %d aggregate rows", collection, len(rows))
	}
	return rows[0].Meta.Count, nil
}
