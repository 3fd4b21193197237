package usenet

import "golang.org/x/sys/cpu"

// haveSIMD reports whether this machine runs the AVX2 products
// (kernel_amd64.s); without AVX2 the portable packed products run.
var haveSIMD = cpu.X86.HasAVX2

// madd4x16 sums, for 4 rows of activation pairs (q, q+qstride bytes, …:
// each uint32 two int16 activations, of input rows 2p and 2p+1) and 16
// columns of the int8 weights w (input rows wstride bytes apart), the
// products over pairs pairs of input rows, into 4 rows of 16 int32 (out,
// out+ostride bytes, …).
//
//go:noescape
func madd4x16(w *byte, wstride int, pairs int, q *uint32, qstride int, out *int32, ostride int)
