package fuse_test

import (
	"fmt"

	"github.com/reqa/reqa/rank/fuse"
)

func ExampleFuse() {
	bm25 := []float64{12.0, 3.5, 11.8} // BM25 is torn between candidates 0 and 2
	dense := []float64{0.20, 0.35, 0.61}
	p := fuse.Params{Name: "fusion-zscore", Method: "zscore", Inputs: []string{"bm25-wpm", "dense"}, Weights: []float64{0.55, 0.45}}
	out := make([]float64, 3)
	fuse.Fuse(p, [][]float64{bm25, dense}, out)
	fmt.Printf("%.2f %.2f %.2f\n", out[0], out[1], out[2])
	// Output: -0.09 -0.88 0.97
}

// A BM25 input touches a few of an index's candidates; the others score 0.
// Its statistics over every candidate come from the touched ones alone.
func ExampleDescribeSparse() {
	scores := make([]float64, 1000)
	scores[3], scores[42] = 9.5, 4.0
	s := fuse.DescribeSparse(scores, []uint32{3, 42}, len(scores))
	fmt.Printf("mean %.4f std %.4f top %.1f %.1f min %.0f\n", s.Mean, s.Std, s.Top1, s.Top2, s.Min)
	// Output: mean 0.0135 std 0.3257 top 9.5 4.0 min 0
}
