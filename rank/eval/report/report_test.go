package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/reqa/reqa/rank/eval"
	"github.com/reqa/reqa/rank/fuse"
)

func input() Input {
	qs := []Question{
		{ID: "1", Text: "q1", Overlap: 0.9, Gold: "g1"},
		{ID: "2", Text: "q2 <b>", Overlap: 0.1, Gold: "g2"},
		{ID: "3", Text: "q3", Overlap: 0.5, Gold: "g3"},
		{ID: "4", Text: "q4", Overlap: 0.1, Gold: "g4"},
	}
	sparse := []eval.QuestionResult{{Rank: 1, Top: 10}, {Rank: 3, Top: 11}, {Rank: 1, Top: 12}, {Rank: 2, Top: 13}}
	dense := []eval.QuestionResult{{Rank: 2, Top: 20}, {Rank: 1, Top: 21}, {Rank: 1, Top: 12}, {Rank: 4, Top: 23}}
	return Input{
		Dataset: "toy", Split: "test", Document: "sentence+context", Candidates: 30, Questions: qs,
		Runs: []Run{
			{Name: "bm25-wpm", Results: sparse, Summary: eval.Result{Ranker: "bm25-wpm", PAt1: 50}},
			{Name: "dense", Results: dense, Summary: eval.Result{Ranker: "dense", PAt1: 50}},
		},
		Sparse: "bm25-wpm", Dense: "dense",
		Fusions: []fuse.Params{{Name: "fusion-zscore", Method: "zscore", Inputs: []string{"bm25-wpm", "dense"}, Weights: []float64{0.5, 0.5}}},
		Sweep:   []SweepSeries{{Label: "tune", Points: []fuse.SweepPoint{{Weights: []float64{0, 1}, P1: 40}, {Weights: []float64{1, 0}, P1: 50}}}},
		TopText: func(id uint32) string { return "cand" + string(rune('0'+id%10)) },
	}
}

func TestBuild(t *testing.T) {
	r := Build(input())
	d := r.Disagreement
	// Tops differ on questions 1, 2 and 4; question 3 agrees.
	if d == nil || d.TopDisagree != 75 || d.BothRight != 1 || d.SparseOnly != 1 || d.DenseOnly != 1 || d.BothWrong != 1 || d.Oracle != 75 {
		t.Fatalf("disagreement %+v", d)
	}
	if len(r.Failures) != 1 || r.Failures[0].Question != "q4" {
		t.Fatalf("failures %+v", r.Failures)
	}
	var low *OverlapBucket
	for i := range r.Overlap {
		if strings.HasPrefix(r.Overlap[i].Range, "[0.0") {
			low = &r.Overlap[i]
		}
	}
	if low == nil || low.Questions != 2 || low.P1["dense"] != 50 || low.P1["bm25-wpm"] != 0 {
		t.Fatalf("low-overlap bucket %+v", low)
	}
}

// TestPaired checks the question-by-question comparison with the first
// ranker and the per-question outcomes.
func TestPaired(t *testing.T) {
	r := Build(input())
	// dense against bm25-wpm: only dense answers q2 first, only bm25-wpm q1.
	want := []Paired{{Ranker: "dense", Baseline: "bm25-wpm", Wins: 1, Losses: 1, P: 1}}
	if len(r.Paired) != 1 || r.Paired[0] != want[0] {
		t.Fatalf("paired %+v, want %+v", r.Paired, want)
	}
	if len(r.Outcomes) != 4 || r.Outcomes[1].ID != "2" || r.Outcomes[1].Ranks["bm25-wpm"] != 3 || r.Outcomes[1].Ranks["dense"] != 1 {
		t.Fatalf("outcomes %+v", r.Outcomes)
	}
	md := string(r.Markdown(""))
	if !strings.Contains(md, "| dense | 1 | 1 | 1 |") {
		t.Fatalf("Markdown lacks the paired row:\n%s", md)
	}
	one := input()
	one.Runs = one.Runs[:1]
	if r := Build(one); len(r.Paired) != 0 {
		t.Fatalf("one ranker paired with itself: %+v", r.Paired)
	}
}

func TestSignTest(t *testing.T) {
	for _, tc := range []struct {
		wins, losses int
		want         float64
	}{
		{0, 0, 1},
		{1, 1, 1},
		{5, 0, 2.0 / 32},
		{0, 5, 2.0 / 32},
		{10, 0, 2.0 / 1024},
		// P(X ≤ 3) for 10 tosses: (1 + 10 + 45 + 120) / 1024.
		{7, 3, 2 * 176.0 / 1024},
		{3, 7, 2 * 176.0 / 1024},
		// A large, even split: capped at 1.
		{5000, 5000, 1},
	} {
		if got := SignTest(tc.wins, tc.losses); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("SignTest(%d, %d) = %v, want %v", tc.wins, tc.losses, got, tc.want)
		}
	}
	// Far from even on many questions: tiny but positive.
	if p := SignTest(700, 300); !(p > 0 && p < 1e-30) {
		t.Errorf("SignTest(700, 300) = %v", p)
	}
}

func TestDeterministic(t *testing.T) {
	a, b := Build(input()), Build(input())
	if !bytes.Equal(a.JSON(), b.JSON()) || !bytes.Equal(a.Markdown("s.svg"), b.Markdown("s.svg")) || !bytes.Equal(a.SVG(), b.SVG()) {
		t.Fatal("same input gave different output")
	}
	md := string(a.Markdown("s.svg"))
	if strings.Contains(md, "<b>") {
		t.Fatal("Markdown report does not escape HTML from question text")
	}
	if !strings.Contains(string(a.SVG()), "<polyline") {
		t.Fatal("sweep plot has no curve")
	}
}
