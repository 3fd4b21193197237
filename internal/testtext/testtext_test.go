package testtext

import (
	"strings"
	"testing"
)

func TestBigLine(t *testing.T) {
	a, b := BigLine(10000), BigLine(10000)
	if a != b {
		t.Fatal("not the same for the same n")
	}
	if len(a) < 10000 || len(a) > 10300 || strings.ContainsRune(a, '\n') || strings.Count(a, ". ") < 50 {
		t.Fatalf("%d bytes, %d sentences", len(a), strings.Count(a, ". "))
	}
}
