package rank_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/fuse"
)

// TestFusionExperiment tunes every fusion on the SQuAD tune half and
// reports it on the test half. It needs an index with embeddings built from
// the SQuAD set: REQA_SQUAD_INDEX=path go test -run FusionExperiment -v ./rank
func TestFusionExperiment(t *testing.T) {
	path := os.Getenv("REQA_SQUAD_INDEX")
	if path == "" {
		t.Skip("set REQA_SQUAD_INDEX to a SQuAD index with embeddings to run the fusion experiment")
	}
	d, err := ingest.ReadDataset(squadDir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := rank.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	conv := func(split string) []rank.EvalQuestion {
		qs, _ := d.SplitQuestions(split)
		out := make([]rank.EvalQuestion, len(qs))
		for i, q := range qs {
			out[i] = rank.EvalQuestion{ID: q.ID, Text: q.Text}
			for _, g := range q.Gold {
				id, _ := e.SentenceByExtID(g)
				out[i].Gold = append(out[i].Gold, id)
			}
		}
		return out
	}
	tune, test := conv("tune"), conv("test")
	ctx := context.Background()
	byName := map[string]rank.Ranker{}
	for _, n := range []string{"bm25-wpm", "bm25-word", "dense"} {
		r, err := e.Ranker(n, true)
		if err != nil {
			t.Fatal(err)
		}
		byName[n] = r
		rs, err := rank.Run(ctx, r, test, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		res := rank.Summarize(n, test, rs)
		t.Logf("%-28s test P@1 %.2f MRR %.2f", n, res.PAt1, res.MRR)
	}
	for _, inputs := range [][]string{{"bm25-wpm", "dense"}, {"bm25-wpm", "bm25-word", "dense"}} {
		var rs []rank.Ranker
		for _, n := range inputs {
			rs = append(rs, byName[n])
		}
		t0 := time.Now()
		exs, err := rank.TuningExamples(ctx, rs, tune)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("examples for %v in %v", inputs, time.Since(t0))
		for _, m := range []string{"rrf", "minmax", "zscore", "adaptive"} {
			p, _, err := fuse.Tune(m, inputs, exs, fuse.TuneOptions{Label: "squad tune"})
			if err != nil {
				t.Fatal(err)
			}
			fr, err := rank.NewFusedRanker(p, rs)
			if err != nil {
				t.Fatal(err)
			}
			out, err := rank.Run(ctx, fr, test, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			res := rank.Summarize(p.Name, test, out)
			t.Logf("%-16s %v tune P@1 %.2f → test P@1 %.2f MRR %.2f  w=%v %v %v", m, inputs, p.TuneP1, res.PAt1, res.MRR, p.Weights, p.Bounds, p.BucketWeights)
		}
	}
}
