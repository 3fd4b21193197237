package rank

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/reqa/reqa/index/dense"
	"github.com/reqa/reqa/index/sentence"
	"github.com/reqa/reqa/index/tokenize"
	"github.com/reqa/reqa/index/weaviate"
	"github.com/reqa/reqa/rank/fuse"
	"github.com/reqa/reqa/store"
)

// An index kept in an external engine (store.Meta.Engine: Weaviate) is
// answered by rankers that ask the engine for their best candidates:
// BM25 over the collection's token property of each tokenizer, and
// nearVector with the question embedded here (through the index's question
// adapter). A fusion asks each input for its RemoteDepth best, completes
// every input's score of every candidate in that pool (filtered queries),
// and fuses them with each input's statistics over the whole collection:
// the dense ones exactly from the answer vectors' moments stored in the
// index file (BlobDenseMoments), BM25's from its RemoteStatsDepth best
// scores (every other candidate counted as 0).

// RemoteDepth is how many candidates each input of an engine fusion
// contributes to the pool, and how many a single engine ranker ranks.
const RemoteDepth = 100

// RemoteStatsDepth is how many BM25 scores an engine fusion reads to
// estimate a BM25 input's mean and deviation over the collection (the
// rest counted as 0). Simulated on the SQuAD test half's default fusion
// (rank/remote_experiment_test.go), P@1 against exact statistics 67.23:
// 10 → 66.07, 50 → 66.80, 100 → 67.09, 200 → 67.18, 1,000 → 66.95; the
// pool's own statistics 67.05. A BM25 query of 1,000 took Weaviate 30
// times as long as one of 100, so the pool depth it is.
const RemoteStatsDepth = RemoteDepth

// RemoteWorkers is how many questions Run asks an engine at once (its
// rankers wait on the network, not on this machine's cores).
const RemoteWorkers = 8

// Parallelism is how many questions at once a ranker is best asked
// (evaluation's workers): GOMAXPROCS, or RemoteWorkers for the rankers
// of an index kept in an engine, which wait on the network, not on this
// machine's cores.
func Parallelism(r Ranker) int {
	n := runtime.GOMAXPROCS(0)
	switch r.(type) {
	case *remoteBM25, *remoteDense, *pooledFusion:
		n = max(n, RemoteWorkers)
	}
	return n
}

// ErrEngineRanker reports a ranker an index kept in an engine cannot
// serve (it wraps ErrUnknownRanker too).
var ErrEngineRanker = errors.New("not served by an index kept in an engine")

// engine is the backend of an index file whose meta names an engine
// (store.Meta.Engine): its sentences, tokens and answer vectors are in a
// Weaviate collection; the file holds the model, the answer vectors'
// moments, the candidate ids, the question flags and what was tuned.
type engine struct {
	x      *Index
	r      *store.Reader
	target weaviate.Target
	client *weaviate.Client
	// within bounds the time one question may take (QuestionTimeout).
	within time.Duration

	colMu sync.Mutex
	col   *weaviate.Collection

	momOnce sync.Once
	moments dense.Moments
	momErr  error

	extOnce sync.Once
	ext     map[string]uint32
	extErr  error
}

// QuestionTimeout bounds the time one question asked of an engine may
// take, every request and retry included (embedding the question too):
// past it the question fails with weaviate.ErrDeadline. Each request is
// bounded by weaviate.DefaultDeadlines besides.
const QuestionTimeout = 60 * time.Second

// openWeaviate prepares the engine named by the index's meta; nothing is
// asked of the engine until a ranker needs it.
func openWeaviate(x *Index, o OpenOptions) (*engine, error) {
	r := x.r
	em := r.Meta().Engine
	if em.Kind != weaviate.Scheme {
		return nil, fmt.Errorf("index %s: engine %q: this reqa knows %q: %w", r.Path(), em.Kind, weaviate.Scheme, store.ErrNewerFormat)
	}
	if r.Meta().Dense == nil {
		return nil, fmt.Errorf("index %s: an engine index without embeddings: %w", r.Path(), store.ErrCorrupt)
	}
	t, err := weaviate.ParseTarget(em.URL)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w: %w", r.Path(), store.ErrCorrupt, err)
	}
	var opts []weaviate.Option
	if em.Replicas > 1 {
		opts = append(opts, weaviate.WithConsistency(RemoteConsistency))
	}
	if o.Engine == nil {
		// No options given: the API key from the environment, if any.
		env, err := weaviate.Credentials{}.Options()
		if err != nil {
			return nil, fmt.Errorf("index %s: %w", r.Path(), err)
		}
		opts = append(opts, env...)
	}
	c, err := weaviate.New(t.Addr, append(opts, o.Engine...)...)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", r.Path(), err)
	}
	return &engine{x: x, r: r, target: t, client: c, within: cmp.Or(o.QuestionTimeout, QuestionTimeout)}, nil
}

// RemoteConsistency is the consistency level of engine queries on a
// replicated collection: QUORUM, so answers stay those of the healthy
// cluster while a replica is down.
const RemoteConsistency = "QUORUM"

func (g *engine) url() string { return g.target.String() }

// question bounds one question's work on the engine (g.within).
func (g *engine) question(ctx context.Context) (context.Context, context.CancelFunc) {
	return withQuestionDeadline(ctx, g.within)
}

func withQuestionDeadline(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, d, fmt.Errorf("%w: the engine did not answer the question within %v", weaviate.ErrDeadline, d))
}

// allSentences: the sentences are in the engine.
func (g *engine) allSentences() []store.Sentence { return nil }

// serves reports whether the engine can run the fusion p: not the
// re-ranker, and only plain BM25 and dense inputs.
func (g *engine) serves(p fuse.Params) bool {
	if p.Method == "rerank" {
		return false
	}
	for _, in := range p.Inputs {
		s, err := ParseSpec(in)
		if err != nil || s.SentenceOnly || (s.Kind != KindBM25 && s.Kind != KindDense) {
			return false
		}
	}
	return true
}

// questions reads the sentences' question flags stored in the file (nil
// when it has none).
func (g *engine) questions() ([]bool, error) {
	if !g.r.HasBlob(store.BlobQuestions) {
		return nil, nil
	}
	raw, err := g.r.LargeBlob(store.BlobQuestions)
	if err != nil {
		return nil, err
	}
	q, err := sentence.DecodeFlags(raw, g.r.Meta().Sentences)
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w: %w", store.BlobQuestions, store.ErrCorrupt, err)
	}
	return q, nil
}

// answers fetches the objects of ids from the engine.
func (g *engine) answers(ctx context.Context, ids []uint32, yield func(Answer) bool) error {
	col, err := g.collection()
	if err != nil {
		return err
	}
	is := make([]int, len(ids))
	for i, id := range ids {
		is[i] = int(id)
	}
	objs, err := col.Objects(ctx, is)
	if err != nil {
		return err
	}
	for _, o := range objs {
		a := Answer{Sentence: o.Text, Context: o.Context, Start: o.Start, End: o.End,
			Title: o.Title, Source: o.Source, Kind: o.Kind, SentenceID: uint32(o.ID), CandidateID: o.Ext}
		if o.End > len(o.Context) || o.Start > o.End || o.Context[o.Start:o.End] != o.Text {
			a.Start, a.End = 0, 0
			if j := strings.Index(o.Context, o.Text); j >= 0 {
				a.Start, a.End = j, j+len(o.Text)
			}
		}
		if !yield(a) {
			return nil
		}
	}
	return nil
}

// collection opens the engine's collection, checking that it was built by
// this index's model and completely imported. A success is kept; a failure
// is not (the engine may be back on the next question: a long-running
// serve must not stay broken by one outage).
func (g *engine) collection() (*weaviate.Collection, error) {
	rm, e := g, g
	rm.colMu.Lock()
	defer rm.colMu.Unlock()
	if rm.col != nil {
		return rm.col, nil
	}
	ctx, cancel := g.question(context.Background())
	defer cancel()
	col, err := rm.client.Open(ctx, rm.target.Collection, e.r.Meta().Dense.VectorsID())
	if err == nil && col.Manifest().Sentences != e.r.Meta().Sentences {
		err = fmt.Errorf("%w: collection %s holds %d sentences, index %s says %d", weaviate.ErrSchema,
			rm.target.Collection, col.Manifest().Sentences, e.r.Path(), e.r.Meta().Sentences)
	}
	if err != nil {
		return nil, fmt.Errorf("engine %s: %w", rm.target, err)
	}
	rm.col = col
	return col, nil
}

func (g *engine) denseMoments() (dense.Moments, error) {
	rm, e := g, g
	rm.momOnce.Do(func() {
		raw, err := e.r.LargeBlob(store.BlobDenseMoments)
		if err == nil {
			rm.moments, err = dense.DecodeMoments(raw)
			if err == nil && rm.moments.Dim != e.r.Meta().Dense.Dim {
				err = fmt.Errorf("moments of dimension %d, meta says %d", rm.moments.Dim, e.r.Meta().Dense.Dim)
			}
			if err != nil {
				err = fmt.Errorf("%w: %w", store.ErrCorrupt, err)
			}
		}
		if err != nil {
			rm.momErr = fmt.Errorf("blob %s: %w", store.BlobDenseMoments, err)
		}
	})
	return rm.moments, rm.momErr
}

// extID maps a dataset candidate id to its sentence id.
func (g *engine) extID(ext string) (uint32, bool) {
	rm, e := g, g
	rm.extOnce.Do(func() {
		rm.ext = map[string]uint32{}
		if !e.r.HasBlob(store.BlobExtIDs) {
			return
		}
		raw, err := e.r.LargeBlob(store.BlobExtIDs)
		if err != nil {
			rm.extErr = err
			return
		}
		for i, id := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
			if id != "" {
				rm.ext[id] = uint32(i)
			}
		}
	})
	id, ok := rm.ext[ext]
	return id, ok
}

// maxRepeat bounds the repeats a weighted query token is sent as.
const maxRepeat = 16

// repeated turns weighted query tokens (tokenize.Tokenizer.Query's) into
// the tokens a BM25 query to the engine sends: a token of weight w
// repeated w·scale times, scale the smallest whole number (up to
// maxRepeat) that makes every w·scale whole. Weaviate counts a repeated
// query term once per repeat, so its scores come back multiplied by
// scale, and BM25 being a sum over the query's terms, dividing them by
// scale gives the weighted score the embedded path computes.
func repeated(tokens []string, weights []float64) ([]string, float64, error) {
	if weights == nil {
		return tokens, 1, nil
	}
	if len(weights) != len(tokens) {
		return nil, 0, fmt.Errorf("%d weights for %d query tokens", len(weights), len(tokens))
	}
	whole := func(x float64) bool { return math.Abs(x-math.Round(x)) < 1e-9 }
	for scale := 1; scale <= maxRepeat; scale++ {
		ok := true
		for _, w := range weights {
			if !(w > 0) || !whole(w*float64(scale)) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		out := make([]string, 0, len(tokens)*scale)
		for i, t := range tokens {
			for range int(math.Round(weights[i] * float64(scale))) {
				out = append(out, t)
			}
		}
		return out, float64(scale), nil
	}
	return nil, 0, fmt.Errorf("query token weights %v: no scale up to %d makes them whole numbers of repeats for the engine", weights, maxRepeat)
}

// unscale divides the engine's scores of hits by q's scale.
func (q poolQuery) unscale(hits []weaviate.Hit) []weaviate.Hit {
	if q.scale != 0 && q.scale != 1 {
		for i := range hits {
			hits[i].Score /= q.scale
		}
	}
	return hits
}

// remoteBM25 is "bm25-TOKENIZER" of an engine index.
type remoteBM25 struct {
	name      string
	tokenizer string
	tok       tokenize.Tokenizer
	col       *weaviate.Collection
	n         int
	within    time.Duration
}

func (b *remoteBM25) Name() string { return b.name }
func (b *remoteBM25) Docs() int    { return b.n }
func (b *remoteBM25) prepare(_ context.Context, q string) (poolQuery, error) {
	toks, scale, err := repeated(b.tok.Query(q))
	if err != nil {
		return poolQuery{}, fmt.Errorf("%s: %w", b.name, err)
	}
	return poolQuery{tokens: weaviate.Tokens(toks), scale: scale}, nil
}
func (b *remoteBM25) top(ctx context.Context, q poolQuery, k int) ([]weaviate.Hit, error) {
	hits, err := b.col.BM25In(ctx, b.tokenizer, q.tokens, k, nil)
	return q.unscale(hits), err
}
func (b *remoteBM25) scoresOf(ctx context.Context, q poolQuery, ids []int) (map[int]float64, error) {
	hits, err := b.col.BM25In(ctx, b.tokenizer, q.tokens, len(ids), ids)
	return hitMap(q.unscale(hits)), err
}

// stats estimates BM25's mean and deviation over the collection from the
// best hits, every other candidate counted as 0 (the lowest scores are
// the ones left out).
func (b *remoteBM25) stats(_ poolQuery, best []weaviate.Hit) fuse.Stats {
	s := hitStats(best)
	var sum, sq float64
	for _, h := range best {
		sum += h.Score
		sq += h.Score * h.Score
	}
	n := float64(max(b.n, len(best), 1))
	s.Mean = sum / n
	s.Std = math.Sqrt(max(sq/n-s.Mean*s.Mean, 0))
	s.Min = min(s.Min, 0)
	return s
}
func (b *remoteBM25) ScoreAll(ctx context.Context, question string, s *Scores) error {
	return scoreRemote(ctx, b, question, s, b.within)
}
func (b *remoteBM25) TopK(ctx context.Context, question string, k int) ([]Hit, error) {
	return topRemote(ctx, b, question, k, b.within)
}

// remoteDense is "dense" of an engine index.
type remoteDense struct {
	name    string
	q       *DenseRanker // embeds questions (adapter applied)
	col     *weaviate.Collection
	n       int
	moments dense.Moments
	within  time.Duration
}

func (d *remoteDense) Name() string { return d.name }
func (d *remoteDense) Docs() int    { return d.n }
func (d *remoteDense) Prepare(ctx context.Context, qs []string, progress func(done, total int)) error {
	return d.q.Prepare(ctx, qs, progress)
}
func (d *remoteDense) prepare(ctx context.Context, q string) (poolQuery, error) {
	v, err := d.q.QuestionVector(ctx, q)
	return poolQuery{vector: v}, err
}
func (d *remoteDense) top(ctx context.Context, q poolQuery, k int) ([]weaviate.Hit, error) {
	return d.col.NearVector(ctx, q.vector, k)
}
func (d *remoteDense) scoresOf(ctx context.Context, q poolQuery, ids []int) (map[int]float64, error) {
	hits, err := d.col.NearVectorIn(ctx, q.vector, len(ids), ids)
	return hitMap(hits), err
}

// stats takes the mean and deviation over the collection from the answer
// vectors' moments (exact), the best scores from the hits.
func (d *remoteDense) stats(q poolQuery, best []weaviate.Hit) fuse.Stats {
	s := hitStats(best)
	s.Mean, s.Std = d.moments.Stats(q.vector)
	return s
}
func (d *remoteDense) ScoreAll(ctx context.Context, question string, s *Scores) error {
	return scoreRemote(ctx, d, question, s, d.within)
}
func (d *remoteDense) TopK(ctx context.Context, question string, k int) ([]Hit, error) {
	return topRemote(ctx, d, question, k, d.within)
}

// topRemote returns one input's k best candidates, within the question
// deadline d.
func topRemote(ctx context.Context, in poolInput, question string, k int, d time.Duration) ([]Hit, error) {
	ctx, cancel := withQuestionDeadline(ctx, d)
	defer cancel()
	q, err := in.prepare(ctx, question)
	if err != nil {
		return nil, err
	}
	hits, err := in.top(ctx, q, k)
	if err != nil {
		return nil, err
	}
	return engineHits(hits, in.Docs())
}

// engineHits turns the engine's hits into Hits, checking their ids.
func engineHits(hits []weaviate.Hit, n int) ([]Hit, error) {
	out := make([]Hit, len(hits))
	for i, h := range hits {
		if h.ID < 0 || h.ID >= n {
			return nil, fmt.Errorf("engine answered sentence %d of %d: %w", h.ID, n, store.ErrCorrupt)
		}
		out[i] = Hit{ID: uint32(h.ID), Score: h.Score}
	}
	return out, nil
}

// scoreRemote ranks one input's RemoteDepth best candidates into s,
// within the question deadline d.
func scoreRemote(ctx context.Context, in poolInput, question string, s *Scores, d time.Duration) error {
	ctx, cancel := withQuestionDeadline(ctx, d)
	defer cancel()
	q, err := in.prepare(ctx, question)
	if err != nil {
		return err
	}
	hits, err := in.top(ctx, q, RemoteDepth)
	if err != nil {
		return err
	}
	s.Reset()
	return fillAcc(s, hits)
}

// fillAcc writes hits into acc, shifted so that every one scores above
// the untouched candidates' 0 and their order is kept.
func fillAcc(acc *Scores, hits []weaviate.Hit) error {
	lowest := math.Inf(1)
	for _, h := range hits {
		if h.ID < 0 || h.ID >= len(acc.Scores) {
			return fmt.Errorf("engine answered sentence %d of %d: %w", h.ID, len(acc.Scores), store.ErrCorrupt)
		}
		lowest = min(lowest, h.Score)
	}
	shift := 0.0
	if lowest <= 0 {
		shift = 1 - lowest
	}
	for _, h := range hits {
		acc.Scores[h.ID] = h.Score + shift
		acc.Touch(uint32(h.ID))
	}
	return nil
}

// ranker builds the ranker s names over the engine.
func (g *engine) ranker(s Spec) (Ranker, error) {
	e := g.x
	if s.SentenceOnly {
		return nil, fmt.Errorf("%w %q: the sentence-only form is %w", ErrUnknownRanker, s.Name, ErrEngineRanker)
	}
	switch s.Kind {
	case KindBM25, KindDense:
		return g.input(s)
	case KindFusion:
		p, err := e.specFusion(s)
		if err != nil {
			return nil, err
		}
		if p.Method == "rerank" {
			return nil, fmt.Errorf("%w %q: the re-ranker reads every candidate's context scores, which is %w", ErrUnknownRanker, p.Name, ErrEngineRanker)
		}
		f := &pooledFusion{params: p, n: e.r.Meta().Sentences, within: g.within, answers: g.answers}
		if p.DemoteQuestions {
			f.questions = e.corpus().Question
		}
		for _, name := range p.Inputs {
			in, err := s.with(name)
			if err != nil {
				return nil, err
			}
			if in.Kind != KindBM25 && in.Kind != KindDense {
				return nil, fmt.Errorf("fusion %s: input %q is %w", p.Name, name, ErrEngineRanker)
			}
			r, err := g.input(in)
			if err != nil {
				return nil, fmt.Errorf("fusion %s: %w", p.Name, err)
			}
			f.inputs = append(f.inputs, r)
		}
		return f, nil
	}
	return nil, fmt.Errorf("%w %q: %w", ErrUnknownRanker, s.Name, ErrEngineRanker)
}

// input builds one BM25 or dense ranker over the engine.
func (g *engine) input(s Spec) (poolInput, error) {
	e := g.x
	if s.SentenceOnly {
		return nil, fmt.Errorf("%w %q: the sentence-only form is %w", ErrUnknownRanker, s.Name, ErrEngineRanker)
	}
	n := e.r.Meta().Sentences
	switch s.Kind {
	case KindBM25:
		fm, ok := e.r.Meta().Field(store.FieldName(s.Tokenizer, true))
		if !ok {
			return nil, fmt.Errorf("%w %q (this index supports: %s)", ErrUnknownRanker, s.Name, strings.Join(e.Rankers(), ", "))
		}
		tok, err := fieldTokenizer(fm)
		if err != nil {
			return nil, err
		}
		col, err := g.collection()
		if err != nil {
			return nil, err
		}
		return &remoteBM25{name: s.Name, tokenizer: s.Tokenizer, tok: tok, col: col, n: n, within: g.within}, nil
	case KindDense:
		if s.Dense.LambdaSet && s.Dense.Lambda != e.r.Meta().Dense.Lambda {
			return nil, fmt.Errorf("%w %q: the engine holds answer vectors for λ = %g only: %w", ErrUnknownRanker, s.Name, e.r.Meta().Dense.Lambda, ErrEngineRanker)
		}
		name := s.Name
		if name == "" {
			name = "dense"
		}
		st, err := e.loadDense(s.Dense.Threads)
		if err != nil {
			return nil, err
		}
		q := &DenseRanker{name: name, enc: st.enc, st: st, lambda: e.r.Meta().Dense.Lambda, n: n}
		if !s.Dense.NoAdapter {
			if q.adapter, err = e.loadAdapter(st); err != nil {
				return nil, fmt.Errorf("dense ranker: %w", err)
			}
		}
		m, err := g.denseMoments()
		if err != nil {
			return nil, err
		}
		col, err := g.collection()
		if err != nil {
			return nil, err
		}
		return &remoteDense{name: name, q: q, col: col, n: n, moments: m, within: g.within}, nil
	}
	return nil, fmt.Errorf("%w %q: %w", ErrUnknownRanker, s.Name, ErrEngineRanker)
}
