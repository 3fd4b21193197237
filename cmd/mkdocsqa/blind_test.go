package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadBlindSources reads the blind benchmark's SOURCES.tsv and split.json
// as committed: one set per document, each in one half, every format.
func TestReadBlindSources(t *testing.T) {
	srcs, err := readBlindSources("blind")
	if err != nil {
		t.Fatal(err)
	}
	halves := map[string]int{}
	for _, s := range srcs.Sets {
		if len(s.Files) != 1 || s.SplitBy != "file" || len(s.LicenseFiles) != 1 {
			t.Errorf("set %s: %+v", s.Name, s)
		}
		halves[s.Files[0].Split]++
	}
	if len(srcs.Sets) < 15 || halves["tune"] == 0 || halves["test"] == 0 {
		t.Fatalf("%d sets, halves %v", len(srcs.Sets), halves)
	}
}

// TestBlindFrozen checks the blind benchmark's questions against the
// checksums they were frozen with (TEST.sha256, TUNE.sha256): the halves
// may not change once methods are tried on them.
func TestBlindFrozen(t *testing.T) {
	for _, sums := range []string{"TEST.sha256", "TUNE.sha256"} {
		raw, err := os.ReadFile(filepath.Join("blind", sums))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			want, name, ok := strings.Cut(line, "  ")
			if !ok {
				t.Fatalf("%s: %q", sums, line)
			}
			b, err := os.ReadFile(filepath.Join("blind", name))
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprintf("%x", sha256.Sum256(b)); got != want {
				t.Errorf("%s: %s changed (sha256 %s, frozen as %s)", sums, name, got, want)
			}
			n++
		}
		if n == 0 {
			t.Errorf("%s lists no file", sums)
		}
	}
}

// TestBlindQuestionsRead reads every blind question file as Build does.
func TestBlindQuestionsRead(t *testing.T) {
	srcs, err := readBlindSources("blind")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, set := range srcs.Sets {
		qs, err := readQuestions(filepath.Join("blind", set.Name+".jsonl"), set)
		if err != nil {
			t.Fatal(err)
		}
		total += len(qs)
	}
	if total < 600 {
		t.Fatalf("%d questions, want at least 600", total)
	}
}
