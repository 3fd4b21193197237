package onnxmodel_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/reqa/reqa/index/encoder/onnxmodel"
)

// matmulModel returns a model computing y = x·w (and z = y·y when selfProduct,
// a product of two activations) with w a float [k, n] initializer given row by
// row, used by as many MatMuls as uses says.
func matmulModel(k, n int, w []float32, uses int, selfProduct bool) *onnxmodel.Model {
	g := onnxmodel.Graph{
		Name:         "mm",
		Initializers: []onnxmodel.Tensor{onnxmodel.FloatTensor("w", []int64{int64(k), int64(n)}, w)},
		Inputs:       []onnxmodel.ValueInfo{{Name: "x", DataType: onnxmodel.Float}},
	}
	out := ""
	for i := 0; i < uses; i++ {
		out = "y" + string(rune('0'+i))
		g.Nodes = append(g.Nodes, onnxmodel.Node{Name: out, OpType: "MatMul", Inputs: []string{"x", "w"}, Outputs: []string{out}})
	}
	if selfProduct {
		g.Nodes = append(g.Nodes, onnxmodel.Node{Name: "z", OpType: "MatMul", Inputs: []string{out, out}, Outputs: []string{"z"}})
		out = "z"
	}
	g.Outputs = []onnxmodel.ValueInfo{{Name: out, DataType: onnxmodel.Float}}
	return &onnxmodel.Model{IRVersion: onnxmodel.IRVersion, OpsetVersion: onnxmodel.Opset, Graph: g}
}

func initializer(m *onnxmodel.Model, name string) *onnxmodel.Tensor {
	for i := range m.Graph.Initializers {
		if m.Graph.Initializers[i].Name == name {
			return &m.Graph.Initializers[i]
		}
	}
	return nil
}

func floatsOf(t *onnxmodel.Tensor) []float32 {
	out := make([]float32, len(t.Raw)/4)
	for i := range out {
		out[i] = math.Float32frombits(uint32(t.Raw[4*i]) | uint32(t.Raw[4*i+1])<<8 | uint32(t.Raw[4*i+2])<<16 | uint32(t.Raw[4*i+3])<<24)
	}
	return out
}

// TestQuantizeMatMuls: constant-weight MatMuls become DynamicQuantizeMatMul
// with per-column int8 weights that dequantize to within half a step of the
// float weights, neighbouring weights stay within PairBound, products of
// two activations stay float, and a weight shared by two MatMuls is stored
// once.
func TestQuantizeMatMuls(t *testing.T) {
	for _, tc := range []struct {
		name        string
		k, n        int
		w           []float32
		uses        int
		selfProduct bool
	}{
		{"one column", 4, 1, []float32{1, -0.5, 0.25, 0}, 1, false},
		// Column 0's pair (0.9, -0.9) sets its scale (1.8/127, not 0.9/127);
		// column 1 is all zeros; column 2 has one large weight.
		{"pair-bound", 4, 3, []float32{
			0.9, 0, 0.01,
			-0.9, 0, 0.02,
			0.1, 0, -3,
			0.2, 0, 0.03,
		}, 1, false},
		{"shared weight", 2, 2, []float32{1, 2, 3, 4}, 2, false},
		{"activation product kept", 2, 2, []float32{1, 2, 3, 4}, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := matmulModel(tc.k, tc.n, tc.w, tc.uses, tc.selfProduct)
			n, err := onnxmodel.QuantizeMatMuls(m)
			if err != nil {
				t.Fatal(err)
			}
			if n != tc.uses {
				t.Errorf("%d MatMuls quantized, want %d", n, tc.uses)
			}
			for _, nd := range m.Graph.Nodes {
				quantized := nd.OpType == "DynamicQuantizeMatMul" && nd.Domain == onnxmodel.MSDomain
				if quantized != (nd.Name != "z") {
					t.Errorf("node %s: %s (domain %q)", nd.Name, nd.OpType, nd.Domain)
				}
				if quantized && (len(nd.Inputs) != 4 || nd.Inputs[1] != "w/int8" || nd.Inputs[2] != "w/int8_scale" || nd.Inputs[3] != "w/int8_zero") {
					t.Errorf("node %s inputs %q", nd.Name, nd.Inputs)
				}
			}
			if initializer(m, "w") != nil {
				t.Error("float weights kept")
			}
			if len(m.Graph.Initializers) != 3 {
				t.Errorf("%d initializers, want 3 (weights, scales, zero points)", len(m.Graph.Initializers))
			}
			if len(m.Domains) != 1 || m.Domains[0] != (onnxmodel.OpsetImport{Domain: onnxmodel.MSDomain, Version: onnxmodel.MSDomainVersion}) {
				t.Errorf("domains %v", m.Domains)
			}
			q, scale, zero := initializer(m, "w/int8"), initializer(m, "w/int8_scale"), initializer(m, "w/int8_zero")
			if q == nil || scale == nil || zero == nil || q.DataType != onnxmodel.Int8 || zero.DataType != onnxmodel.Int8 {
				t.Fatalf("quantized initializers %v %v %v", q, scale, zero)
			}
			sc := floatsOf(scale)
			for i, z := range zero.Raw {
				if z != 0 {
					t.Errorf("zero point %d = %d", i, z)
				}
			}
			for r := 0; r < tc.k; r++ {
				for c := 0; c < tc.n; c++ {
					v := int8(q.Raw[r*tc.n+c])
					if d := math.Abs(float64(v)*float64(sc[c]) - float64(tc.w[r*tc.n+c])); d > float64(sc[c])/2*1.0001 {
						t.Errorf("w[%d,%d] = %v dequantizes to %v·%v", r, c, tc.w[r*tc.n+c], v, sc[c])
					}
					if r%2 == 1 {
						u := int8(q.Raw[(r-1)*tc.n+c])
						if s := math.Abs(float64(v)) + math.Abs(float64(u)); s > onnxmodel.PairBound {
							t.Errorf("rows %d-%d, column %d: |%d|+|%d| > %d", r-1, r, c, u, v, onnxmodel.PairBound)
						}
					}
				}
			}
			if _, err := m.Marshal(); err != nil {
				t.Fatalf("Marshal: %v", err)
			}
		})
	}
}

// TestQuantizeMatMulsErrors: non-finite weights are refused; a model
// without constant-weight MatMuls is left alone.
func TestQuantizeMatMulsErrors(t *testing.T) {
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(-1))} {
		m := matmulModel(2, 1, []float32{1, bad}, 1, false)
		if _, err := onnxmodel.QuantizeMatMuls(m); err == nil {
			t.Errorf("weight %v accepted", bad)
		}
	}
	m := matmulModel(2, 1, []float32{1, 2}, 0, false)
	m.Graph.Outputs = nil
	n, err := onnxmodel.QuantizeMatMuls(m)
	if err != nil || n != 0 || len(m.Domains) != 0 || initializer(m, "w") == nil {
		t.Errorf("no MatMul: %d quantized, err %v, domains %v", n, err, m.Domains)
	}
}

// TestMarshalDomains: extra opset imports must name a domain and a version.
func TestMarshalDomains(t *testing.T) {
	for _, d := range []onnxmodel.OpsetImport{{Domain: "", Version: 1}, {Domain: onnxmodel.MSDomain, Version: 0}} {
		m := matmulModel(2, 1, []float32{1, 2}, 1, false)
		m.Domains = []onnxmodel.OpsetImport{d}
		if _, err := m.Marshal(); err == nil {
			t.Errorf("opset import %+v accepted", d)
		}
	}
}

// TestQuantizeFoldsBias: an Add of a per-column float initializer right
// after a quantized MatMul becomes the operator's bias input; an Add the
// product shares with another reader, or of a wrongly shaped tensor, stays.
func TestQuantizeFoldsBias(t *testing.T) {
	for _, tc := range []struct {
		name     string
		biasDims []int64
		shared   bool
		folded   bool
	}{
		{"folded", []int64{2}, false, true},
		{"scalar bias kept", []int64{}, false, false},
		{"shared product kept", []int64{2}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := matmulModel(2, 2, []float32{1, 2, 3, 4}, 1, false)
			g := &m.Graph
			nb := int64(1)
			for _, d := range tc.biasDims {
				nb *= d
			}
			g.Initializers = append(g.Initializers, onnxmodel.FloatTensor("b", tc.biasDims, make([]float32, nb)))
			g.Nodes = append(g.Nodes, onnxmodel.Node{Name: "biased", OpType: "Add", Inputs: []string{"b", "y0"}, Outputs: []string{"out"}})
			g.Outputs = []onnxmodel.ValueInfo{{Name: "out", DataType: onnxmodel.Float}}
			if tc.shared {
				g.Outputs = append(g.Outputs, onnxmodel.ValueInfo{Name: "y0", DataType: onnxmodel.Float})
			}
			if _, err := onnxmodel.QuantizeMatMuls(m); err != nil {
				t.Fatal(err)
			}
			q := g.Nodes[0]
			if folded := len(g.Nodes) == 1; folded != tc.folded {
				t.Fatalf("nodes %+v, folded %v, want %v", g.Nodes, folded, tc.folded)
			}
			if tc.folded && (len(q.Inputs) != 5 || q.Inputs[4] != "b" || q.Outputs[0] != "out") {
				t.Errorf("folded node inputs %q outputs %q", q.Inputs, q.Outputs)
			}
			if !tc.folded && (len(q.Inputs) != 4 || q.Outputs[0] != "y0") {
				t.Errorf("unfolded node inputs %q outputs %q", q.Inputs, q.Outputs)
			}
			if initializer(m, "b") == nil {
				t.Error("bias dropped")
			}
		})
	}
}

// ExampleQuantizeMatMuls makes the int8 variant of a converted model, as
// cmd/mkmodel -precision int8 does.
func ExampleQuantizeMatMuls() {
	m := matmulModel(2, 2, []float32{0.5, -1, 0.25, 2}, 1, false)
	fused := onnxmodel.FuseLayerNorms(m) // none in this model
	n, err := onnxmodel.QuantizeMatMuls(m)
	fmt.Println(fused, n, err, m.Graph.Nodes[0].OpType, m.Graph.Nodes[0].Domain)
	// Output: 0 1 <nil> DynamicQuantizeMatMul com.microsoft
}
