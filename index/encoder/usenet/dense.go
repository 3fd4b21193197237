package usenet

import (
	"math"
	"runtime"
	"sync"
)

// dense is one DynamicQuantizeMatMul: float activations [M, k] times int8
// weights [k, n] scaled per column, plus a bias.
type dense struct {
	k, n int
	w    []byte // the int8 weights, kept when simd, else until pack
	// packed[i*n/2+j] holds w[i][2j]+128 in its low 32 bits and
	// w[i][2j+1]+128 in its high 32 bits.
	packed []uint64
	// simd: the vector products read w in place (no packing, no
	// colSum: the activations carry the zero point).
	simd   bool
	colSum []int64 // Σ_i w[i][j]
	scale  []float32
	bias   []float32
}

func newDense(w []byte, k, n int, scale, bias []float32) *dense {
	return &dense{k: k, n: n, w: w, scale: scale, bias: bias}
}

// simdBlock is the number of columns the vector products compute at once.
const simdBlock = 16

// pack prepares the int8 weights w [k, n] for apply: on a machine with
// the vector products it only says so (they read w where it lies, which
// may be a file's memory map); else it fills packed and colSum.
func (d *dense) pack() {
	k, n := d.k, d.n
	// The assembly reads k rows of n bytes unchecked: only a weight array
	// of exactly that size goes to it (onnxmodel checks every tensor's
	// bytes against its shape already).
	if haveSIMD && k%2 == 0 && n%simdBlock == 0 && len(d.w) == k*n {
		d.simd = true
		return
	}
	d.packWords()
}

// packWords fills packed and colSum from w.
func (d *dense) packWords() {
	k, n := d.k, d.n
	d.packed = make([]uint64, k*n/2)
	cs := make([]int32, n)
	for i := 0; i < k; i++ {
		p := d.packed[i*n/2 : (i+1)*n/2]
		row := d.w[i*n : i*n+2*len(p)]
		cs := cs[:len(row)]
		for j := range p {
			lo, hi := int32(int8(row[2*j])), int32(int8(row[2*j+1]))
			p[j] = uint64(uint32(lo+128)) | uint64(uint32(hi+128))<<32
			cs[2*j] += lo
			cs[2*j+1] += hi
		}
	}
	d.colSum = make([]int64, n)
	for j, v := range cs {
		d.colSum[j] = int64(v)
	}
	d.w = nil
}

// quantize maps x to uint8 as ONNX Runtime's DynamicQuantizeLinear does
// (GetQuantizationParameter and MlasQuantizeLinear): a range including 0,
// scale (max−min)/255, zero point rounded half to even, each value divided
// by the scale, clamped and rounded to nearest even.
func quantize(x []float32, q []uint8) (scale float32, zp int32) {
	lo, hi := float32(0), float32(0)
	for _, v := range x {
		lo = min(lo, v)
		hi = max(hi, v)
	}
	scale = 1
	if hi != lo {
		scale = (hi - lo) / 255
	}
	z := max(0, min(255, 0-lo/scale))
	zp = int32(math.RoundToEven(float64(z)))
	qlo, qhi := float32(0-zp), float32(255-zp)
	for i, v := range x {
		f := max(qlo, min(qhi, v/scale))
		q[i] = uint8(int32(math.RoundToEven(float64(f))) + zp)
	}
	return scale, zp
}

// parallelMACs is the size of product (multiply-adds) above which apply
// splits the columns across goroutines.
const parallelMACs = 1 << 20

// apply returns x [M, k] times the weights plus the bias, [M, n].
func (d *dense) apply(x []float32, M int) []float32 {
	q := make([]uint8, len(x))
	scale, zp := quantize(x, q)
	if d.simd {
		return d.applyPairs(q, M, scale, zp)
	}
	n2 := d.n / 2
	acc := make([]uint64, M*n2)
	workers := 1
	if M*d.k*d.n >= parallelMACs {
		workers = min(runtime.GOMAXPROCS(0), 4)
	}
	if workers == 1 {
		d.accumulate(q, M, acc, 0, n2)
	} else {
		var wg sync.WaitGroup
		step := (n2 + workers - 1) / workers
		for c0 := 0; c0 < n2; c0 += step {
			wg.Add(1)
			go func(c0, c1 int) {
				defer wg.Done()
				d.accumulate(q, M, acc, c0, c1)
			}(c0, min(c0+step, n2))
		}
		wg.Wait()
	}
	out := make([]float32, M*d.n)
	mult := make([]float32, d.n)
	for j := range mult {
		mult[j] = scale * d.scale[j]
	}
	for m := 0; m < M; m++ {
		var qsum int64
		for _, v := range q[m*d.k : (m+1)*d.k] {
			qsum += int64(v)
		}
		a := acc[m*n2 : (m+1)*n2]
		o := out[m*d.n : (m+1)*d.n]
		for j, v := range a {
			lo := int64(uint32(v)) - 128*qsum - int64(zp)*d.colSum[2*j]
			hi := int64(v>>32) - 128*qsum - int64(zp)*d.colSum[2*j+1]
			o[2*j] = float32(int32(lo))*mult[2*j] + d.bias[2*j]
			o[2*j+1] = float32(int32(hi))*mult[2*j+1] + d.bias[2*j+1]
		}
	}
	return out
}

// accumulate sums, for rows of q and the column pairs c0..c1, the packed
// products into acc [M, n/2], two rows at a time so each packed weight is
// loaded once for both.
func (d *dense) accumulate(q []uint8, M int, acc []uint64, c0, c1 int) {
	n2, K := d.n/2, d.k
	m := 0
	for ; m+2 <= M; m += 2 {
		a0 := acc[m*n2+c0 : m*n2+c1]
		a1 := acc[(m+1)*n2+c0 : (m+1)*n2+c1]
		q0 := q[m*K : (m+1)*K]
		q1 := q[(m+1)*K : (m+2)*K]
		for i := 0; i < K; i++ {
			x0, x1 := uint64(q0[i]), uint64(q1[i])
			if x0|x1 == 0 {
				continue
			}
			row := d.packed[i*n2+c0 : i*n2+c1]
			a0 := a0[:len(row)]
			a1 := a1[:len(row)]
			for j, w := range row {
				a0[j] += x0 * w
				a1[j] += x1 * w
			}
		}
	}
	for ; m < M; m++ {
		a0 := acc[m*n2+c0 : m*n2+c1]
		q0 := q[m*K : (m+1)*K]
		for i, x := range q0 {
			if x == 0 {
				continue
			}
			x0 := uint64(x)
			row := d.packed[i*n2+c0 : i*n2+c1]
			a0 := a0[:len(row)]
			for j, w := range row {
				a0[j] += x0 * w
			}
		}
	}
}

// applyPairs is apply's second half on a machine with the vector
// products: the exact integer sums Σ_i (q[m][i]−zp)·w[i][j] by
// kernel_amd64.s (four rows at a time: the rows are padded to a multiple
// of four with zeros), then the same scaling as the packed products. A
// fault reading w on a worker goroutine is re-raised on this one as a
// workerFault, for Guarded.
func (d *dense) applyPairs(q []uint8, M int, scale float32, zp int32) []float32 {
	k, n, P := d.k, d.n, d.k/2
	M4 := (M + 3) &^ 3
	qp := make([]uint32, M4*P)
	for m := 0; m < M; m++ {
		row := q[m*k : (m+1)*k]
		out := qp[m*P : (m+1)*P]
		for p := range out {
			lo, hi := int32(row[2*p])-zp, int32(row[2*p+1])-zp
			out[p] = uint32(uint16(int16(lo))) | uint32(uint16(int16(hi)))<<16
		}
	}
	acc := make([]int32, M4*n)
	blocks := n / simdBlock
	workers := 1
	if M*k*n >= parallelMACs {
		workers = min(runtime.GOMAXPROCS(0), 4, blocks)
	}
	run := func(b0, b1 int) {
		for b := b0; b < b1; b++ {
			c := b * simdBlock
			for m := 0; m < M4; m += 4 {
				madd4x16(&d.w[c], n, P, &qp[m*P], P*4, &acc[m*n+c], n*4)
			}
		}
	}
	if workers == 1 {
		run(0, blocks)
	} else {
		var wg sync.WaitGroup
		step := (blocks + workers - 1) / workers
		errs := make([]error, workers)
		for w, b0 := 0, 0; b0 < blocks; w, b0 = w+1, b0+step {
			wg.Add(1)
			go func(w, b0, b1 int) {
				defer wg.Done()
				errs[w] = Guarded(func() { run(b0, b1) })
			}(w, b0, min(b0+step, blocks))
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				panic(workerFault{err})
			}
		}
	}
	out := make([]float32, M*n)
	for j := 0; j < n; j++ {
		mult := scale * d.scale[j]
		for m := 0; m < M; m++ {
			out[m*n+j] = float32(acc[m*n+j])*mult + d.bias[j]
		}
	}
	return out
}

// workerFault carries a worker goroutine's ErrFault to the goroutine that
// waits for it, whose Guarded returns it.
type workerFault struct{ err error }
