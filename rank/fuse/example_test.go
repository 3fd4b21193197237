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
