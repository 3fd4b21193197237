package eval

import (
	"context"
	"testing"

	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/rank"
)

func TestRankOf(t *testing.T) {
	acc := bm25.NewAccumulator(6)
	set := func(d uint32, s float64) { acc.Scores[d] = s; acc.Touch(d) }
	set(1, 2.0)
	set(3, 2.0)
	set(4, 5.0)
	set(5, 0) // touched but scored 0
	cases := []struct {
		gold uint32
		want int
	}{
		{4, 1}, // best
		{1, 2}, // tie with 3, lower id wins
		{3, 3},
		{0, 4}, // untouched, score 0: after the three positives, first by id
		{2, 5},
		{5, 6},
	}
	for _, c := range cases {
		if got := rankOf(acc, 6, c.gold); got != c.want {
			t.Errorf("rankOf(%d) = %d, want %d", c.gold, got, c.want)
		}
	}
}

// fixedRanker scores candidates from a table, for testing Run.
type fixedRanker struct {
	scores map[string][]float64
}

func (f *fixedRanker) Name() string { return "fixed" }
func (f *fixedRanker) Docs() int    { return 4 }
func (f *fixedRanker) TopK(ctx context.Context, q string, k int) ([]rank.Hit, error) {
	s := rank.NewScores(f.Docs())
	if err := f.ScoreAll(ctx, q, s); err != nil {
		return nil, err
	}
	return s.Top(k), nil
}
func (f *fixedRanker) ScoreAll(_ context.Context, q string, acc *rank.Scores) error {
	acc.Reset()
	for d, s := range f.scores[q] {
		if s != 0 {
			acc.Scores[d] = s
			acc.Touch(uint32(d))
		}
	}
	return nil
}

type batchRanker struct{ fixedRanker }

func (b *batchRanker) ScoreBatch(ctx context.Context, qs []string, accs []*rank.Scores) error {
	for i, q := range qs {
		b.ScoreAll(ctx, q, accs[i])
	}
	return nil
}

func TestRunAndSummarize(t *testing.T) {
	f := fixedRanker{scores: map[string][]float64{
		"a": {0, 3, 1, 0}, // gold 1 at rank 1
		"b": {5, 0, 0, 1}, // gold 3 at rank 2
		"c": {0, 0, 0, 0}, // nothing matches: gold 2 at rank 3 (ties by id)
	}}
	qs := []Question{{ID: "a", Text: "a", Gold: []uint32{1}}, {ID: "b", Text: "b", Gold: []uint32{3, 2}}, {ID: "c", Text: "c", Gold: []uint32{2}}}
	for _, r := range []rank.Ranker{&f, &batchRanker{f}, &topOnly{&f}} {
		rs, err := Run(context.Background(), r, qs, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rs[0].Rank != 1 || rs[1].Rank != 2 || rs[2].Rank != 3 {
			t.Fatalf("%T: ranks %+v", r, rs)
		}
		res := Summarize("fixed", qs, rs)
		wantMRR := 100 * (1 + 0.5 + 1.0/3) / 3
		if res.PAt1 != 100.0/3 || res.PAt5 != 100 || abs(res.MRR-wantMRR) > 1e-9 || abs(res.RecallAt10-100) > 1e-9 {
			t.Fatalf("%T: %+v (want MRR %.4f)", r, res, wantMRR)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// topOnly is a Ranker that is not a Scorer: Run ranks its best candidates.
type topOnly struct{ f *fixedRanker }

func (t *topOnly) Name() string { return "top" }
func (t *topOnly) Docs() int    { return t.f.Docs() }
func (t *topOnly) TopK(ctx context.Context, q string, k int) ([]rank.Hit, error) {
	return t.f.TopK(ctx, q, k)
}
