package ingest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/reqa/reqa/index/ann"
	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/index/dense"
	"github.com/reqa/reqa/index/encoder"
	"github.com/reqa/reqa/index/tokenize"
	"github.com/reqa/reqa/store"
)

// ErrCannotAppend is wrapped by the errors of an append the index cannot
// take (an index built from a ReQA dataset, an encoder that is not the
// index's, …).
var ErrCannotAppend = errors.New("cannot append")

// Append adds the corpus c to the existing index at path without rebuilding
// it: only the new texts are tokenized and embedded; the BM25 postings,
// document lengths and statistics, the stored embeddings and the ANN graph
// are extended, with the new contexts and sentences numbered after the
// existing ones. The index keeps its tokenizers, BM25 parameters, encoder,
// λ and graph settings (opt's are ignored, except Workers, Progress and
// Encoder). Ranking the appended index gives the answers a build of all the
// documents at once gives (see bm25.AppendTo for the last bits of the mean
// idf). Fields keep their layout: an index written before the context
// layout (bm25.ContextLayout) is extended in the expanded one.
//
// The append works on a copy and replaces path only when complete: a
// failure, a cancelled ctx or a killed process leaves the index as it was,
// and readers keep reading the last committed state meanwhile. Concurrent
// appends to one index take turns (opt.Waiting is called when this one has
// to wait).
//
// When the index has embeddings and opt.Encoder is nil, Append loads the
// encoder stored in the index (opt.EncoderThreads threads). A given
// opt.Encoder must be the index's (same hash).
func Append(ctx context.Context, c *Corpus, path string, opt Options) (store.Meta, error) {
	if len(c.Sentences) == 0 {
		return store.Meta{}, errors.New("append: the corpus has no sentences")
	}
	if c.Dataset != "" {
		return store.Meta{}, fmt.Errorf("append to %s: %w: the input is a ReQA dataset (%s); a dataset is indexed on its own", path, ErrCannotAppend, c.Dataset)
	}
	w, old, err := store.CreateFrom(ctx, path, opt.Waiting)
	if err != nil {
		return store.Meta{}, err
	}
	defer w.Abort()
	if old.Dataset != "" {
		return store.Meta{}, fmt.Errorf("append to %s: %w: the index was built from the ReQA dataset %s and evaluations check it holds exactly that dataset; rebuild it instead", path, ErrCannotAppend, old.Dataset)
	}
	if old.Engine != nil {
		return appendEngine(ctx, c, path, w, old, opt)
	}
	if opt.Context == "" {
		opt.Context = old.Context
	}
	choice := c.contextChoice(opt.Context)
	if c, err = c.WithContexts(opt.Context); err != nil {
		return store.Meta{}, fmt.Errorf("append: %w", err)
	}
	progress := opt.stageProgress

	// BM25: tokenize the new texts with each tokenizer the index holds.
	built := map[string]*bm25.ContextField{}
	for _, fm := range old.Fields {
		if _, ok := built[fm.Tokenizer]; ok {
			continue
		}
		tok, err := tokenize.Get(fm.Tokenizer)
		if err != nil {
			return store.Meta{}, fmt.Errorf("append to %s: field %s: %w", path, fm.Name, err)
		}
		if built[fm.Tokenizer], err = IndexFields(ctx, c, tok, opt.Workers, progress("tokenize "+fm.Tokenizer)); err != nil {
			return store.Meta{}, fmt.Errorf("append: %w", err)
		}
	}

	// Dense: embed the new texts with the index's own encoder.
	var sentVec, ctxVec dense.Vectors
	if d := old.Dense; d != nil {
		enc, done, err := appendEncoder(w, d, opt)
		if err != nil {
			return store.Meta{}, fmt.Errorf("append to %s: %w", path, err)
		}
		defer done()
		opt.Encoder = enc
		if sentVec, ctxVec, err = embed(ctx, c, opt); err != nil {
			return store.Meta{}, fmt.Errorf("append: %w", err)
		}
	}

	baseCtx, baseSent := uint32(old.Contexts), uint32(old.Sentences)
	meta := old
	meta.Created = time.Now().UTC()
	meta.Contexts += len(c.Contexts)
	meta.Sentences += len(c.Sentences)
	meta.Sources = append(append([]string(nil), old.Sources...), c.Sources...)
	if meta.Context == "" {
		meta.Context = choice
	}
	meta.Fields = nil
	if err := writeRecords(ctx, w, c, baseCtx, baseSent, opt.Progress); err != nil {
		return store.Meta{}, fmt.Errorf("append: %w", err)
	}
	// Sentence fields (and sentence + context fields of the expanded
	// layout, written before the context layout) first: the statistics
	// of a context-layout field read its sentence field.
	meta.Fields = make([]store.FieldMeta, len(old.Fields))
	merged := 0
	mergeOne := func(i int, fm store.FieldMeta) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		f := built[fm.Tokenizer]
		var err error
		switch {
		case !fm.WithContext:
			meta.Fields[i], err = bm25.AppendField(ctx, w, fm, f.Sentences)
		case fm.Layout == "":
			var b *bm25.Builder
			if b, err = f.Expand(); err == nil {
				meta.Fields[i], err = bm25.AppendField(ctx, w, fm, b)
			}
		case fm.Layout != bm25.ContextLayout:
			err = fmt.Errorf("layout %q (written by a newer reqa?): %w", fm.Layout, store.ErrNewerFormat)
		default:
			var ctxOf []uint32
			err = w.Update(func(tx *store.WriteTx) error {
				ctxOf = make([]uint32, 0, meta.Sentences)
				return tx.ForEachSentence(func(s store.Sentence) error {
					ctxOf = append(ctxOf, s.ContextID)
					return nil
				})
			})
			if err == nil {
				meta.Fields[i], err = bm25.AppendContextField(ctx, w, fm, old.Contexts, f, store.FieldName(fm.Tokenizer, false), ctxOf)
			}
		}
		if err != nil {
			return fmt.Errorf("field %s: %w", fm.Name, err)
		}
		merged++
		if opt.Progress != nil {
			opt.Progress("merge postings", merged, len(old.Fields))
		}
		return nil
	}
	for _, late := range []bool{false, true} {
		for i, fm := range old.Fields {
			if (fm.WithContext && fm.Layout == bm25.ContextLayout) != late {
				continue
			}
			if late {
				if _, ok := old.Field(store.FieldName(fm.Tokenizer, false)); !ok {
					return store.Meta{}, fmt.Errorf("append to %s: field %s: %w: its sentence field %s is missing", path, fm.Name, store.ErrCorrupt, store.FieldName(fm.Tokenizer, false))
				}
			}
			if err := mergeOne(i, fm); err != nil {
				return store.Meta{}, fmt.Errorf("append: %w", err)
			}
		}
	}
	if d := old.Dense; d != nil {
		dm := *d
		meta.Dense = &dm
		if err := appendDense(ctx, w, c, old, sentVec, ctxVec, opt); err != nil {
			return store.Meta{}, fmt.Errorf("append: %w", err)
		}
	}
	if err := ctx.Err(); err != nil {
		return store.Meta{}, fmt.Errorf("append: %w", err)
	}
	if err := w.Commit(meta); err != nil {
		return store.Meta{}, err
	}
	return meta, nil
}

// storedEncoder loads the encoder whose model and vocabulary the index
// stores.
// appendEncoder returns the encoder an append embeds with: opt.Encoder
// when it is the index's own, else the one stored in the index (done
// closes it).
func appendEncoder(w *store.Writer, d *store.DenseMeta, opt Options) (enc *encoder.Encoder, done func(), err error) {
	if enc = opt.Encoder; enc != nil {
		if enc.Spec().Hash != d.Hash {
			return nil, nil, fmt.Errorf("%w: the index's embeddings come from encoder %s (hash %.12s), not %s (hash %.12s)",
				ErrCannotAppend, d.Encoder, d.Hash, enc.Spec().Name, enc.Spec().Hash)
		}
		return enc, func() {}, nil
	}
	if enc, err = storedEncoder(w, d, opt.EncoderThreads); err != nil {
		return nil, nil, err
	}
	return enc, func() { enc.Close() }, nil
}

func storedEncoder(w *store.Writer, d *store.DenseMeta, threads int) (*encoder.Encoder, error) {
	var onnx, vocab []byte
	err := w.Update(func(tx *store.WriteTx) error {
		var err error
		if onnx, err = tx.LargeBlob(store.BlobDenseModel); err != nil {
			return err
		}
		vocab, err = tx.LargeBlob(store.BlobDenseVocab)
		return err
	})
	if err != nil {
		return nil, err
	}
	return encoder.New(encoder.Spec{Name: d.Encoder, Kind: d.Kind, Dim: d.Dim, Hash: d.Hash}, onnx, vocab, encoder.Options{Threads: threads})
}

// appendDense extends the stored sentence and context vectors with the new
// ones and inserts the new answer vectors into the stored ANN graph, in the
// order a build of everything would have inserted them (node levels hash
// the node id, so the graph is the one a full build makes).
func appendDense(ctx context.Context, w *store.Writer, c *Corpus, old store.Meta, sentVec, ctxVec dense.Vectors, opt Options) error {
	d := old.Dense
	var graph []byte
	var allSent, allCtx dense.Vectors
	err := w.Update(func(tx *store.WriteTx) error {
		load := func(name string, n int) (dense.Vectors, error) {
			raw, err := tx.LargeBlob(name)
			if err != nil {
				return dense.Vectors{}, err
			}
			v, err := dense.Decode(raw)
			if err != nil {
				return v, fmt.Errorf("blob %s: %w: %w", name, store.ErrCorrupt, err)
			}
			if v.Dim != d.Dim || v.Len() != n {
				return v, fmt.Errorf("blob %s: %d×%d vectors, meta says %d×%d: %w", name, v.Len(), v.Dim, n, d.Dim, store.ErrCorrupt)
			}
			return v, nil
		}
		oldSent, err := load(store.BlobDenseSent, old.Sentences)
		if err != nil {
			return err
		}
		oldCtx, err := load(store.BlobDenseCtx, old.Contexts)
		if err != nil {
			return err
		}
		if d.Graph {
			if graph, err = extendGraph(ctx, tx, c, old, oldSent, oldCtx, sentVec, ctxVec, opt); err != nil {
				return err
			}
		}
		allSent = dense.Vectors{Dim: d.Dim, Data: append(oldSent.Data, sentVec.Data...)}
		allCtx = dense.Vectors{Dim: d.Dim, Data: append(oldCtx.Data, ctxVec.Data...)}
		// The old blobs go; writeDense stores the extended ones.
		for _, name := range []string{store.BlobDenseSent, store.BlobDenseCtx, store.BlobDenseGraph} {
			if name == store.BlobDenseGraph && graph == nil {
				continue
			}
			if err := tx.DeleteLargeBlob(name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeDense(w, graph, nil, nil, allSent, allCtx)
}

// extendGraph loads the stored graph over the old answer vectors and adds
// the new ones.
func extendGraph(ctx context.Context, tx *store.WriteTx, c *Corpus, old store.Meta, oldSent, oldCtx, sentVec, ctxVec dense.Vectors, opt Options) ([]byte, error) {
	d := old.Dense
	ctxOf := make([]uint32, 0, old.Sentences)
	err := tx.ForEachSentence(func(s store.Sentence) error {
		ctxOf = append(ctxOf, s.ContextID)
		return nil
	})
	if err != nil {
		return nil, err
	}
	ctxOf = ctxOf[:min(len(ctxOf), old.Sentences)]
	oldAns, err := dense.Combine(oldSent, oldCtx, ctxOf, d.GraphLambda)
	if err != nil {
		return nil, err
	}
	raw, err := tx.LargeBlob(store.BlobDenseGraph)
	if err != nil {
		return nil, err
	}
	g, err := ann.Load(raw, oldAns.Data, d.Dim)
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", store.BlobDenseGraph, err)
	}
	newCtxOf := make([]uint32, len(c.Sentences))
	for i, s := range c.Sentences {
		newCtxOf[i] = s.ContextID
	}
	ans, err := dense.Combine(sentVec, ctxVec, newCtxOf, d.GraphLambda)
	if err != nil {
		return nil, err
	}
	if err := addToGraph(ctx, g, ans, opt.Progress); err != nil {
		return nil, err
	}
	return g.MarshalBinary()
}
