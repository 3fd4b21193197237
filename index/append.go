package index

import (
	"context"
	"errors"
	"fmt"

	"github.com/reqa/reqa/index/encoder"
	"github.com/reqa/reqa/index/weaviate"
	"github.com/reqa/reqa/store"
)

// ErrCannotAppend is wrapped by the errors of an append the index cannot
// take (an index built from a ReQA dataset, an encoder that is not the
// index's, …).
var ErrCannotAppend = errors.New("cannot append")

// Append adds in to the existing index at path without rebuilding it:
// only the new texts are tokenized and embedded; the BM25 postings,
// document lengths and statistics, the stored embeddings and the ANN graph
// are extended, with the new contexts and sentences numbered after the
// existing ones. The index keeps its tokenizers, BM25 parameters, encoder,
// λ, graph settings and context choice (opt's are ignored, except Workers,
// Progress, Encoder, EncoderThreads, Waiting and a Context the index has
// none of). Ranking the appended index gives the answers a build of all
// the documents at once gives (see bm25.AppendTo for the last bits of the
// mean idf). Fields keep their layout: an index written before the context
// layout (bm25.ContextLayout) is extended in the expanded one. An index
// kept in an engine (store.Meta.Engine) gets the new sentences imported
// after the collection's, and its file the new counts, vector moments and
// question flags.
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
func Append(ctx context.Context, in Input, path string, opt Options) (store.Meta, error) {
	if c := in.Records(); len(c.Sentences) == 0 {
		return store.Meta{}, errNoSentences("append")
	} else if c.Dataset != "" {
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
	var es EngineSpec
	if old.Engine != nil {
		t, err := weaviate.ParseTarget(old.Engine.URL)
		if err != nil {
			return store.Meta{}, fmt.Errorf("append to %s: %w: %w", path, store.ErrCorrupt, err)
		}
		es = EngineSpec{Target: t, Layout: weaviate.Layout{Shards: old.Engine.Shards, Replicas: old.Engine.Replicas}, Options: opt.EngineOptions}
	}
	if opt.Context == "" {
		opt.Context = old.Context
	}
	j := &job{op: "append", path: path, opt: opt, old: &old}
	if err := j.form(in); err != nil {
		return store.Meta{}, err
	}
	// Dense: the new texts are embedded with the index's own encoder, and
	// not at all when the index has no embeddings.
	j.opt.Encoder = nil
	if d := old.Dense; d != nil {
		enc, done, err := appendEncoder(w, d, opt)
		if err != nil {
			return store.Meta{}, fmt.Errorf("append to %s: %w", path, err)
		}
		defer done()
		// λ and the way context vectors are made are the index's, for
		// both sinks (an engine append once took the caller's).
		j.opt.Encoder, j.opt.Lambda, j.opt.ContextVectors = enc, d.Lambda, d.ContextVectors
	}
	if old.Engine != nil {
		return j.writeEngine(ctx, w, es)
	}
	return j.writeFile(ctx, w)
}

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

// storedEncoder loads the encoder whose model and vocabulary the index
// stores.
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
