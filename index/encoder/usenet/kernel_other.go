//go:build !amd64

package usenet

// haveSIMD is false: only amd64 has the vector products (kernel_amd64.s).
var haveSIMD = false

func madd4x16(w *byte, wstride int, pairs int, q *uint32, qstride int, out *int32, ostride int) {
	panic("usenet: no vector products on this architecture")
}
