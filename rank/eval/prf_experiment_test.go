//go:build experiment

package eval

import (
	"context"
	"fmt"
	"github.com/reqa/reqa/rank"
	"slices"
	"sort"
	"testing"

	"github.com/reqa/reqa/rank/fuse"
)

// TestDensePRF measures pseudo-relevance feedback on the dense input of
// the default fusion: the question vector moved towards the centroid of the
// default's k first answers (Rocchio), q' = q + β·c, then fused again.
// It prints each domain's gain in P@1 over the default for every k and β
// (BENCHMARKS.md: never above the default on a document set's tune half).
//
//	REQA_PRF='name=INDEX=DATASET;…' go test -tags experiment -run TestDensePRF -v ./rank/eval/
func TestDensePRF(t *testing.T) {
	doms, split := experimentDomains(t, "REQA_PRF")
	ks := []int{1, 3, 5, 10}
	betas := []float64{0.25, 0.5, 1, 2}
	for _, dom := range doms {
		d, e := openDomain(t, dom.Index, dom.Dataset)
		eq := splitQuestions(t, e, d, split)
		s, err := rank.ParseSpec("default")
		if err != nil {
			t.Fatal(err)
		}
		r, err := e.Resolve(s)
		if err != nil {
			t.Fatal(err)
		}
		f := r.(*rank.FusedRanker)
		var qs []string
		for _, q := range eq {
			qs = append(qs, q.Text)
		}
		if err := f.Prepare(context.Background(), qs, nil); err != nil {
			t.Fatal(err)
		}
		dj := -1
		var dr *rank.DenseRanker
		for j, in := range f.Inputs() {
			if x, ok := in.(*rank.DenseRanker); ok {
				dj, dr = j, x
			}
		}
		av, err := dr.AnswerVectors()
		if err != nil {
			t.Fatal(err)
		}
		n := av.Len()
		base := 0
		right := map[[2]int]int{}
		prf := make([]float64, n)
		out := make([]float64, n)
		c := make([]float64, av.Dim)
		for _, q := range eq {
			inputs, fused, _, err := f.Breakdown(context.Background(), q.Text)
			if err != nil {
				t.Fatal(err)
			}
			order := argsortDesc(fused)
			if slices.Contains(q.Gold, uint32(order[0])) {
				base++
			}
			for _, k := range ks {
				clear(c)
				for _, id := range order[:k] {
					for x, v := range av.Row(id) {
						c[x] += float64(v) / float64(k)
					}
				}
				for i := 0; i < n; i++ {
					var dot float64
					for x, v := range av.Row(i) {
						dot += float64(v) * c[x]
					}
					prf[i] = dot
				}
				for bi, b := range betas {
					in2 := append([][]float64(nil), inputs...)
					nd := make([]float64, n)
					for i := range nd {
						nd[i] = inputs[dj][i] + b*prf[i]
					}
					in2[dj] = nd
					if err := fuse.FuseContext(f.Params(), in2, f.Corpus(), out); err != nil {
						t.Fatal(err)
					}
					if slices.Contains(q.Gold, uint32(slices.Index(out, slices.Max(out)))) {
						right[[2]int{k, bi}]++
					}
				}
			}
		}
		m := float64(len(eq))
		fmt.Printf("%s (%d %s): default %.2f\n", dom.Name, len(eq), split, 100*float64(base)/m)
		for _, k := range ks {
			fmt.Printf("  k=%-2d", k)
			for bi, b := range betas {
				fmt.Printf("  β=%.2f %+.2f", b, 100*float64(right[[2]int{k, bi}]-base)/m)
			}
			fmt.Println()
		}
	}
}

func argsortDesc(x []float64) []int {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] > x[idx[b]] })
	return idx
}
