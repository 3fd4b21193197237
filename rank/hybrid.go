package rank

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/index/sentence"
	"github.com/reqa/reqa/rank/fuse"
	"github.com/reqa/reqa/store"
)

// FusedRanker ranks by fusing the scores of its input rankers.
type FusedRanker struct {
	params fuse.Params
	inputs []Ranker
	corpus *fuse.Corpus // every candidate's context, position, length ("rerank")
	pool   sync.Pool
	// shared are the dense inputs scored in one pass (sharedDense).
	shared  []int
	sharedR []*DenseRanker
}

// fusedScratch is one goroutine's per-input accumulators, and the fused
// scores (every candidate touched once for all: FuseContext overwrites
// every score).
type fusedScratch struct {
	accs   []*bm25.Accumulator
	inputs [][]float64
	fused  *bm25.Accumulator
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
	for i, r := range inputs {
		if r.Name() != params.Inputs[i] {
			return nil, fmt.Errorf("fusion %s: input %d is %s, want %s", params.Name, i, r.Name(), params.Inputs[i])
		}
		if r.Docs() != n {
			return nil, fmt.Errorf("fusion %s: inputs cover %d and %d candidates", params.Name, n, r.Docs())
		}
	}
	f := &FusedRanker{params: params, inputs: inputs, shared: sharedDense(inputs)}
	for _, i := range f.shared {
		f.sharedR = append(f.sharedR, inputs[i].(*DenseRanker))
	}
	f.pool.New = func() any {
		s := &fusedScratch{}
		for range inputs {
			a := bm25.NewAccumulator(n)
			s.accs = append(s.accs, a)
			s.inputs = append(s.inputs, a.Scores)
		}
		s.fused = bm25.NewAccumulator(n)
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

// Score implements Ranker.
func (f *FusedRanker) Score(question string, acc *bm25.Accumulator) error {
	s := f.pool.Get().(*fusedScratch)
	defer f.pool.Put(s)
	_, err := f.scoreInputs(question, s)
	if err != nil {
		return err
	}
	acc.Reset()
	if err := fuse.FuseContext(f.params, s.inputs, f.corpus, acc.Scores); err != nil {
		return err
	}
	acc.TouchAll()
	return nil
}

// ScoreAll returns every input's score vector and the fused one (for
// reports that show each ranker's score next to the fused score). The
// slices are fresh copies. matched is false when no sparse input ranker
// matched any candidate (the question shares no term with the corpus).
func (f *FusedRanker) ScoreAll(question string) (inputs [][]float64, fused []float64, matched bool, err error) {
	s := f.pool.Get().(*fusedScratch)
	defer f.pool.Put(s)
	if _, err := f.scoreInputs(question, s); err != nil {
		return nil, nil, false, err
	}
	matched = f.sparseMatched(s)
	fused = make([]float64, f.Docs())
	if err := fuse.FuseContext(f.params, s.inputs, f.corpus, fused); err != nil {
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

// TopK returns the k best candidates of the fused ranking (ordered as
// Accumulator.TopK orders them) and, for each, every input's score
// (inputs[i][j]: hit i, input j); matched is as for ScoreAll, and no hits
// are returned when it is false. It is what `reqa ask` and `reqa serve`
// answer with: the same ranking as ScoreAll without copying any score
// vector (pooled scratch), so a question costs its input rankers and one
// fusion pass.
func (f *FusedRanker) TopK(question string, k int) (hits []bm25.Hit, inputs [][]float64, matched bool, err error) {
	s := f.pool.Get().(*fusedScratch)
	defer f.pool.Put(s)
	if _, err := f.scoreInputs(question, s); err != nil {
		return nil, nil, false, err
	}
	matched = f.sparseMatched(s)
	if !matched {
		return nil, nil, false, nil
	}
	if err := fuse.FuseContext(f.params, s.inputs, f.corpus, s.fused.Scores); err != nil {
		return nil, nil, false, err
	}
	hits = s.fused.TopK(k)
	inputs = make([][]float64, len(hits))
	for i, h := range hits {
		inputs[i] = make([]float64, len(s.inputs))
		for j, in := range s.inputs {
			inputs[i][j] = in[h.Doc]
		}
	}
	return hits, inputs, true, nil
}

// ScoreBatch implements BatchScorer: inputs that batch do so, the others
// score question by question; then each question is fused.
func (f *FusedRanker) ScoreBatch(questions []string, accs []*bm25.Accumulator) error {
	n := f.Docs()
	per := make([][]*bm25.Accumulator, len(f.inputs))
	for i, r := range f.inputs {
		per[i] = make([]*bm25.Accumulator, len(questions))
		for j := range questions {
			per[i][j] = bm25.NewAccumulator(n)
		}
		if b, ok := r.(BatchScorer); ok {
			if err := b.ScoreBatch(questions, per[i]); err != nil {
				return err
			}
			continue
		}
		for j, q := range questions {
			if err := r.Score(q, per[i][j]); err != nil {
				return err
			}
		}
	}
	inputs := make([][]float64, len(f.inputs))
	for j := range questions {
		for i := range f.inputs {
			inputs[i] = per[i][j].Scores
		}
		accs[j].Reset()
		if err := fuse.FuseContext(f.params, inputs, f.corpus, accs[j].Scores); err != nil {
			return err
		}
		accs[j].TouchAll()
	}
	return nil
}

func (f *FusedRanker) scoreInputs(question string, s *fusedScratch) ([][]float64, error) {
	if len(f.shared) > 0 {
		s.outs = s.outs[:0]
		for _, i := range f.shared {
			s.accs[i].Reset()
			s.outs = append(s.outs, s.accs[i].Scores)
		}
		if err := scoreShared(f.sharedR, question, s.outs, &s.dense); err != nil {
			return nil, fmt.Errorf("%s: %w", f.inputs[f.shared[0]].Name(), err)
		}
		for _, i := range f.shared {
			s.accs[i].TouchAll()
		}
	}
	for i, r := range f.inputs {
		if slices.Contains(f.shared, i) {
			continue
		}
		s.accs[i].Reset()
		if err := r.Score(question, s.accs[i]); err != nil {
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
func (e *Index) StoredFusions() ([]fuse.Params, error) {
	if e.tuned != nil {
		return e.tuned.Fusions, nil
	}
	if !e.r.HasBlob(store.BlobFusion) {
		return nil, nil
	}
	raw, err := e.r.Blob(store.BlobFusion)
	if err != nil {
		return nil, err
	}
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

// Fused builds the fused ranker for params from this engine's rankers,
// with s's options (document form, dense options; dense inputs always score
// every candidate: fusion normalises over all of them).
func (e *Index) Fused(params fuse.Params, s Spec) (*FusedRanker, error) {
	var inputs []Ranker
	for _, name := range params.Inputs {
		r, err := e.input(name, s)
		if err != nil {
			return nil, fmt.Errorf("fusion %s: %w", params.Name, err)
		}
		inputs = append(inputs, r)
	}
	f, err := NewFusedRanker(params, inputs)
	if err != nil {
		return nil, err
	}
	f.corpus = e.corpus()
	return f, nil
}

// corpus describes every candidate for fusion features.
func (e *Index) corpus() *fuse.Corpus {
	e.corpusOnce.Do(func() {
		c := &fuse.Corpus{Ctx: make([]uint32, len(e.sentences)), Pos: make([]int, len(e.sentences)), Len: make([]int, len(e.sentences))}
		seen := map[uint32]int{}
		for i, s := range e.sentences {
			c.Ctx[i] = s.ContextID
			c.Pos[i] = seen[s.ContextID]
			seen[s.ContextID]++
			c.Len[i] = s.End - s.Start
		}
		// Without the question flags a fusion demotes nothing: the
		// ranking stays what it was (a damaged part is reported where it
		// is read for answers, and by verify).
		c.Question, _ = e.questions()
		e.corpusV = c
	})
	return e.corpusV
}

// questions flags every sentence that is itself a question
// (sentence.IsQuestion): read from the sentences' texts, or for an index
// kept in an engine from its stored flags (nil when it has none).
func (e *Index) questions() ([]bool, error) {
	n := e.r.Meta().Sentences
	if e.remote != nil {
		if !e.r.HasBlob(store.BlobQuestions) {
			return nil, nil
		}
		raw, err := e.r.LargeBlob(store.BlobQuestions)
		if err != nil {
			return nil, err
		}
		q, err := sentence.DecodeFlags(raw, n)
		if err != nil {
			return nil, fmt.Errorf("blob %s: %w: %w", store.BlobQuestions, store.ErrCorrupt, err)
		}
		return q, nil
	}
	ctxs, err := e.r.Contexts()
	if err != nil {
		return nil, err
	}
	for i, s := range e.sentences {
		if int(s.ContextID) >= len(ctxs) || s.Start < 0 || s.Start > s.End || s.End > len(ctxs[s.ContextID].Text) {
			return nil, fmt.Errorf("sentence %d: offsets outside its context: %w", i, store.ErrCorrupt)
		}
	}
	return sentence.Questions(func(i int) string {
		s := e.sentences[i]
		return ctxs[s.ContextID].Text[s.Start:s.End]
	}, len(e.sentences)), nil
}

// input returns the ranker a fusion input name stands for, with the
// fusion's options s; the result's Name() equals name.
func (e *Index) input(name string, s Spec) (Ranker, error) {
	in, err := s.with(name)
	if err != nil {
		return nil, err
	}
	if in.Kind == KindFusion || in.Kind == KindDefault {
		return nil, fmt.Errorf("%w %q: not a fusion input", ErrUnknownRanker, name)
	}
	in.Dense.ANN = false // fusion normalises over every candidate's score
	return e.Resolve(in)
}

// TuningExamples scores qs with every input and reduces each question to a
// fuse.Example (pool depth 50 per input). Runs on GOMAXPROCS workers.
func TuningExamples(ctx context.Context, inputs []Ranker, qs []EvalQuestion) ([]fuse.Example, error) {
	return tuningExamples(ctx, inputs, qs, nil, false)
}

// tuningExamples is TuningExamples; with rerank each example also carries
// ranks, context maxima and sentence positions and lengths for the "rerank" method.
func tuningExamples(ctx context.Context, inputs []Ranker, qs []EvalQuestion, corpus *fuse.Corpus, rerank bool) ([]fuse.Example, error) {
	texts := make([]string, len(qs))
	for i, q := range qs {
		texts[i] = q.Text
	}
	for _, r := range inputs {
		if p, ok := r.(Preparer); ok {
			if err := p.Prepare(ctx, texts, nil); err != nil {
				return nil, err
			}
		}
	}
	out := make([]fuse.Example, len(qs))
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, runtime.GOMAXPROCS(0))
	for w := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			accs := make([]*bm25.Accumulator, len(inputs))
			scores := make([][]float64, len(inputs))
			for i, r := range inputs {
				accs[i] = bm25.NewAccumulator(r.Docs())
				scores[i] = accs[i].Scores
			}
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(qs) {
					return
				}
				for j, r := range inputs {
					accs[j].Reset()
					if err := r.Score(qs[i].Text, accs[j]); err != nil {
						errs[w] = err
						return
					}
				}
				if rerank {
					out[i] = fuse.NewExampleContext(scores, qs[i].Gold, 50, corpus)
				} else {
					out[i] = fuse.NewExample(scores, qs[i].Gold, 50)
					// The built-in default demotes questions when it is
					// scored among tuned fusions (TuneFusions).
					out[i].Question = corpus.QuestionsOf(out[i].Pool, len(scores[0]))
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, ctx.Err()
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

// TuneResult is one tuned fusion with its sweep (convex methods).
type TuneResult struct {
	Params fuse.Params
	Sweep  []fuse.SweepPoint
}

// TuneFusions learns every method in methods over inputs on tune (the
// tuning questions), the inputs built with opt's options, and returns them
// best first (by P@1 on tune). label records what tune was.
func (e *Index) TuneFusions(ctx context.Context, methods, inputs []string, tune []EvalQuestion, opt Spec, label string) ([]TuneResult, error) {
	type inputSet struct {
		names []string
		rs    []Ranker
		exs   []fuse.Example
	}
	sets := map[string]*inputSet{}
	get := func(names []string, rerank bool) (*inputSet, error) {
		key := strings.Join(names, "\x00")
		if rerank {
			key += "\x00rerank"
		}
		if s, ok := sets[key]; ok {
			return s, nil
		}
		s := &inputSet{names: names}
		for _, n := range names {
			r, err := e.input(n, opt)
			if err != nil {
				return nil, err
			}
			s.rs = append(s.rs, r)
		}
		var err error
		if s.exs, err = tuningExamples(ctx, s.rs, tune, e.corpus(), rerank); err != nil {
			return nil, err
		}
		sets[key] = s
		return s, nil
	}
	var out []TuneResult
	for _, m := range methods {
		names := inputs
		if m == "rerank" && slices.Equal(inputs, DefaultFusionInputs) {
			names = RerankInputs
		}
		set, err := get(names, m == "rerank")
		if err != nil {
			return nil, err
		}
		p, sweep, err := fuse.Tune(m, names, set.exs, fuse.TuneOptions{Label: label})
		if err != nil {
			return nil, err
		}
		if m == "rrf" {
			// RRF's k is not tuned; score it on the tuning set for ordering.
			fr, err := NewFusedRanker(p, set.rs)
			if err != nil {
				return nil, err
			}
			res, err := Run(ctx, fr, tune, 0, nil)
			if err != nil {
				return nil, err
			}
			p.TuneP1 = Summarize(p.Name, tune, res).PAt1
		}
		out = append(out, TuneResult{Params: p, Sweep: sweep})
	}
	if len(tune) >= CVBelow || len(tune) < fuse.CVFolds {
		sort.SliceStable(out, func(i, j int) bool { return out[i].Params.TuneP1 > out[j].Params.TuneP1 })
		return out, nil
	}
	// A small tuning set: order by cross-validated P@1, the built-in
	// default among the candidates (BENCHMARKS.md "Out of domain": on a
	// few dozen questions the re-ranker fits them and does worse than
	// learning nothing, even on its own domain's test half).
	for i := range out {
		p := &out[i].Params
		if p.Method == "rrf" {
			p.CVP1 = p.TuneP1 // nothing fitted
			continue
		}
		names := p.Inputs
		set, err := get(names, p.Method == "rerank")
		if err != nil {
			return nil, err
		}
		if p.CVP1, err = fuse.CrossValidate(p.Method, names, set.exs, fuse.TuneOptions{Label: label}); err != nil {
			return nil, err
		}
	}
	def := e.BuiltinDefault()
	set, err := get(def.Inputs, false)
	if err != nil {
		return nil, err
	}
	if def.TuneP1, _, err = fuse.Evaluate(def, set.exs); err != nil {
		return nil, err
	}
	def.CVP1 = def.TuneP1 // fitted elsewhere: out of sample here
	kept := out[:0]
	replaced := false
	for _, r := range out {
		if r.Params.Name == def.Name && r.Params.CVP1 <= def.CVP1 {
			replaced = true // the built-in parameters carry further
			continue
		}
		kept = append(kept, r)
	}
	out = kept
	if replaced || !slices.ContainsFunc(out, func(r TuneResult) bool { return r.Params.Name == def.Name }) {
		out = append(out, TuneResult{Params: def})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Params.CVP1 > out[j].Params.CVP1 })
	return out, nil
}

// CVBelow is the tuning-set size under which TuneFusions orders fusions by
// cross-validated P@1 (fuse.CrossValidate) instead of P@1 on the tuning
// set, with the built-in default among them: `reqa ask` then uses a tuned
// fusion only when it beats the default on questions it was not fitted on.
const CVBelow = 1000

// SaveFusions stores fusion parameters in the index at path (best first:
// the first is what `reqa ask` uses by default).
func SaveFusions(path string, ps []fuse.Params) error {
	b, err := json.Marshal(ps)
	if err != nil {
		return err
	}
	return store.Amend(path, func(tx *store.WriteTx) error { return tx.PutBlob(store.BlobFusion, b) })
}
