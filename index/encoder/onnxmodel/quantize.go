package onnxmodel

import (
	"encoding/binary"
	"fmt"
	"math"
)

// MSDomain is the operator domain of ONNX Runtime's contrib operators, and
// MSDomainVersion the version of it a quantized model imports.
const (
	MSDomain        = "com.microsoft"
	MSDomainVersion = 1
)

// PairBound bounds |q[2i][j]| + |q[2i+1][j]|, the sum of two int8 weights
// next to each other along a column. On processors without VNNI, ONNX
// Runtime multiplies the uint8 activations by the int8 weights with AVX2's
// vpmaddubsw, which adds two neighbouring u8·s8 products into a saturating
// int16: with the pair bound 2·64 (255·128 = 32,640 ≤ 32,767) the sum
// cannot saturate, so a quantized model gives the same vectors on every
// x86 processor. (ONNX Runtime's own quantizer gets the same safety from
// 7-bit weights, "reduce_range", which loses more: a column is scaled by
// its largest pair instead of twice its largest weight.)
const PairBound = 128

// QuantizeMatMuls rewrites, in place, every MatMul of m whose second operand
// is a float [K, N] initializer into ONNX Runtime's contrib operator
// com.microsoft DynamicQuantizeMatMul: the weights become int8 with one
// symmetric scale per output column j, zero point 0, and scale_j the larger
// of max_i |w_ij| / 127 and max_i (|w_2i,j| + |w_2i+1,j|) / 127 (so that
// rounded neighbours stay within PairBound), and the runtime quantizes the
// activations to uint8 on each run (one scale and zero point per tensor,
// from its range). A bias added to the product alone (an Add of a float [N]
// initializer, TensorFlow's BiasAdd) moves into the operator's bias input,
// saving a pass over its output. The float initializers no node needs any
// longer are dropped and the com.microsoft opset is imported. It returns
// the number of MatMuls rewritten; products of two activations (attention
// scores) stay float.
func QuantizeMatMuls(m *Model) (int, error) {
	g := &m.Graph
	inits := make(map[string]int, len(g.Initializers))
	for i := range g.Initializers {
		inits[g.Initializers[i].Name] = i
	}
	type quantized struct{ w, scale, zero string }
	done := make(map[string]quantized)
	n := 0
	for i := range g.Nodes {
		nd := &g.Nodes[i]
		if nd.OpType != "MatMul" || nd.Domain != "" || len(nd.Inputs) != 2 {
			continue
		}
		j, ok := inits[nd.Inputs[1]]
		if !ok {
			continue
		}
		t := &g.Initializers[j]
		if t.DataType != Float || len(t.Dims) != 2 {
			continue
		}
		q, ok := done[t.Name]
		if !ok {
			w, scale, zero, err := quantizeColumns(t)
			if err != nil {
				return n, err
			}
			q = quantized{w.Name, scale.Name, zero.Name}
			for _, nt := range []Tensor{w, scale, zero} {
				if _, dup := inits[nt.Name]; dup {
					return n, fmt.Errorf("onnxmodel: quantize %q: initializer %q exists already", t.Name, nt.Name)
				}
				inits[nt.Name] = len(g.Initializers)
				g.Initializers = append(g.Initializers, nt)
			}
			// g.Initializers may have moved: t is not used past here.
			done[t.Name] = q
		}
		nd.OpType, nd.Domain = "DynamicQuantizeMatMul", MSDomain
		nd.Inputs = []string{nd.Inputs[0], q.w, q.scale, q.zero}
		n++
	}
	if n == 0 {
		return 0, nil
	}
	foldBiases(g, inits)
	g.dropUnreadInitializers() // the float weights
	has := false
	for _, d := range m.Domains {
		if d.Domain == MSDomain {
			has = true
		}
	}
	if !has {
		m.Domains = append(m.Domains, OpsetImport{Domain: MSDomain, Version: MSDomainVersion})
	}
	return n, nil
}

// foldBiases moves into each DynamicQuantizeMatMul the bias added to its
// output, when that Add is the output's only reader and adds a float
// initializer of one value per output column.
func foldBiases(g *Graph, inits map[string]int) {
	readers := make(map[string][]int)
	for i := range g.Nodes {
		for _, in := range g.Nodes[i].Inputs {
			readers[in] = append(readers[in], i)
		}
	}
	for _, o := range g.Outputs {
		readers[o.Name] = append(readers[o.Name], -1)
	}
	drop := make(map[int]bool)
	for i := range g.Nodes {
		nd := &g.Nodes[i]
		if nd.OpType != "DynamicQuantizeMatMul" || nd.Domain != MSDomain || len(nd.Inputs) != 4 || len(nd.Outputs) != 1 {
			continue
		}
		r := readers[nd.Outputs[0]]
		if len(r) != 1 || r[0] < 0 {
			continue
		}
		add := &g.Nodes[r[0]]
		if add.OpType != "Add" || add.Domain != "" || len(add.Inputs) != 2 || len(add.Outputs) != 1 || add.Inputs[0] == add.Inputs[1] {
			continue
		}
		bias := add.Inputs[1]
		if bias == nd.Outputs[0] {
			bias = add.Inputs[0]
		}
		b, ok := inits[bias]
		if !ok {
			continue
		}
		bt, wt := &g.Initializers[b], &g.Initializers[inits[nd.Inputs[1]]]
		if bt.DataType != Float || len(bt.Dims) != 1 || bt.Dims[0] != wt.Dims[1] {
			continue
		}
		nd.Inputs = append(nd.Inputs, bias)
		nd.Outputs = add.Outputs
		drop[r[0]] = true
	}
	kept := g.Nodes[:0]
	for i, nd := range g.Nodes {
		if !drop[i] {
			kept = append(kept, nd)
		}
	}
	g.Nodes = kept
}

// quantizeColumns returns the int8 weights, float scales [N] and int8 zero
// points [N] of float weights t [K, N], one symmetric scale per column.
func quantizeColumns(t *Tensor) (w, scale, zero Tensor, err error) {
	if err := t.validate(); err != nil {
		return w, scale, zero, fmt.Errorf("onnxmodel: quantize: %w", err)
	}
	k, cols := int(t.Dims[0]), int(t.Dims[1])
	f := make([]float32, k*cols)
	for i := range f {
		f[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.Raw[4*i:]))
	}
	const qmax = 127
	scales := make([]float32, cols)
	for c := 0; c < cols; c++ {
		var mx float64
		for r := 0; r < k; r++ {
			v := float64(f[r*cols+c])
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return w, scale, zero, fmt.Errorf("onnxmodel: quantize %q: weight [%d, %d] is %v", t.Name, r, c, v)
			}
			mx = math.Max(mx, math.Abs(v))
			if r%2 == 1 {
				// Two weights each rounded by at most ½ stay within
				// 127 + 1 = PairBound.
				mx = math.Max(mx, math.Abs(v)+math.Abs(float64(f[(r-1)*cols+c])))
			}
		}
		if mx == 0 {
			scales[c] = 1 // an all-zero column: any scale gives zeros
		} else {
			scales[c] = float32(mx / qmax)
		}
	}
	raw := make([]byte, k*cols)
	for r := 0; r < k; r++ {
		for c := 0; c < cols; c++ {
			q := math.RoundToEven(float64(f[r*cols+c]) / float64(scales[c]))
			q = math.Max(-qmax, math.Min(qmax, q))
			raw[r*cols+c] = byte(int8(q))
		}
	}
	w = Tensor{Name: t.Name + "/int8", DataType: Int8, Dims: []int64{int64(k), int64(cols)}, Raw: raw}
	scale = FloatTensor(t.Name+"/int8_scale", []int64{int64(cols)}, scales)
	zero = Tensor{Name: t.Name + "/int8_zero", DataType: Int8, Dims: []int64{int64(cols)}, Raw: make([]byte, cols)}
	return w, scale, zero, nil
}
