package ingest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/reqa/reqa/index/ann"
	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/index/dense"
	"github.com/reqa/reqa/index/encoder"
	"github.com/reqa/reqa/index/tokenize"
	"github.com/reqa/reqa/store"
)

// Options control Build.
type Options struct {
	// Tokenizers to build BM25 fields for; default word and wpm.
	Tokenizers []string
	// BM25 parameters; default bm25.Gensim().
	BM25 bm25.Params
	// Builder names the program building the index (stored in meta).
	Builder string
	// Workers bounds parallel tokenization; default GOMAXPROCS.
	Workers int
	// Progress, if set, is called now and then with the work done and the
	// total, in texts tokenized.
	Progress func(stage string, done, total int)
	// Encoder, if set, embeds every sentence and context; the index then
	// serves the dense ranker. The encoder's model and vocabulary are stored
	// in the index (EncoderModel, EncoderVocab).
	Encoder      *encoder.Encoder
	EncoderModel []byte
	EncoderVocab []byte
	// Lambda is the default context weight of the dense answer tower.
	Lambda float64
	// NoGraph skips building the ANN graph over the answer vectors (the
	// dense ranker then always searches exactly).
	NoGraph bool
	// Graph configures the ANN graph (zero values: package ann defaults).
	Graph ann.Config
	// EncoderThreads is the ONNX Runtime thread count of the encoder Append
	// loads from the index (0: one per core).
	EncoderThreads int
	// Waiting, if set, is called once when Append has to wait for another
	// writer of the same index.
	Waiting func()
	// Context is what a context is for text read from documents (Markdown,
	// HTML, PDF, plain text): one of ContextChoices, "" for DefaultContext
	// (Append: the index's choice). See Corpus.WithContexts.
	Context string
}

// stageProgress returns opt.Progress bound to one stage, or nil.
func (opt Options) stageProgress(stage string) func(done, total int) {
	if opt.Progress == nil {
		return nil
	}
	return func(d, t int) { opt.Progress(stage, d, t) }
}

// Blob names of the dense part of an index.
const (
	BlobDenseModel = "dense/model.onnx"
	BlobDenseVocab = "dense/vocab.json"
	BlobDenseSent  = "dense/sentences"
	BlobDenseCtx   = "dense/contexts"
	BlobDenseGraph = "dense/graph"
)

// buildGraph builds the ANN graph over the answer vectors for opt.Lambda.
func buildGraph(ctx context.Context, c *Corpus, sent, ctxv dense.Vectors, opt Options) ([]byte, error) {
	ctxOf := make([]uint32, len(c.Sentences))
	for i, s := range c.Sentences {
		ctxOf[i] = s.ContextID
	}
	answers, err := dense.Combine(sent, ctxv, ctxOf, opt.Lambda)
	if err != nil {
		return nil, err
	}
	g := ann.New(answers.Dim, opt.Graph)
	if err := addToGraph(ctx, g, answers, opt.Progress); err != nil {
		return nil, err
	}
	return g.MarshalBinary()
}

// addToGraph inserts every answer vector into g in order, reporting
// progress and stopping when ctx is cancelled.
func addToGraph(ctx context.Context, g *ann.Graph, answers dense.Vectors, progress func(string, int, int)) error {
	g.Grow(answers.Len())
	for i := 0; i < answers.Len(); i++ {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if progress != nil {
				progress("ann graph", i, answers.Len())
			}
		}
		if _, err := g.Add(answers.Row(i)); err != nil {
			return fmt.Errorf("ann graph: %w", err)
		}
	}
	if progress != nil {
		progress("ann graph", answers.Len(), answers.Len())
	}
	return nil
}

// embed encodes every sentence and context of c.
func embed(ctx context.Context, c *Corpus, opt Options) (sent, ctxv dense.Vectors, err error) {
	e := opt.Encoder
	texts := make([]string, len(c.Sentences))
	for i, s := range c.Sentences {
		texts[i] = s.Text(c.Contexts[s.ContextID])
	}
	dim := e.Spec().Dim
	flat, err := e.EncodeFlat(ctx, texts, opt.stageProgress("embed sentences"))
	if err != nil {
		return sent, ctxv, fmt.Errorf("embed sentences: %w", err)
	}
	sent = dense.Vectors{Dim: dim, Data: flat}
	texts = texts[:0]
	for _, x := range c.Contexts {
		texts = append(texts, x.Text)
	}
	if flat, err = e.EncodeFlat(ctx, texts, opt.stageProgress("embed contexts")); err != nil {
		return sent, ctxv, fmt.Errorf("embed contexts: %w", err)
	}
	return sent, dense.Vectors{Dim: dim, Data: flat}, nil
}

// writeDense stores the dense part of an index: the graph (when not nil),
// the model and vocabulary (when not nil) and the vectors, which are
// written chunk by chunk from their arrays (store.Writer.PutLargeBlobFrom)
// rather than encoded whole first.
func writeDense(w *store.Writer, graph, model, vocab []byte, sent, ctxv dense.Vectors) error {
	err := w.Update(func(tx *store.WriteTx) error {
		for _, b := range []struct {
			name string
			v    []byte
		}{{BlobDenseGraph, graph}, {BlobDenseModel, model}, {BlobDenseVocab, vocab}} {
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
	}{{BlobDenseSent, sent}, {BlobDenseCtx, ctxv}} {
		if err := w.PutLargeBlobFrom(b.name, b.v.EncodedLen(), b.v.EncodeAt); err != nil {
			return err
		}
	}
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

// FieldName is the store field of a tokenizer and document form.
func FieldName(tokenizer string, withContext bool) string {
	if withContext {
		return tokenizer + "/ctx"
	}
	return tokenizer + "/sent"
}

// IndexFields tokenizes c's contexts and sentences with tok and fills the
// tokenizer's BM25 fields: the sentence-only field (one document per
// sentence) and the sentence + context field in the context layout (one
// document per context, combined with the sentence's when read; see
// bm25.ContextLayout). Contexts, then sentences, are tokenized in chunks by
// parallel workers and added in order, so only the tokens of the chunks in
// flight are held, never the whole corpus's, and every text is tokenized
// once. It stops early with ctx's error when ctx is cancelled.
func IndexFields(ctx context.Context, c *Corpus, tok tokenize.Tokenizer, workers int, progress func(done, total int)) (*bm25.ContextField, error) {
	f := bm25.NewContextField()
	total := len(c.Contexts) + len(c.Sentences)
	report := func(done int) {
		if progress != nil {
			progress(done, total)
		}
	}
	err := inOrder(ctx, len(c.Contexts), workers, func(i int) []string {
		return tok.Tokenize(c.Contexts[i].Text)
	}, func(i int, toks []string) error {
		f.AddContext(toks)
		if (i+1)%chunkTexts == 0 || i+1 == len(c.Contexts) {
			report(i + 1)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = inOrder(ctx, len(c.Sentences), workers, func(i int) []string {
		s := c.Sentences[i]
		return tok.Tokenize(s.Text(c.Contexts[s.ContextID]))
	}, func(i int, toks []string) error {
		if err := f.AddSentence(c.Sentences[i].ContextID, toks); err != nil {
			return err
		}
		if (i+1)%chunkTexts == 0 || i+1 == len(c.Sentences) {
			report(len(c.Contexts) + i + 1)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	f.Done()
	return f, nil
}

// chunkTexts is how many texts a worker of inOrder tokenizes at a time.
const chunkTexts = 256

// inOrder calls work(i) for i in [0, n) on parallel workers, in chunks of
// chunkTexts, and consume(i, work(i)) in order of i on the calling
// goroutine. Only the chunks in flight (two per worker) are held. It stops
// at consume's first error, or with ctx's error when ctx is cancelled.
func inOrder(ctx context.Context, n, workers int, work func(i int) []string, consume func(i int, toks []string) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	window := 2 * workers
	type job struct {
		lo  int
		out chan [][]string
	}
	ctx, cancel := context.WithCancel(ctx)
	jobs := make(chan job, window)
	order := make(chan job, window)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // hands out chunks, queueing them in order
		defer wg.Done()
		defer close(jobs)
		defer close(order)
		for lo := 0; lo < n; lo += chunkTexts {
			j := job{lo, make(chan [][]string, 1)}
			select {
			case order <- j:
			case <-ctx.Done():
				return
			}
			jobs <- j
		}
	}()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				hi := min(j.lo+chunkTexts, n)
				r := make([][]string, hi-j.lo)
				if ctx.Err() == nil {
					for i := j.lo; i < hi; i++ {
						r[i-j.lo] = work(i)
					}
				}
				j.out <- r
			}
		}()
	}
	// Cancel first, then wait: on any way out, a panic included, the
	// dispatcher is released from a full queue and every goroutine ends.
	defer func() {
		cancel()
		wg.Wait()
	}()
	for j := range order {
		r := <-j.out
		if err := ctx.Err(); err != nil {
			return err
		}
		for k, toks := range r {
			if err := consume(j.lo+k, toks); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// Build indexes c into a new index file at out, replacing any index there
// only once the new one is complete. Cancelling ctx aborts the build and
// leaves out untouched.
func Build(ctx context.Context, c *Corpus, out string, opt Options) (store.Meta, error) {
	if len(opt.Tokenizers) == 0 {
		opt.Tokenizers = tokenize.Names()
	}
	if opt.BM25.Variant == "" {
		opt.BM25 = bm25.Gensim()
	}
	if len(c.Sentences) == 0 {
		return store.Meta{}, errors.New("build: the corpus has no sentences")
	}
	choice := c.contextChoice(opt.Context)
	c, err := c.WithContexts(opt.Context)
	if err != nil {
		return store.Meta{}, fmt.Errorf("build: %w", err)
	}
	progress := opt.stageProgress
	w, err := store.Create(out)
	if err != nil {
		return store.Meta{}, err
	}
	defer w.Abort()
	if err := writeRecords(ctx, w, c, 0, 0, opt.Progress); err != nil {
		return store.Meta{}, fmt.Errorf("build: %w", err)
	}
	meta := store.Meta{
		Builder: opt.Builder, Contexts: len(c.Contexts), Sentences: len(c.Sentences),
		Sources: c.Sources, Dataset: c.Dataset, DatasetDigest: c.Digest, Context: choice, BM25: opt.BM25,
	}
	// One tokenizer at a time: its two fields are built, written and
	// dropped before the next tokenizer starts, so only one tokenizer's
	// postings are ever held in memory.
	for _, name := range opt.Tokenizers {
		tok, err := tokenize.Get(name)
		if err != nil {
			return store.Meta{}, err
		}
		f, err := IndexFields(ctx, c, tok, opt.Workers, progress("tokenize "+name))
		if err != nil {
			return store.Meta{}, fmt.Errorf("build: %w", err)
		}
		wc, err := f.Stats(FieldName(name, true), name)
		if err != nil {
			return store.Meta{}, fmt.Errorf("build: %w", err)
		}
		if wc.Digest, wc.DigestTerms, err = f.Write(ctx, w, wc.Name, progress("write "+wc.Name)); err != nil {
			return store.Meta{}, fmt.Errorf("build: write field %s: %w", wc.Name, err)
		}
		so := f.Sentences.Stats(FieldName(name, false), name, false)
		if so.Digest, so.DigestTerms, err = f.Sentences.WriteField(ctx, w, so.Name, progress("write "+so.Name)); err != nil {
			return store.Meta{}, fmt.Errorf("build: write field %s: %w", so.Name, err)
		}
		meta.Fields = append(meta.Fields, wc, so)
	}
	var sentVec, ctxVec dense.Vectors
	if opt.Encoder != nil {
		var err error
		if sentVec, ctxVec, err = embed(ctx, c, opt); err != nil {
			return store.Meta{}, fmt.Errorf("build: %w", err)
		}
	}
	if opt.Encoder != nil {
		sp := opt.Encoder.Spec()
		meta.Dense = &store.DenseMeta{Encoder: sp.Name, Kind: sp.Kind, Dim: sp.Dim, Hash: sp.Hash, Lambda: opt.Lambda}
		var graph []byte
		if !opt.NoGraph {
			var err error
			if graph, err = buildGraph(ctx, c, sentVec, ctxVec, opt); err != nil {
				return store.Meta{}, fmt.Errorf("build: %w", err)
			}
			meta.Dense.Graph, meta.Dense.GraphLambda = true, opt.Lambda
		}
		if err := writeDense(w, graph, opt.EncoderModel, opt.EncoderVocab, sentVec, ctxVec); err != nil {
			return store.Meta{}, fmt.Errorf("build: write embeddings: %w", err)
		}
	}
	if err := ctx.Err(); err != nil {
		return store.Meta{}, fmt.Errorf("build: %w", err)
	}
	if err := w.Commit(meta); err != nil {
		return store.Meta{}, err
	}
	return meta, nil
}
