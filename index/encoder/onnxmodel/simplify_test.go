package onnxmodel_test

import (
	"encoding/binary"
	"testing"

	"github.com/reqa/reqa/index/encoder/onnxmodel"
)

// shapeGraph helps build shape arithmetic the way the converter emits it.
type shapeGraph struct {
	g onnxmodel.Graph
}

func (s *shapeGraph) node(op string, out string, in ...string) string {
	s.g.Nodes = append(s.g.Nodes, onnxmodel.Node{Name: out, OpType: op, Inputs: in, Outputs: []string{out}})
	return out
}

func (s *shapeGraph) ints(name string, v ...int64) string {
	s.g.Initializers = append(s.g.Initializers, onnxmodel.Int64Tensor(name, []int64{int64(len(v))}, v))
	return name
}

// dim emits TensorFlow's strided_slice of tf.shape(x)[i] as a scalar.
func (s *shapeGraph) dim(x string, i int64) string {
	p := x + "/dim" + string(rune('0'+i))
	shape := s.node("Shape", p+"/shape", x)
	sl := s.node("Slice", p+"/slice", shape, s.ints(p+"/starts", i), s.ints(p+"/ends", i+1), s.ints(p+"/axes", 0), s.ints(p+"/steps", 1))
	return s.node("Squeeze", p, sl, s.ints(p+"/sq", 0))
}

func (s *shapeGraph) scalar(name string, v int64) string {
	s.g.Initializers = append(s.g.Initializers, onnxmodel.Int64Tensor(name, nil, []int64{v}))
	return name
}

// pack emits tf.stack of scalars.
func (s *shapeGraph) pack(name string, scalars ...string) string {
	var parts []string
	for i, sc := range scalars {
		parts = append(parts, s.node("Unsqueeze", name+"/u"+string(rune('0'+i)), sc, s.ints(name+"/axis"+string(rune('0'+i)), 0)))
	}
	return s.node("Concat", name, parts...)
}

func (s *shapeGraph) model(outputs ...string) *onnxmodel.Model {
	s.g.Inputs = []onnxmodel.ValueInfo{{Name: "x", DataType: onnxmodel.Float}, {Name: "y", DataType: onnxmodel.Float}}
	for _, o := range outputs {
		s.g.Outputs = append(s.g.Outputs, onnxmodel.ValueInfo{Name: o, DataType: onnxmodel.Float})
	}
	return &onnxmodel.Model{IRVersion: onnxmodel.IRVersion, OpsetVersion: onnxmodel.Opset, Graph: s.g}
}

func int64s(t *onnxmodel.Tensor) []int64 {
	v := make([]int64, len(t.Raw)/8)
	for i := range v {
		v[i] = int64(binary.LittleEndian.Uint64(t.Raw[8*i:]))
	}
	return v
}

// TestSimplifyShapes: reshapes to shapes assembled at run time from the
// input's own dimensions get constant shapes (0 = copy, at most one −1),
// tf.tensordot over the last axis becomes one MatMul, the shape arithmetic
// left unread is dropped, and what cannot be told statically stays.
func TestSimplifyShapes(t *testing.T) {
	allowzero := onnxmodel.IntAttr("allowzero", 1)
	for _, tc := range []struct {
		name    string
		build   func(s *shapeGraph) string // returns the graph output
		rewrite int
		want    []int64 // the Reshape's constant shape, when rewritten
		nodes   int     // nodes left
	}{
		{"split heads", func(s *shapeGraph) string {
			shape := s.pack("shape", s.dim("x", 0), s.dim("x", 1), s.scalar("heads", 4), s.scalar("width", 64))
			s.g.Nodes = append(s.g.Nodes, onnxmodel.Node{Name: "r", OpType: "Reshape", Inputs: []string{"x", shape}, Outputs: []string{"r"}, Attrs: []onnxmodel.Attribute{allowzero}})
			return "r"
		}, 1, []int64{0, 0, 4, 64}, 1},
		{"explicit -1", func(s *shapeGraph) string {
			shape := s.pack("shape", s.scalar("rest", -1), s.dim("x", 1))
			return s.node("Reshape", "r", "x", shape)
		}, 1, []int64{-1, 0}, 1},
		{"foreign dimension", func(s *shapeGraph) string {
			shape := s.pack("shape", s.dim("y", 0), s.scalar("width", 256))
			return s.node("Reshape", "r", "x", shape)
		}, 0, nil, 0},
		{"two -1", func(s *shapeGraph) string {
			shape := s.pack("shape", s.scalar("rest", -1), s.scalar("rest2", -1))
			return s.node("Reshape", "r", "x", shape)
		}, 0, nil, 0},
		{"dimension moved", func(s *shapeGraph) string {
			shape := s.pack("shape", s.dim("x", 1), s.dim("x", 0))
			return s.node("Reshape", "r", "x", shape)
		}, 0, nil, 0},
		{"literal zero", func(s *shapeGraph) string {
			shape := s.pack("shape", s.dim("x", 0), s.scalar("zero", 0))
			return s.node("Reshape", "r", "x", shape)
		}, 0, nil, 0},
		{"tensordot", func(s *shapeGraph) string {
			s.g.Initializers = append(s.g.Initializers, onnxmodel.FloatTensor("w", []int64{2, 3}, []float32{1, 2, 3, 4, 5, 6}))
			shape := s.node("Shape", "td/shape", "x")
			free := s.node("Gather", "td/free", shape, s.ints("td/free_axes", 0, 1))
			axes := s.node("Gather", "td/axes", shape, s.ints("td/axes_axes", 2))
			prodFree := s.node("ReduceProd", "td/prod_free", free, s.ints("td/pf", 0))
			prodAxes := s.node("ReduceProd", "td/prod_axes", axes, s.ints("td/pa", 0))
			flat := s.node("Reshape", "td/flat", "x", s.pack("td/stack", prodFree, prodAxes))
			mm := s.node("MatMul", "td/mm", flat, "w")
			back := s.node("Concat", "td/back", free, s.ints("td/n", 3))
			return s.node("Reshape", "td", mm, back)
		}, 1, nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &shapeGraph{}
			out := tc.build(s)
			m := s.model(out)
			before := len(m.Graph.Nodes)
			n, err := onnxmodel.SimplifyShapes(m)
			if err != nil {
				t.Fatal(err)
			}
			if n != tc.rewrite {
				t.Fatalf("%d rewrites, want %d", n, tc.rewrite)
			}
			g := m.Graph
			if tc.rewrite == 0 {
				if len(g.Nodes) != before {
					t.Errorf("%d nodes left of %d", len(g.Nodes), before)
				}
				return
			}
			if len(g.Nodes) != tc.nodes {
				t.Fatalf("nodes left: %+v", g.Nodes)
			}
			last := g.Nodes[len(g.Nodes)-1]
			if tc.want == nil { // tensordot
				if last.OpType != "MatMul" || last.Inputs[0] != "x" || last.Inputs[1] != "w" || last.Outputs[0] != out {
					t.Errorf("tensordot became %+v", last)
				}
			} else {
				if last.OpType != "Reshape" || last.Inputs[0] != "x" || len(last.Attrs) != 0 {
					t.Fatalf("reshape became %+v", last)
				}
				shape := initializer(m, last.Inputs[1])
				if shape == nil || len(int64s(shape)) != len(tc.want) {
					t.Fatalf("shape %v", shape)
				}
				for i, v := range int64s(shape) {
					if v != tc.want[i] {
						t.Errorf("shape %v, want %v", int64s(shape), tc.want)
						break
					}
				}
			}
			for _, in := range g.Initializers {
				used := false
				for _, nd := range g.Nodes {
					for _, x := range nd.Inputs {
						used = used || x == in.Name
					}
				}
				if !used {
					t.Errorf("unread initializer %s kept", in.Name)
				}
			}
			if _, err := m.Marshal(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
