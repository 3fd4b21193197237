package eval

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/internal/metric"
	"github.com/reqa/reqa/rank"
)

// Question is a question with its gold candidates.
type Question struct {
	ID   string
	Text string
	// Gold lists the sentence ids of every gold candidate.
	Gold []uint32
}

// Result holds one ranker's metrics, in percent.
type Result struct {
	Ranker     string  `json:"ranker"`
	PAt1       float64 `json:"p_at_1"`
	MRR        float64 `json:"mrr"`
	PAt5       float64 `json:"p_at_5"`
	RecallAt10 float64 `json:"recall_at_10"`
}

// QuestionResult is one question's outcome under one ranker.
type QuestionResult struct {
	// Rank is the 1-based rank of the best-ranked gold candidate.
	Rank int
	// Top is the ranker's first candidate.
	Top uint32
	// GoldInTop10 counts gold candidates ranked 1..10.
	GoldInTop10 int
}

// batchSize is the block of questions a BatchScorer gets in Run.
const batchSize = 32

// Run evaluates ranker r over qs with workers goroutines (rank.Parallelism(r)
// when ≤ 0) and returns per-question outcomes in question order. progress, if
// set, is called with the number of questions done. A ranker that is not a
// Scorer is ranked by its rank.RemoteDepth best candidates.
func Run(ctx context.Context, r rank.Ranker, qs []Question, workers int, progress func(done, total int)) ([]QuestionResult, error) {
	if workers <= 0 {
		workers = rank.Parallelism(r)
	}
	out := make([]QuestionResult, len(qs))
	var next, done atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	n := r.Docs()
	if p, ok := r.(rank.Preparer); ok {
		texts := make([]string, len(qs))
		for i, q := range qs {
			texts[i] = q.Text
		}
		if err := p.Prepare(ctx, texts, nil); err != nil {
			return nil, err
		}
	}
	bs, batched := r.(rank.BatchScorer)
	sc, scores := r.(rank.Scorer)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			step := 1
			if batched {
				step = batchSize
			}
			accs := make([]*rank.Scores, step)
			for i := range accs {
				accs[i] = rank.NewScores(n)
			}
			texts := make([]string, 0, step)
			for ctx.Err() == nil {
				lo := int(next.Add(int64(step))) - step
				if lo >= len(qs) {
					return
				}
				hi := min(lo+step, len(qs))
				var err error
				switch {
				case batched:
					texts = texts[:0]
					for i := lo; i < hi; i++ {
						texts = append(texts, qs[i].Text)
					}
					err = bs.ScoreBatch(ctx, texts, accs)
				case scores:
					err = sc.ScoreAll(ctx, qs[lo].Text, accs[0])
				default:
					err = fillTop(ctx, r, qs[lo].Text, accs[0])
				}
				if err != nil {
					once.Do(func() { firstErr = fmt.Errorf("question %s: %w", qs[lo].ID, err) })
					return
				}
				for i := lo; i < hi; i++ {
					acc := accs[i-lo]
					qr := QuestionResult{Rank: n + 1}
					for _, g := range qs[i].Gold {
						if int(g) >= n {
							continue
						}
						rk := rankOf(&acc.Accumulator, n, g)
						if rk < qr.Rank {
							qr.Rank = rk
						}
						if rk <= 10 {
							qr.GoldInTop10++
						}
					}
					if top := acc.TopK(1); len(top) > 0 {
						qr.Top = top[0].Doc
					}
					out[i] = qr
				}
				if progress != nil {
					progress(int(done.Add(int64(hi-lo))), len(qs))
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// fillTop scores r's rank.RemoteDepth best candidates into s, shifted above
// the others' 0 in their order.
func fillTop(ctx context.Context, r rank.Ranker, question string, s *rank.Scores) error {
	hits, err := r.TopK(ctx, question, rank.RemoteDepth)
	if err != nil {
		return err
	}
	s.Reset()
	for i, h := range hits {
		if int(h.ID) >= len(s.Scores) {
			return fmt.Errorf("%s answered sentence %d of %d", r.Name(), h.ID, len(s.Scores))
		}
		s.Scores[h.ID] = float64(len(hits) - i)
		s.Touch(h.ID)
	}
	return nil
}

// Summarize turns per-question outcomes into metrics (percent).
func Summarize(name string, qs []Question, rs []QuestionResult) Result {
	res := Result{Ranker: name}
	if len(rs) == 0 {
		return res
	}
	ranks := make([]int, len(rs))
	var r10 float64
	for i, r := range rs {
		ranks[i] = r.Rank
		if len(qs[i].Gold) > 0 {
			r10 += float64(r.GoldInTop10) / float64(len(qs[i].Gold))
		}
	}
	res.PAt1, res.MRR, res.PAt5, res.RecallAt10 = metric.PAt(ranks, 1), metric.MRR(ranks), metric.PAt(ranks, 5), 100*r10/float64(len(rs))
	return res
}

// rankOf returns the 1-based rank of document g when every document is
// ranked by score (descending), ties by lower id; documents outside
// acc.Touched scored 0.
func rankOf(acc *bm25.Accumulator, n int, g uint32) int {
	sg := acc.Scores[g]
	better := 0
	touchedBelow := 0
	for _, d := range acc.Touched {
		sd := acc.Scores[d]
		if sd > sg || (sd == sg && d < g) {
			better++
		}
		if d < g {
			touchedBelow++
		}
	}
	switch {
	case sg < 0:
		better += n - len(acc.Touched)
	case sg == 0:
		better += int(g) - touchedBelow
	}
	return better + 1
}
