package rank_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/reqa/reqa/rank"
)

// TestVectorCacheAnswers asks the same questions of an index opened with
// its answer vectors in place and read through caches (two rows, 32, all):
// every ranker that reads them (vectorRankers) gives the same answers and
// scores to the bit, also asked from several goroutines at once (run with
// -race: the two-row cache replaces rows under concurrent readers).
func TestVectorCacheAnswers(t *testing.T) {
	requireDense(t)
	path := filepath.Join(t.TempDir(), "t.reqa")
	buildTestIndexDense(t, path, true)
	questions := []string{"Who kept the Bell Rock light?", "How do arch bridges carry loads?", "What do bees make?", "Where do ants live?", "What is a lighthouse?", "Why do bridges sway?"}
	ask := func(o rank.OpenOptions, s rank.Spec, goroutines int) [][]rank.Answer {
		e, r := openResolved(t, path, o, s)
		out := make([][]rank.Answer, len(questions)*goroutines)
		errs := make([]error, len(out))
		var wg sync.WaitGroup
		for g := range goroutines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i, q := range questions {
					j := g*len(questions) + i
					out[j], errs[j] = e.Ask(context.Background(), r, q, 5)
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	for name, s := range vectorRankers {
		want := ask(rank.OpenOptions{}, s, 1)
		for _, cache := range []int64{1, 64 << 10, rank.DefaultVectorCache} {
			got := ask(rank.OpenOptions{VectorCache: cache}, s, 4)
			for j := range got {
				if w := want[j%len(questions)]; !reflect.DeepEqual(got[j], w) {
					t.Fatalf("%s, cache of %d bytes, %q: %s", name, cache, questions[j%len(questions)], diffAnswers(got[j], w))
				}
			}
		}
	}
}

func diffAnswers(got, want []rank.Answer) string {
	s := ""
	for i := range max(len(got), len(want)) {
		var g, w rank.Answer
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		s += fmt.Sprintf("\n  %d: sentence %d score %v, in place %d %v", i+1, g.SentenceID, g.Score, w.SentenceID, w.Score)
	}
	return s
}
