package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// blindRounds are the blind benchmark's rounds as committed: round 1
// (blind/, both halves) and round 2 (blind2/, tune only), with the fewest
// documents each has and which halves it must have.
var blindRounds = []struct {
	dir    string
	sets   int
	halves []string
	sums   []string // files of frozen checksums
}{
	{"blind", 15, []string{"tune", "test"}, []string{"TEST.sha256", "TUNE.sha256"}},
	{"blind2", 12, []string{"tune"}, []string{"TUNE.sha256"}},
}

// TestReadBlindSources reads each round's SOURCES.tsv and split.json as
// committed: one set per document, each in one half, the halves the round
// has.
func TestReadBlindSources(t *testing.T) {
	for _, round := range blindRounds {
		t.Run(round.dir, func(t *testing.T) {
			srcs, err := readBlindSources(round.dir)
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
			if len(srcs.Sets) < round.sets || len(halves) != len(round.halves) {
				t.Fatalf("%d sets, halves %v", len(srcs.Sets), halves)
			}
			for _, h := range round.halves {
				if halves[h] == 0 {
					t.Errorf("no document in the %s half", h)
				}
			}
		})
	}
}

// TestBlindFrozen checks each round's questions against the checksums they
// were frozen with: a half may not change once methods are tried on it,
// and every question file of the round is pinned.
func TestBlindFrozen(t *testing.T) {
	for _, round := range blindRounds {
		t.Run(round.dir, func(t *testing.T) {
			pinned := map[string]bool{}
			for _, sums := range round.sums {
				raw, err := os.ReadFile(filepath.Join(round.dir, sums))
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
					want, name, ok := strings.Cut(line, "  ")
					if !ok {
						t.Fatalf("%s: %q", sums, line)
					}
					b, err := os.ReadFile(filepath.Join(round.dir, name))
					if err != nil {
						t.Fatal(err)
					}
					if got := fmt.Sprintf("%x", sha256.Sum256(b)); got != want {
						t.Errorf("%s: %s changed (sha256 %s, frozen as %s)", sums, name, got, want)
					}
					pinned[name] = true
					n++
				}
				if n == 0 {
					t.Errorf("%s lists no file", sums)
				}
			}
			files, err := filepath.Glob(filepath.Join(round.dir, "*.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if !pinned[filepath.Base(f)] {
					t.Errorf("%s is in no checksum file", f)
				}
			}
		})
	}
}
