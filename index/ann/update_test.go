package ann

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// changed is a renumbering of a dataset: every old node removed with
// probability del, the kept ones in order, and added new vectors (from
// another stream of the same mixture) placed at random among them.
func changed(d dataset, del float64, added int, seed uint64) (keep []int32, next dataset) {
	r := rand.New(rand.NewPCG(seed, 77))
	s := newSynth(d.dim, 100, 1.0, 11)
	fresh := s.draw(added, seed+1000)
	keep = make([]int32, d.n())
	next = dataset{dim: d.dim, queries: d.queries}
	ai := 0
	for i := range d.n() {
		// New vectors go in front of old ones here and there.
		for ai < added && r.Float64() < float64(added)/float64(d.n()) {
			next.base = append(next.base, fresh[ai*d.dim:(ai+1)*d.dim]...)
			ai++
		}
		if r.Float64() < del {
			keep[i] = -1
			continue
		}
		keep[i] = int32(next.n())
		next.base = append(next.base, d.vec(i)...)
	}
	for ; ai < added; ai++ {
		next.base = append(next.base, fresh[ai*d.dim:(ai+1)*d.dim]...)
	}
	return keep, next
}

// checkGraph checks a graph's structure: every list within capacity, on
// nodes of its layer, without repeats or self-links; every node but a lone
// one linked on layer 0; the entry point on the top layer.
func checkGraph(t *testing.T, g *Graph) {
	t.Helper()
	n := g.Len()
	for i := range uint32(n) {
		for l := 0; l <= int(g.levels[i]); l++ {
			ls := g.links(i, l)
			capacity := g.m
			if l == 0 {
				capacity = g.m0
			}
			if len(ls) > capacity || (len(ls) == 0 && l == 0 && n > 1) {
				t.Fatalf("node %d layer %d: %d links (capacity %d)", i, l, len(ls), capacity)
			}
			seen := map[uint32]bool{}
			for _, nb := range ls {
				if int(nb) >= n || nb == i || seen[nb] || int(g.levels[nb]) < l {
					t.Fatalf("node %d layer %d: bad link %d in %v", i, l, nb, ls)
				}
				seen[nb] = true
			}
		}
	}
	if n > 0 && int(g.levels[g.entry]) != g.top {
		t.Errorf("entry %d on layer %d, top is %d", g.entry, g.levels[g.entry], g.top)
	}
}

// TestUpdateRecall: a graph updated for removals and additions finds the
// true neighbours as well as a graph built from scratch over the same
// vectors (recall@10 ≥ 0.98, and within 0.01 of the fresh build's), and
// keeps its structure sound; the update loads back from its bytes.
func TestUpdateRecall(t *testing.T) {
	cfg := Config{M: 8, EfConstruction: 64, Seed: 2}
	d := clusteredSet(3000, 200, 128, 11)
	g := buildGraph(t, d, cfg)
	for _, tc := range []struct {
		name  string
		del   float64
		added int
	}{
		{"remove 10%, add 10%", 0.10, 300},
		{"remove 1%, add none", 0.01, 0},
		{"remove none, add 5%", 0, 150},
		{"remove half, add 20%", 0.5, 600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keep, next := changed(d, tc.del, tc.added, uint64(len(tc.name)))
			u, err := g.Update(context.Background(), keep, next.base)
			if err != nil {
				t.Fatal(err)
			}
			if u.Len() != next.n() {
				t.Fatalf("updated graph has %d nodes, want %d", u.Len(), next.n())
			}
			checkGraph(t, u)
			gt := groundTruth(next, 10)
			fresh := buildGraph(t, next, cfg)
			for _, ef := range []int{updateEf, 64} {
				ru := recallAt(10, gt, func(i int) []Result { return u.Search(next.query(i), 10, ef) })
				rf := recallAt(10, gt, func(i int) []Result { return fresh.Search(next.query(i), 10, ef) })
				t.Logf("%d → %d nodes, ef %d: recall@10 updated %.4f, fresh build %.4f", d.n(), next.n(), ef, ru, rf)
				if ru < rf-0.02 || ef == 64 && ru < 0.98 {
					t.Errorf("ef %d: recall@10 of the updated graph %.4f, fresh build %.4f: want within 0.02 (and ≥ 0.98 at ef 64)", ef, ru, rf)
				}
			}
			h, err := Load(marshal(t, u), next.base, next.dim)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 20 {
				if a, b := u.Search(next.query(i), 10, 40), h.Search(next.query(i), 10, 40); !slices.Equal(a, b) {
					t.Fatalf("query %d: updated %v, loaded back %v", i, a, b)
				}
			}
		})
	}
}

// TestUpdateEdges: nothing changed gives the same graph byte for byte;
// removing every node leaves a graph of the added ones only; an updated
// graph does not change the graph it came from.
func TestUpdateEdges(t *testing.T) {
	cfg := Config{M: 6, EfConstruction: 40, Seed: 4}
	d := smallSet()
	g := buildGraph(t, d, cfg)
	before := marshal(t, g)
	same := make([]int32, d.n())
	for i := range same {
		same[i] = int32(i)
	}
	u, err := g.Update(context.Background(), same, d.base)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(marshal(t, u), before) {
		t.Error("an update that changes nothing gives another graph")
	}
	none := slices.Repeat([]int32{-1}, d.n())
	s := newSynth(d.dim, 100, 1.0, 7)
	added := s.draw(40, 99)
	u, err = g.Update(context.Background(), none, added)
	if err != nil {
		t.Fatal(err)
	}
	checkGraph(t, u)
	if u.Len() != 40 {
		t.Fatalf("%d nodes, want the 40 added", u.Len())
	}
	e, err := g.Update(context.Background(), none, nil)
	if err != nil || e.Len() != 0 || e.Search(d.query(0), 3, 10) != nil {
		t.Errorf("every node removed, none added: %v, %d nodes", err, e.Len())
	}
	if !bytes.Equal(marshal(t, g), before) {
		t.Error("Update changed the graph it was called on")
	}
}

// TestUpdateErrors: a bad renumbering or vector is refused with ErrUpdate
// (a wrong dimension with ErrDimension too), a cancelled context stops it.
func TestUpdateErrors(t *testing.T) {
	d := smallSet()
	g := buildGraph(t, d, Config{M: 6, EfConstruction: 40, Seed: 4})
	id := func() []int32 {
		k := make([]int32, d.n())
		for i := range k {
			k[i] = int32(i)
		}
		return k
	}
	moved := slices.Clone(d.base)
	moved[5] += 0.5
	dup := id()
	dup[1] = 0
	short := id()[1:]
	far := id()
	far[3] = int32(d.n() + 5)
	for _, tc := range []struct {
		name string
		keep []int32
		vecs []float32
	}{
		{"keep too short", short, d.base},
		{"two nodes to one", dup, d.base},
		{"past the end", far, d.base},
		{"a kept vector changed", id(), moved},
		{"ragged vectors", id(), d.base[:len(d.base)-1]},
	} {
		if _, err := g.Update(context.Background(), tc.keep, tc.vecs); !errors.Is(err, ErrUpdate) {
			t.Errorf("%s: %v, want ErrUpdate", tc.name, err)
		}
	}
	nan := append(slices.Clone(d.base), make([]float32, d.dim)...)
	nan[len(d.base)] = float32(math.NaN())
	if _, err := g.Update(context.Background(), id(), nan); !errors.Is(err, ErrInvalidVector) {
		t.Errorf("an added NaN vector: %v, want ErrInvalidVector", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	k := id()
	for i := range k {
		k[i]--
	}
	if _, err := g.Update(ctx, k, d.base[d.dim:]); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// updateEf is the beam of TestUpdateRecall's searches: narrow, so that a
// badly repaired graph shows (at ef 64 every graph of this size finds
// everything).
const updateEf = 12
