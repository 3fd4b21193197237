package fuse

import (
	"math"
	"math/rand"
	"reflect"
	"slices"
	"sort"
	"testing"
)

func TestFuseMethods(t *testing.T) {
	a := []float64{3, 1, 0, 2}
	b := []float64{0.1, 0.9, 0.5, 0.2}
	out := make([]float64, 4)
	cases := []struct {
		p    Params
		best int
	}{
		{Params{Name: "a", Method: "minmax", Inputs: []string{"a", "b"}, Weights: []float64{1, 0}}, 0},
		{Params{Name: "b", Method: "minmax", Inputs: []string{"a", "b"}, Weights: []float64{0, 1}}, 1},
		{Params{Name: "z", Method: "zscore", Inputs: []string{"a", "b"}, Weights: []float64{0.5, 0.5}}, 1},
		{Params{Name: "r", Method: "rrf", Inputs: []string{"a", "b"}, K: 60}, 1}, // 1/63+1/61 beats 1/61+1/64
	}
	for _, c := range cases {
		if err := Fuse(c.p, [][]float64{a, b}, out); err != nil {
			t.Fatal(err)
		}
		best := 0
		for i := range out {
			if out[i] > out[best] {
				best = i
			}
		}
		if best != c.best {
			t.Errorf("%s: best %d (%v), want %d", c.p.Name, best, out, c.best)
		}
	}
	// RRF by hand: a ranks 0,3,1,2 → doc 0 rank 1 in a, rank 4 in b.
	Fuse(cases[3].p, [][]float64{a, b}, out)
	if want := 1/61.0 + 1/64.0; math.Abs(out[0]-want) > 1e-12 {
		t.Fatalf("rrf doc 0 = %v, want %v", out[0], want)
	}
}

func TestValidate(t *testing.T) {
	bad := []Params{
		{Name: "x", Method: "zscore", Inputs: []string{"a"}, Weights: []float64{1, 2}},
		{Name: "x", Method: "rrf", Inputs: []string{"a"}},
		{Name: "x", Method: "nope", Inputs: []string{"a"}},
		{Name: "x", Method: "zscore"},
		{Name: "x", Method: "adaptive", Inputs: []string{"a"}, Bounds: []float64{0.1}, BucketWeights: [][]float64{{1}}},
		{Name: "x", Method: "learned", Inputs: []string{"a", "b"}, Weights: []float64{1, 2}},
	}
	for _, p := range bad {
		if p.Validate() == nil {
			t.Errorf("invalid params accepted: %+v", p)
		}
	}
}

// synthetic builds tuning examples where input 0 is right on confident
// questions and input 1 is right otherwise.
func synthetic(n int, seed int64) []Example {
	rng := rand.New(rand.NewSource(seed))
	var exs []Example
	for q := 0; q < n; q++ {
		const docs = 30
		a, b := make([]float64, docs), make([]float64, docs)
		for d := range a {
			a[d] = rng.Float64()
			b[d] = rng.Float64()
		}
		gold := uint32(rng.Intn(docs))
		if q%2 == 0 {
			a[gold] += 3 // confident and right
		} else {
			b[gold] += 1.5
			a[gold] += 0.3
		}
		exs = append(exs, NewExample([][]float64{a, b}, []uint32{gold}, 10))
	}
	return exs
}

func TestTuneBeatsSingles(t *testing.T) {
	exs := synthetic(400, 1)
	single0, _ := evaluate("zscore", []float64{1, 0}, exs)
	single1, _ := evaluate("zscore", []float64{0, 1}, exs)
	for _, m := range []string{"minmax", "zscore", "adaptive", "learned"} {
		p, _, err := Tune(m, []string{"a", "b"}, exs, TuneOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p.TuneP1 <= math.Max(single0, single1) {
			t.Errorf("%s: tuned P@1 %.1f does not beat the single inputs (%.1f, %.1f)", m, p.TuneP1, single0, single1)
		}
	}
}

func TestTuneDeterministic(t *testing.T) {
	exs := synthetic(200, 2)
	for _, m := range []string{"zscore", "adaptive", "learned"} {
		p1, _, _ := Tune(m, []string{"a", "b"}, exs, TuneOptions{})
		p2, _, _ := Tune(m, []string{"a", "b"}, exs, TuneOptions{})
		if !reflect.DeepEqual(p1, p2) {
			t.Errorf("%s: tuning is not deterministic: %+v vs %+v", m, p1, p2)
		}
	}
}

func TestSimplex(t *testing.T) {
	g := Simplex(3, 4)
	if len(g) != 15 {
		t.Fatalf("3-simplex with 4 steps has %d points, want 15", len(g))
	}
	for _, w := range g {
		if s := w[0] + w[1] + w[2]; math.Abs(s-1) > 1e-12 {
			t.Fatalf("weights %v sum to %v", w, s)
		}
	}
}

// TestDemoteQuestions: with DemoteQuestions every flagged candidate ranks
// below every other, each group in its own order, for the full-vector
// fusion (FuseContext) and for tuning examples (Evaluate) alike; without
// the flags nothing changes.
func TestDemoteQuestions(t *testing.T) {
	inputs := [][]float64{{5, 4, 3, 2, 1}, {1, 2, 3, 4, 5}}
	asks := []bool{true, false, false, true, false}
	for _, method := range []string{"zscore", "minmax", "rrf"} {
		p := Params{Name: "f", Method: method, Inputs: []string{"a", "b"}, Weights: []float64{0.7, 0.3}, K: 60, DemoteQuestions: true}
		plain := make([]float64, 5)
		q := p
		q.DemoteQuestions = false
		if err := FuseContext(q, inputs, nil, plain); err != nil {
			t.Fatal(err)
		}
		got := make([]float64, 5)
		if err := FuseContext(p, inputs, &Corpus{Question: asks}, got); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			for j := range got {
				switch {
				case asks[i] && !asks[j] && got[i] >= got[j]:
					t.Errorf("%s: question %d (%.3f) not below %d (%.3f)", method, i, got[i], j, got[j])
				case asks[i] == asks[j] && (plain[i] < plain[j]) != (got[i] < got[j]):
					t.Errorf("%s: %d and %d change order", method, i, j)
				}
			}
		}
		noFlags := make([]float64, 5)
		if err := FuseContext(p, inputs, &Corpus{}, noFlags); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(noFlags, plain) {
			t.Errorf("%s: without question flags %v, want %v", method, noFlags, plain)
		}
	}
	// Tuning examples: the gold (candidate 1) is second behind a question.
	ex := NewExampleContext(inputs, []uint32{1}, 5, &Corpus{Ctx: make([]uint32, 5), Pos: make([]int, 5), Len: make([]int, 5), Question: asks})
	p := Params{Name: "f", Method: "zscore", Inputs: []string{"a", "b"}, Weights: []float64{1, 0}}
	if p1, _, err := Evaluate(p, []Example{ex}); err != nil || p1 != 0 {
		t.Fatalf("plain: P@1 %v, %v; want 0", p1, err)
	}
	p.DemoteQuestions = true
	if p1, _, err := Evaluate(p, []Example{ex}); err != nil || p1 != 100 {
		t.Fatalf("demoted: P@1 %v, %v; want 100", p1, err)
	}
}

func TestDemote(t *testing.T) {
	out := []float64{3, math.Inf(-1), 1, 2, math.NaN()}
	Demote(out, []bool{true, true, false, false, true})
	if !(out[0] < out[2] && out[0] < out[3] && math.IsInf(out[1], -1) && math.IsNaN(out[4]) && out[2] == 1 && out[3] == 2) {
		t.Errorf("Demote: %v", out)
	}
}

// TestTopIndices: the bounded heap gives exactly the first k of a full
// sort (score descending, ties by lower index), for ties, infinities and
// every k from none to more than there are.
func TestTopIndices(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for trial := range 200 {
		n := r.Intn(40)
		s := make([]float64, n)
		for i := range s {
			switch r.Intn(6) {
			case 0:
				s[i] = math.Inf(-1)
			case 1:
				s[i] = float64(r.Intn(3)) // ties
			default:
				s[i] = r.NormFloat64()
			}
		}
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		sort.SliceStable(all, func(a, b int) bool { return s[all[a]] > s[all[b]] })
		for _, k := range []int{0, 1, 3, n / 2, n, n + 5} {
			want := all[:min(k, n)]
			if got := TopIndices(s, k); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("trial %d: TopIndices(%v, %d) = %v, want %v", trial, s, k, got, want)
			}
		}
	}
}

// TestRaise: the raised candidates rank above every other, each group in
// its order; non-finite scores stay.
func TestRaise(t *testing.T) {
	out := []float64{3, -1, 2, math.Inf(-1), 0.5}
	Raise(out, []int{1, 4, 3})
	if got := TopIndices(out, 5); !slices.Equal(got, []int{4, 1, 0, 2, 3}) || !math.IsInf(out[3], -1) {
		t.Errorf("after Raise: %v, ranking %v", out, got)
	}
	none := []float64{math.Inf(1), math.NaN()}
	Raise(none, []int{0, 1})
	if !math.IsInf(none[0], 1) || !math.IsNaN(none[1]) {
		t.Errorf("non-finite scores changed: %v", none)
	}
}

// TestDescribeSparse checks DescribeSparse against Describe of the full
// score vector: touched scores of either sign, none, one, all touched.
func TestDescribeSparse(t *testing.T) {
	rng := rand.New(rand.NewSource(59))
	for _, tc := range []struct{ n, touched int }{{1, 0}, {1, 1}, {2, 1}, {5, 0}, {50, 3}, {50, 49}, {50, 50}, {1000, 17}} {
		scores := make([]float64, tc.n)
		var touched []uint32
		for _, d := range rng.Perm(tc.n)[:tc.touched] {
			scores[d] = rng.NormFloat64() * 3
			touched = append(touched, uint32(d))
		}
		got, want := DescribeSparse(scores, touched, tc.n), Describe(scores)
		for _, f := range []struct {
			name string
			g, w float64
		}{{"min", got.Min, want.Min}, {"max", got.Max, want.Max}, {"mean", got.Mean, want.Mean}, {"std", got.Std, want.Std},
			{"top1", got.Top1, want.Top1}, {"top2", got.Top2, want.Top2}} {
			if math.Abs(f.g-f.w) > 1e-12 {
				t.Errorf("n %d, %d touched: %s %v, want %v", tc.n, tc.touched, f.name, f.g, f.w)
			}
		}
	}
}

// TestWeighted: the linear methods drop their inputs of weight 0 (and
// fuse every candidate as before); other methods, all-zero weights and
// weights that do not match the inputs are kept as they are.
func TestWeighted(t *testing.T) {
	in := []string{"a", "b", "c"}
	for _, tc := range []struct {
		name       string
		p          Params
		wantInputs []string
		wantW      []float64
	}{
		{"zscore, one zero", Params{Method: "zscore", Inputs: in, Weights: []float64{0, 0.6, 0.4}}, []string{"b", "c"}, []float64{0.6, 0.4}},
		{"minmax, two zeros", Params{Method: "minmax", Inputs: in, Weights: []float64{0.5, 0, 0}}, []string{"a"}, []float64{0.5}},
		{"zscore, none zero", Params{Method: "zscore", Inputs: in, Weights: []float64{0.2, 0.3, 0.5}}, in, []float64{0.2, 0.3, 0.5}},
		{"zscore, all zero", Params{Method: "zscore", Inputs: in, Weights: []float64{0, 0, 0}}, in, []float64{0, 0, 0}},
		{"learned keeps its coefficients", Params{Method: "learned", Inputs: in, Weights: []float64{0, 1, 0, 1, 0, 1}}, in, []float64{0, 1, 0, 1, 0, 1}},
		{"rrf has no weights", Params{Method: "rrf", Inputs: in, K: 60}, in, nil},
		{"weights not matching", Params{Method: "zscore", Inputs: in, Weights: []float64{0, 1}}, in, []float64{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.p.Weighted()
			if !slices.Equal(q.Inputs, tc.wantInputs) || !slices.Equal(q.Weights, tc.wantW) {
				t.Fatalf("Weighted: inputs %v weights %v, want %v %v", q.Inputs, q.Weights, tc.wantInputs, tc.wantW)
			}
			if len(q.Inputs) > 0 && &q.Inputs[0] == &tc.p.Inputs[0] {
				t.Error("Weighted shares its inputs with p")
			}
			if tc.p.Validate() != nil || (tc.p.Method != "zscore" && tc.p.Method != "minmax") {
				return
			}
			// The same fused score for every candidate.
			scores := [][]float64{{3, 0, 1, 2}, {0.5, 0.4, 0.9, 0.1}, {10, 12, 11, 0}}
			var kept [][]float64
			for i, name := range tc.p.Inputs {
				if slices.Contains(q.Inputs, name) {
					kept = append(kept, scores[i])
				}
			}
			full, part := make([]float64, 4), make([]float64, 4)
			if err := Fuse(tc.p, scores, full); err != nil {
				t.Fatal(err)
			}
			if err := Fuse(q, kept, part); err != nil {
				t.Fatal(err)
			}
			for d := range full {
				if math.Abs(full[d]-part[d]) > 1e-12 {
					t.Errorf("candidate %d: fused %v, %v without the unweighted inputs", d, full[d], part[d])
				}
			}
		})
	}
}
