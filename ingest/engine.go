package ingest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/index/dense"
	"github.com/reqa/reqa/index/sentence"
	"github.com/reqa/reqa/index/tokenize"
	"github.com/reqa/reqa/index/weaviate"
	"github.com/reqa/reqa/ingest/document"
	"github.com/reqa/reqa/store"
)

// EngineSpec says where BuildEngine puts an index's data.
type EngineSpec struct {
	// Target is the Weaviate nodes and collection.
	Target weaviate.Target
	// Layout is the collection's shards and replicas, used when it is
	// created.
	Layout weaviate.Layout
	// Restart re-sends every sentence even when the collection's manifest
	// says an earlier import wrote them.
	Restart bool
	// BatchSize is the objects per batch request (0: the client's default).
	BatchSize int
	// Client options (retries, consistency level).
	Options []weaviate.Option
}

// MomentRows bounds the answer vectors BuildEngine computes their moments
// from (an even sample of them on larger corpora).
const MomentRows = 20000

// ErrEngineNeedsDense reports an engine build without an encoder: the
// engine is given reqa's own vectors, so the index must have them.
var ErrEngineNeedsDense = errors.New("an index kept in an engine needs embeddings (the dense encoder)")

// EngineBM25 is how an engine collection scores BM25 (Weaviate's BM25 is
// Lucene's, with k1 and b set on the collection).
func EngineBM25() bm25.Params {
	return bm25.Params{Variant: "lucene", K1: weaviate.BM25K1, B: weaviate.BM25B}
}

// BuildEngine reads and embeds c as Build does, writes every sentence —
// its text, context, title, source, the tokens of each of opt.Tokenizers
// over sentence + context, and its answer vector normalize(e_s + λ·e_c) —
// into the engine collection es.Target, and then commits at out the
// engine index file: the meta (with Meta.Engine), the model and its
// vocabulary, the answer vectors' moments and the dataset's candidate ids.
// The import is resumable and idempotent (see weaviate.Client.Import);
// out is written only after the collection is complete, so a failed
// import leaves whatever was at out as it was.
func BuildEngine(ctx context.Context, c *Corpus, out string, opt Options, es EngineSpec) (store.Meta, error) {
	if opt.Encoder == nil {
		return store.Meta{}, fmt.Errorf("build into %s: %w", es.Target, ErrEngineNeedsDense)
	}
	if len(opt.Tokenizers) == 0 {
		opt.Tokenizers = tokenize.Names()
	}
	if len(c.Sentences) == 0 {
		return store.Meta{}, errors.New("build: the corpus has no sentences")
	}
	// The engine scores BM25 as Lucene does, with reqa's k1 and b.
	opt.BM25 = EngineBM25()
	toks := make([]tokenize.Tokenizer, len(opt.Tokenizers))
	hasWPM := false
	for i, name := range opt.Tokenizers {
		t, err := tokenize.Get(name)
		if err != nil {
			return store.Meta{}, err
		}
		toks[i] = t
		hasWPM = hasWPM || name == "wpm"
	}
	if !hasWPM {
		return store.Meta{}, fmt.Errorf("build into %s: the engine's token property needs the wpm tokenizer", es.Target)
	}
	choice := c.contextChoice(opt.Context)
	c, err := c.WithContexts(opt.Context)
	if err != nil {
		return store.Meta{}, fmt.Errorf("build: %w", err)
	}
	answers, err := answerVectors(ctx, c, opt)
	if err != nil {
		return store.Meta{}, fmt.Errorf("build: %w", err)
	}
	sp := opt.Encoder.Spec()
	meta := store.Meta{
		Builder: opt.Builder, Contexts: len(c.Contexts), Sentences: len(c.Sentences),
		Sources: c.Sources, Dataset: c.Dataset, DatasetDigest: c.Digest, Context: choice, BM25: opt.BM25,
		Dense:  &store.DenseMeta{Encoder: sp.Name, Kind: sp.Kind, Dim: sp.Dim, Hash: sp.Hash, Precision: sp.Precision, Lambda: opt.Lambda},
		Engine: &store.EngineMeta{Kind: weaviate.Scheme, URL: es.Target.String(), Shards: es.Layout.Shards, Replicas: es.Layout.Replicas},
	}
	for _, name := range opt.Tokenizers {
		meta.Fields = append(meta.Fields, store.FieldMeta{Name: store.FieldName(name, true), Tokenizer: name, WithContext: true, Docs: len(c.Sentences)})
	}
	client, err := weaviate.New(es.Target.Addr, es.Options...)
	if err != nil {
		return store.Meta{}, err
	}
	var more []string
	for _, name := range opt.Tokenizers {
		if name != "wpm" {
			more = append(more, name)
		}
	}
	spec := weaviate.ImportSpec{Collection: es.Target.Collection, ModelHash: meta.Dense.VectorsID(), Dim: sp.Dim,
		Count: len(c.Sentences), Layout: es.Layout, BatchSize: es.BatchSize, Restart: es.Restart, Tokenizers: more,
		Progress: opt.stageProgress("import into " + es.Target.String())}
	err = client.Import(ctx, spec, func(i int) (weaviate.Sentence, error) {
		return engineSentence(c, i, 0, opt.Tokenizers, toks, answers), nil
	})
	if err != nil {
		return store.Meta{}, fmt.Errorf("build into %s: %w", es.Target, err)
	}
	return meta, writeEngineFile(out, meta, opt, answers, c)
}

// answerVectors embeds c and returns every sentence's answer vector
// normalize(e_s + λ·e_c), λ = opt.Lambda.
func answerVectors(ctx context.Context, c *Corpus, opt Options) (dense.Vectors, error) {
	sentVec, ctxVec, err := embed(ctx, c, opt)
	if err != nil {
		return dense.Vectors{}, err
	}
	ctxOf := make([]uint32, len(c.Sentences))
	for i, s := range c.Sentences {
		ctxOf[i] = s.ContextID
	}
	return dense.Combine(sentVec, ctxVec, ctxOf, opt.Lambda)
}

// engineSentence is sentence i of c as the engine stores it, under the
// sentence id base+i.
func engineSentence(c *Corpus, i, base int, names []string, toks []tokenize.Tokenizer, answers dense.Vectors) weaviate.Sentence {
	s := c.Sentences[i]
	cx := c.Contexts[s.ContextID]
	text := s.Text(cx)
	ws := weaviate.Sentence{ID: base + i, Text: text, Context: cx.Text, Title: cx.Title, Source: s.Anchor(cx),
		Ext: s.ExtID, Start: s.Start, End: s.End, Kind: blockKind(s.Kind), Vector: answers.Row(i), More: map[string][]string{}}
	if cx.Slug != "" { // a structured document's context: Title is its heading path
		ws.Headings = strings.Split(cx.Title, document.PathSep)
	}
	for j, name := range names {
		t := engineTokens(toks[j], text, cx.Text)
		if name == "wpm" {
			ws.Tokens = t
		} else {
			ws.More[name] = t
		}
	}
	return ws
}

// engineTokens are a tokenizer's tokens of sentence + context, as the
// local sentence + context field counts them, with any white space inside
// a token (the engine splits there) replaced.
func engineTokens(tok tokenize.Tokenizer, sentence, context string) []string {
	return weaviate.Tokens(append(tok.Tokenize(sentence), tok.Tokenize(context)...))
}

// blockKind names a block kind as answers do; plain text has none.
func blockKind(k store.Kind) string {
	if k == store.KindText {
		return ""
	}
	return k.String()
}

// writeEngineFile commits the engine index file at out.
func writeEngineFile(out string, meta store.Meta, opt Options, answers dense.Vectors, c *Corpus) error {
	w, err := store.Create(out)
	if err != nil {
		return err
	}
	defer w.Abort()
	var ext strings.Builder
	hasExt := false
	for _, s := range c.Sentences {
		if strings.ContainsAny(s.ExtID, "\n\r") {
			return fmt.Errorf("build: candidate id %q holds a line break", s.ExtID)
		}
		hasExt = hasExt || s.ExtID != ""
		ext.WriteString(s.ExtID)
		ext.WriteByte('\n')
	}
	moments := dense.ComputeMoments(answers, MomentRows).Encode()
	questions := sentence.EncodeFlags(corpusQuestions(c))
	err = w.Update(func(tx *store.WriteTx) error {
		blobs := []struct {
			name string
			v    []byte
		}{{store.BlobDenseModel, opt.EncoderModel}, {store.BlobDenseVocab, opt.EncoderVocab}, {store.BlobDenseMoments, moments},
			{store.BlobQuestions, questions}}
		if hasExt {
			blobs = append(blobs, struct {
				name string
				v    []byte
			}{store.BlobExtIDs, []byte(ext.String())})
		}
		for _, b := range blobs {
			if err := tx.PutLargeBlob(b.name, b.v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("build: write %s: %w", out, err)
	}
	return w.Commit(meta)
}

// appendEngine is Append for an index kept in an engine: the new text is
// embedded with the index's own encoder and imported after the
// collection's sentences (weaviate.ImportSpec.Base); the index file (w, a
// copy of it) gets the new counts and the merged vector moments, and is
// committed only after the collection is complete again.
func appendEngine(ctx context.Context, c *Corpus, path string, w *store.Writer, old store.Meta, opt Options) (store.Meta, error) {
	t, err := weaviate.ParseTarget(old.Engine.URL)
	if err != nil {
		return store.Meta{}, fmt.Errorf("append to %s: %w: %w", path, store.ErrCorrupt, err)
	}
	if opt.Context == "" {
		opt.Context = old.Context
	}
	if c, err = c.WithContexts(opt.Context); err != nil {
		return store.Meta{}, fmt.Errorf("append: %w", err)
	}
	d := old.Dense
	enc, done, err := appendEncoder(w, d, opt)
	if err != nil {
		return store.Meta{}, fmt.Errorf("append to %s: %w", path, err)
	}
	defer done()
	opt.Encoder, opt.Lambda = enc, d.Lambda
	answers, err := answerVectors(ctx, c, opt)
	if err != nil {
		return store.Meta{}, fmt.Errorf("append: %w", err)
	}
	var names, more []string
	var toks []tokenize.Tokenizer
	for _, f := range old.Fields {
		tok, err := tokenize.Get(f.Tokenizer)
		if err != nil {
			return store.Meta{}, fmt.Errorf("append to %s: field %s: %w", path, f.Name, err)
		}
		names, toks = append(names, f.Tokenizer), append(toks, tok)
		if f.Tokenizer != "wpm" {
			more = append(more, f.Tokenizer)
		}
	}
	client, err := weaviate.New(t.Addr)
	if err != nil {
		return store.Meta{}, err
	}
	base := old.Sentences
	spec := weaviate.ImportSpec{Collection: t.Collection, ModelHash: d.VectorsID(), Dim: d.Dim, Base: base, Count: len(c.Sentences),
		Layout: weaviate.Layout{Shards: old.Engine.Shards, Replicas: old.Engine.Replicas}, Tokenizers: more,
		Progress: opt.stageProgress("import into " + t.String())}
	err = client.Import(ctx, spec, func(i int) (weaviate.Sentence, error) {
		return engineSentence(c, i, base, names, toks, answers), nil
	})
	if err != nil {
		return store.Meta{}, fmt.Errorf("append to %s: %w", t, err)
	}
	err = w.Update(func(tx *store.WriteTx) error {
		raw, err := tx.LargeBlob(store.BlobDenseMoments)
		if err != nil {
			return err
		}
		prev, err := dense.DecodeMoments(raw)
		if err != nil {
			return fmt.Errorf("blob %s: %w: %w", store.BlobDenseMoments, store.ErrCorrupt, err)
		}
		merged, err := prev.Merge(dense.ComputeMoments(answers, MomentRows))
		if err != nil {
			return err
		}
		if err := tx.DeleteLargeBlob(store.BlobDenseMoments); err != nil {
			return err
		}
		if err := tx.PutLargeBlob(store.BlobDenseMoments, merged.Encode()); err != nil {
			return err
		}
		// The question flags: the old ones (an index file written before
		// them has none, and its questions stay unknown) and the new.
		if !tx.HasBlob(store.BlobQuestions) {
			return nil
		}
		raw, err = tx.LargeBlob(store.BlobQuestions)
		if err != nil {
			return err
		}
		flags, err := sentence.DecodeFlags(raw, old.Sentences)
		if err != nil {
			return fmt.Errorf("blob %s: %w: %w", store.BlobQuestions, store.ErrCorrupt, err)
		}
		if err := tx.DeleteLargeBlob(store.BlobQuestions); err != nil {
			return err
		}
		return tx.PutLargeBlob(store.BlobQuestions, sentence.EncodeFlags(append(flags, corpusQuestions(c)...)))
	})
	if err != nil {
		return store.Meta{}, fmt.Errorf("append to %s: %w", path, err)
	}
	meta := old
	meta.Created = time.Now().UTC()
	meta.Contexts += len(c.Contexts)
	meta.Sentences += len(c.Sentences)
	meta.Sources = append(append([]string(nil), old.Sources...), c.Sources...)
	if err := w.Commit(meta); err != nil {
		return store.Meta{}, err
	}
	return meta, nil
}

// corpusQuestions flags c's sentences that are questions.
func corpusQuestions(c *Corpus) []bool {
	return sentence.Questions(func(i int) string {
		s := c.Sentences[i]
		return s.Text(c.Contexts[s.ContextID])
	}, len(c.Sentences))
}
