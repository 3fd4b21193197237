//go:build experiment

package rank_test

import (
	"context"
	"encoding/gob"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reqa/reqa/index/ann"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/eval"
	"github.com/reqa/reqa/rank/fuse"
)

// experiment opens the SQuAD index named by REQA_SQUAD_INDEX (built with
// embeddings from the SQuAD set) and returns it with the questions of each
// split. Question embeddings are cached in REQA_QVEC_CACHE when set.
func experiment(t testing.TB) (*rank.Index, map[string][]eval.Question) {
	path := os.Getenv("REQA_SQUAD_INDEX")
	if path == "" {
		// May skip in CI: an experiment (tag experiment) run by hand with REQA_SQUAD_INDEX.
		t.Skip("set REQA_SQUAD_INDEX to a SQuAD index with embeddings to run the experiments")
	}
	d, err := ingest.ReadDataset(squadDir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := rank.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	splits := map[string][]eval.Question{}
	for _, split := range []string{"all", "tune", "test"} {
		qs, _ := d.SplitQuestions(split)
		out := make([]eval.Question, len(qs))
		for i, q := range qs {
			out[i] = eval.Question{ID: q.ID, Text: q.Text}
			for _, g := range q.Gold {
				id, _ := e.SentenceByExtID(g)
				out[i].Gold = append(out[i].Gold, id)
			}
		}
		splits[split] = out
	}
	dr, err := e.DenseRanker(rank.Spec{Dense: rank.DenseOptions{NoAdapter: true}})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, q := range splits["all"] {
		texts = append(texts, q.Text)
	}
	cache := os.Getenv("REQA_QVEC_CACHE")
	var vecs [][]float32
	if f, err := os.Open(cache); cache != "" && err == nil {
		err = gob.NewDecoder(f).Decode(&vecs)
		f.Close()
		if err != nil || len(vecs) != len(texts) {
			vecs = nil
		}
	}
	if vecs == nil {
		t0 := time.Now()
		if err := dr.Prepare(context.Background(), texts, nil); err != nil {
			t.Fatal(err)
		}
		t.Logf("embedded %d questions in %v", len(texts), time.Since(t0))
		for _, q := range texts {
			v, _ := dr.QuestionVector(context.Background(), q)
			vecs = append(vecs, v)
		}
		if cache != "" {
			if f, err := os.Create(cache); err == nil {
				gob.NewEncoder(f).Encode(vecs)
				f.Close()
			}
		}
	} else {
		dr.SetQuestionVectors(texts, vecs)
	}
	return e, splits
}

// TestLambdaSweep reports dense P@1/MRR for several context weights λ.
func TestLambdaSweep(t *testing.T) {
	e, splits := experiment(t)
	for _, l := range []float64{0, 0.25, 0.5, 0.75, 1, 1.5, 2} {
		dr, err := e.DenseRanker(rank.Spec{Dense: rank.DenseOptions{Lambda: l, LambdaSet: true}})
		if err != nil {
			t.Fatal(err)
		}
		line := ""
		for _, split := range []string{"all", "tune", "test"} {
			rs, err := eval.Run(context.Background(), dr, splits[split], 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			res := eval.Summarize("dense", splits[split], rs)
			line += "  " + split + ": P@1 " + f2(res.PAt1) + " MRR " + f2(res.MRR)
		}
		t.Logf("λ=%-4v%s", l, line)
	}
}

func f2(x float64) string { return strings.TrimRight(strings.TrimRight(fmtF(x), "0"), ".") }

func fmtF(x float64) string { return strconvF(x) }

// TestFusionExperiment tunes fusions on the SQuAD tune half and reports
// them on the test half.
func TestFusionExperiment(t *testing.T) {
	e, splits := experiment(t)
	ctx := context.Background()
	sets := [][]string{
		{"bm25-wpm", "dense"},
		{"bm25-wpm", "bm25-word", "dense"},
		{"bm25-wpm", "bm25-wpm/sent", "dense", "dense/sent"},
		{"bm25-wpm", "bm25-wpm/sent", "bm25-word", "bm25-word/sent", "dense", "dense/sent"},
	}
	if s := os.Getenv("REQA_FUSION_SETS"); s != "" {
		sets = nil
		for _, x := range strings.Split(s, ";") {
			sets = append(sets, strings.Split(x, ","))
		}
	}
	for _, inputs := range sets {
		t0 := time.Now()
		res, err := eval.TuneFusions(ctx, e, []string{"zscore", "adaptive", "learned"}, inputs, splits["tune"], rank.Spec{}, "squad tune")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("tuned %v in %v", inputs, time.Since(t0))
		for _, r := range res {
			fr, err := e.Fused(r.Params, rank.Spec{})
			if err != nil {
				t.Fatal(err)
			}
			out, err := eval.Run(ctx, fr, splits["test"], 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			s := eval.Summarize(r.Params.Name, splits["test"], out)
			t.Logf("  %-16s tune P@1 %.2f → test P@1 %.2f MRR %.2f  %v", r.Params.Name, r.Params.TuneP1, s.PAt1, s.MRR, describe(r.Params))
		}
	}
}

func describe(p fuse.Params) any {
	if p.Method == "adaptive" {
		return p.BucketWeights
	}
	return p.Weights
}

func strconvF(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

// TestANNSQuAD measures the HNSW graph against exact search on the real
// SQuAD answer vectors (λ = the index's), SQuAD questions as queries.
func TestANNSQuAD(t *testing.T) {
	e, splits := experiment(t)
	dr, err := e.DenseRanker(rank.Spec{Dense: rank.DenseOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	vecs, err := dr.AnswerVectors()
	if err != nil {
		t.Fatal(err)
	}
	var qs [][]float32
	for _, q := range splits["all"] {
		v, _ := dr.QuestionVector(context.Background(), q.Text)
		qs = append(qs, v)
	}
	for _, m := range []int{16, 32} {
		t0 := time.Now()
		g := ann.New(vecs.Dim, ann.Config{M: m, Seed: 1})
		g.Grow(vecs.Len())
		for i := 0; i < vecs.Len(); i++ {
			g.Add(vecs.Row(i))
		}
		build := time.Since(t0)
		for _, ef := range []int{16, 32, 64, 128, 256} {
			var hit, total int
			lat := make([]time.Duration, 0, len(qs))
			for _, q := range qs {
				exact := ann.Exact(vecs.Data, vecs.Dim, q, 10)
				t1 := time.Now()
				got := g.Search(q, 10, ef)
				lat = append(lat, time.Since(t1))
				in := map[uint32]bool{}
				for _, r := range got {
					in[r.ID] = true
				}
				for _, r := range exact {
					if in[r.ID] {
						hit++
					}
				}
				total += len(exact)
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			t.Logf("M=%d ef=%d: recall@10 %.4f  p50 %v  p99 %v  (build %v for %d vectors)", m, ef, float64(hit)/float64(total), lat[len(lat)/2], lat[len(lat)*99/100], build.Round(time.Millisecond), vecs.Len())
		}
	}
	// Exact search latency for comparison.
	lat := make([]time.Duration, 0, len(qs))
	for _, q := range qs {
		t1 := time.Now()
		ann.Exact(vecs.Data, vecs.Dim, q, 10)
		lat = append(lat, time.Since(t1))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	t.Logf("exact: p50 %v  p99 %v", lat[len(lat)/2], lat[len(lat)*99/100])
}

// BenchmarkFusionOverhead measures what fusion adds to a question's latency
// over running its input rankers: REQA_SQUAD_INDEX=… REQA_QVEC_CACHE=…
// go test -run '^$' -bench FusionOverhead ./rank (question embeddings
// cached, so the overhead is measured against scoring alone — the
// conservative case).
func BenchmarkFusionOverhead(b *testing.B) {
	e, splits := experiment(b)
	p := fuse.Params{Name: "fusion-zscore", Method: "zscore", Inputs: rank.DefaultFusionInputs, Weights: []float64{0.45, 0.1, 0.45}}
	if name := os.Getenv("REQA_FUSION_BENCH"); name != "" { // a fusion stored in the index, e.g. fusion-rerank
		stored, err := e.StoredFusions()
		if err != nil {
			b.Fatal(err)
		}
		found := false
		for _, sp := range stored {
			if sp.Name == name {
				p, found = sp, true
			}
		}
		if !found {
			b.Fatalf("index has no fusion %s", name)
		}
	}
	fr, err := fusedRanker(e, p)
	if err != nil {
		b.Fatal(err)
	}
	qs := splits["test"]
	acc := rank.NewScores(fr.Docs())
	var inputs, fused time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := qs[i%len(qs)].Text
		t0 := time.Now()
		for _, r := range fr.Inputs() {
			acc.Reset()
			r.(rank.Scorer).ScoreAll(context.Background(), q, acc)
			acc.TopK(5) // what answering with this ranker alone costs
		}
		t1 := time.Now()
		acc.Reset()
		fr.ScoreAll(context.Background(), q, acc)
		acc.TopK(5)
		t2 := time.Now()
		inputs += t1.Sub(t0)
		fused += t2.Sub(t1)
	}
	b.ReportMetric(float64(inputs.Microseconds())/float64(b.N), "inputs-µs/q")
	b.ReportMetric(float64(fused.Microseconds())/float64(b.N), "fused-µs/q")
	b.ReportMetric(100*(fused.Seconds()-inputs.Seconds())/inputs.Seconds(), "overhead-%")
}
