package index

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/reqa/reqa/index/ann"
	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/index/dense"
	"github.com/reqa/reqa/index/encoder"
	"github.com/reqa/reqa/index/tokenize"
	"github.com/reqa/reqa/store"
)

// The write pipeline. Build, Append and BuildEngine run one job through the
// same stages:
//
//  1. prepare: form the corpus's contexts (an append: as the index did)
//     and settle the settings (an append: the index's tokenizers,
//     encoder and λ);
//  2. tokenize: each tokenizer's BM25 fields, or each sentence's tokens;
//  3. embed: every sentence and context, and the answer vectors;
//  4. write: into a sink — a bbolt file (fileSink) or a Weaviate
//     collection plus a small engine file (engineSink);
//  5. commit the meta, atomically, last.
//
// A build and an append differ only in the job: ids start at 0 or after
// the index's (job.base), the meta is new or the index's grown (job.meta),
// and the sink writes new data or extends what the index holds.

// job is one run of the pipeline: a build, or an append to the index old.
type job struct {
	// op names the job in errors: "build" or "append"; path is the index
	// file written.
	op, path string
	// opt holds the settings; an append's are the index's.
	opt Options
	// c is the corpus with its contexts formed, choice the context choice
	// applied ("" when there was nothing to form).
	c      *Corpus
	choice string
	// old is the meta of the index appended to; nil for a build.
	old *store.Meta
}

// form forms in's contexts as j.opt.Context says (stage 1).
func (j *job) form(in Input) error {
	c, choice, err := in.Form(j.opt.Context)
	if err != nil {
		return j.errOp(err)
	}
	j.c, j.choice = c, choice
	return nil
}

// tokenizers looks up the job's tokenizers: the options' for a build
// (with today's normalisation), the index's for an append (those of its
// fields, in order, each with the normalisation its fields were built
// with, so appended text gets the tokens the index's text has).
func (j *job) tokenizers() (names []string, toks []tokenize.Tokenizer, err error) {
	if j.old == nil {
		for _, name := range j.opt.Tokenizers {
			tok, err := tokenize.Get(name)
			if err != nil {
				return nil, nil, err
			}
			names, toks = append(names, name), append(toks, tok)
		}
		return names, toks, nil
	}
	for _, f := range j.old.Fields {
		if k := slices.Index(names, f.Tokenizer); k >= 0 {
			if toks[k].Norm() != f.Norm {
				return nil, nil, fmt.Errorf("append to %s: field %s: normalisation %q, its tokenizer's other field %q: %w", j.path, f.Name, f.Norm, toks[k].Norm(), store.ErrCorrupt)
			}
			continue
		}
		tok, err := FieldTokenizer(f)
		if err != nil {
			return nil, nil, fmt.Errorf("append to %s: %w", j.path, err)
		}
		names, toks = append(names, f.Tokenizer), append(toks, tok)
	}
	return names, toks, nil
}

// FieldTokenizer returns the tokenizer a BM25 field's tokens were made
// with: its tokenizer with its normalisation (f.Norm; "" for fields from
// before normalisation), which its questions and appended texts must be
// tokenized with too. A normalisation this reqa does not know is
// store.ErrNewerFormat.
func FieldTokenizer(f store.FieldMeta) (tokenize.Tokenizer, error) {
	tok, err := tokenize.GetNorm(f.Tokenizer, f.Norm)
	if errors.Is(err, tokenize.ErrUnknownNorm) {
		return nil, fmt.Errorf("field %s: %w: %w", f.Name, err, store.ErrNewerFormat)
	}
	if err != nil {
		return nil, fmt.Errorf("field %s: %w", f.Name, err)
	}
	return tok, nil
}

// base returns the ids the job's contexts and sentences start at.
func (j *job) base() (ctx, sent uint32) {
	if j.old == nil {
		return 0, 0
	}
	return uint32(j.old.Contexts), uint32(j.old.Sentences)
}

// meta returns the index's meta after the job, without its fields and
// dense parts for a build: a new one, or the index's with the corpus
// added.
func (j *job) meta() store.Meta {
	c := j.c
	if j.old == nil {
		return store.Meta{
			Builder: j.opt.Builder, Contexts: len(c.Contexts), Sentences: len(c.Sentences),
			Sources: c.Sources, Dataset: c.Dataset, DatasetDigest: c.Digest, Context: j.choice, BM25: j.opt.BM25,
		}
	}
	meta := *j.old
	meta.Created = time.Now().UTC()
	meta.Contexts += len(c.Contexts)
	meta.Sentences += len(c.Sentences)
	meta.Sources = append(append([]string(nil), j.old.Sources...), c.Sources...)
	return meta
}

// progress returns opt.Progress bound to one stage, or nil.
func (j *job) progress(stage string) func(done, total int) {
	return j.opt.stageProgress(stage)
}

// errNoSentences is the error for a corpus with nothing to index.
func errNoSentences(op string) error {
	return errors.New(op + ": the corpus has no sentences")
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

// checkContextVectors refuses a store.DenseMeta.ContextVectors this
// reqa does not know (ParseContextVectors lists those it does).
func checkContextVectors(how string) error {
	_, err := ParseContextVectors(contextVectorsName(how))
	return err
}

// embed encodes every sentence and context of c with enc (stage 3), in one
// pass so a context that repeats a sentence word for word (a paragraph of
// one sentence under no heading) is embedded once. With contexts
// store.ContextVectorsWindow or store.ContextVectorsSentences only the
// sentences (and any context without one) go through the encoder: a
// context's vector is made from its sentences' (contextMeans).
func embed(ctx context.Context, c *Corpus, enc *encoder.Encoder, contexts string, progress func(stage string) func(done, total int)) (sent, ctxv dense.Vectors, err error) {
	if err := checkContextVectors(contexts); err != nil {
		return sent, ctxv, fmt.Errorf("embed: %w", err)
	}
	fromSentences := contexts == store.ContextVectorsWindow || contexts == store.ContextVectorsSentences
	texts := make([]string, 0, len(c.Sentences)+len(c.Contexts))
	for _, s := range c.Sentences {
		texts = append(texts, s.Text(c.Contexts[s.ContextID]))
	}
	count := make([]int, len(c.Contexts))
	for _, s := range c.Sentences {
		count[s.ContextID]++
	}
	var lone []int // contexts embedded from their text
	for i, x := range c.Contexts {
		if !fromSentences || count[i] == 0 {
			lone = append(lone, i)
			texts = append(texts, x.Text)
		}
	}
	dim := enc.Spec().Dim
	stage := "embed sentences and contexts"
	if fromSentences {
		stage = "embed sentences"
	}
	flat, err := enc.EncodeFlat(ctx, texts, progress(stage))
	if err != nil {
		return sent, ctxv, fmt.Errorf("embed: %w", err)
	}
	n := len(c.Sentences) * dim
	sent = dense.Vectors{Dim: dim, Data: flat[:n:n]}
	if !fromSentences {
		return sent, dense.Vectors{Dim: dim, Data: flat[n:]}, nil
	}
	var weight []float64
	if contexts == store.ContextVectorsWindow {
		if weight, err = windowShares(ctx, c, enc); err != nil {
			return sent, ctxv, fmt.Errorf("embed: %w", err)
		}
	}
	return sent, contextMeans(c, sent, count, weight, lone, flat[n:]), nil
}

// windowShares returns each sentence's weight in its context's vector for
// store.ContextVectorsWindow: how many of the tokens the encoder reads of
// the context's text the sentence takes up (Encoder.PositionShares).
func windowShares(ctx context.Context, c *Corpus, enc *encoder.Encoder) ([]float64, error) {
	of := make([][]int, len(c.Contexts)) // each context's sentences, in text order
	for i, s := range c.Sentences {
		of[s.ContextID] = append(of[s.ContextID], i)
	}
	weight := make([]float64, len(c.Sentences))
	var parts [][2]int
	for id, ss := range of {
		if id%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if len(ss) == 0 {
			continue
		}
		slices.SortStableFunc(ss, func(a, b int) int { return cmp.Compare(c.Sentences[a].Start, c.Sentences[b].Start) })
		parts = parts[:0]
		for _, i := range ss {
			parts = append(parts, [2]int{c.Sentences[i].Start, c.Sentences[i].End})
		}
		for k, share := range enc.PositionShares(c.Contexts[id].Text, parts) {
			weight[ss[k]] = float64(share)
		}
	}
	return weight, nil
}

// contextMeans returns every context's vector: the normalized mean of its
// sentences' vectors in sent (count[i] of them), each weighted by
// weight[i] (nil: all alike; a context whose sentences all weigh 0 takes
// them alike), or, for the contexts in lone (those without sentences),
// their own embedding from embedded, in order.
func contextMeans(c *Corpus, sent dense.Vectors, count []int, weight []float64, lone []int, embedded []float32) dense.Vectors {
	dim := sent.Dim
	total := make([]float64, len(c.Contexts)) // of the weights
	if weight != nil {
		for i, s := range c.Sentences {
			total[s.ContextID] += weight[i]
		}
	}
	sum := make([]float64, len(c.Contexts)*dim)
	for i, s := range c.Sentences {
		w := 1.0
		if total[s.ContextID] > 0 {
			w = weight[i]
		}
		acc := sum[int(s.ContextID)*dim : int(s.ContextID+1)*dim]
		for j, x := range sent.Row(i) {
			acc[j] += w * float64(x)
		}
	}
	out := dense.Vectors{Dim: dim, Data: make([]float32, len(c.Contexts)*dim)}
	for i := range c.Contexts {
		by := float64(count[i])
		if total[i] > 0 {
			by = total[i]
		}
		if by == 0 {
			continue
		}
		row := out.Row(i)
		for j := range row {
			row[j] = float32(sum[i*dim+j] / by)
		}
		dense.Normalize(row)
	}
	for k, i := range lone {
		copy(out.Row(i), embedded[k*dim:(k+1)*dim])
	}
	return out
}

// answerVectors combines c's sentence and context vectors into its
// sentences' answer vectors normalize(e_s + λ·e_c).
func answerVectors(c *Corpus, sent, ctxv dense.Vectors, lambda float64) (dense.Vectors, error) {
	return dense.Combine(sent, ctxv, contextIDs(c.Sentences), lambda)
}

// contextIDs lists the context id of every sentence.
func contextIDs(sentences []store.Sentence) []uint32 {
	ctxOf := make([]uint32, len(sentences))
	for i, s := range sentences {
		ctxOf[i] = s.ContextID
	}
	return ctxOf
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
