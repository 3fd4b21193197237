package main

import (
	"strings"
	"testing"
)

func TestDemo(t *testing.T) {
	code, out, errs := reqa(t, "demo")
	if code != 0 || !strings.Contains(out, "Q: Where does the whole index live?") || !strings.Contains(out, "bbolt file") {
		t.Fatalf("demo: exit %d: %s\n%s", code, errs, out)
	}
}
