package rank

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestFiniteRows: every NaN and infinity is refused, wherever it sits in
// the eight-value stride or the tail after it, and every finite value
// (the extremes, subnormals, signed zeros) passes.
func TestFiniteRows(t *testing.T) {
	finite := []float32{0, float32(math.Copysign(0, -1)), 1, -1, math.MaxFloat32, -math.MaxFloat32,
		math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 1e-40, 3.5}
	bad := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc00001), math.Float32frombits(0xffffffff)}
	for _, n := range []int{0, 1, 7, 8, 9, 16, 23, 512} {
		row := make([]float32, n)
		for i := range row {
			row[i] = finite[i%len(finite)]
		}
		if err := finiteRows(bytesOf(row)); err != nil {
			t.Errorf("%d finite values: %v", n, err)
		}
		for pos := 0; pos < n; pos++ {
			for _, b := range bad {
				row2 := append([]float32(nil), row...)
				row2[pos] = b
				err := finiteRows(bytesOf(row2))
				if err == nil {
					t.Fatalf("%d values, %v at %d: accepted", n, b, pos)
				}
				if want := "value " + strconv.Itoa(pos) + " "; !strings.HasPrefix(err.Error(), want) {
					t.Fatalf("%d values, %v at %d: %v (want it named)", n, b, pos, err)
				}
			}
		}
	}
}

func bytesOf(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}
