package onnxmodel_test

import (
	"testing"

	"github.com/reqa/reqa/index/encoder/onnxmodel"
)

// layerNormModel returns TensorFlow's spelled-out layer norm of input x over
// the last axis, with the commutative operands swapped when swap is set,
// and extra graph outputs among its intermediate values.
func layerNormModel(swap bool, axis int64, extra ...string) *onnxmodel.Model {
	bin := func(name, op, a, b string) onnxmodel.Node {
		if swap && op != "Sub" {
			a, b = b, a
		}
		return onnxmodel.Node{Name: name, OpType: op, Inputs: []string{a, b}, Outputs: []string{name}}
	}
	keep := onnxmodel.IntAttr("keepdims", 1)
	g := onnxmodel.Graph{
		Name: "ln",
		Initializers: []onnxmodel.Tensor{
			onnxmodel.Int64Tensor("axes", []int64{1}, []int64{axis}),
			onnxmodel.FloatTensor("eps", nil, []float32{1e-6}),
			onnxmodel.FloatTensor("gamma", []int64{3}, []float32{1, 2, 3}),
			onnxmodel.FloatTensor("beta", []int64{3}, []float32{0, 1, 0}),
		},
		Inputs: []onnxmodel.ValueInfo{{Name: "x", DataType: onnxmodel.Float}},
		Nodes: []onnxmodel.Node{
			{Name: "mean", OpType: "ReduceMean", Inputs: []string{"x", "axes"}, Outputs: []string{"mean"}, Attrs: []onnxmodel.Attribute{keep}},
			bin("d", "Sub", "x", "mean"),
			bin("sq", "Mul", "d", "d"),
			{Name: "var", OpType: "ReduceMean", Inputs: []string{"sq", "axes"}, Outputs: []string{"var"}, Attrs: []onnxmodel.Attribute{keep}},
			bin("veps", "Add", "var", "eps"),
			{Name: "sd", OpType: "Sqrt", Inputs: []string{"veps"}, Outputs: []string{"sd"}},
			{Name: "r", OpType: "Reciprocal", Inputs: []string{"sd"}, Outputs: []string{"r"}},
			bin("gain", "Mul", "gamma", "r"),
			bin("h", "Mul", "gain", "d"),
			bin("y", "Add", "h", "beta"),
		},
		Outputs: []onnxmodel.ValueInfo{{Name: "y", DataType: onnxmodel.Float}},
	}
	for _, e := range extra {
		g.Outputs = append(g.Outputs, onnxmodel.ValueInfo{Name: e, DataType: onnxmodel.Float})
	}
	return &onnxmodel.Model{IRVersion: onnxmodel.IRVersion, OpsetVersion: onnxmodel.Opset, Graph: g}
}

// TestFuseLayerNorms: the ten-operator layer norm becomes one
// LayerNormalization (axis −1, TensorFlow's ε) whatever the operand order;
// a pattern over another axis or with an intermediate read elsewhere stays.
func TestFuseLayerNorms(t *testing.T) {
	for _, tc := range []struct {
		name  string
		m     *onnxmodel.Model
		fused bool
	}{
		{"tensorflow order", layerNormModel(false, -1), true},
		{"swapped operands", layerNormModel(true, -1), true},
		{"axis 1", layerNormModel(false, 1), false},
		{"centred value read elsewhere", layerNormModel(false, -1, "d"), false},
		{"variance read elsewhere", layerNormModel(false, -1, "var"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(tc.m.Graph.Nodes)
			n := onnxmodel.FuseLayerNorms(tc.m)
			g := tc.m.Graph
			if !tc.fused {
				if n != 0 || len(g.Nodes) != before {
					t.Fatalf("fused %d, %d nodes left of %d", n, len(g.Nodes), before)
				}
				return
			}
			if n != 1 || len(g.Nodes) != 1 {
				t.Fatalf("fused %d, nodes %+v", n, g.Nodes)
			}
			ln := g.Nodes[0]
			if ln.OpType != "LayerNormalization" || ln.Domain != "" || len(ln.Inputs) != 3 ||
				ln.Inputs[0] != "x" || ln.Inputs[1] != "gamma" || ln.Inputs[2] != "beta" || ln.Outputs[0] != "y" {
				t.Errorf("fused node %+v", ln)
			}
			attrs := map[string]onnxmodel.Attribute{}
			for _, a := range ln.Attrs {
				attrs[a.Name] = a
			}
			if attrs["axis"].I != -1 || attrs["epsilon"].F != 1e-6 {
				t.Errorf("attributes %+v", ln.Attrs)
			}
			if len(g.Initializers) != 2 {
				t.Errorf("initializers %d, want γ and β only", len(g.Initializers))
			}
			if _, err := tc.m.Marshal(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
