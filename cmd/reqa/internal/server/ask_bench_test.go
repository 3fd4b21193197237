package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/reqa/reqa/rank"
)

// benchQuestions are the SQuAD-style questions of cmd/reqa/testdata/wrk-questions.lua.
var benchQuestions = []string{"Which NFL team represented the AFC at Super Bowl 50?", "Where did Super Bowl 50 take place?",
	"What is the capital of Poland?", "Who was the first emperor of the Mongol empire?", "What causes the immune system to react?",
	"When did the oil crisis begin?", "What is packet switching?", "Who founded the University of Chicago?"}

// specRanker chooses rankers as `reqa serve` does (the ranker's name
// parsed as a spec, "" for the index's default).
func specRanker(e *rank.Index, name string, opt rank.DenseOptions) (rank.Ranker, error) {
	spec, err := rank.ParseSpec(name)
	if err != nil {
		return nil, err
	}
	spec.Dense = opt
	return e.Resolve(spec)
}

// BenchmarkServeAsk answers GET /v1/ask through the server's handler (no
// network) on the index named by $REQA_SERVE_BENCH_INDEX (the SQuAD index
// with embeddings and its tuned fusion, see BENCHMARKS.md), every question
// distinct (so every request pays its question embedding), on GOMAXPROCS
// goroutines; $REQA_SERVE_BENCH_RANKERS lists the rankers ("" default).
// Profile with -cpuprofile.
//
//	REQA_SERVE_BENCH_INDEX=/tmp/squad.reqa go test -run '^$' -bench 'ServeAsk/default' -benchtime 2000x ./cmd/reqa/internal/server/
func BenchmarkServeAsk(b *testing.B) {
	idx := os.Getenv("REQA_SERVE_BENCH_INDEX")
	if idx == "" {
		// May skip in CI: an opt-in benchmark over a large index.
		b.Skip("set REQA_SERVE_BENCH_INDEX to an index with embeddings")
	}
	s := newServer(b, idx, Options{Ranker: specRanker})
	h := s.Handler()
	for _, name := range []string{"default", "bm25-wpm", "dense"} {
		r := name
		if r == "default" {
			r = ""
		}
		b.Run(name, func(b *testing.B) {
			var n atomic.Int64
			ask := func() int {
				i := n.Add(1)
				q := fmt.Sprintf("%s %d", benchQuestions[int(i)%len(benchQuestions)], i)
				req := httptest.NewRequest(http.MethodGet, "/v1/ask?k=5&ranker="+url.QueryEscape(r)+"&q="+url.QueryEscape(q), nil)
				req.Host = "127.0.0.1"
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				return w.Code
			}
			if c := ask(); c != http.StatusOK { // load the ranker
				b.Fatalf("status %d", c)
			}
			c0 := cpuTime()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if c := ask(); c != http.StatusOK {
						b.Errorf("status %d", c)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
			// CPU per request is the figure a loaded machine does not skew.
			b.ReportMetric((cpuTime()-c0).Seconds()*1e3/float64(b.N), "cpu-ms/req")
		})
	}
}

// cpuTime is this process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
