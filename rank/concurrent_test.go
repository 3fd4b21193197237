package rank_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/fuse"
)

// concurrentRanker builds one way of asking on engine e.
type concurrentRanker struct {
	name  string
	dense bool
	build func(e *rank.Index) (rank.Ranker, error)
}

func concurrentRankers() []concurrentRanker {
	bm := func(name string, withContext bool) func(e *rank.Index) (rank.Ranker, error) {
		return func(e *rank.Index) (rank.Ranker, error) {
			s, err := rank.ParseSpec(name)
			if err != nil {
				return nil, err
			}
			s.SentenceOnly = !withContext
			return e.Resolve(s)
		}
	}
	fused := func(p fuse.Params) func(e *rank.Index) (rank.Ranker, error) {
		return func(e *rank.Index) (rank.Ranker, error) { return e.Fused(p, rank.Spec{}) }
	}
	in := rank.DefaultFusionInputs
	return []concurrentRanker{
		{"bm25-word", false, bm("bm25-word", true)},
		{"bm25-wpm", false, bm("bm25-wpm", true)},
		{"bm25-word/sent", false, bm("bm25-word", false)},
		{"bm25-wpm/sent", false, bm("bm25-wpm", false)},
		{"dense", true, bm("dense", true)},
		{"dense/sent", true, bm("dense", false)},
		{"dense λ=0.5", true, func(e *rank.Index) (rank.Ranker, error) {
			return e.DenseRanker(rank.Spec{Dense: rank.DenseOptions{Lambda: 0.5, LambdaSet: true}})
		}},
		{"dense-ann", true, func(e *rank.Index) (rank.Ranker, error) {
			return e.DenseRanker(rank.Spec{Dense: rank.DenseOptions{ANN: true}})
		}},
		{"fusion-rrf", true, fused(rank.DefaultRRF())},
		{"fusion-zscore", true, fused(rank.DefaultFusion())},
		{"fusion-minmax", true, fused(fuse.Params{Name: "fusion-minmax", Method: "minmax", Inputs: in, Weights: []float64{0.3, 0.3, 0.4}})},
		{"fusion-adaptive", true, fused(fuse.Params{Name: "fusion-adaptive", Method: "adaptive", Inputs: in,
			Bounds: []float64{0.5}, BucketWeights: [][]float64{{0.2, 0.2, 0.6}, {0.5, 0.3, 0.2}}})},
		{"fusion-learned", true, fused(fuse.Params{Name: "fusion-learned", Method: "learned", Inputs: in, Weights: []float64{1, 0.1, 1, 0.1, 2, 0.5}})},
		{"fusion of derived inputs", true, fused(fuse.Params{Name: "fusion-derived", Method: "zscore",
			Inputs: []string{"ctxmax:bm25-wpm", "ctxrel:dense", "bm25-word/sent"}, Weights: []float64{0.4, 0.4, 0.2}})},
	}
}

// TestConcurrentQueries has 32 goroutines ask one open index through every
// ranker at once — building their rankers concurrently on a cold engine, so
// the lazy loading of postings, embeddings, the encoder and the ANN graph
// races too — and checks every answer against the one given alone on a
// separate engine. Run it under the race detector (REQA_LONG=1: 5 rounds):
//
//	go test -race -run ConcurrentQueries ./rank
func TestConcurrentQueries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.reqa")
	dense := buildTestIndex(t, path)
	var rankers []concurrentRanker
	for _, r := range concurrentRankers() {
		if r.dense && !dense {
			continue
		}
		rankers = append(rankers, r)
	}
	questions := []string{
		"Who kept the Bell Rock light?",
		"How many bees live in a hive?",
		"What do suspension bridges hang from?",
		"ants colonies",
		"zyzzyva qwerty", // matches nothing
	}
	// Answers given alone, on their own engine.
	want := map[string][]rank.Answer{}
	{
		e, err := rank.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, cr := range rankers {
			r, err := cr.build(e)
			if err != nil {
				t.Fatalf("%s: %v", cr.name, err)
			}
			for _, q := range questions {
				a, err := e.Ask(context.Background(), r, q, 3)
				if err != nil {
					t.Fatalf("%s %q: %v", cr.name, q, err)
				}
				want[cr.name+"\x00"+q] = a
			}
		}
		e.Close()
	}

	e, err := rank.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	const workers = 32
	rounds := 1
	if os.Getenv("REQA_LONG") != "" {
		rounds = 5
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers*len(rankers)*len(questions)*rounds)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					errs <- fmt.Errorf("worker %d: panic: %v", w, p)
				}
			}()
			built := make([]rank.Ranker, len(rankers))
			for round := range rounds {
				for i := range rankers {
					// Each worker walks the rankers from its own offset.
					cr := rankers[(i+w)%len(rankers)]
					k := (i + w) % len(rankers)
					if built[k] == nil {
						r, err := cr.build(e)
						if err != nil {
							errs <- fmt.Errorf("worker %d: %s: %v", w, cr.name, err)
							return
						}
						built[k] = r
					}
					for j := range questions {
						q := questions[(j+w+round)%len(questions)]
						got, err := e.Ask(context.Background(), built[k], q, 3)
						if err != nil {
							errs <- fmt.Errorf("worker %d: %s %q: %v", w, cr.name, q, err)
							continue
						}
						if !reflect.DeepEqual(got, want[cr.name+"\x00"+q]) {
							errs <- fmt.Errorf("worker %d: %s %q: answered differently under load:\n got %+v\nwant %+v", w, cr.name, q, got, want[cr.name+"\x00"+q])
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		if n++; n <= 10 {
			t.Error(err)
		}
	}
	if n > 10 {
		t.Errorf("… and %d more", n-10)
	}
	t.Logf("%d goroutines × %d rankers × %d questions × %d rounds", workers, len(rankers), len(questions), rounds)
}
