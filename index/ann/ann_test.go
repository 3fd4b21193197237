package ann

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"sync"
	"testing"
)

// smallSet is a quick clustered set for structural tests.
func smallSet() dataset { return clusteredSet(1500, 50, 32, 7) }

func TestRecall(t *testing.T) {
	type tc struct {
		name       string
		n, nq, dim int
		cfg        Config
		ef         int
		min        float64
	}
	cases := []tc{
		{"6000x384/M=16/efC=100/ef=64", 6000, 200, 384, Config{M: 16, EfConstruction: 100, Seed: 1}, 64, 0.98},
		{"3000x128/M=8/efC=64/ef=64", 3000, 200, 128, Config{M: 8, EfConstruction: 64, Seed: 2}, 64, 0.98},
	}
	if testing.Short() {
		cases = []tc{{"2000x384/M=16/efC=100/ef=64", 2000, 100, 384, Config{M: 16, EfConstruction: 100, Seed: 1}, 64, 0.98}}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := clusteredSet(c.n, c.nq, c.dim, 11)
			g := buildGraph(t, d, c.cfg)
			gt := groundTruth(d, 10)
			var mismatch int
			r := recallAt(10, gt, func(i int) []Result {
				got := g.Search(d.query(i), 10, c.ef)
				// Every score must be the exact dot product Exact reports.
				for _, h := range got {
					if s := dot(d.query(i), d.vec(int(h.ID))); s != h.Score {
						mismatch++
					}
				}
				return got
			})
			t.Logf("recall@10 = %.4f (kernel %s)", r, Kernel())
			if r < c.min {
				t.Errorf("recall@10 = %.4f, want ≥ %.2f", r, c.min)
			}
			if mismatch > 0 {
				t.Errorf("%d results with a score that is not the dot product", mismatch)
			}
		})
	}
}

func isOrdered(rs []Result) bool {
	return slices.IsSortedFunc(rs, func(a, b Result) int {
		switch {
		case a.Score > b.Score || (a.Score == b.Score && a.ID < b.ID):
			return -1
		case a.Score == b.Score && a.ID == b.ID:
			return 0
		}
		return 1
	})
}

func TestSearchOrderAndTies(t *testing.T) {
	// Five copies of each of three directions: every score is tied five
	// ways, so order must fall back to ids.
	dirs := [][]float32{{1, 0, 0}, {0, 1, 0}, {0.6, 0.8, 0}}
	g := New(3, Config{M: 4, Seed: 3})
	var flat []float32
	for range 5 {
		for _, v := range dirs {
			if _, err := g.Add(v); err != nil {
				t.Fatal(err)
			}
			flat = append(flat, v...)
		}
	}
	q := []float32{1, 0, 0}
	got := g.Search(q, 15, 50)
	want := Exact(flat, 3, q, 15)
	if !slices.Equal(got, want) {
		t.Fatalf("Search = %v\nExact  = %v", got, want)
	}
	if !isOrdered(got) {
		t.Errorf("results not ordered by score desc, id asc: %v", got)
	}
	if got[0].ID != 0 || got[1].ID != 3 || got[0].Score != 1 {
		t.Errorf("first results %v, want ids 0, 3 at score 1", got[:2])
	}
}

func TestSearchEdgeCases(t *testing.T) {
	d := smallSet()
	g := buildGraph(t, d, Config{M: 8, Seed: 1})
	q := d.query(0)
	empty := New(d.dim, Config{})
	tests := []struct {
		name string
		got  []Result
		want int
	}{
		{"empty graph", empty.Search(q, 10, 0), 0},
		{"k=0", g.Search(q, 0, 10), 0},
		{"k<0", g.Search(q, -1, 10), 0},
		{"short query", g.Search(q[:5], 10, 10), 0},
		{"ef<k", g.Search(q, 30, 5), 30},
		{"ef default", g.Search(q, 10, 0), 10},
		{"k>n", g.Search(q, d.n()+10, 0), d.n()},
	}
	for _, tt := range tests {
		if len(tt.got) != tt.want {
			t.Errorf("%s: %d results, want %d", tt.name, len(tt.got), tt.want)
		}
		if !isOrdered(tt.got) {
			t.Errorf("%s: results out of order", tt.name)
		}
	}
	// k > n with full ef finds every node exactly once.
	all := g.Search(q, d.n()+10, 0)
	if want := Exact(d.base, d.dim, q, d.n()); !slices.Equal(all, want) {
		t.Errorf("exhaustive Search differs from Exact")
	}
}

func TestExactEdgeCases(t *testing.T) {
	v := []float32{1, 0, 0, 1, 0.6, 0.8}
	tests := []struct {
		name    string
		vectors []float32
		dim     int
		q       []float32
		k       int
		want    []Result
	}{
		{"ordered", v, 2, []float32{1, 0}, 3, []Result{{0, 1}, {2, 0.6}, {1, 0}}},
		{"k>n", v, 2, []float32{0, 1}, 9, []Result{{1, 1}, {2, 0.8}, {0, 0}}},
		{"k=1", v, 2, []float32{0, 1}, 1, []Result{{1, 1}}},
		{"k=0", v, 2, []float32{0, 1}, 0, nil},
		{"dim 0", v, 0, nil, 1, nil},
		{"ragged", v, 4, []float32{1, 0, 0, 0}, 1, nil},
		{"query length", v, 2, []float32{1}, 1, nil},
		{"no vectors", nil, 2, []float32{1, 0}, 3, []Result{}},
	}
	for _, tt := range tests {
		if got := Exact(tt.vectors, tt.dim, tt.q, tt.k); !slices.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
			t.Errorf("%s: Exact = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestAddErrors(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	tests := []struct {
		name string
		dim  int
		vec  []float32
		want error
	}{
		{"short", 3, []float32{1, 0}, ErrDimension},
		{"long", 3, []float32{1, 0, 0, 0}, ErrDimension},
		{"zero dim graph", 0, []float32{}, ErrDimension},
		{"negative dim graph", -2, []float32{1}, ErrDimension},
		{"NaN", 3, []float32{1, nan, 0}, ErrInvalidVector},
		{"Inf", 3, []float32{inf, 0, 0}, ErrInvalidVector},
	}
	for _, tt := range tests {
		g := New(tt.dim, Config{})
		if _, err := g.Add(tt.vec); !errors.Is(err, tt.want) {
			t.Errorf("%s: Add error %v, want %v", tt.name, err, tt.want)
		}
		if g.Len() != 0 {
			t.Errorf("%s: failed Add left %d nodes", tt.name, g.Len())
		}
	}
}

func TestConfigDefaults(t *testing.T) {
	tests := []struct {
		in, want Config
	}{
		{Config{}, Config{M: DefaultM, EfConstruction: DefaultEfConstruction, EfSearch: DefaultEfSearch}},
		{Config{M: 1, EfConstruction: 1, EfSearch: -5, Seed: 9}, Config{M: 2, EfConstruction: 2, EfSearch: DefaultEfSearch, Seed: 9}},
		{Config{M: 1000, EfConstruction: 10}, Config{M: MaxM, EfConstruction: MaxM, EfSearch: DefaultEfSearch}},
	}
	for _, tt := range tests {
		if got := New(4, tt.in).Config(); got != tt.want {
			t.Errorf("New(%+v).Config() = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestIDsDense(t *testing.T) {
	d := smallSet()
	g := New(d.dim, Config{M: 8})
	for i := range 100 {
		id, err := g.Add(d.vec(i))
		if err != nil || id != uint32(i) {
			t.Fatalf("Add #%d = %d, %v", i, id, err)
		}
	}
	if !slices.Equal(g.Vectors(), d.base[:100*d.dim]) {
		t.Error("Vectors() does not hold the added vectors in id order")
	}
}

func TestLevelDistribution(t *testing.T) {
	// P(level ≥ 1) = 1/M for mL = 1/ln M.
	g := New(4, Config{M: 16, Seed: 5})
	const n = 100000
	var above int
	for i := range uint32(n) {
		if g.levelFor(i) >= 1 {
			above++
		}
	}
	want := float64(n) / 16
	sd := math.Sqrt(want * (1 - 1.0/16))
	if math.Abs(float64(above)-want) > 5*sd {
		t.Errorf("%d of %d nodes above layer 0, want %.0f ± %.0f", above, n, want, 5*sd)
	}
}

// TestInvariants checks the built graph's structure: capacities, no self or
// duplicate links, links only to nodes present on the layer, entry on top.
func TestInvariants(t *testing.T) {
	d := smallSet()
	g := buildGraph(t, d, Config{M: 6, EfConstruction: 40, Seed: 4})
	checkGraph(t, g)
	n := g.Len()
	var full0, total0 int
	for i := range uint32(n) {
		for l := 1; l <= int(g.levels[i]); l++ {
			if len(g.links(i, l)) == 0 {
				t.Fatalf("node %d layer %d: no links", i, l)
			}
		}
		ls := g.links(i, 0)
		total0 += len(ls)
		if len(ls) == g.m0 {
			full0++
		}
	}
	if full0 == 0 {
		t.Errorf("no layer-0 list reached M0=%d: pruning never exercised", g.m0)
	}
	t.Logf("layer 0: mean degree %.1f, %d of %d lists full; top layer %d", float64(total0)/float64(n), full0, n, g.top)
}

func TestDeterministic(t *testing.T) {
	d := smallSet()
	cfg := Config{M: 8, EfConstruction: 50, Seed: 42}
	a, err := buildGraph(t, d, cfg).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	b, err := buildGraph(t, d, cfg).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("two builds with the same seed encode differently")
	}
	cfg.Seed = 43
	c, err := buildGraph(t, d, cfg).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a, c) {
		t.Error("builds with different seeds encode identically: seed unused")
	}
}

func TestConcurrentSearch(t *testing.T) {
	d := smallSet()
	g := buildGraph(t, d, Config{M: 8, Seed: 1})
	want := make([][]Result, d.nq())
	for i := range want {
		want[i] = g.Search(d.query(i), 10, 32)
	}
	var wg sync.WaitGroup
	errs := make(chan int, 4*d.nq())
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range d.nq() {
				i := (j + w*7) % d.nq()
				if !slices.Equal(g.Search(d.query(i), 10, 32), want[i]) {
					errs <- i
				}
			}
		}()
	}
	// Adds run concurrently with the searches: they must neither race nor
	// disturb results beyond the new node's own appearance.
	h := buildGraph(t, dataset{dim: d.dim, base: d.base[:500*d.dim]}, Config{M: 8, Seed: 1})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 500; i < 700; i++ {
			if _, err := h.Add(d.vec(i)); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for range 200 {
		h.Search(d.query(0), 10, 32)
	}
	wg.Wait()
	close(errs)
	for i := range errs {
		t.Errorf("query %d: concurrent result differs from sequential", i)
	}
}
