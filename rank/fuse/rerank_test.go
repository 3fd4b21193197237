package fuse

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"testing"
)

// synthRerank builds questions over 12 contexts of 4 candidates where input
// "ctx" finds the gold context but cannot tell its sentences apart, and
// input "sent" prefers the gold sentence inside any context but is often
// fooled by a sentence of another context: each alone is mostly wrong, the
// context evidence of one with the other's in-context preference is right.
func synthRerank(seed int64, nq int) (inputs [][][]float64, golds [][]uint32, ctxOf *Corpus) {
	rng := rand.New(rand.NewSource(seed))
	const nctx, per = 12, 4
	n := nctx * per
	ctxOf = &Corpus{Ctx: make([]uint32, n), Pos: make([]int, n), Len: make([]int, n)}
	for d := range ctxOf.Ctx {
		ctxOf.Ctx[d] = uint32(d / per)
		ctxOf.Pos[d] = d % per
		ctxOf.Len[d] = 50 + d
	}
	for q := 0; q < nq; q++ {
		g := rng.Intn(n)
		a := make([]float64, n)
		b := make([]float64, n)
		decoy := rng.Intn(n)
		for d := 0; d < n; d++ {
			a[d] = 2 * rng.Float64()
			if ctxOf.Ctx[d] == ctxOf.Ctx[g] {
				a[d] += 3 + 0.5*rng.Float64() // right context, sentence at random
			}
			b[d] = rng.NormFloat64() * 0.3
		}
		b[g] += 2
		if ctxOf.Ctx[decoy] != ctxOf.Ctx[g] {
			b[decoy] += 2 + 8*rng.Float64() // a sentence elsewhere fools the sentence ranker
		}
		inputs = append(inputs, [][]float64{a, b})
		golds = append(golds, []uint32{uint32(g)})
	}
	return
}

func synthSpec() *Reranker {
	return &Reranker{Depth: 10, PoolInputs: []string{"ctx", "sent"},
		Features:  []string{"z:ctx", "z:sent", "cmz:ctx", "crel:sent", "ctop:sent", "lr:sent", "top:ctx", "pos0", "slen"},
		QFeatures: []string{"1", "m:ctx", "agree:ctx:sent"}, L2: 1e-4, Iters: 200}
}

func synthTune(t *testing.T) (Params, [][][]float64, [][]uint32, *Corpus) {
	ins, golds, ctxOf := synthRerank(1, 300)
	var exs []Example
	for i := range ins {
		exs = append(exs, NewExampleContext(ins[i], golds[i], 20, ctxOf))
	}
	p, _, err := Tune("rerank", []string{"ctx", "sent"}, exs, TuneOptions{Rerank: synthSpec(), Label: "synthetic"})
	if err != nil {
		t.Fatal(err)
	}
	return p, ins, golds, ctxOf
}

func p1(t *testing.T, p Params, ins [][][]float64, golds [][]uint32, ctxOf *Corpus) float64 {
	hits := 0
	for i := range ins {
		out := make([]float64, len(ins[i][0]))
		if err := FuseContext(p, ins[i], ctxOf, out); err != nil {
			t.Fatal(err)
		}
		best := 0
		for d := range out {
			if out[d] > out[best] {
				best = d
			}
		}
		if uint32(best) == golds[i][0] {
			hits++
		}
	}
	return 100 * float64(hits) / float64(len(ins))
}

func TestRerankBeatsInputs(t *testing.T) {
	p, _, _, ctxOf := synthTune(t)
	ins, golds, _ := synthRerank(2, 300) // held-out questions
	got := p1(t, p, ins, golds, ctxOf)
	for r, name := range p.Inputs {
		w := []float64{0, 0}
		w[r] = 1
		single := p1(t, Params{Name: name, Method: "zscore", Inputs: p.Inputs, Weights: w}, ins, golds, ctxOf)
		if got < single+20 {
			t.Errorf("rerank P@1 %.1f, input %s alone %.1f: want rerank ≥ 20 points better", got, name, single)
		}
		t.Logf("input %s alone: P@1 %.1f", name, single)
	}
	best := 0.0
	for k := 0; k <= 20; k++ {
		w := float64(k) / 20
		best = max(best, p1(t, Params{Name: "z", Method: "zscore", Inputs: p.Inputs, Weights: []float64{w, 1 - w}}, ins, golds, ctxOf))
	}
	t.Logf("rerank: P@1 %.1f (tune %.1f); best z-score fusion on the test questions %.1f", got, p.TuneP1, best)
	if got <= best {
		t.Errorf("rerank P@1 %.1f does not beat the best z-score fusion %.1f", got, best)
	}
}

func TestRerankDeterministicAndRoundTrip(t *testing.T) {
	p1a, ins, _, ctxOf := synthTune(t)
	p1b, _, _, _ := synthTune(t)
	a, _ := json.Marshal(p1a)
	b, _ := json.Marshal(p1b)
	if string(a) != string(b) {
		t.Fatal("training twice gave different parameters")
	}
	var back Params
	if err := json.Unmarshal(a, &back); err != nil {
		t.Fatal(err)
	}
	if err := back.Validate(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, p1a) {
		t.Fatalf("round trip changed the parameters:\n%+v\n%+v", back.Rerank, p1a.Rerank)
	}
	for i := range ins[:20] {
		x := make([]float64, len(ins[i][0]))
		y := make([]float64, len(ins[i][0]))
		FuseContext(p1a, ins[i], ctxOf, x)
		FuseContext(back, ins[i], ctxOf, y)
		if !reflect.DeepEqual(x, y) {
			t.Fatalf("question %d: scores differ after the round trip", i)
		}
	}
	// Context features without context ids are an error, not a guess.
	if err := Fuse(p1a, ins[0], make([]float64, len(ins[0][0]))); err == nil {
		t.Fatal("Fuse without context ids: want an error")
	}
}

func TestRerankValidate(t *testing.T) {
	p, _, _, _ := synthTune(t)
	bad := func(f func(rr *Reranker)) Params {
		q := p
		rr := *p.Rerank
		rr.W = append([]float64(nil), rr.W...)
		f(&rr)
		q.Rerank = &rr
		return q
	}
	for name, q := range map[string]Params{
		"nil":           {Name: "x", Method: "rerank", Inputs: p.Inputs},
		"short w":       bad(func(rr *Reranker) { rr.W = rr.W[1:] }),
		"unknown input": bad(func(rr *Reranker) { rr.Features = append([]string{"z:nope"}, rr.Features[1:]...) }),
		"unknown kind":  bad(func(rr *Reranker) { rr.Features = append([]string{"zz:ctx"}, rr.Features[1:]...) }),
		"zero scale":    bad(func(rr *Reranker) { rr.Scale = append([]float64{0}, rr.Scale[1:]...) }),
		"no depth":      bad(func(rr *Reranker) { rr.Depth = 0 }),
		"pool input":    bad(func(rr *Reranker) { rr.PoolInputs = []string{"nope"} }),
	} {
		if err := q.Validate(); err == nil {
			t.Errorf("%s: Validate accepted it", name)
		}
	}
}

// TestRanksAndTopK checks the helpers against brute force.
func TestRanksAndTopK(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for it := 0; it < 50; it++ {
		n := 1 + rng.Intn(60)
		s := make([]float64, n)
		for i := range s {
			s[i] = float64(rng.Intn(8)) // many ties
		}
		k := 1 + rng.Intn(n)
		got := map[uint32]bool{}
		for _, d := range topK(s, k) {
			got[d] = true
		}
		want := map[uint32]bool{}
		for _, d := range TopIndices(s, k) {
			want[uint32(d)] = true
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("topK(%v, %d) = %v, want %v", s, k, got, want)
		}
		vals := []float64{s[0], s[n-1], -1, 100}
		r := ranksOf(s, vals)
		for i, v := range vals {
			w := 1
			for _, x := range s {
				if x > v {
					w++
				}
			}
			if r[i] != w {
				t.Fatalf("rank of %v in %v = %d, want %d", v, s, r[i], w)
			}
		}
	}
}

// TestRerankerFor: the default template for its own inputs, a generic one
// that trains on any other set.
func TestRerankerFor(t *testing.T) {
	def := DefaultReranker()
	if got := RerankerFor([]string{"bm25-wpm", "bm25-word", "bm25-wpm/sent", "bm25-word/sent", "dense", "dense/sent", "x"}); !reflect.DeepEqual(got, def) {
		t.Fatalf("RerankerFor(a superset of the default inputs) = %+v, want the default", got)
	}
	ins, golds, corpus := synthRerank(1, 200)
	var exs []Example
	for i := range ins {
		exs = append(exs, NewExampleContext(ins[i], golds[i], 20, corpus))
	}
	p, _, err := Tune("rerank", []string{"ctx", "sent/sent"}, exs, TuneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Rerank.PoolInputs, []string{"ctx"}) || len(p.Rerank.Features) != 12 {
		t.Fatalf("generic template: pool %v, %d features", p.Rerank.PoolInputs, len(p.Rerank.Features))
	}
	t.Logf("generic template on the synthetic set: tune P@1 %.1f", p.TuneP1)
}
