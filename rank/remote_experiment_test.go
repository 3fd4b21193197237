//go:build experiment

package rank_test

import (
	"context"
	"math"
	"sort"
	"strconv"
	"testing"

	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/fuse"
)

// TestEngineStatsExperiment simulates, on the embedded SQuAD index, how an
// index kept in an engine fuses the default ranker: a pool of every
// input's best 100, dense statistics exact (the moments), BM25's mean and
// deviation from its K best scores only (the rest counted 0), for several
// K; and, for comparison, statistics over the pool alone. It prints test
// P@1 for each against the exact fusion.
func TestEngineStatsExperiment(t *testing.T) {
	e, splits := experiment(t)
	r, err := e.Ranker("default")
	if err != nil {
		t.Fatal(err)
	}
	fr := r.(*rank.FusedRanker)
	p := fr.Params()
	ks := []int{10, 50, 100, 200, 1000}
	hits := map[string]int{}
	qs := splits["test"]
	for _, q := range qs {
		inputs, fused, _, err := fr.Breakdown(context.Background(), q.Text)
		if err != nil {
			t.Fatal(err)
		}
		gold := map[uint32]bool{}
		for _, g := range q.Gold {
			gold[g] = true
		}
		if gold[uint32(argmax(fused))] {
			hits["exact"]++
		}
		poolSet := map[int]bool{}
		var pool []int
		tops := make([][]int, len(inputs))
		for i, in := range inputs {
			tops[i] = topN(in, 1000)
			for _, d := range tops[i][:100] {
				if !poolSet[d] {
					poolSet[d] = true
					pool = append(pool, d)
				}
			}
		}
		sub := make([][]float64, len(inputs))
		for i, in := range inputs {
			sub[i] = make([]float64, len(pool))
			for j, d := range pool {
				sub[i][j] = in[d]
			}
		}
		out := make([]float64, len(pool))
		try := func(name string, stats []fuse.Stats) {
			if err := fuse.FuseStats(p, sub, stats, out); err != nil {
				t.Fatal(err)
			}
			if gold[uint32(pool[argmax(out)])] {
				hits[name]++
			}
		}
		for _, k := range ks {
			stats := make([]fuse.Stats, len(inputs))
			for i, in := range inputs {
				stats[i] = fuse.Describe(in)
				if p.Inputs[i] == "dense" {
					continue
				}
				var sum, sq float64
				for _, d := range tops[i][:k] {
					sum += in[d]
					sq += in[d] * in[d]
				}
				n := float64(len(in))
				stats[i].Mean = sum / n
				stats[i].Std = math.Sqrt(max(sq/n-stats[i].Mean*stats[i].Mean, 0))
			}
			try("bm25 stats from top "+strconv.Itoa(k), stats)
		}
		pstats := make([]fuse.Stats, len(inputs))
		for i := range inputs {
			pstats[i] = fuse.Describe(sub[i])
		}
		try("all stats over the pool", pstats)
	}
	names := make([]string, 0, len(hits))
	for n := range hits {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("%-30s P@1 %.2f", n, 100*float64(hits[n])/float64(len(qs)))
	}
}

func argmax(s []float64) int {
	best := 0
	for i, x := range s {
		if x > s[best] {
			best = i
		}
	}
	return best
}

// topN returns the indices of the n best scores, best first.
func topN(s []float64, n int) []int {
	idx := make([]int, len(s))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return s[idx[a]] > s[idx[b]] })
	return idx[:min(n, len(idx))]
}
