package main

import (
	"strings"
	"testing"
)

// TestTuneFlagErrors checks that bad flags are usage errors (exit 2)
// before any file is touched.
func TestTuneFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no dataset", []string{"--index", "x.reqa"}},
		{"bad kind", []string{"--index", "x.reqa", "--kind", "deep", "dir"}},
		{"zero epochs", []string{"--index", "x.reqa", "--epochs", "0", "dir"}},
		{"tiny batch", []string{"--index", "x.reqa", "--batch", "1", "dir"}},
		{"bad temperature", []string{"--index", "x.reqa", "--temperature", "0", "dir"}},
		{"bad val fraction", []string{"--index", "x.reqa", "--val-fraction", "1", "dir"}},
		{"self with dataset", []string{"--index", "x.reqa", "--self", "dir"}},
		{"self with pairs", []string{"--index", "x.reqa", "--self", "--pairs", "p.jsonl"}},
		{"self with split", []string{"--index", "x.reqa", "--self", "--split", "all"}},
		{"self kinds without self", []string{"--index", "x.reqa", "--self-kinds", "cloze", "dir"}},
		{"self max zero", []string{"--index", "x.reqa", "--self", "--self-max", "0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut strings.Builder
			if code := run(append([]string{"reqa", "tune"}, tc.args...), &out, &errOut); code != 2 {
				t.Fatalf("exit %d, want 2; stderr: %s", code, errOut.String())
			}
		})
	}
}
