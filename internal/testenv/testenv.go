package testenv

import (
	"fmt"
	"os"
	"testing"
)

// InCI reports whether the tests run in CI: the environment variable CI is
// "true" (as .ci/run's machines set it).
func InCI() bool { return os.Getenv("CI") == "true" }

// Skip stops tb because a prerequisite is missing; format and args say which
// and how to get it (e.g. "tokenizer.json absent: run `make assets`"). It
// skips tb, or under CI=true fails it with the same reason.
func Skip(tb testing.TB, format string, args ...any) {
	tb.Helper()
	reason := fmt.Sprintf(format, args...)
	if InCI() {
		tb.Fatalf("CI=true: a prerequisite of this test is missing, and in CI it is required here: %s", reason)
	}
	tb.Skip(reason)
}
