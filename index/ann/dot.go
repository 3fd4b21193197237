package ann

import "github.com/reqa/reqa/index/dense"

// Kernel names the dot-product kernel in use on this machine (see
// dense.Kernel): graphs are bit-for-bit reproducible between machines that
// use the same kernel.
func Kernel() string { return dense.Kernel() }

// dot is dense.Dot: the graph ranks with the same dot product as exact
// search.
func dot(a, b []float32) float32 { return dense.Dot(a, b) }
