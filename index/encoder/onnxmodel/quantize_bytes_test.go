package onnxmodel_test

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/reqa/reqa/index/encoder/bertgen"
	"github.com/reqa/reqa/index/encoder/onnxmodel"
	"github.com/reqa/reqa/index/encoder/ort"
)

// smallBERT is a BERT-tiny-shaped graph with a small vocabulary.
func smallBERT(t testing.TB, v bertgen.Variant) []byte {
	t.Helper()
	c := bertgen.Tiny()
	c.Vocab = 500
	b, err := bertgen.Model(c, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestQuantizeONNXMatchesQuantizeMatMuls: on a model this package wrote,
// rewriting the bytes gives exactly the bytes of QuantizeMatMuls on the
// model, bias folding and dropped weights included.
func TestQuantizeONNXMatchesQuantizeMatMuls(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    func() *onnxmodel.Model
	}{
		{"matmul shared", func() *onnxmodel.Model { return matmulModel(3, 2, []float32{1, -2, 0.5, 3, -1, 0.25}, 2, true) }},
		{"bert", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in []byte
			if tc.m != nil {
				var err error
				if in, err = tc.m().Marshal(); err != nil {
					t.Fatal(err)
				}
			} else {
				in = smallBERT(t, bertgen.Variant{TokenTypes: true})
			}
			got, n, err := onnxmodel.QuantizeONNX(in)
			if err != nil {
				t.Fatal(err)
			}
			var want []byte
			var wantN int
			if tc.m != nil {
				m := tc.m()
				if wantN, err = onnxmodel.QuantizeMatMuls(m); err != nil {
					t.Fatal(err)
				}
				if want, err = m.Marshal(); err != nil {
					t.Fatal(err)
				}
			} else {
				// 6 per layer: q, k, v, output, the two feed-forward.
				wantN = 2 * 6
			}
			if n != wantN {
				t.Errorf("%d MatMuls rewritten, want %d", n, wantN)
			}
			if want != nil && !bytes.Equal(got, want) {
				t.Errorf("QuantizeONNX gives %d bytes, QuantizeMatMuls %d: they differ", len(got), len(want))
			}
			if !bytes.Contains(got, []byte(onnxmodel.MSDomain)) {
				t.Error("no com.microsoft import")
			}
			again, n2, err := onnxmodel.QuantizeONNX(got)
			if err != nil || n2 != 0 || !bytes.Equal(again, got) {
				t.Errorf("quantizing again: %d rewritten, err %v, same bytes %v", n2, err, bytes.Equal(again, got))
			}
		})
	}
}

// TestQuantizeONNXKeepsUnknownFields: what the rewriter does not know of
// a file (model metadata, node attributes, doc strings) comes out byte for
// byte.
func TestQuantizeONNXKeepsUnknownFields(t *testing.T) {
	m := matmulModel(2, 2, []float32{1, 2, 3, 4}, 1, false)
	m.DocString = "exported elsewhere"
	m.Graph.Nodes = append(m.Graph.Nodes, onnxmodel.Node{Name: "keep", OpType: "Softmax", Inputs: []string{m.Graph.Outputs[0].Name}, Outputs: []string{"sm"},
		Attrs: []onnxmodel.Attribute{onnxmodel.IntAttr("axis", -1)}})
	m.Graph.Outputs = append(m.Graph.Outputs, onnxmodel.ValueInfo{Name: "sm", DataType: onnxmodel.Float})
	in, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	// metadata_props (ModelProto field 14): {key: "k", value: "v"}.
	meta := []byte{14<<3 | 2, 6, 1<<3 | 2, 1, 'k', 2<<3 | 2, 1, 'v'}
	in = append(in, meta...)
	got, n, err := onnxmodel.QuantizeONNX(in)
	if err != nil || n != 1 {
		t.Fatalf("%d rewritten, %v", n, err)
	}
	for _, part := range [][]byte{meta, []byte("exported elsewhere"), (&onnxmodel.Node{Name: "keep", OpType: "Softmax", Inputs: []string{m.Graph.Outputs[0].Name}, Outputs: []string{"sm"},
		Attrs: []onnxmodel.Attribute{onnxmodel.IntAttr("axis", -1)}}).Encode()} {
		if !bytes.Contains(got, part) {
			t.Errorf("lost %q", part)
		}
	}
}

func TestQuantizeONNXMalformed(t *testing.T) {
	in := smallBERT(t, bertgen.Variant{})
	for _, b := range [][]byte{in[:len(in)/2], {0xff}, {7<<3 | 2, 5, 1}, {}} {
		if _, _, err := onnxmodel.QuantizeONNX(b); !errors.Is(err, onnxmodel.ErrMalformed) {
			t.Errorf("%.8x…: err %v, want ErrMalformed", b, err)
		}
	}
}

// TestQuantizeONNXThroughRuntime: the int8 BERT-tiny runs and its mean
// token vectors stay close to the float model's.
func TestQuantizeONNXThroughRuntime(t *testing.T) {
	if err := ort.Init(ortLib(t)); err != nil {
		t.Fatal(err)
	}
	fp := smallBERT(t, bertgen.Variant{TokenTypes: true, SentenceEmbedding: true})
	q, _, err := onnxmodel.QuantizeONNX(fp)
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{101, 7, 300, 42, 499, 102}
	run := func(model []byte) []float32 {
		m, err := ort.OpenModel(model, []string{"input_ids", "attention_mask", "token_type_ids"}, "sentence_embedding", ort.Options{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		shape := []int64{1, int64(len(ids))}
		_, out, err := m.Run([]ort.Input{{Shape: shape, Data: ids}, {Shape: shape, Data: []int64{1, 1, 1, 1, 1, 1}}, {Shape: shape, Data: make([]int64, len(ids))}})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := run(fp), run(q)
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	cos := dot / math.Sqrt(na*nb)
	t.Logf("cosine int8 to fp32: %.6f (%d → %d bytes)", cos, len(fp), len(q))
	if cos < 0.99 {
		t.Errorf("cosine %.4f", cos)
	}
}

// FuzzQuantizeONNX: no input makes the rewriter panic, and what it
// accepts and rewrites, it accepts again with nothing left to rewrite.
func FuzzQuantizeONNX(f *testing.F) {
	m, _ := matmulModel(2, 2, []float32{1, 2, 3, 4}, 2, true).Marshal()
	f.Add(m)
	f.Add([]byte{7<<3 | 2, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		out, n, err := onnxmodel.QuantizeONNX(b)
		if err != nil || n == 0 {
			return
		}
		if _, n2, err := onnxmodel.QuantizeONNX(out); err != nil || n2 != 0 {
			t.Fatalf("second pass: %d rewritten, %v", n2, err)
		}
	})
}
