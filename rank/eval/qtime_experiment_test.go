//go:build experiment

package eval

import (
	"github.com/reqa/reqa/rank"
	"os"
	"testing"
	"time"
)

// TestQuestionFlagsCost times reading every sentence's question flag from
// its text (REQA_QTIME_INDEX), what the first fusion of an embedded index
// pays once.
func TestQuestionFlagsCost(t *testing.T) {
	path := os.Getenv("REQA_QTIME_INDEX")
	if path == "" {
		// May skip in CI: an experiment (tag experiment) run by hand with REQA_QTIME_INDEX.
		t.Skip("set REQA_QTIME_INDEX to an index to time its question flags")
	}
	e, err := rank.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	start := time.Now()
	q := e.FusionCorpus().Question
	d := time.Since(start)
	n := 0
	for _, x := range q {
		if x {
			n++
		}
	}
	t.Logf("%s: %d sentences, %d questions, flags in %v (%.2f µs per sentence)", path, len(q), n, d, float64(d.Microseconds())/float64(len(q)))
}
