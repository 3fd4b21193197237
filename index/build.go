package index

import (
	"context"
	"fmt"
	"github.com/reqa/reqa/index/weaviate"

	"github.com/reqa/reqa/index/ann"
	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/index/encoder"
	"github.com/reqa/reqa/index/tokenize"
	"github.com/reqa/reqa/store"
)

// Options control Build, Append and BuildEngine.
type Options struct {
	// Tokenizers to build BM25 fields for; default all (tokenize.Names).
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
	// ContextVectors is how a build makes context vectors: "" with the
	// encoder from each context's text, store.ContextVectorsSentences as
	// the normalized mean of its sentences' vectors (about half the
	// embedding work on real documents; store.DenseMeta.ContextVectors).
	// Append and sync keep the index's choice.
	ContextVectors string
	// NoGraph skips building the ANN graph over the answer vectors (the
	// dense ranker then always searches exactly).
	NoGraph bool
	// Graph configures the ANN graph (zero values: package ann defaults).
	Graph ann.Config
	// EncoderThreads is the ONNX Runtime thread count of the encoder Append
	// loads from the index (0: one per core).
	EncoderThreads int
	// Waiting, if set, is called once when Build or Append has to wait
	// for another writer of the same index (a rebuild or an append in
	// progress: writers of one index take turns).
	Waiting func()
	// Context is what a context is for text read from documents, passed to
	// the Input's Form (package ingest: one of ingest.ContextChoices, ""
	// for its default); Append: "" keeps the index's choice.
	Context string
	// EngineOptions configure the engine client of an Append to an index
	// kept in an engine (credentials, deadlines); BuildEngine takes
	// EngineSpec.Options.
	EngineOptions []weaviate.Option
}

// stageProgress returns opt.Progress bound to one stage, or nil.
func (opt Options) stageProgress(stage string) func(done, total int) {
	if opt.Progress == nil {
		return nil
	}
	return func(d, t int) { opt.Progress(stage, d, t) }
}

// Build indexes in into a new index file at out, replacing any index there
// only once the new one is complete. Cancelling ctx aborts the build and
// leaves out untouched.
//
// Each requested tokenizer fills one BM25 field per document form
// (sentence + context, sentence alone); memory follows one tokenizer's
// postings, not the corpus's tokens: [IndexFields] streams chunks of
// contexts, then of sentences, from parallel tokenizers into the builders
// in order, and each tokenizer's fields are written (over bounded
// transactions) before the next starts. With opt.Encoder, every sentence
// and context is embedded and the ANN graph built over the answer vectors.
func Build(ctx context.Context, in Input, out string, opt Options) (store.Meta, error) {
	if len(opt.Tokenizers) == 0 {
		opt.Tokenizers = tokenize.Names()
	}
	if opt.BM25.Variant == "" {
		opt.BM25 = bm25.Gensim()
	}
	if len(in.Records().Sentences) == 0 {
		return store.Meta{}, errNoSentences("build")
	}
	if err := checkContextVectors(opt.ContextVectors); err != nil {
		return store.Meta{}, fmt.Errorf("build: %w", err)
	}
	j := &job{op: "build", path: out, opt: opt}
	if err := j.form(in); err != nil {
		return store.Meta{}, err
	}
	w, err := store.CreateWait(ctx, out, opt.Waiting)
	if err != nil {
		return store.Meta{}, err
	}
	defer w.Abort()
	return j.writeFile(ctx, w)
}

// errOp wraps err with the job's name ("build: …", "append: …").
func (j *job) errOp(err error) error {
	return fmt.Errorf("%s: %w", j.op, err)
}
