package usenet

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/reqa/reqa/internal/testenv"
)

// TestPairsMatchWords: the vector products (kernel_amd64.s) give
// bit for bit the outputs of the portable packed products, for every
// shape the network uses and odd ones, any number of rows (the 4-row and
// 1-row kernels), activations with zeros (a ReLU's), negative and
// constant rows.
func TestPairsMatchWords(t *testing.T) {
	if !haveSIMD {
		testenv.Skip(t, "this machine has no AVX2: only the portable products run")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, shape := range [][2]int{{2, 16}, {6, 48}, {256, 512}, {512, 1536}, {512, 512}, {1536, 512}, {2048, 32}} {
		k, n := shape[0], shape[1]
		w := make([]byte, k*n)
		for i := range w {
			w[i] = byte(rng.IntN(256))
		}
		if k == 6 {
			for i := range w { // the extremes everywhere
				w[i] = []byte{0x80, 0x7f}[i%2]
			}
		}
		scale := make([]float32, n)
		bias := make([]float32, n)
		for j := range scale {
			scale[j] = rng.Float32() / 64
			bias[j] = rng.Float32() - 0.5
		}
		words := newDense(slices.Clone(w), k, n, scale, bias)
		words.packWords()
		pairs := newDense(slices.Clone(w), k, n, scale, bias)
		pairs.pack()
		if !pairs.simd {
			t.Fatalf("k=%d n=%d: not run by the vector products", k, n)
		}
		for _, M := range []int{1, 2, 3, 4, 5, 7, 8, 15, 128} {
			for _, kind := range []string{"normal", "relu", "constant", "negative"} {
				x := make([]float32, M*k)
				for i := range x {
					switch kind {
					case "normal":
						x[i] = float32(rng.NormFloat64())
					case "relu":
						x[i] = max(0, float32(rng.NormFloat64()))
					case "constant":
						x[i] = 255
					case "negative":
						x[i] = -rng.Float32() * 100
					}
				}
				a, b := words.apply(x, M), pairs.apply(x, M)
				for i := range a {
					if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
						t.Fatalf("k=%d n=%d M=%d %s: output %d (row %d, column %d) = %v packed, %v with pairs", k, n, M, kind, i, i/n, i%n, a[i], b[i])
					}
				}
			}
		}
	}
}
