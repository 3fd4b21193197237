package usenet_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"testing"

	"github.com/reqa/reqa/index/encoder"
	"github.com/reqa/reqa/index/encoder/uselite"
	"github.com/reqa/reqa/index/encoder/usenet"
	"github.com/reqa/reqa/internal/testenv"
)

const goldenDir = "../../../../shared/golden/use-lite/"

// goldenTexts returns the texts of the shared USE-Lite golden files: the
// edge cases (empty, long, non-Latin, …) and the first 400 of the SQuAD
// sample.
func goldenTexts(t testing.TB) []string {
	var out []string
	for _, name := range []string{"edge-cases.jsonl", "squad-sample.jsonl"} {
		n := 0
		f, err := os.Open(goldenDir + name)
		if err != nil {
			testenv.Skip(t, "golden USE-Lite texts not present (%v); they live in ../shared on development and CI machines", err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() && n < 400 {
			n++
			var g struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
				t.Fatal(err)
			}
			out = append(out, g.Text)
		}
		f.Close()
	}
	return out
}

// int8Model returns the embedded int8 USE-Lite and its vocabulary.
func int8Model(t testing.TB) (onnx, vocab []byte) {
	onnx, vocab, err := uselite.ModelPrecision(uselite.PrecisionInt8)
	if err != nil {
		testenv.Skip(t, "%v", err)
	}
	return onnx, vocab
}

// TestMatchesRuntime: on every golden text the Go network's vector is
// ONNX Runtime's up to the float32 steps' rounding. The integer products
// are exact, but a last-bit difference upstream (a layer norm, the
// runtime's FMA matrix kernels, its exp and sin) can move an activation
// across a quantization boundary now and then — the same sensitivity the
// runtime's own kernels have from one processor to another — so the
// bound is a cosine, not equality: measured mean 1−4.9e-6, minimum
// 1−1.5e-4 over the 1,015 golden texts, against int8's own distance from
// float32 of mean 1−7e-4.
func TestMatchesRuntime(t *testing.T) {
	texts := goldenTexts(t)
	onnx, vocab := int8Model(t)
	enc, err := encoder.New(encoder.Spec{Name: uselite.Name, Kind: encoder.KindUSELite, Dim: uselite.Dim}, onnx, vocab, encoder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	want, err := enc.EncodeQueries(context.Background(), texts, nil)
	if err != nil {
		t.Fatal(err)
	}
	net, err := usenet.Load(onnx)
	if err != nil {
		t.Fatal(err)
	}
	worst, sum := 1.0, 0.0
	var maxDiff float64
	for i, text := range texts {
		got, err := net.Embed(enc.Tokens(text))
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if len(got) != usenet.Dim {
			t.Fatalf("%q: %d dimensions", text, len(got))
		}
		var dot, na, nb float64
		for j := range got {
			dot += float64(got[j]) * float64(want[i][j])
			na += float64(got[j]) * float64(got[j])
			nb += float64(want[i][j]) * float64(want[i][j])
			maxDiff = max(maxDiff, math.Abs(float64(got[j]-want[i][j])))
		}
		c := dot / math.Sqrt(na*nb)
		sum += c
		if c < worst {
			worst = c
		}
		if c < 0.9995 {
			t.Errorf("%q: cosine %.7f to ONNX Runtime", text, c)
		}
		if math.Abs(na-1) > 1e-5 {
			t.Errorf("%q: norm² %.7f", text, na)
		}
	}
	mean := sum / float64(len(texts))
	t.Logf("%d texts: cosine to ONNX Runtime mean 1−%.2g, min 1−%.2g; largest coordinate difference %.2g", len(texts), 1-mean, 1-worst, maxDiff)
	if mean < 1-5e-5 {
		t.Errorf("mean cosine 1−%.2g to ONNX Runtime, want within 5e-5", 1-mean)
	}
}

func TestLoadRefuses(t *testing.T) {
	onnx, _ := int8Model(t)
	fp32, _, err := uselite.ModelPrecision(uselite.PrecisionFP32)
	if err != nil {
		testenv.Skip(t, "%v", err)
	}
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"float32 model", fp32},
		{"not ONNX", []byte("not a model")},
		{"truncated", onnx[:len(onnx)/2]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := usenet.Load(tc.b); !errors.Is(err, usenet.ErrUnsupported) {
				t.Errorf("err = %v, want ErrUnsupported", err)
			}
		})
	}
}

func TestTokenRange(t *testing.T) {
	onnx, _ := int8Model(t)
	net, err := usenet.Load(onnx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ids := range [][]int32{{-1}, {5, 8002}, {1 << 30}} {
		if _, err := net.Embed(ids); !errors.Is(err, usenet.ErrTokenID) {
			t.Errorf("%v: err = %v, want ErrTokenID", ids, err)
		}
	}
}

func BenchmarkEmbed(b *testing.B) {
	onnx, vocab := int8Model(b)
	enc, err := encoder.New(encoder.Spec{Name: uselite.Name, Kind: encoder.KindUSELite, Dim: uselite.Dim}, onnx, vocab, encoder.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer enc.Close()
	ids := enc.Tokens("how do I list the hidden files in a directory with ls?")
	net, err := usenet.Load(onnx)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := net.Embed(ids); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(ids)), "tokens")
}

func BenchmarkLoad(b *testing.B) {
	onnx, _ := int8Model(b)
	for i := 0; i < b.N; i++ {
		if _, err := usenet.Load(onnx); err != nil {
			b.Fatal(err)
		}
	}
}
