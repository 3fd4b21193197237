package mrqa_test

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedData returns ../shared/data beside the repository root, skipping
// the test when it is absent (a fresh clone has no shared data).
func sharedData(t testing.TB, parts ...string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Skip("repository root not found")
		}
		dir = up
	}
	p := filepath.Join(append([]string{dir, "..", "shared", "data"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared data absent (%s): %v", p, err)
	}
	return p
}
