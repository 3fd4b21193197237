package index

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/reqa/reqa/index/ann"
	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/index/dense"
	"github.com/reqa/reqa/store"
)

// The file sink: a job's records, BM25 fields and dense part written into
// the bbolt index file w is writing — a new file for a build, a copy of the
// index for an append — and committed last.

// writeFile runs stages 2–5 of j into w: the records, each tokenizer's
// fields (written, or merged into the index's) and the embeddings and
// graph (new, or extended), then the meta.
func (j *job) writeFile(ctx context.Context, w *store.Writer) (store.Meta, error) {
	meta := j.meta()
	if j.old != nil && meta.Context == "" {
		meta.Context = j.choice
	}
	names, toks, err := j.tokenizers()
	if err != nil {
		return store.Meta{}, err
	}
	baseCtx, baseSent := j.base()
	if err := writeRecords(ctx, w, j.c, baseCtx, baseSent, j.opt.Progress); err != nil {
		return store.Meta{}, j.errOp(err)
	}
	// One tokenizer at a time: its two fields are built, written and
	// dropped before the next tokenizer starts, so only one tokenizer's
	// postings are ever held in memory.
	meta.Fields = nil
	if j.old != nil {
		meta.Fields = make([]store.FieldMeta, len(j.old.Fields))
	}
	merged := 0
	for k, name := range names {
		f, err := IndexFields(ctx, j.c, toks[k], j.opt.Workers, j.progress("tokenize "+name))
		if err != nil {
			return store.Meta{}, j.errOp(err)
		}
		if j.old == nil {
			fields, err := writeFields(ctx, w, name, toks[k].Norm(), f, j.progress)
			if err != nil {
				return store.Meta{}, j.errOp(err)
			}
			meta.Fields = append(meta.Fields, fields...)
			continue
		}
		if err := j.mergeFields(ctx, w, name, f, meta.Fields, &merged); err != nil {
			return store.Meta{}, err
		}
	}
	if err := j.writeDense(ctx, w, &meta); err != nil {
		return store.Meta{}, j.errOp(err)
	}
	if err := j.writeSourceFiles(w); err != nil {
		return store.Meta{}, j.errOp(err)
	}
	if err := ctx.Err(); err != nil {
		return store.Meta{}, j.errOp(err)
	}
	if err := writeContextOf(w, &meta); err != nil {
		return store.Meta{}, j.errOp(err)
	}
	if err := w.Commit(meta); err != nil {
		return store.Meta{}, err
	}
	return meta, nil
}

// writeContextOf stores every sentence's context id as the row set
// store.RowsContextOf, read from the sentences w holds, and sets
// meta.ContextOf: a reader then opens the index without reading every
// sentence record.
func writeContextOf(w *store.Writer, meta *store.Meta) error {
	var ctxOf []uint32
	err := w.Update(func(tx *store.WriteTx) error {
		ctxOf = make([]uint32, 0, meta.Sentences)
		return tx.ForEachSentence(func(s store.Sentence) error {
			ctxOf = append(ctxOf, s.ContextID)
			return nil
		})
	})
	if err != nil {
		return err
	}
	err = w.PutRows(store.RowsContextOf, len(ctxOf), 4, func(lo, hi int, dst []byte) {
		for i, c := range ctxOf[lo:hi] {
			binary.LittleEndian.PutUint32(dst[4*i:], c)
		}
	})
	if err != nil {
		return fmt.Errorf("context ids: %w", err)
	}
	meta.ContextOf = true
	return nil
}

// writeRecords stores c's contexts and sentences, numbered from baseCtx
// and baseSent (non-zero when appending), in transactions of a bounded
// size.
func writeRecords(ctx context.Context, w *store.Writer, c *Corpus, baseCtx, baseSent uint32, progress func(string, int, int)) error {
	const batch = 20000
	for lo := 0; lo < len(c.Contexts); lo += batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := w.Update(func(tx *store.WriteTx) error {
			for _, x := range c.Contexts[lo:min(lo+batch, len(c.Contexts))] {
				x.ID += baseCtx
				if err := tx.PutContext(x); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("write contexts: %w", err)
		}
	}
	for lo := 0; lo < len(c.Sentences); lo += batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := w.Update(func(tx *store.WriteTx) error {
			for _, x := range c.Sentences[lo:min(lo+batch, len(c.Sentences))] {
				x.ID += baseSent
				x.ContextID += baseCtx
				if err := tx.PutSentence(x); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("write sentences: %w", err)
		}
		if progress != nil {
			progress("write sentences", min(lo+batch, len(c.Sentences)), len(c.Sentences))
		}
	}
	return nil
}

// writeFields writes a new index's two fields of tokenizer name, whose
// tokens were made with the normalisation norm: sentence + context
// (context layout) and sentence alone.
func writeFields(ctx context.Context, w *store.Writer, name, norm string, f *bm25.ContextField, progress func(string) func(int, int)) ([]store.FieldMeta, error) {
	wc, err := f.Stats(store.FieldName(name, true), name)
	if err != nil {
		return nil, err
	}
	wc.Norm = norm
	if wc.Digest, wc.DigestTerms, err = f.Write(ctx, w, wc.Name, progress("write "+wc.Name)); err != nil {
		return nil, fmt.Errorf("write field %s: %w", wc.Name, err)
	}
	so := f.Sentences.Stats(store.FieldName(name, false), name, false)
	so.Norm = norm
	if so.Digest, so.DigestTerms, err = f.Sentences.WriteField(ctx, w, so.Name, progress("write "+so.Name)); err != nil {
		return nil, fmt.Errorf("write field %s: %w", so.Name, err)
	}
	return []store.FieldMeta{wc, so}, nil
}

// mergeFields merges the new texts' postings of tokenizer name (f) into
// the index's fields of that tokenizer, setting their metas in fields (in
// the index's order). Sentence fields (and sentence + context fields of
// the expanded layout, written before the context layout) go first: the
// statistics of a context-layout field read its sentence field. merged
// counts the fields done, for progress.
func (j *job) mergeFields(ctx context.Context, w *store.Writer, name string, f *bm25.ContextField, fields []store.FieldMeta, merged *int) error {
	old := j.old
	mergeOne := func(i int, fm store.FieldMeta) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		var err error
		switch {
		case !fm.WithContext:
			fields[i], err = bm25.AppendField(ctx, w, fm, f.Sentences)
		case fm.Layout == "":
			var b *bm25.Builder
			if b, err = f.Expand(); err == nil {
				fields[i], err = bm25.AppendField(ctx, w, fm, b)
			}
		case fm.Layout != bm25.ContextLayout:
			err = fmt.Errorf("layout %q (written by a newer reqa?): %w", fm.Layout, store.ErrNewerFormat)
		default:
			var ctxOf []uint32
			err = w.Update(func(tx *store.WriteTx) error {
				ctxOf = make([]uint32, 0, old.Sentences+len(j.c.Sentences))
				return tx.ForEachSentence(func(s store.Sentence) error {
					ctxOf = append(ctxOf, s.ContextID)
					return nil
				})
			})
			if err == nil {
				fields[i], err = bm25.AppendContextField(ctx, w, fm, old.Contexts, f, store.FieldName(fm.Tokenizer, false), ctxOf)
			}
		}
		if err != nil {
			return fmt.Errorf("field %s: %w", fm.Name, err)
		}
		*merged++
		if j.opt.Progress != nil {
			j.opt.Progress("merge postings", *merged, len(old.Fields))
		}
		return nil
	}
	for _, late := range []bool{false, true} {
		for i, fm := range old.Fields {
			if fm.Tokenizer != name || (fm.WithContext && fm.Layout == bm25.ContextLayout) != late {
				continue
			}
			if late {
				if _, ok := old.Field(store.FieldName(fm.Tokenizer, false)); !ok {
					return fmt.Errorf("append to %s: field %s: %w: its sentence field %s is missing", j.path, fm.Name, store.ErrCorrupt, store.FieldName(fm.Tokenizer, false))
				}
			}
			if err := mergeOne(i, fm); err != nil {
				return j.errOp(err)
			}
		}
	}
	return nil
}

// writeDense embeds the job's texts and writes the dense part: for a
// build with an encoder, the vectors, the model and the ANN graph over the
// answer vectors (unless opt.NoGraph); for an append to an index with
// embeddings, the index's vectors extended and its graph grown.
func (j *job) writeDense(ctx context.Context, w *store.Writer, meta *store.Meta) error {
	enc := j.opt.Encoder
	if enc == nil {
		return nil
	}
	how := j.opt.ContextVectors // an append's is the index's (Append)
	sent, ctxv, err := embed(ctx, j.c, enc, how, j.progress)
	if err != nil {
		return err
	}
	if j.old != nil {
		dm := *j.old.Dense
		meta.Dense = &dm
		return appendDense(ctx, w, j.c, *j.old, sent, ctxv, j.opt, meta.Dense)
	}
	sp := enc.Spec()
	meta.Dense = &store.DenseMeta{Encoder: sp.Name, Kind: sp.Kind, Dim: sp.Dim, Hash: sp.Hash, Precision: sp.Precision, Lambda: j.opt.Lambda, ContextVectors: how}
	var graph *ann.Graph
	answers, err := answerVectors(j.c, sent, ctxv, j.opt.Lambda)
	if err != nil {
		return err
	}
	if !j.opt.NoGraph {
		graph = ann.New(answers.Dim, j.opt.Graph)
		if err := addToGraph(ctx, graph, answers, j.opt.Progress); err != nil {
			return err
		}
		meta.Dense.Graph, meta.Dense.GraphLambda = true, j.opt.Lambda
	}
	if err := writeDenseBlobs(w, graph, j.opt.EncoderModel, j.opt.EncoderVocab, sent, ctxv, answers, meta.Dense); err != nil {
		return fmt.Errorf("write embeddings: %w", err)
	}
	return nil
}

// writeDenseBlobs stores the dense part of an index: the graph g (when
// not nil) whole and split (its layer 0 as the row set the dense ranker
// searches in place, the rest as a small blob; it sets d.GraphSlots), the
// model and vocabulary (when not nil), the answer vectors' moments, the
// vectors, which are written chunk by chunk from their arrays
// (store.Writer.PutLargeBlobFrom) rather than encoded whole first, and the
// answer vectors (for d.Lambda) as the row set the dense ranker reads in
// place; it sets d.Answers. The small blobs go in one transaction before
// the large ones: a blob put among large chunks later would copy the page
// run of its neighbour chunk (the moments after the model left a model's
// size of free pages in the file).
func writeDenseBlobs(w *store.Writer, g *ann.Graph, model, vocab []byte, sent, ctxv, answers dense.Vectors, d *store.DenseMeta) error {
	moments := dense.ComputeMoments(answers, AnswerMomentRows).Encode()
	var graph, upper []byte
	if g != nil {
		var err error
		if graph, err = g.MarshalBinary(); err != nil {
			return err
		}
		if upper, err = g.MarshalUpper(); err != nil {
			return err
		}
	}
	err := w.Update(func(tx *store.WriteTx) error {
		for _, name := range []string{store.BlobDenseMoments, store.BlobDenseGraphUpper} {
			if tx.HasBlob(name) {
				if err := tx.DeleteLargeBlob(name); err != nil {
					return err
				}
			}
		}
		for _, b := range []struct {
			name string
			v    []byte
		}{{store.BlobDenseGraphUpper, upper}, {store.BlobDenseModel, model}, {store.BlobDenseVocab, vocab}, {store.BlobDenseMoments, moments}, {store.BlobDenseGraph, graph}} {
			if b.v == nil {
				continue
			}
			if err := tx.PutLargeBlob(b.name, b.v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, b := range []struct {
		name string
		v    dense.Vectors
	}{{store.BlobDenseSent, sent}, {store.BlobDenseCtx, ctxv}} {
		if err := w.PutLargeBlobFrom(b.name, b.v.EncodedLen(), b.v.EncodeAt); err != nil {
			return err
		}
	}
	err = w.PutRows(store.RowsDenseAnswers, answers.Len(), 4*answers.Dim, func(lo, hi int, dst []byte) {
		for i, x := range answers.Data[lo*answers.Dim : hi*answers.Dim] {
			binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(x))
		}
	})
	if err != nil {
		return fmt.Errorf("answer vectors: %w", err)
	}
	d.Answers = true
	d.GraphSlots = false
	if g != nil {
		if err := w.PutRows(store.RowsDenseGraphSlots, g.Len(), 4*g.SlotWords(), g.PutSlots); err != nil {
			return fmt.Errorf("graph slots: %w", err)
		}
		d.GraphSlots = true
	}
	return nil
}

// AnswerMomentRows bounds the answer vectors whose moments are stored (an
// even sample of them on larger corpora): the mean and deviation of a
// question's dense scores over the whole index come from them.
const AnswerMomentRows = MomentRows

// appendDense extends the stored sentence and context vectors with the new
// ones and inserts the new answer vectors into the stored ANN graph, in the
// order a build of everything would have inserted them (node levels hash
// the node id, so the graph is the one a full build makes).
// storedVectors reads the sentence and context vectors an index holds,
// checked against its meta (old).
func storedVectors(tx *store.WriteTx, old store.Meta) (sent, ctxv dense.Vectors, err error) {
	d := old.Dense
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
	if sent, err = load(store.BlobDenseSent, old.Sentences); err != nil {
		return sent, ctxv, err
	}
	ctxv, err = load(store.BlobDenseCtx, old.Contexts)
	return sent, ctxv, err
}

func appendDense(ctx context.Context, w *store.Writer, c *Corpus, old store.Meta, sentVec, ctxVec dense.Vectors, opt Options, meta *store.DenseMeta) error {
	d := old.Dense
	var graph *ann.Graph
	var allSent, allCtx, answers dense.Vectors
	var ctxOf []uint32
	err := w.Update(func(tx *store.WriteTx) error {
		ctxOf = make([]uint32, 0, old.Sentences+len(c.Sentences))
		err := tx.ForEachSentence(func(s store.Sentence) error {
			ctxOf = append(ctxOf, s.ContextID)
			return nil
		})
		if err != nil {
			return err
		}
		oldSent, oldCtx, err := storedVectors(tx, old)
		if err != nil {
			return err
		}
		if d.Graph {
			var g dense.Vectors
			if graph, g, err = extendGraph(ctx, tx, c, old, ctxOf[:min(len(ctxOf), old.Sentences)], oldSent, oldCtx, sentVec, ctxVec, opt); err != nil {
				return err
			}
			if d.GraphLambda == d.Lambda {
				answers = g // the graph's vectors are the answer vectors
			}
		}
		allSent = dense.Vectors{Dim: d.Dim, Data: append(oldSent.Data, sentVec.Data...)}
		allCtx = dense.Vectors{Dim: d.Dim, Data: append(oldCtx.Data, ctxVec.Data...)}
		// The old blobs go; writeDenseBlobs stores the extended ones.
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
	if answers.Data == nil {
		if answers, err = dense.Combine(allSent, allCtx, ctxOf, d.Lambda); err != nil {
			return err
		}
	}
	return writeDenseBlobs(w, graph, nil, nil, allSent, allCtx, answers, meta)
}

// extendGraph loads the stored graph over the old answer vectors (the old
// sentences' contexts in ctxOf) and adds the new ones; it returns the
// graph and its vectors (old and new answer vectors for d.GraphLambda).
func extendGraph(ctx context.Context, tx *store.WriteTx, c *Corpus, old store.Meta, ctxOf []uint32, oldSent, oldCtx, sentVec, ctxVec dense.Vectors, opt Options) (*ann.Graph, dense.Vectors, error) {
	d := old.Dense
	fail := func(err error) (*ann.Graph, dense.Vectors, error) { return nil, dense.Vectors{}, err }
	oldAns, err := dense.Combine(oldSent, oldCtx, ctxOf, d.GraphLambda)
	if err != nil {
		return fail(err)
	}
	raw, err := tx.LargeBlob(store.BlobDenseGraph)
	if err != nil {
		return fail(err)
	}
	g, err := ann.Load(raw, oldAns.Data, d.Dim)
	if err != nil {
		return fail(fmt.Errorf("blob %s: %w", store.BlobDenseGraph, err))
	}
	ans, err := answerVectors(c, sentVec, ctxVec, d.GraphLambda)
	if err != nil {
		return fail(err)
	}
	if err := addToGraph(ctx, g, ans, opt.Progress); err != nil {
		return fail(err)
	}
	return g, dense.Vectors{Dim: d.Dim, Data: g.Vectors()}, nil
}
