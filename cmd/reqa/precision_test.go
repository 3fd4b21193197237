package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexPrecision: `reqa index --precision` picks the embedded USE-Lite's
// weights (int8 by default), the index records it, and its questions are
// answered by the stored model; a bad precision, or one given with
// --model, is a usage error (exit 2) and writes nothing.
func TestIndexPrecision(t *testing.T) {
	requireDense(t)
	dir := t.TempDir()
	in := writeFile(t, dir, "notes.txt", "The ferry leaves at nine. It returns at noon.\n\nTickets cost five euros.\n")
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		stats string
	}{
		{"default", nil, 0, "int8"},
		{"fp32", []string{"--precision", "fp32"}, 0, "fp32"},
		{"int8", []string{"--precision", "int8"}, 0, "int8"},
		{"unknown", []string{"--precision", "fp16"}, 2, ""},
		{"with --model", []string{"--precision", "fp16", "--model", dir}, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			idx := filepath.Join(dir, tc.name+".reqa")
			args := append(append([]string{"index", "-q", "--out", idx}, tc.args...), in)
			code, _, errs := reqa(t, args...)
			if code != tc.code {
				t.Fatalf("index %v: exit %d, want %d: %s", tc.args, code, tc.code, errs)
			}
			_, out, _ := reqa(t, "stats", idx)
			if tc.code != 0 {
				if out != "" {
					t.Errorf("a refused build left an index: %s", out)
				}
				return
			}
			if !strings.Contains(out, "use-lite, "+tc.stats+",") {
				t.Errorf("stats does not show precision %s:\n%s", tc.stats, out)
			}
			if code, out, errs := reqa(t, "ask", "--index", idx, "-r", "dense", "--k", "1", "When does the ferry leave?"); code != 0 || !strings.Contains(out, "ferry leaves") {
				t.Errorf("ask: exit %d: %s %s", code, out, errs)
			}
		})
	}
}
