package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestOldNormalizationIndex asks an index built before text was
// normalised (../../rank/testdata/unicode-v0: index format 2, fields
// without a norm, built by reqa at b2b8e56 from NFD, soft-hyphenated,
// zero-width, full-width and ligature text) every question of its
// asks.json with every ranker, with and without context, and checks that
// `ask --json` prints byte for byte what that reqa printed: an old index
// is asked with the tokens it was built with, [UNK] included.
func TestOldNormalizationIndex(t *testing.T) {
	fixture := filepath.Join("..", "..", "rank", "testdata", "unicode-v0")
	b, err := os.ReadFile(filepath.Join(fixture, "unicode.reqa"))
	if err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(t.TempDir(), "unicode.reqa")
	if err := os.WriteFile(idx, b, 0o644); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(fixture, "asks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var asks []struct {
		Args   []string `json:"args"`
		Stdout string   `json:"stdout"`
	}
	if err := json.Unmarshal(raw, &asks); err != nil {
		t.Fatal(err)
	}
	if len(asks) < 90 {
		t.Fatalf("asks.json holds %d asks, want the 96 golden.py writes", len(asks))
	}
	for _, a := range asks {
		args := append([]string{a.Args[0], "--index", idx}, a.Args[1:]...)
		code, out, errOut := reqa(t, args...)
		if code != 0 {
			t.Errorf("reqa %q: exit %d: %s", args, code, errOut)
			continue
		}
		if out != a.Stdout {
			t.Errorf("reqa %q:\n%s\nwant, as reqa b2b8e56 answered:\n%s", args, out, a.Stdout)
		}
	}
}
