package dense

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/viterin/vek/vek32"
)

// TestDotKernels checks both kernels against a float64 reference at every
// length around the unrolling boundaries and at reqa's widths.
func TestDotKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	lengths := []int{384, 512, 768}
	for n := 1; n <= 70; n++ {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		a, b := make([]float32, n), make([]float32, n)
		var want, mag float64
		for i := range a {
			a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
			want += float64(a[i]) * float64(b[i])
			mag += math.Abs(float64(a[i]) * float64(b[i]))
		}
		tol := 1e-6 * mag * float64(n)
		for name, f := range map[string]func(a, b []float32) float32{"go": dotGo, "vek32": vek32.Dot, "Dot": Dot} {
			if got := float64(f(a, b)); math.Abs(got-want) > tol {
				t.Errorf("%s n=%d: %g, want %g ± %g", name, n, got, want, tol)
			}
		}
	}
}

// BenchmarkDot compares the portable Go kernel with vek32.Dot (AVX2+FMA
// where the CPU has it) at reqa's widths.
func BenchmarkDot(b *testing.B) {
	for _, dim := range []int{384, 512} {
		r := rand.New(rand.NewPCG(uint64(dim), 7))
		x, y := make([]float32, dim), make([]float32, dim)
		for i := range x {
			x[i], y[i] = r.Float32(), r.Float32()
		}
		for _, k := range []struct {
			name string
			f    func(a, b []float32) float32
		}{{"go-unrolled8", dotGo}, {"vek32", vek32.Dot}} {
			b.Run(fmt.Sprintf("%s/d=%d", k.name, dim), func(b *testing.B) {
				var sink float32
				for b.Loop() {
					sink += k.f(x, y)
				}
				_ = sink
			})
		}
	}
}
