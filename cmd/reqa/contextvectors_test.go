package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexContextVectors: a new index makes its context vectors from its
// sentences' (weighted by what the model reads of the context) unless
// --context-vectors model asks for the encoder's, and says which in stats;
// an append keeps the index's way and refuses the other.
func TestIndexContextVectors(t *testing.T) {
	requireDense(t)
	dir := t.TempDir()
	in := writeFile(t, dir, "notes.txt", "The ferry leaves at nine. It returns at noon.\n\nTickets cost five euros. Children travel free.\n")
	more := writeFile(t, dir, "more.txt", "The harbour closes in storms. Ferries then wait offshore.\n")
	for _, tc := range []struct {
		name    string
		args    []string
		stats   string // in stats' dense line; "" for none
		refused string // the --context-vectors an append refuses
	}{
		{"default", nil, "context vectors: sentences-window", "model"},
		{"sentences", []string{"--context-vectors", "sentences"}, "context vectors: sentences-window", "model"},
		{"model", []string{"--context-vectors", "model"}, "", "sentences"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			idx := filepath.Join(dir, tc.name+".reqa")
			args := append(append([]string{"index", "-q", "--out", idx}, tc.args...), in)
			if code, _, errs := reqa(t, args...); code != 0 {
				t.Fatalf("index %v: exit %d: %s", tc.args, code, errs)
			}
			_, out, _ := reqa(t, "stats", idx)
			if got := strings.Contains(out, "context vectors:"); tc.stats == "" && got || tc.stats != "" && !strings.Contains(out, tc.stats) {
				t.Errorf("stats, want %q:\n%s", tc.stats, out)
			}
			if code, _, errs := reqa(t, "index", "-q", "--append", "--out", idx, "--context-vectors", tc.refused, more); code != 2 {
				t.Errorf("append asking for %s context vectors: exit %d, want 2: %s", tc.refused, code, errs)
			}
			if code, _, errs := reqa(t, "index", "-q", "--append", "--out", idx, more); code != 0 {
				t.Fatalf("append: exit %d: %s", code, errs)
			}
			_, after, _ := reqa(t, "stats", idx)
			if got := strings.Contains(after, "context vectors:"); got != (tc.stats != "") || tc.stats != "" && !strings.Contains(after, tc.stats) {
				t.Errorf("after an append, stats, want %q:\n%s", tc.stats, after)
			}
		})
	}
}
