package eval_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/eval"
)

// wordRanker scores each of its sentences by the words it shares with the
// question.
type wordRanker []string

func (w wordRanker) Name() string { return "words" }
func (w wordRanker) Docs() int    { return len(w) }
func (w wordRanker) ScoreAll(_ context.Context, q string, s *rank.Scores) error {
	s.Reset()
	for i, sent := range w {
		for _, t := range strings.Fields(strings.ToLower(q)) {
			if strings.Contains(strings.ToLower(sent), t) {
				s.Scores[i]++
				s.Touch(uint32(i))
			}
		}
	}
	return nil
}
func (w wordRanker) TopK(ctx context.Context, q string, k int) ([]rank.Hit, error) {
	s := rank.NewScores(w.Docs())
	if err := w.ScoreAll(ctx, q, s); err != nil {
		return nil, err
	}
	return s.Top(k), nil
}

// Run ranks every candidate for each question; Summarize turns the gold
// ranks into the MultiReQA metrics.
func ExampleRun() {
	r := wordRanker{"The ferry leaves at nine.", "It returns at noon.", "Tickets cost five euros."}
	qs := []eval.Question{
		{ID: "q1", Text: "when does the ferry leave", Gold: []uint32{0}},
		{ID: "q2", Text: "what do tickets cost", Gold: []uint32{2}},
		{ID: "q3", Text: "when does the boat come back", Gold: []uint32{1}},
	}
	rs, err := eval.Run(context.Background(), r, qs, 1, nil)
	if err != nil {
		panic(err)
	}
	for i, q := range qs {
		fmt.Printf("%s: gold at rank %d\n", q.ID, rs[i].Rank)
	}
	res := eval.Summarize(r.Name(), qs, rs)
	fmt.Printf("P@1 %.1f, MRR %.1f\n", res.PAt1, res.MRR)
	// Output:
	// q1: gold at rank 1
	// q2: gold at rank 1
	// q3: gold at rank 2
	// P@1 66.7, MRR 83.3
}
