package rank

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/reqa/reqa/rank/fuse"
	"github.com/reqa/reqa/store"
)

// FusedRanker ranks by fusing the scores of its input rankers.
type FusedRanker struct {
	params  fuse.Params
	inputs  []Ranker
	scorers []Scorer     // inputs, each scoring every candidate
	corpus  *fuse.Corpus // every candidate's context, position, length ("rerank")
	pool    sync.Pool
	// shared are the dense inputs scored in one pass (sharedDense).
	shared  []int
	sharedR []*DenseRanker
	// answers looks sentences up for params.DefinitionsFirst (nil: the
	// rule is not applied, as for a fusion made by NewFusedRanker).
	answers answersFunc
	// pooled, when set, answers TopK, ScoreAll and ScoreBatch: the fusion
	// of every input's best candidates only (a file whose dense inputs
	// read stored answer vectors; see local.pooledFusion). Breakdown
	// still scores every candidate.
	pooled *pooledFusion
	// lazyCorpus gives a file's corpus the first time a fusion over every
	// candidate needs it (it reads every sentence's text: a pooled fusion
	// only does for Breakdown or Corpus).
	lazyCorpus func() *fuse.Corpus
	corpusOnce sync.Once
}

// fullCorpus returns the corpus, made on first use.
func (f *FusedRanker) fullCorpus() *fuse.Corpus {
	f.corpusOnce.Do(func() {
		if f.corpus == nil && f.lazyCorpus != nil {
			f.corpus = f.lazyCorpus()
		}
	})
	return f.corpus
}

// Pooled reports whether the fusion ranks its inputs' best candidates
// only (pooledFusion) rather than every candidate.
func (f *FusedRanker) Pooled() bool { return f.pooled != nil }

// fusedScratch is one goroutine's per-input accumulators, and the fused
// scores (every candidate touched once for all: FuseContext overwrites
// every score).
type fusedScratch struct {
	accs   []*Scores
	inputs [][]float64
	fused  *Scores
	dense  denseShared
	outs   [][]float64
}

// NewFusedRanker fuses inputs (in the order params.Inputs names them).
func NewFusedRanker(params fuse.Params, inputs []Ranker) (*FusedRanker, error) {
	if err := params.Validate(); err != nil {
		return nil, err
	}
	if len(inputs) != len(params.Inputs) {
		return nil, fmt.Errorf("fusion %s: %d rankers for %d inputs", params.Name, len(inputs), len(params.Inputs))
	}
	n := inputs[0].Docs()
	scorers := make([]Scorer, len(inputs))
	for i, r := range inputs {
		sc, ok := r.(Scorer)
		if !ok {
			return nil, fmt.Errorf("fusion %s: input %s does not score every candidate", params.Name, r.Name())
		}
		scorers[i] = sc
		if r.Name() != params.Inputs[i] {
			return nil, fmt.Errorf("fusion %s: input %d is %s, want %s", params.Name, i, r.Name(), params.Inputs[i])
		}
		if r.Docs() != n {
			return nil, fmt.Errorf("fusion %s: inputs cover %d and %d candidates", params.Name, n, r.Docs())
		}
	}
	f := &FusedRanker{params: params, inputs: inputs, scorers: scorers, shared: sharedDense(inputs)}
	for _, i := range f.shared {
		f.sharedR = append(f.sharedR, inputs[i].(*DenseRanker))
	}
	f.pool.New = func() any {
		s := &fusedScratch{}
		for range inputs {
			a := NewScores(n)
			s.accs = append(s.accs, a)
			s.inputs = append(s.inputs, a.Scores)
		}
		s.fused = NewScores(n)
		s.fused.TouchAll()
		return s
	}
	return f, nil
}

// Name implements Ranker.
func (f *FusedRanker) Name() string { return f.params.Name }

// Docs implements Ranker.
func (f *FusedRanker) Docs() int { return f.inputs[0].Docs() }

// Params returns the fusion's parameters.
func (f *FusedRanker) Params() fuse.Params { return f.params }

// Inputs returns the input rankers.
func (f *FusedRanker) Inputs() []Ranker { return f.inputs }

// Prepare passes a batch of questions to the inputs that want it.
func (f *FusedRanker) Prepare(ctx context.Context, questions []string, progress func(done, total int)) error {
	for _, r := range f.inputs {
		if p, ok := r.(Preparer); ok {
			if err := p.Prepare(ctx, questions, progress); err != nil {
				return err
			}
		}
	}
	return nil
}

// ScoreAll implements Scorer.
func (f *FusedRanker) ScoreAll(ctx context.Context, question string, out *Scores) error {
	if f.pooled != nil {
		return f.pooled.ScoreAll(ctx, question, out)
	}
	s := f.pool.Get().(*fusedScratch)
	defer f.pool.Put(s)
	_, err := f.scoreInputs(ctx, question, s)
	if err != nil {
		return err
	}
	out.Reset()
	if err := f.fuse(ctx, question, s.inputs, out.Scores); err != nil {
		return err
	}
	out.TouchAll()
	return nil
}

// fuse fuses one question's input scores into out: the method, questions
// demoted, definitions first (Params).
func (f *FusedRanker) fuse(ctx context.Context, question string, inputs [][]float64, out []float64) error {
	if err := fuse.FuseContext(f.params, inputs, f.fullCorpus(), out); err != nil {
		return err
	}
	if f.params.DefinitionsFirst {
		return definitionsFirst(ctx, question, out, nil, f.answers)
	}
	return nil
}

// Breakdown returns every input's score vector and the fused one (for
// reports that show each ranker's score next to the fused score). The
// slices are fresh copies. matched is false when no sparse input ranker
// matched any candidate (the question shares no term with the corpus).
func (f *FusedRanker) Breakdown(ctx context.Context, question string) (inputs [][]float64, fused []float64, matched bool, err error) {
	s := f.pool.Get().(*fusedScratch)
	defer f.pool.Put(s)
	if _, err := f.scoreInputs(ctx, question, s); err != nil {
		return nil, nil, false, err
	}
	matched = f.sparseMatched(s)
	fused = make([]float64, f.Docs())
	if err := f.fuse(ctx, question, s.inputs, fused); err != nil {
		return nil, nil, false, err
	}
	for _, in := range s.inputs {
		inputs = append(inputs, append([]float64(nil), in...))
	}
	return inputs, fused, matched, nil
}

// sparseMatched reports whether a sparse input matched any candidate in s.
func (f *FusedRanker) sparseMatched(s *fusedScratch) bool {
	for i, r := range f.inputs {
		if _, isDense := r.(*DenseRanker); !isDense && len(s.accs[i].Touched) > 0 {
			return true
		}
	}
	return false
}

// TopK implements Ranker: the k best candidates of the fused ranking,
// each with every input's score; none when no sparse input matched any
// candidate (see Breakdown). It is what `reqa ask` and `reqa serve` answer
// with: the same ranking as ScoreAll without copying any score vector
// (pooled scratch), so a question costs its input rankers and one fusion
// pass.
func (f *FusedRanker) TopK(ctx context.Context, question string, k int) ([]Hit, error) {
	if f.pooled != nil {
		return f.pooled.TopK(ctx, question, k)
	}
	s := f.pool.Get().(*fusedScratch)
	defer f.pool.Put(s)
	if _, err := f.scoreInputs(ctx, question, s); err != nil {
		return nil, err
	}
	if !f.sparseMatched(s) {
		return nil, nil
	}
	if err := f.fuse(ctx, question, s.inputs, s.fused.Scores); err != nil {
		return nil, err
	}
	hits := s.fused.Top(k)
	for i, h := range hits {
		hits[i].Inputs = make(map[string]float64, len(s.inputs))
		for j, in := range s.inputs {
			hits[i].Inputs[f.inputs[j].Name()] = in[h.ID]
		}
	}
	return hits, nil
}

// ScoreBatch implements BatchScorer: inputs that batch do so, the others
// score question by question; then each question is fused.
func (f *FusedRanker) ScoreBatch(ctx context.Context, questions []string, out []*Scores) error {
	if f.pooled != nil {
		for j, q := range questions {
			if err := f.pooled.ScoreAll(ctx, q, out[j]); err != nil {
				return err
			}
		}
		return nil
	}
	n := f.Docs()
	per := make([][]*Scores, len(f.inputs))
	for i, r := range f.scorers {
		per[i] = make([]*Scores, len(questions))
		for j := range questions {
			per[i][j] = NewScores(n)
		}
		if b, ok := r.(BatchScorer); ok {
			if err := b.ScoreBatch(ctx, questions, per[i]); err != nil {
				return err
			}
			continue
		}
		for j, q := range questions {
			if err := r.ScoreAll(ctx, q, per[i][j]); err != nil {
				return err
			}
		}
	}
	inputs := make([][]float64, len(f.inputs))
	for j := range questions {
		for i := range f.inputs {
			inputs[i] = per[i][j].Scores
		}
		out[j].Reset()
		if err := f.fuse(ctx, questions[j], inputs, out[j].Scores); err != nil {
			return err
		}
		out[j].TouchAll()
	}
	return nil
}

func (f *FusedRanker) scoreInputs(ctx context.Context, question string, s *fusedScratch) ([][]float64, error) {
	if len(f.shared) > 0 {
		s.outs = s.outs[:0]
		for _, i := range f.shared {
			s.accs[i].Reset()
			s.outs = append(s.outs, s.accs[i].Scores)
		}
		if err := scoreShared(ctx, f.sharedR, question, s.outs, &s.dense); err != nil {
			return nil, fmt.Errorf("%s: %w", f.inputs[f.shared[0]].Name(), err)
		}
		for _, i := range f.shared {
			s.accs[i].TouchAll()
		}
	}
	for i, r := range f.scorers {
		if slices.Contains(f.shared, i) {
			continue
		}
		if err := r.ScoreAll(ctx, question, s.accs[i]); err != nil {
			return nil, fmt.Errorf("%s: %w", r.Name(), err)
		}
	}
	return s.inputs, nil
}

// DefaultRRF is reciprocal-rank fusion (k = 60) of the default inputs; it
// needs no tuning.
func DefaultRRF() fuse.Params {
	return fuse.Params{Name: "fusion-rrf", Method: "rrf", Inputs: DefaultFusionInputs, K: 60}
}

// StoredFusions returns the fusion parameters stored in the index (none is
// not an error), or those of UseTuned.
func (x *Index) StoredFusions() ([]fuse.Params, error) {
	if x.tuned != nil {
		return x.tuned.Fusions, nil
	}
	if !x.r.HasBlob(store.BlobFusion) {
		return nil, nil
	}
	raw, err := x.r.Blob(store.BlobFusion)
	if err != nil {
		return nil, err
	}
	return DecodeFusions(raw)
}

// DecodeFusions decodes and checks the fusion parameters stored in an
// index (blob store.BlobFusion); an error wraps store.ErrCorrupt.
func DecodeFusions(raw []byte) ([]fuse.Params, error) {
	var ps []fuse.Params
	if err := json.Unmarshal(raw, &ps); err != nil {
		return nil, fmt.Errorf("fusion parameters (blob %s): %v: %w", store.BlobFusion, jsonProblem(err), store.ErrCorrupt)
	}
	for _, p := range ps {
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("fusion parameters: %v: %w", err, store.ErrCorrupt)
		}
	}
	return ps, nil
}

// CheckFusions checks the fusion parameters stored in an index (what
// DecodeFusions decodes): the check verify runs on them.
func CheckFusions(raw []byte) error {
	_, err := DecodeFusions(raw)
	return err
}

// Fused builds the fusion params of the index's rankers, with s's options
// (document form, dense options; dense inputs always score every
// candidate: fusion normalises over all of them).
func (x *Index) Fused(params fuse.Params, s Spec) (Ranker, error) {
	s.Name, s.Kind, s.Method, s.Fusion = params.Name, KindFusion, params.Method, &params
	return x.Resolve(s)
}

// fused builds the fused ranker for params from the file's rankers.
func (l *local) fused(params fuse.Params, s Spec) (*FusedRanker, error) {
	// The inputs load independent parts of the file (BM25 fields, the
	// question encoder) and, asked as ask asks, the graph a pooled fusion
	// searches: all at once, one goroutine each.
	if s.Dense.ANN && l.poolable(params, s) {
		if rows, err := l.answerRows(); err == nil && rows != nil {
			l.prefetchGraph(rows)
		}
	}
	inputs := make([]Ranker, len(params.Inputs))
	errs := make([]error, len(params.Inputs))
	var wg sync.WaitGroup
	for i, name := range params.Inputs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			inputs[i], errs[i] = l.x.input(name, s)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("fusion %s: %w", params.Name, err)
		}
	}
	f, err := NewFusedRanker(params, inputs)
	if err != nil {
		return nil, err
	}
	f.answers = l.answers
	if s.Dense.ANN {
		// Asked as ask and serve ask (dense over the ANN graph): pooled
		// when it can be; --exact scores every candidate.
		if f.pooled, err = l.pooledFusion(params, inputs); err != nil {
			return nil, err
		}
	}
	if f.pooled == nil {
		// Scoring every candidate reads every sentence's record for the
		// corpus: damage is reported now.
		if err := l.needSentences(); err != nil {
			return nil, fmt.Errorf("fusion %s: %w", params.Name, err)
		}
	}
	f.lazyCorpus = l.x.corpus
	return f, nil
}

// usePooled makes a file's fusions pooled when they can be (a variable for
// tests: SetPooled).
var usePooled = true

// poolable reports whether the fusion p, asked with s, may be pooled as
// far as the method and the index's stored graph tell (pooledFusion checks
// the inputs themselves).
func (l *local) poolable(p fuse.Params, s Spec) bool {
	m := l.r.Meta().Dense
	switch {
	case !usePooled || m == nil || !m.Graph || !m.Answers || s.SentenceOnly || s.Dense.LambdaSet:
		return false
	case p.Method == "zscore", p.Method == "learned", p.Method == "adaptive":
		return m.GraphLambda == m.Lambda
	}
	return false
}

// pooledFusion returns the pooled form of the fusion p of inputs
// (pooledFusion), or nil when it cannot be pooled: a method other than
// zscore, learned and adaptive, an input other than BM25 and dense,
// no dense input, or a dense input without stored answer vectors and a
// graph over them. Pooled, a question costs the BM25 inputs' postings, an
// ANN search, and a few hundred rows: nothing else in proportion to the
// index.
func (l *local) pooledFusion(p fuse.Params, inputs []Ranker) (*pooledFusion, error) {
	switch p.Method {
	case "zscore", "learned", "adaptive":
		// Each input's mean and deviation over the index are known
		// exactly (BM25: its touched candidates, the rest 0; dense: the
		// answer vectors' moments), and so its best two scores.
	default:
		// rrf ranks every candidate of every input, minmax needs the
		// dense minimum over the index, rerank every candidate's
		// context scores: scored over every candidate.
		return nil, nil
	}
	if !usePooled {
		return nil, nil
	}
	m := l.r.Meta().Dense
	var ins []poolInput
	hasDense := false
	for _, r := range inputs {
		switch r := r.(type) {
		case *BM25Ranker:
			ins = append(ins, newLocalSparse(r))
		case *DenseRanker:
			if r.rows == nil || m == nil || !m.Graph || m.GraphLambda != r.lambda {
				return nil, nil
			}
			g, err := l.loadGraphFrom(r.rows)
			if err != nil {
				return nil, err
			}
			mo, err := l.moments()
			if err != nil {
				return nil, err
			}
			ins = append(ins, &localDense{DenseRanker: r, graph: g, moments: mo})
			hasDense = true
		default:
			return nil, nil
		}
	}
	if !hasDense {
		return nil, nil
	}
	pf := &pooledFusion{params: p, inputs: ins, n: l.n, answers: l.answers}
	if p.DemoteQuestions {
		pf.asks = localAsks(l)
	}
	return pf, nil
}

// FusionCorpus describes every candidate for fusion features (context,
// position, length, question flag).
func (x *Index) FusionCorpus() *fuse.Corpus { return x.corpus() }

// corpus describes every candidate for fusion features.
func (x *Index) corpus() *fuse.Corpus {
	x.corpusOnce.Do(func() {
		ss := x.b.allSentences()
		c := &fuse.Corpus{Ctx: make([]uint32, len(ss)), Pos: make([]int, len(ss)), Len: make([]int, len(ss))}
		seen := map[uint32]int{}
		for i, s := range ss {
			c.Ctx[i] = s.ContextID
			c.Pos[i] = seen[s.ContextID]
			seen[s.ContextID]++
			c.Len[i] = s.End - s.Start
		}
		// Without the question flags a fusion demotes nothing: the
		// ranking stays what it was (a damaged part is reported where it
		// is read for answers, and by verify).
		c.Question, _ = x.b.questions()
		x.corpusV = c
	})
	return x.corpusV
}

// Input returns the ranker a fusion input name stands for, with the
// fusion's options s (dense inputs score every candidate); the result's
// Name() equals name.
func (x *Index) Input(name string, s Spec) (Ranker, error) { return x.input(name, s) }

func (x *Index) input(name string, s Spec) (Ranker, error) {
	in, err := s.with(name)
	if err != nil {
		return nil, err
	}
	if in.Kind == KindFusion || in.Kind == KindDefault {
		return nil, fmt.Errorf("%w %q: not a fusion input", ErrUnknownRanker, name)
	}
	in.Dense.ANN = false // fusion normalises over every candidate's score
	return x.Resolve(in)
}

// RerankInputs are the inputs the "rerank" method fuses when asked for the
// default inputs: both BM25 tokenizations and the dense ranker, each on
// sentence+context and on the sentence alone (its features are chosen for
// this set, see fuse.DefaultReranker).
var RerankInputs = []string{"bm25-wpm", "bm25-word", "bm25-wpm/sent", "bm25-word/sent", "dense", "dense/sent"}

// DefaultFusionInputs are the rankers fused by default: both BM25
// tokenizations and the dense ranker. On the SQuAD tune half this set beat
// BM25-wpm + dense for every tuned method (see BENCHMARKS.md).
var DefaultFusionInputs = []string{"bm25-wpm", "bm25-word", "dense"}

// EncodeFusions encodes fusion parameters as an index stores them (best
// first: the first is what `reqa ask` uses by default; see
// index.SaveFusions).
func EncodeFusions(ps []fuse.Params) ([]byte, error) { return json.Marshal(ps) }

// Corpus returns what the fusion knows of every candidate (nil for a
// fusion made by NewFusedRanker, until SetCorpus).
func (f *FusedRanker) Corpus() *fuse.Corpus { return f.fullCorpus() }

// SetCorpus gives a fusion made by NewFusedRanker what it needs to know of
// every candidate (Index.FusionCorpus): context-aware methods and the
// question demotion read it. Call it before the ranker answers.
func (f *FusedRanker) SetCorpus(c *fuse.Corpus) { f.corpus = c }
