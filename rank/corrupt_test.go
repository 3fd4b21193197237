package rank_test

import (
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
)

// TestDamagedIndexNeverPanics flips random bytes of a real index file and
// checks that opening and querying it, as serve does and as ask does,
// either answers as the undamaged index does or fails with an error:
// never a panic, never another answer.
func TestDamagedIndexNeverPanics(t *testing.T) {
	c, err := ingest.ReadInputs([]string{"../ingest/testdata/corpus"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.reqa")
	if _, err := index.Build(context.Background(), c, good, index.Options{Tokenizers: []string{"word"}}); err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	trials := 300
	if testing.Short() {
		trials = 30
	}
	if n, err := strconv.Atoi(os.Getenv("REQA_FLIP_TRIALS")); err == nil && n > 0 {
		trials = n
	}
	// Opened as serve and eval open (every term dictionary verified) and
	// as ask does (FastStart: checked by its term filter, the whole
	// dictionary only when a lookup misses a term the filter holds).
	for _, mode := range []struct {
		name string
		opt  rank.OpenOptions
	}{{"verified at open", rank.OpenOptions{}}, {"fast start", rank.OpenOptions{FastStart: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			ask := func(p string) ([]rank.Answer, error) {
				return askWord(p, mode.opt, "Who kept the Bell Rock light?")
			}
			want, err := ask(good)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewSource(1))
			errorsSeen, verifiedOK := 0, 0
			for i := 0; i < trials; i++ {
				b := append([]byte(nil), orig...)
				for j := 0; j < 1+rng.Intn(8); j++ {
					b[rng.Intn(len(b))] ^= byte(1 + rng.Intn(255))
				}
				p := filepath.Join(dir, "bad.reqa")
				os.WriteFile(p, b, 0o644)
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("trial %d: panic on a damaged index: %v", i, r)
						}
					}()
					got, err := ask(p)
					// Verify reads everything: when it finds nothing
					// wrong, the index must answer exactly as before.
					rep, verr := index.Verify(p, index.VerifyOptions{Fusions: rank.CheckFusions})
					if verr == nil && rep.OK() {
						verifiedOK++
						if err != nil || !reflect.DeepEqual(got, want) {
							t.Errorf("trial %d: verify found nothing, but ask gave %v / %+v", i, err, got)
						}
					}
					if err != nil {
						errorsSeen++
						return
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("trial %d: a damaged index answered differently without an error:\n got %+v\nwant %+v", i, got, want)
					}
				}()
			}
			t.Logf("%d trials, %d reported an error, none panicked or answered wrongly; verify passed %d (all answering as before) and flagged the rest", trials, errorsSeen, verifiedOK)
		})
	}
}
