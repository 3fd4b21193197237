// Package dense holds reqa's embedding matrices and exact dense search.
//
// Every candidate sentence and every context is embedded once at index time
// (unit vectors, float32). The answer tower's vector for a candidate is
//
//	a = normalize(e_sentence + λ · e_context)
//
// ([Combine]); λ = 0 is the sentence alone. Scores are dot products with the
// question's unit vector: [Dot] is reqa's one dot product (exact search here,
// the HNSW graph of index/ann and the question adapter all use it, so they
// agree to the bit; [Kernel] names the kernel in use). Exact search over
// every candidate need not build the a vectors: q·a is the question's dot
// products with the sentence and context vectors mixed by λ and scaled by
// 1/‖e_sentence + λ·e_context‖ ([InvNorms], [Mix]), equal to within float32
// rounding; the HNSW graph is built and searched over the a vectors. [Vectors.Encode] is
// the stored form: a small header and little-endian float32 rows.
package dense

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"unsafe"
)

// ErrCorrupt reports an undecodable vector matrix.
var ErrCorrupt = errors.New("dense: damaged vectors")

// Vectors is a row-major matrix of Len() rows of Dim floats.
type Vectors struct {
	Dim  int
	Data []float32
}

// FromRows packs rows (all of width dim) into a matrix.
func FromRows(rows [][]float32, dim int) (Vectors, error) {
	v := Vectors{Dim: dim, Data: make([]float32, 0, len(rows)*dim)}
	for i, r := range rows {
		if len(r) != dim {
			return Vectors{}, fmt.Errorf("dense: row %d has %d dimensions, want %d", i, len(r), dim)
		}
		v.Data = append(v.Data, r...)
	}
	return v, nil
}

// Len returns the number of rows.
func (v Vectors) Len() int {
	if v.Dim == 0 {
		return 0
	}
	return len(v.Data) / v.Dim
}

// Row returns row i (sharing storage).
func (v Vectors) Row(i int) []float32 { return v.Data[i*v.Dim : (i+1)*v.Dim] }

const magic = "RQV1"

// Encode returns the stored form of v.
func (v Vectors) Encode() []byte {
	b := make([]byte, 0, 12+4*len(v.Data))
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(v.Dim))
	b = binary.LittleEndian.AppendUint32(b, uint32(v.Len()))
	for _, x := range v.Data {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// EncodedLen returns the length of what Encode writes.
func (v Vectors) EncodedLen() int64 { return 12 + 4*int64(len(v.Data)) }

// EncodeAt writes the bytes of Encode's output from offset off into dst
// (len(dst) bytes, within EncodedLen), without building the whole of it.
func (v Vectors) EncodeAt(off int64, dst []byte) {
	var head [12]byte
	copy(head[:], magic)
	binary.LittleEndian.PutUint32(head[4:], uint32(v.Dim))
	binary.LittleEndian.PutUint32(head[8:], uint32(v.Len()))
	for len(dst) > 0 {
		if off < 12 {
			n := copy(dst, head[off:])
			dst, off = dst[n:], off+int64(n)
			continue
		}
		i, r := (off-12)/4, (off-12)%4
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(v.Data[i]))
		if r == 0 && len(dst) >= 4 {
			copy(dst, b[:])
			dst, off = dst[4:], off+4
			continue
		}
		n := copy(dst, b[r:])
		dst, off = dst[n:], off+int64(n)
	}
}

// Decode parses what Encode wrote. On a little-endian machine the vectors
// share b's memory when its rows are 4-byte aligned (a blob read from the
// index is): loading an index's embeddings costs no second copy of them, so
// b must not be changed afterwards. A non-finite value is refused.
func Decode(b []byte) (Vectors, error) {
	v, err := DecodeUnchecked(b)
	if err != nil {
		return v, err
	}
	n, dim := v.Len(), v.Dim
	bad := make([]int, runtime.GOMAXPROCS(0)) // per part: the first non-finite row + 1
	inParallel(n, func(part, from, to int) {
		for i, x := range v.Data[from*dim : to*dim] {
			if math.Float32bits(x)&0x7f800000 == 0x7f800000 { // all exponent bits: Inf or NaN
				bad[part] = from + i/dim + 1
				return
			}
		}
	})
	for _, r := range bad {
		if r > 0 {
			return Vectors{}, fmt.Errorf("%w: non-finite value in row %d", ErrCorrupt, r-1)
		}
	}
	return v, nil
}

// DecodeUnchecked is [Decode] without its pass over every value: for a
// caller that reads every value it uses anyway and refuses non-finite ones
// there, as [InvNorms] does (loading 661,408 sentence vectors, the pass
// took 0.95 s of CPU).
func DecodeUnchecked(b []byte) (Vectors, error) {
	if len(b) < 12 || string(b[:4]) != magic {
		return Vectors{}, fmt.Errorf("%w: bad header", ErrCorrupt)
	}
	dim := int(binary.LittleEndian.Uint32(b[4:]))
	n := int(binary.LittleEndian.Uint32(b[8:]))
	if dim <= 0 || dim > 1<<16 || int64(len(b)-12) != int64(n)*int64(dim)*4 {
		return Vectors{}, fmt.Errorf("%w: %d×%d does not match %d bytes", ErrCorrupt, n, dim, len(b)-12)
	}
	v := Vectors{Dim: dim}
	body := b[12:]
	if p := unsafe.SliceData(body); littleEndian && len(body) > 0 && uintptr(unsafe.Pointer(p))%4 == 0 {
		v.Data = unsafe.Slice((*float32)(unsafe.Pointer(p)), n*dim)
	} else {
		v.Data = make([]float32, n*dim)
		for i := range v.Data {
			v.Data[i] = math.Float32frombits(binary.LittleEndian.Uint32(body[4*i:]))
		}
	}
	return v, nil
}

// inParallel calls f on n rows split into one contiguous part per core,
// in row order (one call, part 0, when n is small), and waits.
func inParallel(n int, f func(part, from, to int)) {
	parts := runtime.GOMAXPROCS(0)
	if n < 4096 || parts < 2 {
		f(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(p, n*p/parts, n*(p+1)/parts)
		}()
	}
	wg.Wait()
}

// littleEndian says whether this machine stores a float32 as Encode
// writes it.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// Normalize scales x to unit length in place (a zero vector stays zero).
func Normalize(x []float32) {
	var s float64
	for _, a := range x {
		s += float64(a) * float64(a)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range x {
		x[i] *= inv
	}
}

// Combine returns the answer vectors normalize(sent_i + λ·ctx[ctxOf[i]]),
// refusing a sentence whose mixed row holds a non-finite value
// (ErrCorrupt), as InvNorms does.
func Combine(sent, ctx Vectors, ctxOf []uint32, lambda float64) (Vectors, error) {
	if sent.Dim != ctx.Dim && lambda != 0 {
		return Vectors{}, fmt.Errorf("dense: sentence width %d, context width %d", sent.Dim, ctx.Dim)
	}
	if len(ctxOf) != sent.Len() {
		return Vectors{}, fmt.Errorf("dense: %d context ids for %d sentences", len(ctxOf), sent.Len())
	}
	if lambda != 0 {
		for i, c := range ctxOf {
			if int(c) >= ctx.Len() {
				return Vectors{}, fmt.Errorf("dense: sentence %d names context %d of %d", i, c, ctx.Len())
			}
		}
	}
	out := Vectors{Dim: sent.Dim, Data: make([]float32, len(sent.Data))}
	l := float32(lambda)
	// Rows are independent: the cores share them (an index of 661,408
	// sentences mixes 1.35 GB of vectors each time it is opened).
	bad := make([]int, runtime.GOMAXPROCS(0)) // per part: the first bad row + 1
	inParallel(sent.Len(), func(part, from, to int) {
		for i := from; i < to; i++ {
			row, s := out.Row(i), sent.Row(i)
			if lambda == 0 {
				copy(row, s)
			} else {
				c := ctx.Row(int(ctxOf[i]))
				for j := range row {
					row[j] = s[j] + l*c[j]
				}
			}
			// Normalize, refusing a row with a NaN or an infinity (vectors
			// read by DecodeUnchecked are checked here, as in InvNorms).
			var sum float64
			for _, a := range row {
				sum += float64(a) * float64(a)
			}
			if math.IsNaN(sum) || math.IsInf(sum, 0) {
				bad[part] = i + 1
				return
			}
			if sum != 0 {
				inv := float32(1 / math.Sqrt(sum))
				for j := range row {
					row[j] *= inv
				}
			}
		}
	})
	for _, r := range bad {
		if r > 0 {
			return Vectors{}, fmt.Errorf("%w: non-finite value in the vectors of sentence %d", ErrCorrupt, r-1)
		}
	}
	return out, nil
}

// InvNorms returns 1/‖sent_i + λ·ctx[ctxOf[i]]‖ for every sentence, the
// sum made in float32 as [Combine] makes it (0 for a zero vector, which
// Combine leaves zero). With them an answer's score against the combined
// vectors is a sentence score and a context score mixed, as [Mix] does,
// without building the combined vectors (1.35 GB for an index of 661,408
// sentences): equal to Combine's up to float32 rounding, about 1e-7. A
// sentence whose row (or, when λ is not 0, its context's) holds a
// non-finite value, or whose mixed row overflows float32, is refused with
// ErrCorrupt: vectors read by [DecodeUnchecked] are checked here.
func InvNorms(sent, ctx Vectors, ctxOf []uint32, lambda float64) ([]float64, error) {
	if sent.Dim != ctx.Dim && lambda != 0 {
		return nil, fmt.Errorf("dense: sentence width %d, context width %d", sent.Dim, ctx.Dim)
	}
	if len(ctxOf) != sent.Len() {
		return nil, fmt.Errorf("dense: %d context ids for %d sentences", len(ctxOf), sent.Len())
	}
	if lambda != 0 {
		for i, c := range ctxOf {
			if int(c) >= ctx.Len() {
				return nil, fmt.Errorf("dense: sentence %d names context %d of %d", i, c, ctx.Len())
			}
		}
	}
	inv := make([]float64, sent.Len())
	l := float32(lambda)
	bad := make([]int, runtime.GOMAXPROCS(0)) // per part: the first bad row + 1
	inParallel(sent.Len(), func(part, from, to int) {
		row := make([]float32, sent.Dim)
		for i := from; i < to; i++ {
			copy(row, sent.Row(i))
			if lambda != 0 {
				for j, x := range ctx.Row(int(ctxOf[i])) {
					row[j] += l * x
				}
			}
			var s float64
			for _, a := range row {
				s += float64(a) * float64(a)
			}
			switch {
			case math.IsNaN(s) || math.IsInf(s, 0): // a NaN or an infinity in the row
				bad[part] = i + 1
				return
			case s != 0:
				inv[i] = 1 / math.Sqrt(s)
			}
		}
	})
	for _, r := range bad {
		if r > 0 {
			return nil, fmt.Errorf("%w: non-finite value in the vectors of sentence %d", ErrCorrupt, r-1)
		}
	}
	return inv, nil
}

// Mix turns sentence scores into answer scores in place: sent[i] becomes
// (sent[i] + λ·ctx[ctxOf[i]])·inv[i], the score against
// normalize(sent_i + λ·ctx_c(i)) when sent and ctx hold a question's dot
// products with the sentence and context vectors and inv is [InvNorms]'s
// (ctx is not read when λ is 0).
func Mix(sent, ctx []float64, ctxOf []uint32, inv []float64, lambda float64) {
	if lambda == 0 {
		for i := range sent {
			sent[i] *= inv[i]
		}
		return
	}
	l := float64(float32(lambda)) // Combine mixes in float32
	for i, x := range sent {
		sent[i] = (x + l*ctx[ctxOf[i]]) * inv[i]
	}
}

// ScoreAll writes the dot product of q with every row of v into out, the
// rows shared among the cores.
func ScoreAll(v Vectors, q []float32, out []float64) {
	inParallel(v.Len(), func(_, from, to int) {
		for i := from; i < to; i++ {
			out[i] = float64(Dot(v.Row(i), q))
		}
	})
}

// ScoreBlock scores a block of queries against every row of v at once:
// out[j][i] = v.Row(i) · qs[j]. Each row is read once per block instead of
// once per query, which makes exhaustive evaluation compute-bound rather
// than memory-bound.
func ScoreBlock(v Vectors, qs [][]float32, out [][]float64) {
	for i := 0; i < v.Len(); i++ {
		row := v.Row(i)
		for j, q := range qs {
			out[j][i] = float64(Dot(row, q))
		}
	}
}
