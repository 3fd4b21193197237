package dense

import (
	"runtime"

	"github.com/viterin/vek/vek32"
	"golang.org/x/sys/cpu"
)

// useVek reports whether dot products run on vek32's AVX2+FMA kernel. The
// condition mirrors the one vek itself uses to pick its assembly, so vek32.Dot
// is only called where it would not fall back to its plain loop anyway.
var useVek = runtime.GOARCH == "amd64" && cpu.X86.HasAVX2 && cpu.X86.HasFMA && runtime.GOOS != "darwin"

// Kernel names the dot-product kernel in use on this machine: "vek-avx2-fma"
// (github.com/viterin/vek's assembly, 4×8 float32 lanes with fused
// multiply-add) or "go-unrolled8" (portable Go, eight accumulators).
//
// Scores, and therefore built graphs, are bit-for-bit reproducible between
// machines that use the same kernel; the two kernels sum in different orders
// and may differ in the last bits of a score.
func Kernel() string {
	if useVek {
		return "vek-avx2-fma"
	}
	return "go-unrolled8"
}

// Dot returns the inner product of a and b (b at least as long as a). It is
// the one dot product of reqa: exact search, the ANN graph (index/ann) and
// the question adapter all score with it, so they agree to the bit.
func Dot(a, b []float32) float32 {
	if len(a) == 0 {
		return 0
	}
	if useVek {
		return vek32.Dot(a, b[:len(a)])
	}
	return dotGo(a, b)
}

// dotGo is the portable kernel: eight independent accumulators so the
// additions pipeline, combined pairwise at the end. The explicit float32
// conversions forbid the compiler from fusing multiply and add (the Go spec
// allows fusion otherwise, and arm64 does it), which keeps the result
// identical on every architecture.
func dotGo(a, b []float32) float32 {
	n := len(a)
	b = b[:n]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= n; i += 8 {
		x := a[i : i+8 : i+8]
		y := b[i : i+8 : i+8]
		s0 += float32(x[0] * y[0])
		s1 += float32(x[1] * y[1])
		s2 += float32(x[2] * y[2])
		s3 += float32(x[3] * y[3])
		s4 += float32(x[4] * y[4])
		s5 += float32(x[5] * y[5])
		s6 += float32(x[6] * y[6])
		s7 += float32(x[7] * y[7])
	}
	for ; i < n; i++ {
		s0 += float32(a[i] * b[i])
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}
