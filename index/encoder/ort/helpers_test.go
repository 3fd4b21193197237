package ort_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/reqa/reqa/index/encoder/onnxmodel"
	"github.com/reqa/reqa/index/encoder/ort"
	"github.com/reqa/reqa/internal/testenv"
)

// repoRoot returns the directory holding go.mod.
func repoRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// libPath is where the fetched onnxruntime-node package keeps the runtime;
// REQA_ORT_LIB overrides it.
func libPath(tb testing.TB) string {
	if p := os.Getenv("REQA_ORT_LIB"); p != "" {
		return p
	}
	return filepath.Join(repoRoot(tb), "third_party", "onnxruntime-node-1.24.1", "package",
		"bin", "napi-v6", "linux", "x64", "libonnxruntime.so.1")
}

// initRuntime loads ONNX Runtime or skips the test when it is not fetched.
func initRuntime(tb testing.TB) {
	tb.Helper()
	p := libPath(tb)
	if _, err := os.Stat(p); err != nil {
		testenv.Skip(tb, "ONNX Runtime library not available (%v); fetch third_party assets or set REQA_ORT_LIB", err)
	}
	if err := ort.Init(p); err != nil {
		tb.Fatalf("Init: %v", err)
	}
}

// toyModel is a tiny encoder with the converted model's signature: for each
// sentence it outputs [sum of token ids, number of tokens]. It exercises
// the protobuf writer (initializers, tensor/int/ints attributes, symbolic
// shapes) without the USE-Lite assets.
func toyModel(tb testing.TB) []byte {
	tb.Helper()
	m := onnxmodel.Model{
		IRVersion:    onnxmodel.IRVersion,
		OpsetVersion: onnxmodel.Opset,
		ProducerName: "reqa-test",
		Graph: onnxmodel.Graph{
			Name: "toy",
			Initializers: []onnxmodel.Tensor{
				onnxmodel.Int64Tensor("axis0", []int64{1}, []int64{0}),
				onnxmodel.Int64Tensor("axis1", []int64{1}, []int64{1}),
				onnxmodel.Int64Tensor("one", nil, []int64{1}),
				onnxmodel.FloatTensor("onef", nil, []float32{1}),
			},
			Nodes: []onnxmodel.Node{
				{OpType: "ReduceMax", Inputs: []string{"indices", "axis0"}, Outputs: []string{"maxpos"},
					Attrs: []onnxmodel.Attribute{onnxmodel.IntAttr("keepdims", 0)}},
				{OpType: "Add", Inputs: []string{"maxpos", "one"}, Outputs: []string{"dense_shape"}},
				{OpType: "ConstantOfShape", Inputs: []string{"dense_shape"}, Outputs: []string{"zeros"},
					Attrs: []onnxmodel.Attribute{onnxmodel.TensorAttr("value",
						onnxmodel.FloatTensor("", []int64{1}, []float32{0}))}},
				{OpType: "Cast", Inputs: []string{"values"}, Outputs: []string{"valuesf"},
					Attrs: []onnxmodel.Attribute{onnxmodel.IntAttr("to", int64(onnxmodel.Float))}},
				{OpType: "ScatterND", Inputs: []string{"zeros", "indices", "valuesf"}, Outputs: []string{"dense"}},
				{OpType: "Shape", Inputs: []string{"values"}, Outputs: []string{"nshape"}},
				{OpType: "Expand", Inputs: []string{"onef", "nshape"}, Outputs: []string{"ones"}},
				{OpType: "ScatterND", Inputs: []string{"zeros", "indices", "ones"}, Outputs: []string{"mask"}},
				{OpType: "ReduceSum", Inputs: []string{"dense", "axis1"}, Outputs: []string{"sum"},
					Attrs: []onnxmodel.Attribute{onnxmodel.IntAttr("keepdims", 1)}},
				{OpType: "ReduceSum", Inputs: []string{"mask", "axis1"}, Outputs: []string{"count"},
					Attrs: []onnxmodel.Attribute{onnxmodel.IntAttr("keepdims", 1)}},
				{OpType: "Concat", Inputs: []string{"sum", "count"}, Outputs: []string{"embeddings"},
					Attrs: []onnxmodel.Attribute{onnxmodel.IntAttr("axis", 1)}},
			},
			Inputs: []onnxmodel.ValueInfo{
				{Name: "indices", DataType: onnxmodel.Int64, Shape: []onnxmodel.Dim{{Param: "n"}, {Value: 2}}},
				{Name: "values", DataType: onnxmodel.Int64, Shape: []onnxmodel.Dim{{Param: "n"}}},
			},
			Outputs: []onnxmodel.ValueInfo{
				{Name: "embeddings", DataType: onnxmodel.Float, Shape: []onnxmodel.Dim{{Param: "batch"}, {Value: 2}}},
			},
		},
	}
	b, err := m.Marshal()
	if err != nil {
		tb.Fatalf("Marshal toy model: %v", err)
	}
	return b
}
