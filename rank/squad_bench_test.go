package rank_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/internal/testenv"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/eval"
)

const squadDir = "../../shared/data/squad-multireqa-test"

var (
	squadOnce  sync.Once
	squadIndex string
	squadData  *ingest.Dataset
	squadErr   error
)

// squad builds (once per test binary) an index of the shared SQuAD set.
func squad(tb testing.TB) (string, *ingest.Dataset) {
	tb.Helper()
	if _, err := os.Stat(squadDir); err != nil {
		testenv.Skip(tb, "SQuAD MultiReQA set not present at %s (../shared is only on development and CI machines)", squadDir)
	}
	squadOnce.Do(func() {
		squadData, squadErr = ingest.ReadDataset(squadDir)
		if squadErr != nil {
			return
		}
		dir, err := os.MkdirTemp("", "reqa-squad-bench-*")
		if err != nil {
			squadErr = err
			return
		}
		squadIndex = filepath.Join(dir, "squad.reqa")
		_, squadErr = index.Build(context.Background(), squadData.Corpus, squadIndex, index.Options{})
	})
	if squadErr != nil {
		tb.Fatal(squadErr)
	}
	return squadIndex, squadData
}

// BenchmarkSQuADBuild measures building the whole SQuAD index (both
// tokenizers, both document forms).
func BenchmarkSQuADBuild(b *testing.B) {
	if _, err := os.Stat(squadDir); err != nil {
		testenv.Skip(b, "SQuAD MultiReQA set not present at %s", squadDir)
	}
	d, err := ingest.ReadDataset(squadDir)
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "squad.reqa")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := index.Build(context.Background(), d.Corpus, out, index.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(d.Corpus.Sentences)*b.N)/b.Elapsed().Seconds(), "sentences/s")
	if st, err := os.Stat(out); err == nil {
		b.ReportMetric(float64(st.Size())/1e6, "index-MB")
	}
}

// BenchmarkSQuADQuery measures single-question latency (tokenize, score all
// candidates, top 10) for each BM25 ranker on the SQuAD index.
func BenchmarkSQuADQuery(b *testing.B) {
	path, d := squad(b)
	e, err := rank.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	for _, name := range []string{"bm25-word", "bm25-wpm"} {
		b.Run(name, func(b *testing.B) {
			r, err := e.Ranker(name)
			if err != nil {
				b.Fatal(err)
			}
			acc := rank.NewScores(r.Docs())
			// Warm the postings cache, as a running server would be.
			for _, q := range d.Questions {
				acc.Reset()
				r.(rank.Scorer).ScoreAll(context.Background(), q.Text, acc)
			}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				q := d.Questions[i%len(d.Questions)]
				t0 := time.Now()
				acc.Reset()
				if err := r.(rank.Scorer).ScoreAll(context.Background(), q.Text, acc); err != nil {
					b.Fatal(err)
				}
				acc.TopK(10)
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// BenchmarkSQuADEval measures evaluating every question with one ranker
// (parallel over GOMAXPROCS workers), index already built.
func BenchmarkSQuADEval(b *testing.B) {
	path, d := squad(b)
	e, err := rank.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	qs := make([]eval.Question, len(d.Questions))
	for i, q := range d.Questions {
		qs[i] = eval.Question{ID: q.ID, Text: q.Text}
		for _, g := range q.Gold {
			id, _ := e.SentenceByExtID(g)
			qs[i].Gold = append(qs[i].Gold, id)
		}
	}
	for _, name := range []string{"bm25-word", "bm25-wpm"} {
		b.Run(name, func(b *testing.B) {
			r, _ := e.Ranker(name)
			var res eval.Result
			for i := 0; i < b.N; i++ {
				rs, err := eval.Run(context.Background(), r, qs, 0, nil)
				if err != nil {
					b.Fatal(err)
				}
				res = eval.Summarize(name, qs, rs)
			}
			b.ReportMetric(float64(len(qs)*b.N)/b.Elapsed().Seconds(), "questions/s")
			b.ReportMetric(res.PAt1, "P@1")
			b.ReportMetric(res.MRR, "MRR")
		})
	}
}
