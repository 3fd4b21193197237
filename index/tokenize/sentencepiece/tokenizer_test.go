package sentencepiece

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fixture is one testdata/*.fixture.json file: a vocabulary and cases whose
// expected ids and pieces were checked against the reference JavaScript
// tokenizer (TestReferenceFixtures re-checks them when it is available).
type fixture struct {
	Name  string `json:"name"`
	Vocab string `json:"vocab"` // a file in testdata, or "embedded" for New's vocabulary
	Cases []struct {
		About  string   `json:"about"`
		Text   string   `json:"text"`
		Go     string   `json:"go"` // when set, a Go string literal replacing Text (for invalid UTF-8)
		IDs    []int32  `json:"ids"`
		Pieces []string `json:"pieces"`
	} `json:"cases"`
}

func loadFixtures(tb testing.TB) []fixture {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "*.fixture.json"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no fixtures in testdata (%v)", err)
	}
	var out []fixture
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		var fx fixture
		if err := json.Unmarshal(data, &fx); err != nil {
			tb.Fatalf("%s: %v", p, err)
		}
		for i := range fx.Cases {
			c := &fx.Cases[i]
			if c.Go != "" {
				if c.Text, err = strconv.Unquote(c.Go); err != nil {
					tb.Fatalf("%s: case %q: go literal: %v", p, c.About, err)
				}
			}
		}
		out = append(out, fx)
	}
	return out
}

func (fx fixture) vocabPath(tb testing.TB) string {
	if fx.Vocab == "embedded" {
		return embeddedVocabFile(tb)
	}
	return filepath.Join("testdata", fx.Vocab)
}

func (fx fixture) tokenizer(tb testing.TB) *Tokenizer {
	tb.Helper()
	if fx.Vocab == "embedded" {
		return embeddedTokenizer(tb)
	}
	f, err := os.Open(fx.vocabPath(tb))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	tok, err := Load(f)
	if err != nil {
		tb.Fatalf("Load(%s): %v", fx.Vocab, err)
	}
	return tok
}

func TestFixtures(t *testing.T) {
	for _, fx := range loadFixtures(t) {
		t.Run(fx.Name, func(t *testing.T) {
			tok := fx.tokenizer(t)
			for _, c := range fx.Cases {
				ids := tok.Encode(c.Text)
				if ids == nil {
					t.Errorf("%s: Encode(%+q) = nil, want a non-nil slice", c.About, c.Text)
				}
				if !slices.Equal(ids, c.IDs) {
					t.Errorf("%s: Encode(%+q) = %v, want %v", c.About, c.Text, ids, c.IDs)
				}
				if c.Pieces != nil {
					if got := tok.Pieces(c.Text); !slices.Equal(got, c.Pieces) {
						t.Errorf("%s: Pieces(%+q) = %q, want %q", c.About, c.Text, got, c.Pieces)
					}
				}
			}
		})
	}
}

func TestNewWithoutVocabulary(t *testing.T) {
	tok, err := New()
	if _, statErr := os.Stat(filepath.Join("assets", "vocab.json")); errors.Is(statErr, os.ErrNotExist) {
		if !errors.Is(err, ErrNoVocabulary) || tok != nil {
			t.Fatalf("New() without assets/vocab.json = %v, %v; want nil, ErrNoVocabulary", tok, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("New() with assets/vocab.json: %v", err)
	}
	if tok.VocabSize() != 8000 {
		t.Errorf("VocabSize() = %d, want 8000", tok.VocabSize())
	}
	if p := tok.Piece(0); p != "\ufffd" {
		t.Errorf("Piece(0) = %q, want U+FFFD", p)
	}
	for _, id := range []int32{-1, 8000} {
		if p := tok.Piece(id); p != "" {
			t.Errorf("Piece(%d) = %q, want \"\"", id, p)
		}
	}
}

func TestFromJSONErrors(t *testing.T) {
	tests := []struct {
		name, vocab, wantErr string
	}{
		{"not JSON", `[`, "not a JSON array"},
		{"object", `{"a":1}`, "not a JSON array"},
		{"empty", `[]`, "empty"},
		{"entry not array", `[["\ufffd",0],"x"]`, "entry 1: not an array"},
		{"short entry", `[["\ufffd",0],["a"]]`, "entry 1: has 1 elements"},
		{"piece not string", `[["\ufffd",0],[7,0]]`, "entry 1: piece 7 is not a string"},
		{"score a string", `[["\ufffd",0],["a","1"]]`, `entry 1: score "1" is neither`},
		{"score a bool", `[["\ufffd",0],["a",true]]`, "entry 1: score true is neither"},
		{"score out of range", `[["\ufffd",0],["a",1e999]]`, "entry 1: score 1e999"},
		{"empty unknown piece", `[["",0],["a",-1]]`, "entry 0 (the unknown token) has an empty piece"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := FromJSON([]byte(tt.vocab))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("FromJSON(%s) = %v, %v; want an error containing %q", tt.vocab, tok, err, tt.wantErr)
			}
		})
	}
}

func TestFromJSONAccepts(t *testing.T) {
	// Extra elements are ignored and null scores allowed, as in the reference;
	// a vocabulary may be shorter than the reserved entries.
	for _, vocab := range []string{
		`[["\ufffd",0,"extra"]]`,
		`[["<unk>",null],["<s>",0],["</s>",0]]`,
		` [ [ "\ufffd" , -0 ] , [ "a" , -1.5e0 , {} ] ] `,
	} {
		tok, err := FromJSON([]byte(vocab))
		if err != nil {
			t.Errorf("FromJSON(%s): %v", vocab, err)
			continue
		}
		if ids := tok.Encode("a b"); len(ids) == 0 || ids[0] != 0 {
			t.Errorf("FromJSON(%s).Encode(\"a b\") = %v, want it to start with unknown", vocab, ids)
		}
	}
}

// TestConcurrentEncode checks that one Tokenizer serves goroutines in
// parallel (run with -race to check the pooled buffers).
func TestConcurrentEncode(t *testing.T) {
	tok := embeddedTokenizer(t)
	texts := []string{"", "Who wrote the Iliad?", "Ωμέγα ψ ж", strings.Repeat("the quick brown fox ", 300)}
	want := make([][]int32, len(texts))
	for i, s := range texts {
		want[i] = tok.Encode(s)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 200 {
				i := (g + n) % len(texts)
				if got := tok.Encode(texts[i]); !slices.Equal(got, want[i]) {
					errs <- texts[i]
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for s := range errs {
		t.Errorf("concurrent Encode(%.40q) differs from sequential", s)
	}
}
