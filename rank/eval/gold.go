package eval

import (
	"errors"
	"fmt"
	"strings"

	"github.com/reqa/reqa/rank"
)

// ErrGoldNotIndexed reports a gold candidate the index does not hold (the
// index was built from other data).
var ErrGoldNotIndexed = errors.New("gold candidate is not in the index")

// Labeled is a question whose gold sentences a dataset names by its own
// candidate ids (a ReQA dataset's candidate_id).
type Labeled struct {
	ID, Text string
	Gold     []string
}

// Golds maps dataset questions to the index's sentence ids; a gold
// candidate the index does not hold is an error wrapping
// ErrGoldNotIndexed.
func Golds(x *rank.Index, qs []Labeled) ([]Question, error) {
	out := make([]Question, len(qs))
	for i, q := range qs {
		out[i] = Question{ID: q.ID, Text: q.Text}
		for _, g := range q.Gold {
			id, ok := x.SentenceByExtID(g)
			if !ok {
				return nil, fmt.Errorf("question %s: %w: %s (index %s)", q.ID, ErrGoldNotIndexed, g, x.Store().Path())
			}
			out[i].Gold = append(out[i].Gold, id)
		}
	}
	return out, nil
}

// SentencesByText maps every sentence's text (white space trimmed) to the
// ids of the sentences that read so, for questions whose answers are given
// as text.
func SentencesByText(x *rank.Index) (map[string][]uint32, error) {
	ctxs, err := x.Store().Contexts()
	if err != nil {
		return nil, err
	}
	by := map[string][]uint32{}
	for _, s := range x.Sentences() {
		if int(s.ContextID) < len(ctxs) {
			t := strings.TrimSpace(s.Text(ctxs[s.ContextID]))
			by[t] = append(by[t], s.ID)
		}
	}
	return by, nil
}
