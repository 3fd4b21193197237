// Package fuse combines the scores of several rankers into one ranking.
//
// The MultiReQA paper found that BM25 and the neural dual encoder make
// different mistakes (their top-1 answers disagree on most questions), so a
// fusion of the two can beat both. Every method here turns each input
// ranker's scores over all candidates into a common scale, then mixes them:
//
//   - "rrf": reciprocal-rank fusion, Σ 1/(k + rank), over each ranker's top
//     [RRFDepth] candidates (deeper ranks contribute nothing);
//   - "minmax": convex combination of per-question min-max normalised scores;
//   - "zscore": convex combination of per-question z-scores;
//   - "adaptive": z-score combination whose weights depend on the question:
//     the relative margin between the first ranker's top two scores picks a
//     bucket, each bucket has its own weights (a confident BM25 keeps its
//     weight, an unsure one defers to the others);
//   - "learned": z-score combination with weights a_r + b_r·margin learned
//     with the paper's listwise softmax objective (see learned.go);
//   - "rerank": a learned bilinear re-ranker over a pool of each input's
//     best candidates, with candidate features (z-scores, ranks, context
//     evidence) whose weights depend on question features (see rerank.go).
//
// Weights are learned on a tuning set by [Tune] (grid search maximising P@1,
// then MRR) and stored as [Params] in the index.
package fuse

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

// RRFDepth is how many of each ranker's best candidates reciprocal-rank
// fusion looks at.
const RRFDepth = 1000

// Params describe a fusion: its method, its input rankers and what was
// learned.
type Params struct {
	// Name is the fused ranker's name (e.g. "fusion-adaptive").
	Name string `json:"name"`
	// Method is "rrf", "minmax", "zscore", "adaptive", "learned" or
	// "rerank".
	Method string `json:"method"`
	// Inputs names the input rankers, in order.
	Inputs []string `json:"inputs"`
	// K is reciprocal-rank fusion's constant (60 by default).
	K float64 `json:"k,omitempty"`
	// Weights holds one weight per input (convex methods).
	Weights []float64 `json:"weights,omitempty"`
	// Bounds are the adaptive method's margin thresholds: a question whose
	// margin m satisfies Bounds[i-1] ≤ m < Bounds[i] uses BucketWeights[i].
	Bounds        []float64   `json:"bounds,omitempty"`
	BucketWeights [][]float64 `json:"bucket_weights,omitempty"`
	// TunedOn says what the parameters were learned on, with the score
	// reached there.
	// Rerank holds the "rerank" method's model.
	Rerank  *Reranker `json:"rerank,omitempty"`
	TunedOn string    `json:"tuned_on,omitempty"`
	// DemoteQuestions ranks every candidate that is itself a question
	// (Corpus.Question) below every one that is not, keeping the order
	// within each group: a question does not answer a question. Without
	// the corpus's question flags it changes nothing.
	DemoteQuestions bool `json:"demote_questions,omitempty"`
	// DefinitionsFirst: for a question asking what something is ("What
	// is X?", "What does X mean?"), the candidates among the fusion's
	// best rank.DefinitionDepth whose sentence defines X ("X is …", "X:
	// …") rank first, in their order (package rank applies it: it needs
	// the sentences' text, which the scores here do not carry).
	DefinitionsFirst bool    `json:"definitions_first,omitempty"`
	TuneP1           float64 `json:"tune_p_at_1,omitempty"`
	// CVP1 is the P@1 of the method refitted on each of CVFolds folds of
	// the tuning set and scored on the held-out fold: what `reqa fuse`
	// orders by when the tuning set is small (see rank/eval.CVBelow). For an
	// untuned fusion it is its P@1 on the tuning set.
	CVP1 float64 `json:"cv_p_at_1,omitempty"`
}

// Validate checks that p is usable.
func (p Params) Validate() error {
	n := len(p.Inputs)
	if n == 0 {
		return fmt.Errorf("fusion %s: no input rankers", p.Name)
	}
	switch p.Method {
	case "rrf":
		if p.K <= 0 {
			return fmt.Errorf("fusion %s: rrf k must be > 0, got %v", p.Name, p.K)
		}
	case "minmax", "zscore":
		if len(p.Weights) != n {
			return fmt.Errorf("fusion %s: %d weights for %d inputs", p.Name, len(p.Weights), n)
		}
	case "learned":
		if len(p.Weights) != 2*n {
			return fmt.Errorf("fusion %s: %d coefficients for %d inputs, want %d", p.Name, len(p.Weights), n, 2*n)
		}
	case "adaptive":
		if len(p.BucketWeights) != len(p.Bounds)+1 {
			return fmt.Errorf("fusion %s: %d buckets for %d bounds", p.Name, len(p.BucketWeights), len(p.Bounds))
		}
		for _, w := range p.BucketWeights {
			if len(w) != n {
				return fmt.Errorf("fusion %s: bucket with %d weights for %d inputs", p.Name, len(w), n)
			}
		}
	case "rerank":
		if err := p.Rerank.validate(p.Inputs); err != nil {
			return fmt.Errorf("fusion %s: %w", p.Name, err)
		}
	default:
		return fmt.Errorf("fusion %s: unknown method %q (want rrf, minmax, zscore, adaptive, learned or rerank)", p.Name, p.Method)
	}
	return nil
}

// Weighted returns p without the inputs its weights ignore. For the
// linear methods (minmax, zscore) an input of weight 0 adds nothing to any
// candidate's fused score, so a ranker resolving p need not compute it —
// its tokenizer, its postings, its share of a pool. Every other method,
// and a p whose weights are all 0, is returned as it is. The result
// shares nothing with p.
func (p Params) Weighted() Params {
	q := p
	q.Inputs = slices.Clone(p.Inputs)
	q.Weights = slices.Clone(p.Weights)
	if (p.Method != "minmax" && p.Method != "zscore") || len(p.Weights) != len(p.Inputs) {
		return q
	}
	keep := 0
	for _, w := range p.Weights {
		if w != 0 {
			keep++
		}
	}
	if keep == 0 || keep == len(p.Inputs) {
		return q
	}
	q.Inputs, q.Weights = q.Inputs[:0], q.Weights[:0]
	for i, w := range p.Weights {
		if w != 0 {
			q.Inputs = append(q.Inputs, p.Inputs[i])
			q.Weights = append(q.Weights, w)
		}
	}
	return q
}

// ErrNeedsCorpus reports a fusion that needs every candidate's scores and
// description (the re-ranker's context features) where only a pool of
// candidates is known (FuseStats).
var ErrNeedsCorpus = errors.New("fusion needs every candidate")

// Stats summarises one ranker's scores for one question.
type Stats struct {
	Min, Max, Mean, Std float64
	// Top1, Top2 are the two best scores.
	Top1, Top2 float64
}

// Describe computes the statistics of scores.
func Describe(scores []float64) Stats {
	return DescribeSparse(scores, nil, len(scores))
}

// DescribeSparse is Describe of n scores of which only those at touched
// (distinct indices into scores) may be non-zero, every other counting 0,
// in time proportional to len(touched): a BM25 input's statistics over
// every candidate from the candidates its postings reach. touched nil
// means every score of scores (n = len(scores)).
func DescribeSparse(scores []float64, touched []uint32, n int) Stats {
	if n == 0 {
		return Stats{}
	}
	s := Stats{Min: math.Inf(1), Max: math.Inf(-1), Top1: math.Inf(-1), Top2: math.Inf(-1)}
	see := func(x float64) {
		if x < s.Min {
			s.Min = x
		}
		if x > s.Top1 {
			s.Top2, s.Top1 = s.Top1, x
		} else if x > s.Top2 {
			s.Top2 = x
		}
	}
	each := func(fn func(x float64)) {
		if touched == nil {
			for _, x := range scores {
				fn(x)
			}
			return
		}
		for _, d := range touched {
			fn(scores[d])
		}
	}
	var sum float64
	each(func(x float64) { sum += x; see(x) })
	zeros := 0
	if touched != nil {
		zeros = n - len(touched)
		for range min(zeros, 2) {
			see(0)
		}
	}
	s.Max = s.Top1
	s.Mean = sum / float64(n)
	ss := float64(zeros) * s.Mean * s.Mean
	each(func(x float64) { d := x - s.Mean; ss += d * d })
	s.Std = math.Sqrt(ss / float64(n))
	if n == 1 {
		s.Top2 = s.Top1
	}
	return s
}

// Margin is the relative gap between the best two scores, in [0, 1]: 0
// when they tie (an unsure ranker), 1 when the runner-up scored 0.
func (s Stats) Margin() float64 {
	if s.Top1 <= 0 || math.IsInf(s.Top2, 0) {
		return 0
	}
	m := (s.Top1 - s.Top2) / s.Top1
	return math.Max(0, math.Min(1, m))
}

// MinMax maps x into [0, 1] with the statistics' range.
func (s Stats) MinMax(x float64) float64 {
	if s.Max == s.Min {
		return 0
	}
	return (x - s.Min) / (s.Max - s.Min)
}

// Z maps x to its z-score.
func (s Stats) Z(x float64) float64 {
	if s.Std == 0 {
		return 0
	}
	return (x - s.Mean) / s.Std
}

// WeightsFor returns the weights p applies to a question whose first input
// has statistics first.
func (p Params) WeightsFor(first Stats) []float64 {
	if p.Method == "learned" {
		return p.learnedWeights(first.Margin())
	}
	if p.Method != "adaptive" {
		return p.Weights
	}
	m := first.Margin()
	i := sort.SearchFloat64s(p.Bounds, m)
	if i < len(p.Bounds) && p.Bounds[i] == m {
		i++
	}
	return p.BucketWeights[i]
}

// Fuse writes the fused score of every candidate into out. inputs[r][d] is
// input ranker r's score of candidate d; every input covers all candidates.
// A "rerank" fusion with context features needs FuseContext.
func Fuse(p Params, inputs [][]float64, out []float64) error {
	return FuseContext(p, inputs, nil, out)
}

// FuseContext is Fuse with the description of every candidate (context,
// position, length), which the "rerank" method's features read; other
// methods ignore it.
func FuseContext(p Params, inputs [][]float64, corpus *Corpus, out []float64) error {
	if len(inputs) != len(p.Inputs) {
		return fmt.Errorf("fusion %s: %d inputs, want %d", p.Name, len(inputs), len(p.Inputs))
	}
	for _, in := range inputs {
		if len(in) != len(out) {
			return fmt.Errorf("fusion %s: input of %d candidates, output of %d", p.Name, len(in), len(out))
		}
	}
	clear(out)
	var err error
	switch p.Method {
	case "rerank":
		err = fuseRerank(p, inputs, corpus, out)
	case "rrf":
		for _, in := range inputs {
			for rank, d := range TopIndices(in, RRFDepth) {
				out[d] += 1 / (p.K + float64(rank+1))
			}
		}
	default:
		stats := make([]Stats, len(inputs))
		for r, in := range inputs {
			stats[r] = Describe(in)
		}
		err = FuseStats(p, inputs, stats, out)
	}
	if err == nil && p.DemoteQuestions && corpus != nil && len(corpus.Question) == len(out) {
		Demote(out, corpus.Question)
	}
	return err
}

// Demote lowers the scores of the candidates flagged in below (below[d]
// for out[d]) under every other score, keeping the order within each
// group: the flagged scores drop by the span of the finite scores plus
// one. Non-finite scores stay as they are.
func Demote(out []float64, below []bool) {
	some := false
	for d := range out {
		some = some || below[d]
	}
	if !some {
		return
	}
	drop, ok := span(out)
	if !ok {
		return
	}
	for d, x := range out {
		if below[d] && finite(x) {
			out[d] = x - drop
		}
	}
}

// Raise lifts the scores of the candidates at idx above every other
// score, keeping the order within each group: Demote's opposite (a
// fusion's definitions first, in package rank). Non-finite scores stay as
// they are.
func Raise(out []float64, idx []int) {
	lift, ok := span(out)
	if !ok {
		return
	}
	for _, d := range idx {
		if finite(out[d]) {
			out[d] += lift
		}
	}
}

// span is the span of the finite scores of out plus one (false: none is
// finite).
func span(out []float64) (float64, bool) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range out {
		if finite(x) {
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	return hi - lo + 1, lo <= hi
}

func finite(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }

// FuseStats fuses scores of a subset of the candidates (a pool: every
// input's best candidates) with each input's statistics over all of them,
// given: what an index kept in an external engine does, which never sees
// every candidate's score. It takes the methods that need only scores and
// statistics (minmax, zscore, adaptive, learned; rrf ranks within the pool,
// which keeps every input's own best candidates in their order); rerank is
// refused.
func FuseStats(p Params, inputs [][]float64, stats []Stats, out []float64) error {
	if len(inputs) != len(p.Inputs) || len(stats) != len(inputs) {
		return fmt.Errorf("fusion %s: %d inputs and %d statistics, want %d", p.Name, len(inputs), len(stats), len(p.Inputs))
	}
	for _, in := range inputs {
		if len(in) != len(out) {
			return fmt.Errorf("fusion %s: input of %d candidates, output of %d", p.Name, len(in), len(out))
		}
	}
	clear(out)
	switch p.Method {
	case "rerank":
		return fmt.Errorf("fusion %s: the re-ranker needs every candidate's context scores: %w", p.Name, ErrNeedsCorpus)
	case "rrf":
		for _, in := range inputs {
			for rank, d := range TopIndices(in, RRFDepth) {
				out[d] += 1 / (p.K + float64(rank+1))
			}
		}
		return nil
	}
	w := p.WeightsFor(stats[0])
	for r, in := range inputs {
		if w[r] == 0 {
			continue
		}
		// out += w·(x − shift)/scale, folded into one multiply-add.
		st := stats[r]
		shift, scale := st.Mean, st.Std
		if p.Method == "minmax" {
			shift, scale = st.Min, st.Max-st.Min
		}
		if scale == 0 {
			continue // a constant input ranks nothing (MinMax and Z give 0)
		}
		a := w[r] / scale
		c := -shift * a
		for d, x := range in {
			out[d] += a*x + c
		}
	}
	return nil
}

// TopIndices returns the indices of the k best scores of s, best first,
// ties by lower index: a bounded heap, O(n log k), so that a question's k
// best of a large index cost no sort of all of it.
func TopIndices(s []float64, k int) []int {
	better := func(a, b int) bool {
		if s[a] != s[b] {
			return s[a] > s[b]
		}
		return a < b
	}
	k = max(min(k, len(s)), 0)
	h := make([]int, 0, k) // the kept indices; h[0] is the worst of them
	down := func(i int) {
		for {
			w := i
			for _, c := range []int{2*i + 1, 2*i + 2} {
				if c < len(h) && better(h[w], h[c]) {
					w = c
				}
			}
			if w == i {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	for d := range s {
		if len(h) < k {
			h = append(h, d)
			for i := len(h) - 1; i > 0 && better(h[(i-1)/2], h[i]); i = (i - 1) / 2 {
				h[i], h[(i-1)/2] = h[(i-1)/2], h[i]
			}
		} else if k > 0 && better(d, h[0]) {
			h[0] = d
			down(0)
		}
	}
	sort.Slice(h, func(a, b int) bool { return better(h[a], h[b]) })
	return h
}
