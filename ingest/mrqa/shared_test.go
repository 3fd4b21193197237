package mrqa_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/reqa/reqa/internal/testenv"
)

// sharedData returns a path under ../shared/data beside the repository
// root, skipping the test when it is absent (a fresh clone has no shared
// data).
func sharedData(t testing.TB, parts ...string) string {
	t.Helper()
	p, err := sharedPath(parts...)
	if err != nil {
		testenv.Skip(t, "shared data absent: %v", err)
	}
	return p
}

// sharedPath returns a path under ../shared/data, or an error when it is
// absent.
func sharedPath(parts ...string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", os.ErrNotExist
		}
		dir = up
	}
	p := filepath.Join(append([]string{dir, "..", "shared", "data"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return p, nil
}
