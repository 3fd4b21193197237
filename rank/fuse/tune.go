package fuse

import (
	"fmt"
	"math"
	"sort"

	"github.com/reqa/reqa/internal/metric"
)

// Example is one tuning question, reduced to what fusion needs: each
// input's scores over a pool of candidates (every input's best candidates
// and the gold ones) and each input's statistics over all candidates.
type Example struct {
	// Pool lists candidate ids.
	Pool []uint32
	// Scores[r][i] is input r's score of Pool[i].
	Scores [][]float64
	// Stats[r] describes input r's scores over all candidates.
	Stats []Stats
	// Gold[i] tells whether Pool[i] is a gold candidate.
	Gold []bool
	// Set by NewExampleContext, for the "rerank" method: Ranks[r][i] is
	// Pool[i]'s 1-based rank among all candidates by input r (1 + how many
	// score higher); Pos[r][i] its position in input r's order (ties by
	// lower id) when among the first depth, else −1; CtxMax[r][i] the best
	// score input r gives a candidate of Pool[i]'s context (nil without
	// context ids).
	Ranks  [][]int
	Pos    [][]int
	CtxMax [][]float64
	// SentPos[i] and SentLen[i] are Pool[i]'s position in its context and
	// length in bytes (nil without a corpus description).
	SentPos, SentLen []int
	// Question[i] tells whether Pool[i] is itself a question (nil without
	// a corpus's question flags); fusions with DemoteQuestions read it.
	Question []bool
}

// NewExampleContext is NewExample with what the "rerank" method needs too:
// ranks, positions and, when corpus describes every candidate (not
// nil, context maxima and sentence positions and lengths.
func NewExampleContext(inputs [][]float64, gold []uint32, depth int, corpus *Corpus) Example {
	ex := NewExample(inputs, gold, depth)
	ok := corpus.covers(len(inputs[0]))
	if ok {
		for _, d := range ex.Pool {
			ex.SentPos = append(ex.SentPos, corpus.Pos[d])
			ex.SentLen = append(ex.SentLen, corpus.Len[d])
		}
	}
	ex.Question = corpus.QuestionsOf(ex.Pool, len(inputs[0]))
	for r, in := range inputs {
		ex.Ranks = append(ex.Ranks, ranksOf(in, ex.Scores[r]))
		pos := make([]int, len(ex.Pool))
		at := map[uint32]int{}
		for i, d := range TopIndices(in, depth) {
			at[uint32(d)] = i
		}
		for i, d := range ex.Pool {
			pos[i] = -1
			if k, ok := at[d]; ok {
				pos[i] = k
			}
		}
		ex.Pos = append(ex.Pos, pos)
		if ok {
			ex.CtxMax = append(ex.CtxMax, ctxMaxOf(in, corpus.Ctx, ex.Pool))
		}
	}
	return ex
}

// NewExample builds an example from full score vectors (inputs[r][d]), the
// gold candidate ids, and the pool depth per input.
func NewExample(inputs [][]float64, gold []uint32, depth int) Example {
	in := map[uint32]bool{}
	var pool []uint32
	add := func(d uint32) {
		if !in[d] {
			in[d] = true
			pool = append(pool, d)
		}
	}
	for _, s := range inputs {
		for _, d := range TopIndices(s, depth) {
			add(uint32(d))
		}
	}
	for _, g := range gold {
		if int(g) < len(inputs[0]) {
			add(g)
		}
	}
	sort.Slice(pool, func(a, b int) bool { return pool[a] < pool[b] })
	ex := Example{Pool: pool, Scores: make([][]float64, len(inputs)), Stats: make([]Stats, len(inputs)), Gold: make([]bool, len(pool))}
	isGold := map[uint32]bool{}
	for _, g := range gold {
		isGold[g] = true
	}
	for i, d := range pool {
		ex.Gold[i] = isGold[d]
	}
	for r, s := range inputs {
		ex.Stats[r] = Describe(s)
		ex.Scores[r] = make([]float64, len(pool))
		for i, d := range pool {
			ex.Scores[r][i] = s[d]
		}
	}
	return ex
}

// outcome scores one example under weights w with method ("minmax" or
// "zscore"): whether the fused first candidate is gold, and the rank of the
// best gold inside the pool (0: no gold in the pool).
func (ex *Example) outcome(method string, w []float64, buf []float64) (hit bool, rank int) {
	return ex.outcomeDemoted(method, w, false, buf)
}

// outcomeDemoted is outcome with the example's questions ranked last when
// demote is set (Params.DemoteQuestions).
func (ex *Example) outcomeDemoted(method string, w []float64, demote bool, buf []float64) (hit bool, rank int) {
	buf = buf[:len(ex.Pool)]
	clear(buf)
	for r, s := range ex.Scores {
		if w[r] == 0 {
			continue
		}
		st := ex.Stats[r]
		for i, x := range s {
			if method == "minmax" {
				buf[i] += w[r] * st.MinMax(x)
			} else {
				buf[i] += w[r] * st.Z(x)
			}
		}
	}
	if demote && len(ex.Question) == len(buf) {
		Demote(buf, ex.Question)
	}
	best := -1
	for i := range buf {
		if ex.Gold[i] && (best < 0 || buf[i] > buf[best]) {
			best = i // pool is in id order, so the first max wins ties
		}
	}
	if best < 0 {
		return false, 0
	}
	rank = 1
	for i, x := range buf {
		if x > buf[best] || (x == buf[best] && i < best) {
			rank++
		}
	}
	return rank == 1, rank
}

// evaluate returns P@1 and MRR (percent) of weights w over examples.
func evaluate(method string, w []float64, exs []Example) (p1, mrr float64) {
	if len(exs) == 0 {
		return 0, 0
	}
	buf := make([]float64, 0, 256)
	ranks := make([]int, len(exs))
	for i := range exs {
		if cap(buf) < len(exs[i].Pool) {
			buf = make([]float64, 0, len(exs[i].Pool))
		}
		_, ranks[i] = exs[i].outcome(method, w, buf)
	}
	return metric.PAt(ranks, 1), metric.MRR(ranks)
}

// Simplex returns every weight vector of n non-negative entries summing to
// 1 on a grid of step 1/steps.
func Simplex(n, steps int) [][]float64 {
	var out [][]float64
	var rec func(prefix []int, left int)
	rec = func(prefix []int, left int) {
		if len(prefix) == n-1 {
			w := make([]float64, n)
			for i, p := range prefix {
				w[i] = float64(p) / float64(steps)
			}
			w[n-1] = float64(left) / float64(steps)
			out = append(out, w)
			return
		}
		for k := 0; k <= left; k++ {
			rec(append(prefix, k), left-k)
		}
	}
	rec(nil, steps)
	return out
}

// SweepPoint is one grid point of a tuning sweep.
type SweepPoint struct {
	Weights []float64 `json:"weights"`
	P1      float64   `json:"p_at_1"`
	MRR     float64   `json:"mrr"`
}

// bestOf returns the grid point with the best P@1, then MRR, then the
// earliest in grid order.
func bestOf(method string, grid [][]float64, exs []Example) (SweepPoint, []SweepPoint) {
	var best SweepPoint
	best.P1 = -1
	sweep := make([]SweepPoint, 0, len(grid))
	for _, w := range grid {
		p1, mrr := evaluate(method, w, exs)
		pt := SweepPoint{Weights: w, P1: p1, MRR: mrr}
		sweep = append(sweep, pt)
		if p1 > best.P1 || (p1 == best.P1 && mrr > best.MRR) {
			best = pt
		}
	}
	return best, sweep
}

// TuneOptions control Tune.
type TuneOptions struct {
	// Steps is the weight grid's resolution (1/Steps); default 20.
	Steps int
	// Buckets is the adaptive method's number of margin buckets; default 4.
	Buckets int
	// Label records what the examples were (e.g. "squad tune split").
	Label string
	// Rerank is the "rerank" method's template (pool, features, training
	// settings); nil: RerankerFor(inputs).
	Rerank *Reranker
}

// Tune learns the parameters of method over inputs from examples and
// returns them with the sweep over the convex weights (for plotting).
func Tune(method string, inputs []string, exs []Example, opt TuneOptions) (Params, []SweepPoint, error) {
	if opt.Steps <= 0 {
		opt.Steps = 20
	}
	if opt.Buckets <= 0 {
		opt.Buckets = 4
	}
	if len(exs) == 0 {
		return Params{}, nil, fmt.Errorf("tune %s: no examples", method)
	}
	p := Params{Name: "fusion-" + method, Method: method, Inputs: inputs, TunedOn: opt.Label}
	grid := Simplex(len(inputs), opt.Steps)
	switch method {
	case "minmax", "zscore":
		best, sweep := bestOf(method, grid, exs)
		p.Weights, p.TuneP1 = best.Weights, best.P1
		return p, sweep, p.Validate()
	case "adaptive":
		// Bucket bounds at quantiles of the first input's margin.
		ms := make([]float64, len(exs))
		for i := range exs {
			ms[i] = exs[i].Stats[0].Margin()
		}
		sorted := append([]float64(nil), ms...)
		sort.Float64s(sorted)
		for b := 1; b < opt.Buckets; b++ {
			q := sorted[b*len(sorted)/opt.Buckets]
			if len(p.Bounds) == 0 || q > p.Bounds[len(p.Bounds)-1] {
				p.Bounds = append(p.Bounds, q)
			}
		}
		groups := make([][]Example, len(p.Bounds)+1)
		for i := range exs {
			b := sort.SearchFloat64s(p.Bounds, ms[i])
			if b < len(p.Bounds) && p.Bounds[b] == ms[i] {
				b++
			}
			groups[b] = append(groups[b], exs[i])
		}
		_, sweep := bestOf("zscore", grid, exs)
		for _, g := range groups {
			best, _ := bestOf("zscore", grid, g)
			if len(g) == 0 {
				best.Weights = grid[len(grid)/2]
			}
			p.BucketWeights = append(p.BucketWeights, best.Weights)
		}
		var hits float64
		buf := make([]float64, 0, 256)
		for i := range exs {
			w := p.WeightsFor(exs[i].Stats[0])
			if cap(buf) < len(exs[i].Pool) {
				buf = make([]float64, 0, len(exs[i].Pool))
			}
			if hit, _ := exs[i].outcome("zscore", w, buf); hit {
				hits++
			}
		}
		p.TuneP1 = 100 * hits / float64(len(exs))
		return p, sweep, p.Validate()
	case "rrf":
		p.K = 60
		return p, nil, p.Validate()
	case "rerank":
		spec := RerankerFor(inputs)
		if opt.Rerank != nil {
			spec = *opt.Rerank
		}
		rr, err := trainRerank(spec, inputs, exs)
		if err != nil {
			return Params{}, nil, fmt.Errorf("tune rerank: %w", err)
		}
		p.Rerank = &rr
		p.TuneP1 = p.rerankP1(exs)
		return p, nil, p.Validate()
	case "learned":
		p.Weights = trainLearned(len(inputs), exs)
		for i, w := range p.Weights {
			p.Weights[i] = round6(w)
		}
		p.TuneP1 = p.learnedP1(exs)
		return p, nil, p.Validate()
	}
	return Params{}, nil, fmt.Errorf("tune: unknown method %q", method)
}

// round6 rounds weights for stable JSON.
func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// Sweep evaluates the convex weight grid of method ("minmax" or "zscore")
// on examples, for plotting P@1 against the weights.
func Sweep(method string, n int, exs []Example, steps int) []SweepPoint {
	if steps <= 0 {
		steps = 20
	}
	_, pts := bestOf(method, Simplex(n, steps), exs)
	return pts
}
