package usenet

import "golang.org/x/sys/cpu"

// haveSIMD reports whether this machine runs the AVX2 products
// (kernel_amd64.s); without AVX2 the portable packed products run.
var haveSIMD = cpu.X86.HasAVX2

// madd4x16 sums, for 4 rows of activation pairs (q, q+qstride bytes, …)
// and the 16 columns of w's weight row pairs (wstride bytes apart), the
// pairs' products over pairs rows, into 4 rows of 16 int32 (out,
// out+ostride bytes, …).
//
//go:noescape
func madd4x16(w *int16, wstride int, pairs int, q *uint32, qstride int, out *int32, ostride int)

// madd1x16 is madd4x16 for one row of activation pairs.
//
//go:noescape
func madd1x16(w *int16, wstride int, pairs int, q *uint32, out *int32)
