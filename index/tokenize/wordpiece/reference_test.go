package wordpiece

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/reqa/reqa/internal/testenv"
)

// runPythonReference runs testdata/bert_reference.py (BERT's algorithm
// written from scratch on Python's unicodedata and str.lower) over texts.
func runPythonReference(t *testing.T, texts []string) [][]string {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		testenv.Skip(t, "python3 not installed: cannot run the independent Python reference")
	}
	vocab := filepath.Join(t.TempDir(), "tokenizer.json")
	data, err := assets.ReadFile(assetPath)
	if err != nil {
		testenv.Skip(t, "assets/tokenizer.json absent: run `make`")
	}
	if err := os.WriteFile(vocab, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, s := range texts {
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(python, "testdata/bert_reference.py", vocab)
	cmd.Stdin = &in
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bert_reference.py: %v", err)
	}
	var res [][]string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var toks []string
		if err := json.Unmarshal(sc.Bytes(), &toks); err != nil {
			t.Fatal(err)
		}
		res = append(res, toks)
	}
	if len(res) != len(texts) {
		t.Fatalf("bert_reference.py returned %d results for %d texts", len(res), len(texts))
	}
	return res
}

// TestPythonReference compares the fast path with the independent Python
// implementation on the hand-written cases and on the SQuAD contexts (with
// -wpm.all, every SQuAD text). The one known difference is Python's
// context-sensitive final sigma, which that case in cases.jsonl documents.
func TestPythonReference(t *testing.T) {
	if testing.Short() {
		// May skip in CI: -short is a mode; make test and CI run without it.
		t.Skip("-short: the Python reference needs ~5 s for the SQuAD contexts")
	}
	tk := newOrSkip(t)
	var texts []string
	for _, c := range readCases(t) {
		if c.Name != "Greek final sigma" {
			texts = append(texts, c.Text)
		}
	}
	nCases := len(texts)
	texts = append(texts, squadTexts(t, !*allTexts)...)
	want := runPythonReference(t, texts)
	tokens, diffs := 0, 0
	for i, s := range texts {
		got := tk.Tokenize(s)
		w := want[i]
		if len(w) == 0 {
			w = nil
		}
		tokens += len(w)
		if !slices.Equal(got, w) {
			if diffs++; diffs <= 5 {
				t.Errorf("differs on %.80q (text %d; the first %d are cases.jsonl):\n fast   %q\n python %q", s, i, nCases, got, w)
			}
		}
	}
	t.Logf("%d texts, %d tokens, %d differing texts", len(texts), tokens, diffs)
}
