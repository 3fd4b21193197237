//go:build experiment

package rank_test

import (
	"encoding/gob"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Re-ranking experiments on a dump written by TestRerankDump
// (REQA_RERANK_DATA). Everything is chosen by article-level cross-validation
// on the tune half; REQA_RERANK_TEST=1 also reports the test half.

type rrCfg struct {
	name   string
	feats  []string // candidate features
	qfeats []string // question features (interactions); "1" always first
	k      int      // pool: min rank over pool inputs ≤ k
	l2     float64
	iters  int
}

type rrData struct {
	x      [][]float64 // [cand][feat]
	g      []float64   // question features
	gold   []bool
	anyG   bool
	title  string
	nfeat  int
	nqfeat int
}

func loadDump(t *testing.T, path string) dumpFile {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var d dumpFile
	if err := gob.NewDecoder(f).Decode(&d); err != nil {
		t.Fatal(err)
	}
	return d
}

func inputIndex(inputs []string, name string) int {
	for i, n := range inputs {
		if n == name {
			return i
		}
	}
	return -1
}

// candFeature computes one named candidate feature: "z:IN", "cmz:IN"
// (context max z), "crel:IN" ((s−ctxmax)/std), "rr:IN" (1/rank), "lr:IN"
// (−log rank), "top:IN" (rank 1), "ctop:IN" (best of its context), "pos0",
// "slen" (log bytes), "nsent".
func candFeature(d *dumpQ, inputs []string, name string, p int) float64 {
	kind, in, _ := strings.Cut(name, ":")
	r := inputIndex(inputs, in)
	sd := func() float64 {
		if d.Std[r] == 0 {
			return 1
		}
		return d.Std[r]
	}
	switch kind {
	case "z":
		return (d.Score[r][p] - d.Mean[r]) / sd()
	case "gz": // gap to top1 in std
		return (d.Score[r][p] - d.Top1[r]) / sd()
	case "rel": // relative to top1 (BM25)
		if d.Top1[r] <= 0 {
			return 0
		}
		return d.Score[r][p] / d.Top1[r]
	case "cmz":
		return (d.CtxMax[r][p] - d.Mean[r]) / sd()
	case "crel":
		return (d.Score[r][p] - d.CtxMax[r][p]) / sd()
	case "rr":
		return 1 / float64(d.Rank[r][p])
	case "lr":
		return -math.Log(float64(d.Rank[r][p]))
	case "top":
		if d.Rank[r][p] == 1 {
			return 1
		}
		return 0
	case "ctop":
		if d.Score[r][p] == d.CtxMax[r][p] {
			return 1
		}
		return 0
	case "pos0":
		if d.SentPos[p] == 0 {
			return 1
		}
		return 0
	case "slen":
		return math.Log(1 + float64(d.SentLen[p]))
	case "nsent":
		return math.Log(float64(d.CtxSents[p]))
	}
	panic("unknown feature " + name)
}

// qFeature computes one question feature: "1", "m:IN" (relative margin),
// "mz:IN" ((top1−top2)/std), "t1z:IN" ((top1−mean)/std), "words"
// (log), "agree:A:B" (A's and B's first candidates are the same).
func qFeature(d *dumpQ, inputs []string, name string) float64 {
	if name == "1" {
		return 1
	}
	if name == "words" {
		return math.Log(float64(d.Words))
	}
	kind, in, _ := strings.Cut(name, ":")
	if kind == "agree" {
		a, b, _ := strings.Cut(in, ":")
		ra, rb := inputIndex(inputs, a), inputIndex(inputs, b)
		for p := range d.Pool {
			if d.Rank[ra][p] == 1 && d.Rank[rb][p] == 1 {
				return 1
			}
		}
		return 0
	}
	r := inputIndex(inputs, in)
	sd := d.Std[r]
	if sd == 0 {
		sd = 1
	}
	switch kind {
	case "m":
		if d.Top1[r] <= 0 {
			return 0
		}
		return math.Max(0, math.Min(1, (d.Top1[r]-d.Top2[r])/d.Top1[r]))
	case "mz":
		return (d.Top1[r] - d.Top2[r]) / sd
	case "t1z":
		return (d.Top1[r] - d.Mean[r]) / sd
	}
	panic("unknown question feature " + name)
}

var poolInputs = []string{"bm25-wpm", "bm25-word", "dense"}

func buildData(df dumpFile, split string, c rrCfg, training bool) []rrData {
	var out []rrData
	for i := range df.Qs {
		d := &df.Qs[i]
		if d.Split != split {
			continue
		}
		rd := rrData{title: d.Title, nfeat: len(c.feats), nqfeat: len(c.qfeats)}
		for _, q := range c.qfeats {
			rd.g = append(rd.g, qFeature(d, df.Inputs, q))
		}
		for p := range d.Pool {
			best := math.MaxInt
			for _, in := range poolInputs {
				best = min(best, d.Rank[inputIndex(df.Inputs, in)][p])
			}
			if best > c.k {
				continue
			}
			x := make([]float64, len(c.feats))
			for f, name := range c.feats {
				x[f] = candFeature(d, df.Inputs, name, p)
			}
			rd.x = append(rd.x, x)
			rd.gold = append(rd.gold, d.Gold[p])
			rd.anyG = rd.anyG || d.Gold[p]
		}
		out = append(out, rd)
	}
	return out
}

// rrModel: bilinear score s = Σ_f Σ_q W[f][q]·x̂_f·ĝ_q on standardised
// candidate features x̂ and question features ĝ (ĝ_0 = 1).
type rrModel struct {
	c        rrCfg
	mu, sd   []float64
	gmu, gsd []float64
	w        []float64
}

type rrPrep struct {
	x    []float64 // [cand*nf] standardised
	g    []float64
	gold []bool
	anyG bool
	n    int
}

func (m *rrModel) prep(data []rrData) []rrPrep {
	nf := len(m.c.feats)
	out := make([]rrPrep, len(data))
	for i, d := range data {
		p := rrPrep{x: make([]float64, len(d.x)*nf), g: make([]float64, len(d.g)), gold: d.gold, anyG: d.anyG, n: len(d.x)}
		for c, x := range d.x {
			for f, v := range x {
				p.x[c*nf+f] = (v - m.mu[f]) / m.sd[f]
			}
		}
		for q, v := range d.g {
			p.g[q] = (v - m.gmu[q]) / m.gsd[q]
		}
		p.g[0] = 1
		out[i] = p
	}
	return out
}

func fitStd(data []rrData, c rrCfg) (mu, sd, gmu, gsd []float64) {
	nf, nq := len(c.feats), len(c.qfeats)
	mu, sd = make([]float64, nf), make([]float64, nf)
	gmu, gsd = make([]float64, nq), make([]float64, nq)
	var n, nqn float64
	for _, d := range data {
		for _, x := range d.x {
			for i, v := range x {
				mu[i] += v
				sd[i] += v * v
			}
			n++
		}
		for i, v := range d.g {
			gmu[i] += v
			gsd[i] += v * v
		}
		nqn++
	}
	for i := range mu {
		mu[i] /= n
		sd[i] = math.Sqrt(math.Max(sd[i]/n-mu[i]*mu[i], 1e-12))
	}
	for i := range gmu {
		gmu[i] /= nqn
		gsd[i] = math.Sqrt(math.Max(gsd[i]/nqn-gmu[i]*gmu[i], 1e-12))
	}
	gmu[0], gsd[0] = 0, 1
	return
}

// score fills out with every candidate's score; with grad it adds the
// listwise-softmax gradient (×scale).
func (m *rrModel) score(p *rrPrep, out, v, dv []float64, grad []float64, scale float64) {
	nf, nq := len(m.c.feats), len(m.c.qfeats)
	for f := 0; f < nf; f++ {
		s := 0.0
		for q := 0; q < nq; q++ {
			s += m.w[f*nq+q] * p.g[q]
		}
		v[f] = s
	}
	for c := 0; c < p.n; c++ {
		x := p.x[c*nf : (c+1)*nf]
		s := 0.0
		for f, xv := range x {
			s += v[f] * xv
		}
		out[c] = s
	}
	if grad == nil || !p.anyG {
		return
	}
	mx := math.Inf(-1)
	for _, s := range out[:p.n] {
		mx = math.Max(mx, s)
	}
	var za, zg float64
	for c, s := range out[:p.n] {
		e := math.Exp(s - mx)
		out[c] = e
		za += e
		if p.gold[c] {
			zg += e
		}
	}
	clear(dv)
	for c := 0; c < p.n; c++ {
		e := out[c]
		d := e / za
		if p.gold[c] {
			d -= e / zg
		}
		d *= scale
		x := p.x[c*nf : (c+1)*nf]
		for f, xv := range x {
			dv[f] += d * xv
		}
	}
	for f := 0; f < nf; f++ {
		for q := 0; q < nq; q++ {
			grad[f*nq+q] += dv[f] * p.g[q]
		}
	}
}

func train(data []rrData, c rrCfg) *rrModel {
	mu, sd, gmu, gsd := fitStd(data, c)
	nf, nq := len(c.feats), len(c.qfeats)
	m := &rrModel{c: c, mu: mu, sd: sd, gmu: gmu, gsd: gsd, w: make([]float64, nf*nq)}
	ps := m.prep(data)
	var n float64
	maxN := 0
	for _, p := range ps {
		if p.anyG {
			n++
		}
		maxN = max(maxN, p.n)
	}
	grad := make([]float64, len(m.w))
	m1 := make([]float64, len(m.w))
	m2 := make([]float64, len(m.w))
	buf := make([]float64, maxN)
	v, dv := make([]float64, nf), make([]float64, nf)
	const lr = 0.05
	for it := 1; it <= c.iters; it++ {
		clear(grad)
		for i := range ps {
			m.score(&ps[i], buf, v, dv, grad, 1/n)
		}
		b1 := 1 - math.Pow(0.9, float64(it))
		b2 := 1 - math.Pow(0.999, float64(it))
		for j := range m.w {
			g := grad[j] + c.l2*m.w[j]
			m1[j] = 0.9*m1[j] + 0.1*g
			m2[j] = 0.999*m2[j] + 0.001*g*g
			m.w[j] -= lr * (m1[j] / b1) / (math.Sqrt(m2[j]/b2) + 1e-8)
		}
	}
	return m
}

// evalModel returns hits and reciprocal-rank sum (pool-restricted).
func evalModel(m *rrModel, data []rrData) (hits, rr float64) {
	ps := m.prep(data)
	nf := len(m.c.feats)
	v := make([]float64, nf)
	buf := make([]float64, 0)
	for i := range ps {
		p := &ps[i]
		if !p.anyG {
			continue
		}
		if cap(buf) < p.n {
			buf = make([]float64, p.n)
		}
		s := buf[:p.n]
		m.score(p, s, v, nil, nil, 0)
		best := -1
		for j := range s {
			if p.gold[j] && (best < 0 || s[j] > s[best]) {
				best = j
			}
		}
		rank := 1
		for j, x := range s {
			if x > s[best] || (x == s[best] && j < best) {
				rank++
			}
		}
		if rank == 1 {
			hits++
		}
		rr += 1 / float64(rank)
	}
	return
}

// cv returns the article-level 4-fold cross-validated P@1 and MRR on tune.
func cv(df dumpFile, c rrCfg) (p1, mrr float64) {
	data := buildData(df, "tune", c, true)
	var titles []string
	seen := map[string]bool{}
	for _, d := range data {
		if !seen[d.title] {
			seen[d.title] = true
			titles = append(titles, d.title)
		}
	}
	sort.Strings(titles)
	fold := map[string]int{}
	for i, t := range titles {
		fold[t] = i % 4
	}
	var hits, rr float64
	for k := 0; k < 4; k++ {
		var tr, va []rrData
		for _, d := range data {
			if fold[d.title] == k {
				va = append(va, d)
			} else {
				tr = append(tr, d)
			}
		}
		m := train(tr, c)
		h, r := evalModel(m, va)
		hits += h
		rr += r
	}
	n := float64(len(data))
	return 100 * hits / n, 100 * rr / n
}

func TestRerankCV(t *testing.T) {
	path := os.Getenv("REQA_RERANK_DATA")
	if path == "" {
		// May skip in CI: an experiment (tag experiment) run by hand with REQA_RERANK_DATA.
		t.Skip("set REQA_RERANK_DATA to a TestRerankDump file")
	}
	df := loadDump(t, path)
	for _, c := range rrConfigs() {
		if only := os.Getenv("REQA_RERANK_ONLY"); only != "" && !strings.Contains(","+only+",", ","+c.name+",") {
			continue
		}
		p1, mrr := cv(df, c)
		line := fmt.Sprintf("%-28s cv P@1 %.2f MRR %.2f", c.name, p1, mrr)
		if os.Getenv("REQA_RERANK_TEST") == "1" {
			m := train(buildData(df, "tune", c, true), c)
			te := buildData(df, "test", c, false)
			h, r := evalModel(m, te)
			line += fmt.Sprintf("   TEST P@1 %.2f MRR %.2f", 100*h/float64(len(te)), 100*r/float64(len(te)))
		}
		t.Log(line)
		fmt.Fprintln(os.Stderr, line)
	}
}

// TestRerankBaselines reports single inputs on the tune half (and the dump
// sanity check on test for bm25-wpm, whose test P@1 is known).
func TestRerankBaselines(t *testing.T) {
	path := os.Getenv("REQA_RERANK_DATA")
	if path == "" {
		// May skip in CI: an experiment (tag experiment) run by hand with REQA_RERANK_DATA.
		t.Skip("set REQA_RERANK_DATA")
	}
	df := loadDump(t, path)
	for r, in := range df.Inputs {
		for _, sp := range []string{"tune", "test"} {
			if sp == "test" && in != "bm25-wpm" {
				continue
			}
			var hits, n float64
			for _, d := range df.Qs {
				if d.Split != sp {
					continue
				}
				n++
				// first candidate: rank 1 with lowest id (pool sorted by id)
				for p := range d.Pool {
					if d.Rank[r][p] == 1 {
						if d.Gold[p] {
							hits++
						}
						break
					}
				}
			}
			t.Logf("%-16s %s P@1 %.2f (%v q)", in, sp, 100*hits/n, n)
		}
	}
}

func rrConfigs() []rrCfg {
	base := []string{"z:bm25-wpm", "z:bm25-word", "z:dense"}
	var out []rrCfg
	add := func(name string, feats, q []string, k int, l2 float64, iters, _ int) {
		out = append(out, rrCfg{name: name, feats: feats, qfeats: append([]string{"1"}, q...), k: k, l2: l2, iters: iters})
	}
	add("lin-base", base, nil, 50, 1e-4, 300, 0)
	add("lin-base-m", base, []string{"m:bm25-wpm"}, 50, 1e-4, 300, 0)
	all := []string{"z:bm25-wpm", "z:bm25-word", "z:bm25-wpm/sent", "z:bm25-word/sent", "z:dense", "z:dense/sent"}
	add("lin-all", all, nil, 50, 1e-4, 300, 0)
	ctx := append(append([]string{}, all...), "cmz:bm25-wpm", "crel:dense/sent", "cmz:dense", "crel:bm25-wpm/sent")
	add("lin-ctx", ctx, nil, 50, 1e-4, 300, 0)
	rk := append(append([]string{}, ctx...), "lr:bm25-wpm", "lr:dense", "top:bm25-wpm", "top:dense", "ctop:dense/sent", "ctop:bm25-wpm/sent", "pos0", "slen")
	add("lin-rank", rk, nil, 50, 1e-4, 300, 0)
	qf := []string{"m:bm25-wpm", "mz:dense", "t1z:bm25-wpm", "words", "agree:bm25-wpm:dense"}
	add("bil-rank-q", rk, qf, 50, 1e-4, 300, 0)
	add("bil-rank-q-k20", rk, qf, 20, 1e-4, 300, 0)
	if s := os.Getenv("REQA_RERANK_EXTRA"); s != "" {
		// name|feats|qfeats|k|l2|iters|hidden
		for _, line := range strings.Split(s, ";") {
			f := strings.Split(line, "|")
			k, _ := strconv.Atoi(f[3])
			l2, _ := strconv.ParseFloat(f[4], 64)
			it, _ := strconv.Atoi(f[5])
			h, _ := strconv.Atoi(f[6])
			var q []string
			if f[2] != "" {
				q = strings.Split(f[2], ",")
			}
			add(f[0], strings.Split(f[1], ","), q, k, l2, it, h)
		}
	}
	return out
}
