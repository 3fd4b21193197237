package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexOut: --out replaces only a reqa index or a missing path; a
// text file is refused unless --force, and an input never.
func TestIndexOut(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "a.txt", "The ferry leaves at nine. It returns at noon.\n")
	notes := writeFile(t, dir, "notes.txt", "my notes\n")
	cases := []struct {
		name string
		args []string
		code int
		keep string // a file that must be unchanged
	}{
		{"text file", []string{"index", "--dense=false", "--out", notes, in}, 1, notes},
		{"own input", []string{"index", "--dense=false", "--out", in, in}, 1, in},
		{"own input forced", []string{"index", "--dense=false", "--force", "--out", in, in}, 1, in},
		{"text file forced", []string{"index", "--dense=false", "--quiet", "--force", "--out", notes, in}, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var before []byte
			if c.keep != "" {
				before, _ = os.ReadFile(c.keep)
			}
			code, _, stderr := reqa(t, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d: %s", code, c.code, stderr)
			}
			if c.keep != "" {
				if after, _ := os.ReadFile(c.keep); string(after) != string(before) {
					t.Fatalf("%s changed", c.keep)
				}
			}
		})
	}
}

// TestIndexDirectoryReport: a directory of mixed files says how many of
// each kind were read, skipped or refused, and skips a link out of the tree.
func TestIndexDirectoryReport(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	if err := os.Mkdir(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, docs, "a.txt", "The ferry leaves at nine.\n")
	writeFile(t, docs, "b.md", "# Ferry\n\nIt returns at noon.\n")
	writeFile(t, docs, "c.bin", "\x00\x01\x02")
	secret := writeFile(t, dir, "secret.txt", "The password is swordfish.\n")
	if err := os.Symlink(secret, filepath.Join(docs, "link.txt")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "x.reqa")
	code, _, stderr := reqa(t, "index", "--dense=false", "--out", out, docs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "files:") || !strings.Contains(stderr, "md 1 read") {
		t.Errorf("no per-kind summary: %s", stderr)
	}
	if !strings.Contains(stderr, "link.txt") {
		t.Errorf("the link out of the tree was not named: %s", stderr)
	}
	code, stdout, _ := reqa(t, "ask", "--index", out, "--ranker", "bm25-word", "password")
	if code != 0 || strings.Contains(stdout, "swordfish") {
		t.Errorf("the linked file was indexed: %s", stdout)
	}
}
