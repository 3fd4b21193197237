package bertgen

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/reqa/reqa/index/encoder/ort"
	"github.com/reqa/reqa/index/encoder/ortlib"
	"github.com/reqa/reqa/internal/testenv"
)

func initORT(t *testing.T) {
	t.Helper()
	if _, err := ortlib.Load(ort.Init); errors.Is(err, ortlib.ErrNotEmbedded) {
		testenv.Skip(t, "ONNX Runtime not available: %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
}

// TestModelMatchesReference runs the BERT-tiny-shaped graph through ONNX
// Runtime on a padded batch and checks every real token's hidden state,
// and the pooled sentence_embedding, against the plain-Go network: the
// graph is BERT (embeddings, attention with the padding mask, GELU
// feed-forward, layer norms), not merely a graph of BERT's size.
func TestModelMatchesReference(t *testing.T) {
	initORT(t)
	c := Tiny()
	c.Layers = 3
	net, err := Reference(c)
	if err != nil {
		t.Fatal(err)
	}
	seqs := [][]int{{101, 7592, 2088, 102}, {101, 2054, 2003, 1037, 3899, 1029, 102}}
	types := [][]int{{0, 0, 1, 1}, {0, 0, 0, 1, 1, 1, 1}}
	for _, tc := range []struct {
		name string
		v    Variant
	}{
		{"types", Variant{TokenTypes: true}},
		{"no types", Variant{}},
		{"sentence embedding", Variant{TokenTypes: true, SentenceEmbedding: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model, err := Model(c, tc.v)
			if err != nil {
				t.Fatal(err)
			}
			inputs := []string{InputIDs, AttentionMask}
			if tc.v.TokenTypes {
				inputs = append(inputs, TokenTypeIDs)
			}
			out := LastHiddenState
			if tc.v.SentenceEmbedding {
				out = SentenceEmbedding
			}
			m, err := ort.OpenModel(model, inputs, out, ort.Options{Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			width := 7
			ids, mask, tt := make([]int64, 2*width), make([]int64, 2*width), make([]int64, 2*width)
			for i, s := range seqs {
				for p, id := range s {
					ids[i*width+p], mask[i*width+p], tt[i*width+p] = int64(id), 1, int64(types[i][p])
				}
			}
			in := []ort.Input{{Shape: []int64{2, int64(width)}, Data: ids}, {Shape: []int64{2, int64(width)}, Data: mask}}
			if tc.v.TokenTypes {
				in = append(in, ort.Input{Shape: []int64{2, int64(width)}, Data: tt})
			}
			shape, data, err := m.Run(in)
			if err != nil {
				t.Fatal(err)
			}
			h := c.Hidden
			var worst float64
			for i, s := range seqs {
				var ty []int
				if tc.v.TokenTypes {
					ty = types[i]
				}
				ref := net.Forward(s, ty)
				if tc.v.SentenceEmbedding {
					if len(shape) != 2 || shape[1] != int64(h) {
						t.Fatalf("shape %v", shape)
					}
					mean := make([]float64, h)
					var ss float64
					for j := range mean {
						for p := range s {
							mean[j] += ref[p][j] / float64(len(s))
						}
						ss += mean[j] * mean[j]
					}
					for j := range mean {
						worst = math.Max(worst, math.Abs(mean[j]/math.Sqrt(ss)-float64(data[i*h+j])))
					}
					continue
				}
				if len(shape) != 3 || shape[2] != int64(h) {
					t.Fatalf("shape %v", shape)
				}
				for p := range s {
					for j := range h {
						worst = math.Max(worst, math.Abs(ref[p][j]-float64(data[(i*width+p)*h+j])))
					}
				}
			}
			if worst > 2e-4 {
				t.Errorf("largest difference to the reference %.3g", worst)
			}
			t.Logf("largest difference to the reference %.3g", worst)
		})
	}
}

// TestDeterministic: the same config gives the same bytes; another seed
// other weights.
func TestDeterministic(t *testing.T) {
	c := Tiny()
	c.Vocab, c.Layers = 200, 1
	a, err := Model(c, Variant{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Model(c, Variant{})
	c.Seed++
	d, _ := Model(c, Variant{})
	if string(a) != string(b) || string(a) == string(d) {
		t.Errorf("same seed equal: %v, other seed equal: %v", string(a) == string(b), string(a) == string(d))
	}
	if want := c.Params(); int64(len(a)) < 4*want {
		t.Errorf("model of %d bytes, want ≥ %d for %d weights", len(a), 4*want, want)
	}
}

func TestWriteDir(t *testing.T) {
	dir := t.TempDir()
	l := Layout{ONNXPath: "onnx/model.onnx", Pooling: "cls", Normalize: true, MaxSeqLength: 256,
		Prompts: map[string]string{"query": "query: "}, ModelMaxLength: 512, Config: true}
	if err := WriteDir(dir, Tiny(), []byte("onnx"), []byte("{}"), l); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"onnx/model.onnx", "tokenizer.json", "modules.json", "1_Pooling/config.json", "2_Normalize",
		"sentence_bert_config.json", "config_sentence_transformers.json", "tokenizer_config.json", "config.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if err := WriteDir(dir, Tiny(), nil, nil, Layout{Pooling: "weighted"}); err == nil {
		t.Error("unknown pooling accepted")
	}
}
