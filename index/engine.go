package index

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/index/dense"
	"github.com/reqa/reqa/index/sentence"
	"github.com/reqa/reqa/index/tokenize"
	"github.com/reqa/reqa/index/weaviate"
	"github.com/reqa/reqa/store"
)

// The engine sink: a job's sentences — text, context, title, source, each
// tokenizer's tokens and the answer vector — imported into a Weaviate
// collection, then a small engine index file committed: a new one for a
// build, the index's grown for an append.

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
	// Client options (retries, consistency level, credentials, deadlines).
	Options []weaviate.Option
	// Checked, if set, is called once the engine passed the pre-flight
	// (weaviate.Client.Check), before the corpus is embedded.
	Checked func()
}

// MomentRows bounds the answer vectors BuildEngine computes their moments
// from (an even sample of them on larger corpora).
const MomentRows = 20000

// ErrEngineNeedsDense reports an engine build without an encoder: the
// engine is given reqa's own vectors, so the index must have them.
var ErrEngineNeedsDense = errors.New("an index kept in an engine needs embeddings (the dense encoder)")

// HeadingSep joins the headings of a context's heading path in its Title
// (package ingest/document's PathSep); the engine stores them apart.
const HeadingSep = " › "

// EngineBM25 is how an engine collection scores BM25 (Weaviate's BM25 is
// Lucene's, with k1 and b set on the collection).
func EngineBM25() bm25.Params {
	return bm25.Params{Variant: "lucene", K1: weaviate.BM25K1, B: weaviate.BM25B}
}

// BuildEngine embeds in as Build does, writes every sentence — its text,
// context, title, source, the tokens of each of opt.Tokenizers over
// sentence + context, and its answer vector normalize(e_s + λ·e_c) — into
// the engine collection es.Target, and then commits at out the engine
// index file: the meta (with Meta.Engine), the model and its vocabulary,
// the answer vectors' moments and the dataset's candidate ids. The import
// is resumable and idempotent (see weaviate.Client.Import); out is written
// only after the collection is complete, so a failed import leaves
// whatever was at out as it was.
func BuildEngine(ctx context.Context, in Input, out string, opt Options, es EngineSpec) (store.Meta, error) {
	if opt.Encoder == nil {
		return store.Meta{}, fmt.Errorf("build into %s: %w", es.Target, ErrEngineNeedsDense)
	}
	if len(opt.Tokenizers) == 0 {
		opt.Tokenizers = tokenize.Names()
	}
	if len(in.Records().Sentences) == 0 {
		return store.Meta{}, errNoSentences("build")
	}
	// The engine scores BM25 as Lucene does, with reqa's k1 and b.
	opt.BM25 = EngineBM25()
	j := &job{op: "build", path: out, opt: opt}
	names, _, err := j.tokenizers()
	if err != nil {
		return store.Meta{}, err
	}
	if !slices.Contains(names, "wpm") {
		return store.Meta{}, fmt.Errorf("build into %s: the engine's token property needs the wpm tokenizer", es.Target)
	}
	if err := j.form(in); err != nil {
		return store.Meta{}, err
	}
	return j.writeEngine(ctx, nil, es)
}

// writeEngine runs stages 2–5 of j into the engine es names: the answer
// vectors, the import (after the index's sentences for an append), then
// the engine index file — new at j.path for a build, w (a copy of the
// index's) grown for an append.
func (j *job) writeEngine(ctx context.Context, w *store.Writer, es EngineSpec) (store.Meta, error) {
	into := "build into"
	if j.old != nil {
		into = "append to"
	}
	names, toks, err := j.tokenizers()
	if err != nil {
		return store.Meta{}, err
	}
	meta := j.meta()
	if j.old == nil {
		sp := j.opt.Encoder.Spec()
		meta.Dense = &store.DenseMeta{Encoder: sp.Name, Kind: sp.Kind, Dim: sp.Dim, Hash: sp.Hash, Precision: sp.Precision, Lambda: j.opt.Lambda, ContextVectors: j.opt.ContextVectors}
		meta.Engine = &store.EngineMeta{Kind: weaviate.Scheme, URL: es.Target.String(), Shards: es.Layout.Shards, Replicas: es.Layout.Replicas}
		for k, name := range names {
			meta.Fields = append(meta.Fields, store.FieldMeta{Name: store.FieldName(name, true), Tokenizer: name, WithContext: true, Norm: toks[k].Norm(), Docs: len(j.c.Sentences)})
		}
	}
	client, err := weaviate.New(es.Target.Addr, es.Options...)
	if err != nil {
		return store.Meta{}, fmt.Errorf("%s %s: %w", into, es.Target, err)
	}
	var more []string
	for _, name := range names {
		if name != "wpm" {
			more = append(more, name)
		}
	}
	_, base := j.base()
	spec := weaviate.ImportSpec{Collection: es.Target.Collection, ModelHash: meta.Dense.VectorsID(), Dim: meta.Dense.Dim,
		Base: int(base), Count: len(j.c.Sentences), Layout: es.Layout, BatchSize: es.BatchSize, Restart: es.Restart,
		Tokenizers: more}
	// The pre-flight: the engine answers, takes the credentials, runs a
	// supported version and holds nothing this import cannot continue —
	// checked before the corpus is embedded, the long part.
	if err := client.Check(ctx, spec); err != nil {
		return store.Meta{}, fmt.Errorf("%s %s: %w", into, es.Target, err)
	}
	if es.Checked != nil {
		es.Checked()
	}
	sent, ctxv, err := embed(ctx, j.c, j.opt.Encoder, j.opt.ContextVectors, j.progress)
	if err != nil {
		return store.Meta{}, j.errOp(err)
	}
	answers, err := answerVectors(j.c, sent, ctxv, j.opt.Lambda)
	if err != nil {
		return store.Meta{}, j.errOp(err)
	}
	spec.Progress = j.progress("import into " + es.Target.String())
	err = client.Import(ctx, spec, func(i int) (weaviate.Sentence, error) {
		return engineSentence(j.c, i, int(base), names, toks, answers), nil
	})
	if err != nil {
		return store.Meta{}, fmt.Errorf("%s %s: %w", into, es.Target, err)
	}
	if j.old == nil {
		if err := writeEngineFile(j.path, meta, j.opt, answers, j.c); err != nil {
			return store.Meta{}, err
		}
		return meta, nil
	}
	if err := growEngineFile(w, *j.old, answers, j.c); err != nil {
		return store.Meta{}, fmt.Errorf("append to %s: %w", j.path, err)
	}
	if err := w.Commit(meta); err != nil {
		return store.Meta{}, err
	}
	return meta, nil
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
		ws.Headings = strings.Split(cx.Title, HeadingSep)
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

// writeEngineFile commits the engine index file of a build at out.
func writeEngineFile(out string, meta store.Meta, opt Options, answers dense.Vectors, c *Corpus) error {
	w, err := store.CreateWait(context.Background(), out, opt.Waiting)
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

// growEngineFile updates the engine index file of an append (w, a copy
// of the index old): the answer vectors' moments merged with the new
// ones', and the question flags extended.
func growEngineFile(w *store.Writer, old store.Meta, answers dense.Vectors, c *Corpus) error {
	return w.Update(func(tx *store.WriteTx) error {
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
}

// corpusQuestions flags c's sentences that are questions.
func corpusQuestions(c *Corpus) []bool {
	return sentence.Questions(func(i int) string {
		s := c.Sentences[i]
		return s.Text(c.Contexts[s.ContextID])
	}, len(c.Sentences))
}
