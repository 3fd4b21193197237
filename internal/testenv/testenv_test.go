package testenv_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/reqa/reqa/internal/testenv"
)

// recorder is a testing.TB that records how Skip stopped it; like the real
// Fatalf and Skip, both end the calling goroutine.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, a ...any) {
	r.fatal = fmt.Sprintf(format, a...)
	runtime.Goexit()
}

func (r *recorder) Skip(a ...any) {
	r.skip = fmt.Sprint(a...)
	runtime.Goexit()
}

// skipped runs testenv.Skip on a recorder in its own goroutine.
func skipped(t *testing.T, format string, args ...any) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		testenv.Skip(r, format, args...)
	}()
	<-done
	return r
}

// TestSkip checks that Skip skips outside CI and fails under CI=true, with
// the reason in both messages.
func TestSkip(t *testing.T) {
	const reason = "tokenizer.json absent: run `make assets`"
	for _, tc := range []struct {
		ci   string
		inCI bool
	}{
		{"", false},
		{"false", false},
		{"1", false},
		{"true", true},
	} {
		t.Run("CI="+tc.ci, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			if got := testenv.InCI(); got != tc.inCI {
				t.Errorf("InCI() = %v, want %v", got, tc.inCI)
			}
			r := skipped(t, "tokenizer.json absent: run %s", "`make assets`")
			if tc.inCI {
				if r.skip != "" || !strings.HasPrefix(r.fatal, "CI=true: ") || !strings.HasSuffix(r.fatal, reason) {
					t.Errorf("fatal %q, skip %q; want a failure naming the reason", r.fatal, r.skip)
				}
			} else if r.fatal != "" || r.skip != reason {
				t.Errorf("fatal %q, skip %q; want a skip with the reason", r.fatal, r.skip)
			}
		})
	}
}
