package encoder_test

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
	"github.com/reqa/reqa/internal/testenv"
)

const goldenDir = "../../../shared/golden/use-lite/"

type golden struct {
	ID        string    `json:"id"`
	Text      string    `json:"text"`
	TokenIDs  []int32   `json:"token_ids"`
	Embedding []float32 `json:"embedding"`
}

func readGolden(t testing.TB, name string) []golden {
	f, err := os.Open(goldenDir + name)
	if err != nil {
		testenv.Skip(t, "golden USE-Lite outputs not present (%v); they live in ../shared on development and CI machines", err)
	}
	defer f.Close()
	var out []golden
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var g golden
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

func defaultEncoder(t testing.TB) *encoder.Encoder {
	return encoderOf(t, uselite.PrecisionFP32)
}

// encoderOf returns the embedded USE-Lite encoder of the given precision.
func encoderOf(t testing.TB, precision string) *encoder.Encoder {
	onnx, vocab, err := uselite.ModelPrecision(precision)
	if err != nil {
		testenv.Skip(t, "%v", err)
	}
	e, err := encoder.New(encoder.Spec{Name: uselite.Name, Kind: "use-lite", Dim: uselite.Dim, Precision: precision}, onnx, vocab, encoder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestGoldenEndToEnd checks text → tokens → embedding against the TF.js
// reference (float32) for every golden line: tokens exact, cosine at least
// 0.9999 for the float32 model and 0.995 for the int8 one.
func TestGoldenEndToEnd(t *testing.T) {
	for _, tc := range []struct {
		precision string
		minCos    float64
	}{
		{uselite.PrecisionFP32, 0.9999},
		{uselite.PrecisionInt8, 0.995},
	} {
		t.Run(tc.precision, func(t *testing.T) { testGolden(t, tc.precision, tc.minCos) })
	}
}

func testGolden(t *testing.T, precision string, wantCos float64) {
	e := encoderOf(t, precision)
	defer e.Close()
	for _, file := range []string{"squad-sample.jsonl", "edge-cases.jsonl"} {
		gs := readGolden(t, file)
		texts := make([]string, len(gs))
		for i, g := range gs {
			texts[i] = g.Text
		}
		vecs, err := e.Encode(context.Background(), texts, nil)
		if err != nil {
			t.Fatal(err)
		}
		minCos, sumCos := 2.0, 0.0
		for i, g := range gs {
			ids := e.Tokens(g.Text)
			if len(ids) != len(g.TokenIDs) {
				t.Errorf("%s %s: %d tokens, want %d", file, g.ID, len(ids), len(g.TokenIDs))
				continue
			}
			for j := range ids {
				if ids[j] != g.TokenIDs[j] {
					t.Errorf("%s %s: token %d = %d, want %d", file, g.ID, j, ids[j], g.TokenIDs[j])
					break
				}
			}
			var dot, na, nb float64
			for j := range g.Embedding {
				dot += float64(vecs[i][j]) * float64(g.Embedding[j])
				na += float64(vecs[i][j]) * float64(vecs[i][j])
				nb += float64(g.Embedding[j]) * float64(g.Embedding[j])
			}
			cos := dot / math.Sqrt(na*nb)
			minCos = math.Min(minCos, cos)
			sumCos += cos
			if cos < wantCos {
				t.Errorf("%s %s: cosine %.6f < %v", file, g.ID, cos, wantCos)
			}
		}
		t.Logf("%s: %d lines, min cosine %.7f, mean %.7f", file, len(gs), minCos, sumCos/float64(len(gs)))
	}
}

// TestHashMismatchRefused: a stored hash that is not the model's content
// hash is ErrModelMismatch, unless the caller says the blobs are the
// index's own, checksummed (Options.Checksummed: then the stored hash is
// the encoder's, not recomputed).
func TestHashMismatchRefused(t *testing.T) {
	onnx, vocab, err := uselite.Model()
	if err != nil {
		testenv.Skip(t, "%v", err)
	}
	for _, tc := range []struct {
		name string
		opt  encoder.Options
		ok   bool
	}{
		{"recomputed", encoder.Options{}, false},
		{"recomputed, fast start", encoder.Options{FastStart: true}, false},
		{"checksummed", encoder.Options{Checksummed: true}, true},
	} {
		enc, err := encoder.New(encoder.Spec{Name: "x", Kind: "use-lite", Dim: 512, Hash: "deadbeef"}, onnx, vocab, tc.opt)
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.ok && enc.Spec().Hash != "deadbeef":
			t.Errorf("%s: hash %q, want the stored one", tc.name, enc.Spec().Hash)
		case !tc.ok && !errors.Is(err, encoder.ErrModelMismatch):
			t.Errorf("%s: error %v, want ErrModelMismatch", tc.name, err)
		}
		if enc != nil {
			enc.Close()
		}
	}
}

// TestEncodeFlat: EncodeFlat gives Encode's rows, bit for bit, in one
// array, and stops with the context's error when cancelled.
func TestEncodeFlat(t *testing.T) {
	e := defaultEncoder(t)
	defer e.Close()
	texts := []string{"The ferry leaves at nine.", "It returns at noon.", "", "Tickets cost five euros, children travel free on weekdays.", "Gulls."}
	rows, err := e.Encode(context.Background(), texts, nil)
	if err != nil {
		t.Fatal(err)
	}
	flat, err := e.EncodeFlat(context.Background(), texts, nil)
	if err != nil {
		t.Fatal(err)
	}
	dim := e.Spec().Dim
	if len(flat) != len(texts)*dim {
		t.Fatalf("%d floats for %d texts of %d", len(flat), len(texts), dim)
	}
	for i, r := range rows {
		for j, x := range r {
			if math.Float32bits(flat[i*dim+j]) != math.Float32bits(x) {
				t.Fatalf("text %d, dimension %d: %v, Encode %v", i, j, flat[i*dim+j], x)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.EncodeFlat(ctx, texts, nil); err == nil {
		t.Fatal("cancelled EncodeFlat succeeded")
	}
}

// TestAloneOrInBatch: a text's vector does not depend on the texts encoded
// with it. The int8 model quantizes a run's activations by their range
// over the run, so it runs one text per run and must match bit for bit;
// float32 batches may only differ by rounding.
func TestAloneOrInBatch(t *testing.T) {
	gs := readGolden(t, "squad-sample.jsonl")[:48]
	texts := make([]string, len(gs))
	for i, g := range gs {
		texts[i] = g.Text
	}
	for _, tc := range []struct {
		precision string
		minCos    float64
	}{
		{uselite.PrecisionFP32, 1 - 1e-6},
		{uselite.PrecisionInt8, 1},
	} {
		t.Run(tc.precision, func(t *testing.T) {
			e := encoderOf(t, tc.precision)
			defer e.Close()
			batch, err := e.Encode(context.Background(), texts, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, text := range texts {
				alone, err := e.Encode(context.Background(), []string{text}, nil)
				if err != nil {
					t.Fatal(err)
				}
				var dot float64
				for j := range alone[0] {
					dot += float64(alone[0][j]) * float64(batch[i][j])
				}
				if dot < tc.minCos && (tc.minCos < 1 || !equalBits(alone[0], batch[i])) {
					t.Errorf("text %d: cosine alone/in batch %.9f", i, dot)
				}
			}
		})
	}
}

func equalBits(a, b []float32) bool {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return len(a) == len(b)
}

// TestFastStart: with Options.FastStart the int8 USE-Lite embeds through
// the Go network (package usenet), agreeing with the runtime up to int8
// rounding; a model the network does not run (float32 USE-Lite) falls
// back to the runtime and is unchanged.
func TestFastStart(t *testing.T) {
	gold := readGolden(t, "edge-cases.jsonl")
	texts := make([]string, len(gold))
	for i, g := range gold {
		texts[i] = g.Text
	}
	for _, tc := range []struct {
		precision, engine string
		minCos            float64
	}{{uselite.PrecisionInt8, encoder.EngineGo, 0.9995}, {uselite.PrecisionFP32, encoder.EngineRuntime, 1 - 1e-9}} {
		t.Run(tc.precision, func(t *testing.T) {
			onnx, vocab, err := uselite.ModelPrecision(tc.precision)
			if err != nil {
				testenv.Skip(t, "%v", err)
			}
			spec := encoder.Spec{Name: uselite.Name, Kind: encoder.KindUSELite, Dim: uselite.Dim, Precision: tc.precision}
			rt, err := encoder.New(spec, onnx, vocab, encoder.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			fast, err := encoder.New(spec, onnx, vocab, encoder.Options{FastStart: true})
			if err != nil {
				t.Fatal(err)
			}
			defer fast.Close()
			if fast.Engine() != tc.engine || rt.Engine() != encoder.EngineRuntime {
				t.Errorf("engines %s with fast start, %s without; want %s, %s", fast.Engine(), rt.Engine(), tc.engine, encoder.EngineRuntime)
			}
			want, err := rt.EncodeQueries(context.Background(), texts, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := fast.EncodeQueries(context.Background(), texts, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range texts {
				if c := cosine(got[i], want[i]); c < tc.minCos {
					t.Errorf("%q: cosine %.7f between fast start and runtime, want ≥ %g", texts[i], c, tc.minCos)
				}
			}
		})
	}
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

// TestRepeatedTexts: texts with the same token ids are embedded once and
// every repeat gets its own copy of the same vector, in order, with
// progress counting every text.
func TestRepeatedTexts(t *testing.T) {
	e := encoderOf(t, uselite.PrecisionInt8) // one text per run: bit for bit
	defer e.Close()
	for _, tc := range []struct {
		name   string
		texts  []string
		unique int
	}{
		{"none repeated", []string{"The ferry leaves at nine.", "It returns at noon."}, 2},
		{"one repeat", []string{"Gulls.", "The ferry leaves at nine.", "Gulls."}, 2},
		{"all the same", []string{"Tickets.", "Tickets.", "Tickets.", "Tickets."}, 1},
		{"empty texts", []string{"", "Gulls.", ""}, 2},
		{"case differs", []string{"Gulls.", "gulls."}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := encoder.Embedded(e)
			var last, total int
			rows, err := e.Encode(context.Background(), tc.texts, func(done, n int) { last, total = done, n })
			if err != nil {
				t.Fatal(err)
			}
			if got := encoder.Embedded(e) - before; got != int64(tc.unique) {
				t.Errorf("model ran on %d texts, want %d", got, tc.unique)
			}
			if last != len(tc.texts) || total != len(tc.texts) {
				t.Errorf("progress ended at %d of %d, want %d of %d", last, total, len(tc.texts), len(tc.texts))
			}
			for i, text := range tc.texts {
				alone, err := e.Encode(context.Background(), []string{text}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !equalBits(alone[0], rows[i]) {
					t.Errorf("text %d (%q): vector differs from the text embedded alone", i, text)
				}
			}
			// Each row is its own: changing one leaves its repeats alone.
			keep := rows[len(rows)-1][0]
			rows[0][0] = 42
			if len(rows) > 1 && tc.texts[0] == tc.texts[len(rows)-1] && rows[len(rows)-1][0] != keep {
				t.Error("repeated texts share one vector")
			}
		})
	}
}
