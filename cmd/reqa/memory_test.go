package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{{"8G", 8 << 30}, {"512M", 512 << 20}, {"1.5g", 3 << 29}, {"100", 100}, {"64KiB", 64 << 10}, {"2TB", 2 << 40}} {
		if got, err := parseSize(c.in); err != nil || got != c.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "G", "-1G", "lots", "0"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q): no error", bad)
		}
	}
}

// TestMemoryLimit: a build estimated to exceed --memory-limit is refused
// before anything is written, with a message that says how to proceed;
// "off" builds anyway; a bad limit is a usage error.
func TestMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "notes.txt", "The ferry leaves at nine. It returns at noon.\n\nTickets cost five euros.\n")
	idx := filepath.Join(dir, "n.reqa")
	code, _, errs := reqa(t, "index", "--quiet", "--dense=false", "--memory-limit", "1M", "--out", idx, in)
	if code != 1 || !strings.Contains(errs, "needs about") || !strings.Contains(errs, "--append") {
		t.Fatalf("over the limit: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(idx); !os.IsNotExist(err) {
		t.Fatalf("a refused build wrote %s", idx)
	}
	if code, _, errs := reqa(t, "index", "--quiet", "--dense=false", "--memory-limit", "off", "--out", idx, in); code != 0 {
		t.Fatalf("--memory-limit off: exit %d: %s", code, errs)
	}
	if code, _, errs := reqa(t, "index", "--quiet", "--memory-limit", "2G", "--append", "--out", idx, in); code != 0 {
		t.Fatalf("append within the limit: exit %d: %s", code, errs)
	}
	if code, _, errs := reqa(t, "index", "--quiet", "--memory-limit", "1M", "--append", "--out", idx, in); code != 1 || !strings.Contains(errs, "needs about") {
		t.Fatalf("append over the limit: exit %d: %s", code, errs)
	}
	if code, _, _ := reqa(t, "index", "--quiet", "--memory-limit", "lots", "--out", idx, in); code != 2 {
		t.Fatalf("bad --memory-limit: exit %d, want 2", code)
	}
}
