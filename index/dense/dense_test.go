package dense

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

func TestCombine(t *testing.T) {
	sent, _ := FromRows([][]float32{{1, 0}, {0, 1}}, 2)
	ctx, _ := FromRows([][]float32{{0, 1}}, 2)
	got, err := Combine(sent, ctx, []uint32{0, 0}, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := float32(1 / math.Sqrt(2))
	want := []float32{r, r, 0, 1}
	for i := range want {
		if math.Abs(float64(got.Data[i]-want[i])) > 1e-6 {
			t.Fatalf("combine = %v, want %v", got.Data, want)
		}
	}
	if _, err := Combine(sent, ctx, []uint32{0, 5}, 1); err == nil {
		t.Fatal("bad context id accepted")
	}
	same, _ := Combine(sent, ctx, []uint32{0, 0}, 0)
	if same.Data[0] != 1 || same.Data[3] != 1 {
		t.Fatalf("λ=0 must keep sentences: %v", same.Data)
	}
	// Enough rows to be shared among the cores: every row as one alone.
	const n = 10007
	rows, ctxOf := make([][]float32, n), make([]uint32, n)
	for i := range rows {
		rows[i], ctxOf[i] = []float32{float32(i%7) + 1, float32(i % 5)}, 0
	}
	many, _ := FromRows(rows, 2)
	all, err := Combine(many, ctx, ctxOf, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, n / 2, n - 2, n - 1} {
		one, _ := FromRows([][]float32{rows[i]}, 2)
		want, _ := Combine(one, ctx, []uint32{0}, 0.5)
		if !slices.Equal(all.Row(i), want.Row(0)) {
			t.Errorf("row %d: %v, want %v", i, all.Row(i), want.Row(0))
		}
	}
	bad := make([]uint32, n)
	bad[n-1] = 9
	if _, err := Combine(many, ctx, bad, 0.5); err == nil || !strings.Contains(err.Error(), "sentence 10006") {
		t.Errorf("bad context id of the last row: %v", err)
	}
}

func TestEncodeDecode(t *testing.T) {
	v, _ := FromRows([][]float32{{1, 2, 3}, {4, 5, 6}}, 3)
	got, err := Decode(v.Encode())
	if err != nil || got.Len() != 2 || got.Row(1)[2] != 6 {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	bad := v.Encode()
	for _, b := range [][]byte{nil, bad[:11], bad[:len(bad)-1], append([]byte("XXXX"), bad[4:]...)} {
		if _, err := Decode(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("damaged vectors accepted: %v", err)
		}
	}
	nan := v.Encode()
	copy(nan[12:], []byte{0, 0, 0xc0, 0x7f})
	if _, err := Decode(nan); !errors.Is(err, ErrCorrupt) {
		t.Error("NaN accepted")
	}
	inf := v.Encode()
	copy(inf[16:], []byte{0, 0, 0x80, 0xff})
	if _, err := Decode(inf); !errors.Is(err, ErrCorrupt) {
		t.Error("-Inf accepted")
	}
	// A non-finite value deep in many rows (checked by the cores in
	// parts) is found, and the first one reported.
	const n = 9001
	rows := make([][]float32, n)
	for i := range rows {
		rows[i] = []float32{1, 0}
	}
	many, _ := FromRows(rows, 2)
	enc9 := many.Encode()
	for _, r := range []int{8000, 4500} {
		binary.LittleEndian.PutUint32(enc9[12+8*r:], math.Float32bits(float32(math.Inf(1))))
	}
	if _, err := Decode(enc9); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "row 4500") {
		t.Errorf("Inf in rows 4500 and 8000: %v", err)
	}
	// Rows at an odd address are copied; aligned ones are shared.
	enc := v.Encode()
	odd := make([]byte, len(enc)+1)[1:]
	copy(odd, enc)
	for _, b := range [][]byte{enc, odd} {
		got, err := Decode(b)
		if err != nil || !slices.Equal(got.Data, v.Data) {
			t.Errorf("decoding at %p: %v %v", b, got.Data, err)
		}
	}
	if got, _ := Decode(enc); littleEndian && &got.Data[0] != (*float32)(unsafe.Pointer(&enc[12])) {
		t.Error("aligned rows were copied")
	}
}

func TestDot(t *testing.T) {
	a := []float32{1, 2, 3, 4, 5, 6, 7}
	if got := Dot(a, a); got != 140 {
		t.Fatalf("dot = %v", got)
	}
}

func FuzzDecode(f *testing.F) {
	v, _ := FromRows([][]float32{{1, 2}}, 2)
	f.Add(v.Encode())
	f.Fuzz(func(t *testing.T, b []byte) { Decode(b) })
}

func TestDotKernelsAgree(t *testing.T) {
	a := make([]float32, 512)
	b := make([]float32, 512)
	for i := range a {
		a[i] = float32(math.Sin(float64(i)))
		b[i] = float32(math.Cos(float64(i) * 0.7))
	}
	if d1, d2 := Dot(a, b), dotGo(a, b); math.Abs(float64(d1-d2)) > 1e-4 {
		t.Fatalf("SIMD dot %v, Go dot %v", d1, d2)
	}
}

func BenchmarkScoreAll(b *testing.B) {
	v := Vectors{Dim: 512, Data: make([]float32, 10000*512)}
	for i := range v.Data {
		v.Data[i] = float32(i%7) * 0.01
	}
	q := v.Row(3)
	out := make([]float64, v.Len())
	for i := 0; i < b.N; i++ {
		ScoreAll(v, q, out)
	}
	b.ReportMetric(float64(b.N*v.Len())/b.Elapsed().Seconds(), "dots/s")
}

func TestScoreBlockMatchesScoreAll(t *testing.T) {
	v, _ := FromRows([][]float32{{1, 0, 2}, {0, 1, 1}, {3, 1, 0}}, 3)
	qs := [][]float32{{1, 1, 1}, {0, 2, 0}}
	out := [][]float64{make([]float64, 3), make([]float64, 3)}
	ScoreBlock(v, qs, out)
	for j, q := range qs {
		want := make([]float64, 3)
		ScoreAll(v, q, want)
		for i := range want {
			if out[j][i] != want[i] {
				t.Fatalf("block[%d][%d] = %v, want %v", j, i, out[j][i], want[i])
			}
		}
	}
}

// TestEncodeAt: any window of EncodeAt equals the same bytes of Encode,
// at aligned and unaligned offsets and lengths.
func TestEncodeAt(t *testing.T) {
	v := Vectors{Dim: 3, Data: []float32{1, -2.5, 3e-7, 4, 5, 6.25, -7, 8, 9}}
	want := v.Encode()
	if int64(len(want)) != v.EncodedLen() {
		t.Fatalf("EncodedLen %d, Encode wrote %d", v.EncodedLen(), len(want))
	}
	for off := 0; off < len(want); off++ {
		for n := 0; off+n <= len(want); n++ {
			got := make([]byte, n)
			v.EncodeAt(int64(off), got)
			if string(got) != string(want[off:off+n]) {
				t.Fatalf("EncodeAt(%d, %d bytes) = %x, want %x", off, n, got, want[off:off+n])
			}
		}
	}
}

// TestMixMatchesCombine: scores mixed from sentence and context scores with
// InvNorms equal the scores against Combine's vectors (to float32
// rounding), for λ 0 and not, a zero vector, and enough rows for InvNorms
// and ScoreAll to share them among the cores; a bad context id is refused.
func TestMixMatchesCombine(t *testing.T) {
	const n, dim, nctx = 9001, 8, 37
	rows, ctxOf := make([][]float32, n), make([]uint32, n)
	for i := range rows {
		rows[i] = make([]float32, dim)
		for j := range rows[i] {
			rows[i][j] = float32((i*7+j*3)%11) - 5
		}
		ctxOf[i] = uint32(i % nctx)
	}
	clear(rows[n/2]) // a zero sentence vector
	crows := make([][]float32, nctx)
	for c := range crows {
		crows[c] = make([]float32, dim)
		for j := range crows[c] {
			crows[c][j] = float32((c+j)%5) - 2
		}
	}
	sent, _ := FromRows(rows, dim)
	ctx, _ := FromRows(crows, dim)
	q := []float32{0.3, -0.1, 0.7, 0.2, -0.5, 0.1, 0.05, -0.3}
	for _, lambda := range []float64{0, 0.25, 1} {
		comb, err := Combine(sent, ctx, ctxOf, lambda)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, n)
		ScoreAll(comb, q, want)
		inv, err := InvNorms(sent, ctx, ctxOf, lambda)
		if err != nil {
			t.Fatal(err)
		}
		got, cs := make([]float64, n), make([]float64, nctx)
		ScoreAll(sent, q, got)
		ScoreAll(ctx, q, cs)
		Mix(got, cs, ctxOf, inv, lambda)
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-6 {
				t.Fatalf("λ %g row %d: mixed %v, combined %v", lambda, i, got[i], want[i])
			}
		}
		if lambda == 0 && (inv[n/2] != 0 || got[n/2] != 0) {
			t.Errorf("zero vector: inv %v, score %v", inv[n/2], got[n/2])
		}
	}
	bad := slices.Clone(ctxOf)
	bad[n-1] = nctx
	if _, err := InvNorms(sent, ctx, bad, 0.25); err == nil || !strings.Contains(err.Error(), "sentence 9000") {
		t.Errorf("bad context id of the last row: %v", err)
	}
	if _, err := InvNorms(sent, ctx, bad, 0); err != nil {
		t.Errorf("λ 0 reads no context: %v", err)
	}
	// Non-finite values: refused where they are used, by sentence.
	nan := Vectors{Dim: dim, Data: slices.Clone(sent.Data)}
	nan.Row(4321)[3] = float32(math.NaN())
	if _, err := InvNorms(nan, ctx, ctxOf, 0); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "sentence 4321") {
		t.Errorf("NaN in sentence 4321: %v", err)
	}
	inf := Vectors{Dim: dim, Data: slices.Clone(ctx.Data)}
	inf.Row(5)[0] = float32(math.Inf(-1))
	if _, err := InvNorms(sent, inf, ctxOf, 0.25); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "sentence 5") {
		t.Errorf("infinity in context 5 (first of sentence 5): %v", err)
	}
	if _, err := InvNorms(sent, inf, ctxOf, 0); err != nil {
		t.Errorf("λ 0 reads no context: %v", err)
	}
	if _, err := Combine(nan, ctx, ctxOf, 0); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "sentence 4321") {
		t.Errorf("Combine with a NaN in sentence 4321: %v", err)
	}
	if _, err := Combine(sent, inf, ctxOf, 0.25); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Combine with an infinity in context 5: %v", err)
	}
	// DecodeUnchecked keeps them; Decode refuses them.
	enc := nan.Encode()
	if _, err := Decode(enc); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Decode of a NaN: %v", err)
	}
	if v, err := DecodeUnchecked(enc); err != nil || !math.IsNaN(float64(v.Row(4321)[3])) {
		t.Errorf("DecodeUnchecked of a NaN: %v", err)
	}
}
