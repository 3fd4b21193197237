package fuse

import (
	"container/heap"
	"fmt"
	"math"
	"sort"
	"strings"
)

// The "rerank" method is a small learned re-ranker on top of the inputs.
// For each question it takes a pool — every candidate among the first
// [Reranker.Depth] of any pool input — and scores each pool candidate with
// a bilinear model
//
//	s(q, d) = Σ_f Σ_g W[f][g] · x̂_f(q, d) · ĝ_g(q),
//
// where x_f are candidate features computed from the input scores (z-scores,
// ranks, context-level evidence: the best score in the candidate's context
// and the candidate's gap to it, after the MultiReQA paper's observation that
// BM25 finds the right context but not the sentence) and g_g are question
// features (1, BM25's top-two margin, the dense ranker's margin, whether the
// inputs agree on the first answer): the weight of every candidate feature
// depends linearly on the question, as in "learned" but with far richer
// evidence. Features are standardised with the tuning set's mean and
// deviation (stored), and W is fit with the listwise softmax objective by
// full-batch Adam from zero, so training is deterministic. Candidates
// outside the pool rank below every pool candidate, in z-score-sum order.

// Reranker is what the "rerank" method learns and stores.
type Reranker struct {
	// Depth is the pool depth: a candidate is scored by the model when it
	// is among the first Depth of at least one of PoolInputs.
	Depth      int      `json:"depth"`
	PoolInputs []string `json:"pool_inputs"`
	// Features are candidate features "KIND:INPUT" (KIND z, cmz, crel, lr,
	// top or ctop; see featureKinds); QFeatures question features ("1",
	// "m:INPUT", "mz:INPUT", "t1z:INPUT" or "agree:INPUT:INPUT").
	Features  []string `json:"features"`
	QFeatures []string `json:"question_features"`
	// Mean/Scale standardise candidate features, QMean/QScale question
	// features (the constant "1" keeps 0/1).
	Mean   []float64 `json:"mean"`
	Scale  []float64 `json:"scale"`
	QMean  []float64 `json:"q_mean"`
	QScale []float64 `json:"q_scale"`
	// W holds len(Features)×len(QFeatures) weights, row-major by feature.
	W []float64 `json:"w"`
	// L2 and Iters are the training settings used.
	L2    float64 `json:"l2"`
	Iters int     `json:"iters"`
}

// featureKinds documents the candidate feature kinds.
var featureKinds = map[string]string{
	"z":    "z-score of the input's score",
	"cmz":  "z-score of the best input score in the candidate's context",
	"crel": "(score − best score in the context) / deviation",
	"lr":   "−log rank among all candidates",
	"top":  "1 when the candidate is the input's first",
	"ctop": "1 when the candidate is its context's best",
	// Without an input:
	"pos0": "1 when the candidate is its context's first sentence",
	"slen": "log(1 + the candidate's length in bytes)",
}

// Corpus describes every candidate, for the features that read more than
// scores; a nil *Corpus is fine for features that do not.
type Corpus struct {
	// Ctx is each candidate's context id; Pos its position among its
	// context's sentences (0 first); Len its length in bytes.
	Ctx []uint32
	Pos []int
	Len []int
	// Question tells which candidates are themselves questions
	// (sentence.IsQuestion); nil when unknown. Read by fusions with
	// DemoteQuestions.
	Question []bool
}

// QuestionsOf returns the question flags of the candidates in pool, nil
// when c (of n candidates) has none.
func (c *Corpus) QuestionsOf(pool []uint32, n int) []bool {
	if c == nil || len(c.Question) != n {
		return nil
	}
	out := make([]bool, len(pool))
	for i, d := range pool {
		out[i] = c.Question[d]
	}
	return out
}

func (c *Corpus) covers(n int) bool {
	return c != nil && len(c.Ctx) == n && len(c.Pos) == n && len(c.Len) == n
}

// feat is a compiled feature: its kind and input index (or two).
type feat struct {
	kind  string
	r, r2 int
}

func compile(names []string, inputs []string, question bool) ([]feat, error) {
	idx := func(n string) int {
		for i, in := range inputs {
			if in == n {
				return i
			}
		}
		return -1
	}
	out := make([]feat, len(names))
	for i, name := range names {
		if question && name == "1" {
			out[i] = feat{kind: "1", r: -1}
			continue
		}
		kind, in, ok := strings.Cut(name, ":")
		f := feat{kind: kind, r: -1, r2: -1}
		switch {
		case !ok && !question && (kind == "pos0" || kind == "slen"):
			ok = true
		case !ok:
		case question && kind == "agree":
			a, b, _ := strings.Cut(in, ":")
			f.r, f.r2 = idx(a), idx(b)
			ok = f.r >= 0 && f.r2 >= 0
		case question && (kind == "m" || kind == "mz" || kind == "t1z"):
			f.r = idx(in)
			ok = f.r >= 0
		case !question && featureKinds[kind] != "":
			f.r = idx(in)
			ok = f.r >= 0
		default:
			ok = false
		}
		if !ok {
			return nil, fmt.Errorf("feature %q: unknown kind or input not among %v", name, inputs)
		}
		out[i] = f
	}
	return out, nil
}

func (rr *Reranker) validate(inputs []string) error {
	if rr == nil {
		return fmt.Errorf("no re-ranker parameters")
	}
	nf, nq := len(rr.Features), len(rr.QFeatures)
	if rr.Depth <= 0 || len(rr.PoolInputs) == 0 {
		return fmt.Errorf("re-ranker pool: depth %d over %d inputs", rr.Depth, len(rr.PoolInputs))
	}
	if nf == 0 || nq == 0 || rr.QFeatures[0] != "1" {
		return fmt.Errorf("re-ranker: %d features, %d question features (the first must be \"1\")", nf, nq)
	}
	if len(rr.W) != nf*nq || len(rr.Mean) != nf || len(rr.Scale) != nf || len(rr.QMean) != nq || len(rr.QScale) != nq {
		return fmt.Errorf("re-ranker: %d weights, %d/%d/%d/%d standardisers for %d×%d features", len(rr.W), len(rr.Mean), len(rr.Scale), len(rr.QMean), len(rr.QScale), nf, nq)
	}
	for _, s := range append(append([]float64{}, rr.Scale...), rr.QScale...) {
		if !(s > 0) {
			return fmt.Errorf("re-ranker: scale %v not > 0", s)
		}
	}
	for _, w := range rr.W {
		if math.IsNaN(w) || math.IsInf(w, 0) {
			return fmt.Errorf("re-ranker: weight %v", w)
		}
	}
	if _, err := compile(rr.Features, inputs, false); err != nil {
		return err
	}
	if _, err := compile(rr.QFeatures, inputs, true); err != nil {
		return err
	}
	for _, p := range rr.PoolInputs {
		if _, err := compile([]string{"z:" + p}, inputs, false); err != nil {
			return fmt.Errorf("re-ranker pool input %q is not an input", p)
		}
	}
	return nil
}

// evidence is one question's pool with what the features read.
type evidence struct {
	// asks[i]: pool candidate i is itself a question (examples only).
	asks   []bool
	stats  []Stats
	scores [][]float64 // [input][pool]
	ranks  [][]int     // [input][pool], 1-based among all candidates
	ctxMax [][]float64 // [input][pool]; nil without context ids
	pos0   []bool      // [pool]
	slen   []int       // [pool]
}

// needMeta reports whether a feature reads sentence positions or lengths.
func needMeta(fs []feat) bool {
	for _, f := range fs {
		if f.kind == "pos0" || f.kind == "slen" {
			return true
		}
	}
	return false
}

// needs reports which inputs the features read ranks and context maxima of.
func needs(fs []feat, n int) (ranks, ctx []bool) {
	ranks, ctx = make([]bool, n), make([]bool, n)
	for _, f := range fs {
		if f.r < 0 {
			continue
		}
		switch f.kind {
		case "lr", "top":
			ranks[f.r] = true
		case "cmz", "crel", "ctop":
			ctx[f.r] = true
		}
	}
	return
}

func (ev *evidence) cand(f feat, p int) float64 {
	switch f.kind {
	case "pos0":
		return b2f(ev.pos0[p])
	case "slen":
		return math.Log(1 + float64(ev.slen[p]))
	}
	st := ev.stats[f.r]
	sd := st.Std
	if sd == 0 {
		sd = 1
	}
	x := ev.scores[f.r][p]
	switch f.kind {
	case "z":
		return (x - st.Mean) / sd
	case "cmz":
		return (ev.ctxMax[f.r][p] - st.Mean) / sd
	case "crel":
		return (x - ev.ctxMax[f.r][p]) / sd
	case "lr":
		return -math.Log(float64(ev.ranks[f.r][p]))
	case "top":
		return b2f(ev.ranks[f.r][p] == 1)
	case "ctop":
		return b2f(x >= ev.ctxMax[f.r][p])
	}
	return 0
}

func (ev *evidence) question(f feat) float64 {
	if f.kind == "1" {
		return 1
	}
	if f.kind == "agree" {
		for p := range ev.scores[f.r] {
			if ev.ranks[f.r][p] == 1 && ev.ranks[f.r2][p] == 1 {
				return 1
			}
		}
		return 0
	}
	st := ev.stats[f.r]
	sd := st.Std
	if sd == 0 {
		sd = 1
	}
	switch f.kind {
	case "m":
		return st.Margin()
	case "mz":
		return (st.Top1 - st.Top2) / sd
	case "t1z":
		return (st.Top1 - st.Mean) / sd
	}
	return 0
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// poolOf returns the pool of a question: every candidate among the first
// depth of a pool input (ties at the cut-off by lower id), in id order.
func poolOf(inputs [][]float64, pool []int, depth int) []uint32 {
	in := map[uint32]bool{}
	var out []uint32
	for _, r := range pool {
		for _, d := range topK(inputs[r], depth) {
			if !in[d] {
				in[d] = true
				out = append(out, d)
			}
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
	return out
}

// topK returns the indices of the k best scores (ties by lower index), in
// no particular order, in O(n log k).
func topK(s []float64, k int) []uint32 {
	h := &minHeap{s: s}
	for i, x := range s {
		if len(h.ids) < k {
			heap.Push(h, uint32(i))
		} else if top := h.ids[0]; x > s[top] {
			h.ids[0] = uint32(i)
			heap.Fix(h, 0)
		}
	}
	return h.ids
}

// minHeap keeps the worst kept candidate on top: lowest score, then
// highest index.
type minHeap struct {
	s   []float64
	ids []uint32
}

func (h *minHeap) Len() int { return len(h.ids) }
func (h *minHeap) Less(a, b int) bool {
	x, y := h.s[h.ids[a]], h.s[h.ids[b]]
	if x != y {
		return x < y
	}
	return h.ids[a] > h.ids[b]
}
func (h *minHeap) Swap(a, b int) { h.ids[a], h.ids[b] = h.ids[b], h.ids[a] }
func (h *minHeap) Push(x any)    { h.ids = append(h.ids, x.(uint32)) }
func (h *minHeap) Pop() any {
	x := h.ids[len(h.ids)-1]
	h.ids = h.ids[:len(h.ids)-1]
	return x
}

// gather computes the evidence of pool over full score vectors.
func gather(inputs [][]float64, corpus *Corpus, pool []uint32, needRank, needCtx []bool, stats []Stats) (evidence, error) {
	n := len(inputs)
	ev := evidence{stats: stats, scores: make([][]float64, n), ranks: make([][]int, n), ctxMax: make([][]float64, n)}
	if corpus.covers(len(inputs[0])) {
		for _, d := range pool {
			ev.pos0 = append(ev.pos0, corpus.Pos[d] == 0)
			ev.slen = append(ev.slen, corpus.Len[d])
		}
	}
	if ev.stats == nil {
		ev.stats = make([]Stats, n)
		for r, in := range inputs {
			ev.stats[r] = Describe(in)
		}
	}
	for r, in := range inputs {
		ev.scores[r] = make([]float64, len(pool))
		for p, d := range pool {
			ev.scores[r][p] = in[d]
		}
		if needRank[r] {
			ev.ranks[r] = ranksOf(in, ev.scores[r])
		}
		if needCtx[r] {
			if !corpus.covers(len(in)) {
				return ev, fmt.Errorf("context features need the context of every candidate")
			}
			ev.ctxMax[r] = ctxMaxOf(in, corpus.Ctx, pool)
		}
	}
	return ev, nil
}

// ranksOf returns, for every value of vals, 1 + how many of all scores
// exceed it, in O(n log |vals|).
func ranksOf(all, vals []float64) []int {
	order := make([]int, len(vals))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return vals[order[a]] < vals[order[b]] })
	sorted := make([]float64, len(vals))
	for i, o := range order {
		sorted[i] = vals[o]
	}
	// diff[k]: how many scores exceed exactly the first k sorted values.
	diff := make([]int, len(vals)+1)
	for _, x := range all {
		diff[sort.SearchFloat64s(sorted, x)]++ // sorted[:k] < x
	}
	out := make([]int, len(vals))
	above := 0
	for k := len(vals) - 1; k >= 0; k-- {
		above += diff[k+1]
		out[order[k]] = 1 + above
	}
	return out
}

// ctxMaxOf returns the best score of each pool candidate's context.
func ctxMaxOf(all []float64, ctxOf []uint32, pool []uint32) []float64 {
	var nctx uint32
	for _, c := range ctxOf {
		nctx = max(nctx, c+1)
	}
	best := make([]float64, nctx)
	for i := range best {
		best[i] = math.Inf(-1)
	}
	for d, x := range all {
		if c := ctxOf[d]; x > best[c] {
			best[c] = x
		}
	}
	out := make([]float64, len(pool))
	for p, d := range pool {
		out[p] = best[ctxOf[d]]
	}
	return out
}

// fuseRerank writes the re-ranked scores of every candidate into out.
func fuseRerank(p Params, inputs [][]float64, corpus *Corpus, out []float64) error {
	rr := p.Rerank
	fs, qs, pi := rr.compiled(p.Inputs)
	needRank, needCtx := needs(append(append([]feat{}, fs...), qs...), len(inputs))
	for _, f := range qs {
		if f.kind == "agree" {
			needRank[f.r], needRank[f.r2] = true, true
		}
	}
	stats := make([]Stats, len(inputs))
	for r, in := range inputs {
		stats[r] = Describe(in)
	}
	// Outside the pool: the sum of z-scores, squashed below the pool.
	for r, in := range inputs {
		if st := stats[r]; st.Std > 0 {
			a := 1 / st.Std
			c := -st.Mean * a
			for d, x := range in {
				out[d] += a*x + c
			}
		}
	}
	for d, z := range out {
		out[d] = math.Atan(z) / math.Pi // in (−0.5, 0.5)
	}
	pool := poolOf(inputs, pi, rr.Depth)
	if len(pool) == 0 {
		return nil
	}
	ev, err := gather(inputs, corpus, pool, needRank, needCtx, stats)
	if err != nil {
		return fmt.Errorf("fusion %s: %w", p.Name, err)
	}
	if needMeta(fs) && ev.pos0 == nil {
		return fmt.Errorf("fusion %s: sentence features need the corpus description", p.Name)
	}
	s := rr.scorePool(&ev, fs, qs)
	lo := math.Inf(1)
	for _, x := range s {
		lo = math.Min(lo, x)
	}
	for d := range out {
		out[d] += lo - 1
	}
	for i, d := range pool {
		out[d] = s[i]
	}
	return nil
}

func prefixAll(pre string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = pre + x
	}
	return out
}

// scorePool scores every pool candidate of ev.
func (rr *Reranker) scorePool(ev *evidence, fs, qs []feat) []float64 {
	nq := len(qs)
	g := make([]float64, nq)
	for j, f := range qs {
		g[j] = (ev.question(f) - rr.QMean[j]) / rr.QScale[j]
	}
	v := make([]float64, len(fs))
	for i := range fs {
		for j := 0; j < nq; j++ {
			v[i] += rr.W[i*nq+j] * g[j]
		}
	}
	out := make([]float64, len(ev.scores[0]))
	for p := range out {
		s := 0.0
		for i, f := range fs {
			s += v[i] * (ev.cand(f, p) - rr.Mean[i]) / rr.Scale[i]
		}
		out[p] = s
	}
	return out
}

// exampleEvidence returns the pool of ex the re-ranker scores (candidates
// among the first Depth of a pool input) with their evidence, and whether
// each is gold.
func (rr *Reranker) exampleEvidence(ex *Example, pi []int) (evidence, []bool) {
	var keep []int
	for p := range ex.Pool {
		for _, r := range pi {
			if ex.Pos[r][p] >= 0 && ex.Pos[r][p] < rr.Depth {
				keep = append(keep, p)
				break
			}
		}
	}
	n := len(ex.Scores)
	ev := evidence{stats: ex.Stats, scores: make([][]float64, n), ranks: make([][]int, n), ctxMax: make([][]float64, n)}
	for r := 0; r < n; r++ {
		ev.scores[r] = make([]float64, len(keep))
		ev.ranks[r] = make([]int, len(keep))
		if ex.CtxMax != nil {
			ev.ctxMax[r] = make([]float64, len(keep))
		}
		for i, p := range keep {
			ev.scores[r][i] = ex.Scores[r][p]
			ev.ranks[r][i] = ex.Ranks[r][p]
			if ex.CtxMax != nil {
				ev.ctxMax[r][i] = ex.CtxMax[r][p]
			}
		}
	}
	gold := make([]bool, len(keep))
	for i, p := range keep {
		gold[i] = ex.Gold[p]
		if len(ex.Question) == len(ex.Pool) {
			ev.asks = append(ev.asks, ex.Question[p])
		}
		if ex.SentPos != nil {
			ev.pos0 = append(ev.pos0, ex.SentPos[p] == 0)
			ev.slen = append(ev.slen, ex.SentLen[p])
		}
	}
	return ev, gold
}

// rrSet is the training data: standardised features per question.
type rrSet struct {
	x    [][]float64 // [question][cand*nf]
	g    [][]float64 // [question][nq]
	gold [][]bool
}

// DefaultReranker is the re-ranker template chosen on the SQuAD tune half
// (article-level cross-validation, BENCHMARKS.md) for inputs bm25-wpm,
// bm25-word, bm25-wpm/sent, bm25-word/sent, dense and dense/sent.
func DefaultReranker() Reranker {
	return Reranker{
		Depth:      50,
		PoolInputs: []string{"bm25-wpm", "bm25-word", "dense"},
		Features: []string{"z:bm25-wpm", "z:bm25-word", "z:bm25-wpm/sent", "z:bm25-word/sent", "z:dense", "z:dense/sent",
			"cmz:bm25-wpm", "crel:dense/sent", "cmz:dense", "crel:bm25-wpm/sent",
			"lr:bm25-wpm", "lr:dense", "top:bm25-wpm", "top:dense", "ctop:dense/sent", "ctop:bm25-wpm/sent", "pos0", "slen"},
		QFeatures: []string{"1", "m:bm25-wpm", "mz:dense", "t1z:bm25-wpm", "agree:bm25-wpm:dense"},
		L2:        1e-4,
		Iters:     300,
	}
}

// RerankerFor returns the re-ranker template for inputs: DefaultReranker
// when inputs hold every input it reads, else a generic one — for every
// input its z-score, context best and gap to it, rank and first place; the
// sentence's position and length; question features 1 and the first
// input's margin; the pool from the inputs that are not sentence-only.
func RerankerFor(inputs []string) Reranker {
	def := DefaultReranker()
	if def.validateNames(inputs) == nil {
		return def
	}
	rr := Reranker{Depth: def.Depth, L2: def.L2, Iters: def.Iters, QFeatures: []string{"1", "m:" + inputs[0]}}
	for _, in := range inputs {
		rr.Features = append(rr.Features, "z:"+in, "cmz:"+in, "crel:"+in, "lr:"+in, "top:"+in)
		if !IsSentenceOnly(in) {
			rr.PoolInputs = append(rr.PoolInputs, in)
		}
	}
	if len(rr.PoolInputs) == 0 {
		rr.PoolInputs = inputs
	}
	rr.Features = append(rr.Features, "pos0", "slen")
	return rr
}

// validateNames checks that every feature and pool input names one of
// inputs.
func (rr *Reranker) validateNames(inputs []string) error {
	if _, err := compile(rr.Features, inputs, false); err != nil {
		return err
	}
	if _, err := compile(rr.QFeatures, inputs, true); err != nil {
		return err
	}
	_, err := compile(prefixAll("z:", rr.PoolInputs), inputs, false)
	return err
}

// trainRerank fits spec's weights on exs (which must carry ranks, and
// context maxima when features need them).
func trainRerank(spec Reranker, inputs []string, exs []Example) (Reranker, error) {
	rr := spec
	fs, err := compile(rr.Features, inputs, false)
	if err != nil {
		return rr, err
	}
	qs, err := compile(rr.QFeatures, inputs, true)
	if err != nil {
		return rr, err
	}
	if len(qs) == 0 || qs[0].kind != "1" {
		return rr, fmt.Errorf("re-ranker: the first question feature must be \"1\"")
	}
	pf, err := compile(prefixAll("z:", rr.PoolInputs), inputs, false)
	if err != nil {
		return rr, err
	}
	var pi []int
	for _, f := range pf {
		pi = append(pi, f.r)
	}
	_, needCtx := needs(fs, len(inputs))
	nf, nq := len(fs), len(qs)
	var raw rrSet
	for i := range exs {
		ex := &exs[i]
		if ex.Ranks == nil || ex.Pos == nil {
			return rr, fmt.Errorf("re-ranker: tuning examples without ranks (build them with NewExampleContext)")
		}
		if needMeta(fs) && ex.SentPos == nil {
			return rr, fmt.Errorf("re-ranker: sentence features need examples built with a corpus description")
		}
		for r, need := range needCtx {
			if need && (ex.CtxMax == nil || ex.CtxMax[r] == nil) {
				return rr, fmt.Errorf("re-ranker: feature needs context maxima the examples lack")
			}
		}
		ev, gold := rr.exampleEvidence(ex, pi)
		any := false
		for _, g := range gold {
			any = any || g
		}
		if !any {
			continue // no gold in the pool: nothing to learn
		}
		x := make([]float64, len(gold)*nf)
		for p := range gold {
			for f, ft := range fs {
				x[p*nf+f] = ev.cand(ft, p)
			}
		}
		g := make([]float64, nq)
		for j, ft := range qs {
			g[j] = ev.question(ft)
		}
		raw.x, raw.g, raw.gold = append(raw.x, x), append(raw.g, g), append(raw.gold, gold)
	}
	if len(raw.x) == 0 {
		return rr, fmt.Errorf("re-ranker: no tuning question has a gold candidate in its pool")
	}
	rr.Mean, rr.Scale = standardise(raw.x, nf)
	rr.QMean, rr.QScale = standardise(raw.g, nq)
	rr.QMean[0], rr.QScale[0] = 0, 1
	for i := range raw.x {
		for k, v := range raw.x[i] {
			raw.x[i][k] = (v - rr.Mean[k%nf]) / rr.Scale[k%nf]
		}
		for j, v := range raw.g[i] {
			raw.g[i][j] = (v - rr.QMean[j]) / rr.QScale[j]
		}
	}
	rr.W = fitBilinear(raw, nf, nq, rr.L2, rr.Iters)
	for i, w := range rr.W {
		rr.W[i] = round6(w)
	}
	return rr, nil
}

// standardise returns the mean and deviation (floored) of each of n
// columns of rows laid out [row*n+col].
func standardise(rows [][]float64, n int) (mean, scale []float64) {
	mean, scale = make([]float64, n), make([]float64, n)
	var cnt float64
	for _, x := range rows {
		for k, v := range x {
			mean[k%n] += v
			scale[k%n] += v * v
		}
		cnt += float64(len(x) / n)
	}
	for k := range mean {
		mean[k] /= cnt
		scale[k] = math.Sqrt(math.Max(scale[k]/cnt-mean[k]*mean[k], 0))
		if scale[k] < 1e-9 {
			scale[k] = 1
		}
		mean[k], scale[k] = round6(mean[k]), round9(scale[k])
	}
	return mean, scale
}

func round9(x float64) float64 {
	r := math.Round(x*1e9) / 1e9
	if r == 0 {
		return x
	}
	return r
}

// fitBilinear minimises the mean listwise softmax loss plus l2/2·|W|² by
// full-batch Adam from W = 0.
func fitBilinear(set rrSet, nf, nq int, l2 float64, iters int) []float64 {
	w := make([]float64, nf*nq)
	grad := make([]float64, len(w))
	m1 := make([]float64, len(w))
	m2 := make([]float64, len(w))
	v, dv := make([]float64, nf), make([]float64, nf)
	var buf []float64
	inv := 1 / float64(len(set.x))
	const lr = 0.05
	for it := 1; it <= iters; it++ {
		clear(grad)
		for i, x := range set.x {
			g, gold := set.g[i], set.gold[i]
			np := len(gold)
			if cap(buf) < np {
				buf = make([]float64, np)
			}
			s := buf[:np]
			for f := 0; f < nf; f++ {
				a := 0.0
				for j := 0; j < nq; j++ {
					a += w[f*nq+j] * g[j]
				}
				v[f] = a
			}
			mx := math.Inf(-1)
			for p := 0; p < np; p++ {
				a := 0.0
				for f, xv := range x[p*nf : (p+1)*nf] {
					a += v[f] * xv
				}
				s[p] = a
				mx = math.Max(mx, a)
			}
			var za, zg float64
			for p := range s {
				e := math.Exp(s[p] - mx)
				s[p] = e
				za += e
				if gold[p] {
					zg += e
				}
			}
			clear(dv)
			for p := range s {
				d := s[p] / za
				if gold[p] {
					d -= s[p] / zg
				}
				d *= inv
				for f, xv := range x[p*nf : (p+1)*nf] {
					dv[f] += d * xv
				}
			}
			for f := 0; f < nf; f++ {
				for j := 0; j < nq; j++ {
					grad[f*nq+j] += dv[f] * g[j]
				}
			}
		}
		b1 := 1 - math.Pow(0.9, float64(it))
		b2 := 1 - math.Pow(0.999, float64(it))
		for k := range w {
			gk := grad[k] + l2*w[k]
			m1[k] = 0.9*m1[k] + 0.1*gk
			m2[k] = 0.999*m2[k] + 0.001*gk*gk
			w[k] -= lr * (m1[k] / b1) / (math.Sqrt(m2[k]/b2) + 1e-8)
		}
	}
	return w
}

// rerankP1 scores the re-ranker on exs (P@1 in percent, pool-restricted).
func (p Params) rerankP1(exs []Example) float64 {
	rr := p.Rerank
	fs, _ := compile(rr.Features, p.Inputs, false)
	qs, _ := compile(rr.QFeatures, p.Inputs, true)
	pf, _ := compile(prefixAll("z:", rr.PoolInputs), p.Inputs, false)
	var pi []int
	for _, f := range pf {
		pi = append(pi, f.r)
	}
	hits := 0
	for i := range exs {
		ev, gold := rr.exampleEvidence(&exs[i], pi)
		if len(gold) == 0 {
			continue
		}
		s := rr.scorePool(&ev, fs, qs)
		best := 0
		for j := range s {
			if s[j] > s[best] {
				best = j
			}
		}
		if gold[best] {
			hits++
		}
	}
	return 100 * float64(hits) / float64(max(len(exs), 1))
}

// SentenceOnlySuffix marks a fusion input that scores the sentence alone
// ("bm25-wpm/sent"); rank.ParseSpec parses the whole ranker-name grammar.
const SentenceOnlySuffix = "/sent"

// IsSentenceOnly reports whether the input name is a sentence-only ranker.
func IsSentenceOnly(name string) bool { return strings.HasSuffix(name, SentenceOnlySuffix) }

// compiled returns the re-ranker's candidate and question features and the
// indexes of its pool inputs among inputs (validate has checked they
// compile).
func (rr *Reranker) compiled(inputs []string) (fs, qs []feat, pool []int) {
	fs, _ = compile(rr.Features, inputs, false)
	qs, _ = compile(rr.QFeatures, inputs, true)
	pf, _ := compile(prefixAll("z:", rr.PoolInputs), inputs, false)
	for _, f := range pf {
		pool = append(pool, f.r)
	}
	return fs, qs, pool
}
