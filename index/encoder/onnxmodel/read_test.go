package onnxmodel_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/reqa/reqa/index/encoder/onnxmodel"
)

// attrModel is a small model with every attribute kind ReadGraph keeps and
// initializers of several types.
func attrModel() *onnxmodel.Model {
	g := onnxmodel.Graph{
		Name: "attrs",
		Initializers: []onnxmodel.Tensor{
			onnxmodel.FloatTensor("w", []int64{2, 3}, []float32{1, 2, 3, 4, 5, 6}),
			onnxmodel.Int64Tensor("shape", []int64{2}, []int64{3, -1}),
			onnxmodel.FloatTensor("s", nil, []float32{0.5}),
			{Name: "q", DataType: onnxmodel.Int8, Dims: []int64{4}, Raw: []byte{0x80, 0xff, 0, 0x7f}},
		},
		Inputs: []onnxmodel.ValueInfo{{Name: "x", DataType: onnxmodel.Float}},
		Nodes: []onnxmodel.Node{
			{Name: "mm", OpType: "MatMul", Inputs: []string{"x", "w"}, Outputs: []string{"y"}},
			{Name: "ln", OpType: "LayerNormalization", Inputs: []string{"y", "", "s"}, Outputs: []string{"z"},
				Attrs: []onnxmodel.Attribute{onnxmodel.IntAttr("axis", -1), onnxmodel.FloatAttr("epsilon", 1e-6)}},
			{Name: "tr", OpType: "Transpose", Domain: "", Inputs: []string{"z"}, Outputs: []string{"out"},
				Attrs: []onnxmodel.Attribute{onnxmodel.IntsAttr("perm", 1, 0), {Name: "f", Type: onnxmodel.AttrFloats, Floats: []float32{1.5, -2}}}},
		},
		Outputs: []onnxmodel.ValueInfo{{Name: "out", DataType: onnxmodel.Float}},
	}
	return &onnxmodel.Model{IRVersion: onnxmodel.IRVersion, OpsetVersion: onnxmodel.Opset, Graph: g}
}

func TestReadGraph(t *testing.T) {
	m := attrModel()
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	g, err := onnxmodel.ReadGraph(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != len(m.Graph.Nodes) {
		t.Fatalf("%d nodes, want %d", len(g.Nodes), len(m.Graph.Nodes))
	}
	for i, want := range m.Graph.Nodes {
		if got := g.Nodes[i]; !reflect.DeepEqual(got, want) {
			t.Errorf("node %d:\n got %+v\nwant %+v", i, got, want)
		}
	}
	if len(g.Initializers) != len(m.Graph.Initializers) {
		t.Fatalf("%d initializers, want %d", len(g.Initializers), len(m.Graph.Initializers))
	}
	for _, want := range m.Graph.Initializers {
		got, ok := g.Initializers[want.Name]
		if !ok {
			t.Fatalf("initializer %q missing", want.Name)
		}
		if got.DataType != want.DataType || !bytes.Equal(got.Raw, want.Raw) || got.NumElements() != want.NumElements() {
			t.Errorf("initializer %q: got %v %v %x, want %v %v %x", want.Name, got.DataType, got.Dims, got.Raw, want.DataType, want.Dims, want.Raw)
		}
		// In place: the data aliases the model's bytes.
		if len(got.Raw) > 0 && !aliases(b, got.Raw) {
			t.Errorf("initializer %q was copied", want.Name)
		}
	}
}

func aliases(whole, part []byte) bool {
	for i := 0; i+len(part) <= len(whole); i++ {
		if &whole[i] == &part[0] {
			return true
		}
	}
	return false
}

func TestReadGraphMalformed(t *testing.T) {
	good, _ := attrModel().Marshal()
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"no graph", []byte{1 << 3, 8}}, // field 1 (ir_version), a varint
		{"truncated", good[:len(good)-7]},
		{"bad tag", []byte{0xff}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := onnxmodel.ReadGraph(tc.b); !errors.Is(err, onnxmodel.ErrMalformed) {
				t.Errorf("err = %v, want ErrMalformed", err)
			}
		})
	}
}

// FuzzReadGraph: no input makes the reader panic, and every initializer it
// returns holds exactly the bytes its type and shape promise.
func FuzzReadGraph(f *testing.F) {
	b, _ := attrModel().Marshal()
	f.Add(b)
	f.Add([]byte{7<<3 | 2, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := onnxmodel.ReadGraph(b)
		if err != nil {
			return
		}
		for name, in := range g.Initializers {
			size := map[onnxmodel.DataType]int64{onnxmodel.Float: 4, onnxmodel.Int32: 4, onnxmodel.Int64: 8, onnxmodel.Uint8: 1, onnxmodel.Int8: 1, onnxmodel.Bool: 1}[in.DataType]
			if size == 0 || int64(len(in.Raw)) != size*in.NumElements() {
				t.Fatalf("initializer %q: %v %v with %d bytes", name, in.DataType, in.Dims, len(in.Raw))
			}
		}
	})
}
