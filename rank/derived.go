package rank

import (
	"context"
	"fmt"
	"math"
)

// ContextRanker derives context-level evidence from a sentence ranker, for
// fusion inputs. The MultiReQA paper observed that BM25 usually finds the
// right context but often picks the wrong sentence inside it, while the
// dual encoder is better at telling a context's sentences apart. Two
// derivations express that:
//
//   - "ctxmax:R" scores every sentence with the best score R gives any
//     sentence of its context (how good is this context?);
//   - "ctxrel:R" scores every sentence with R's score minus the best R score
//     in its context (how does it compare with its neighbours? 0 for the
//     context's best sentence, negative for the others).
type ContextRanker struct {
	name  string
	mode  string // "ctxmax" or "ctxrel"
	base  Scorer
	ctxOf []uint32
	nCtx  int
}

// Name implements Ranker.
func (c *ContextRanker) Name() string { return c.name }

// Docs implements Ranker.
func (c *ContextRanker) Docs() int { return c.base.Docs() }

// Prepare passes batches through to the base ranker.
func (c *ContextRanker) Prepare(ctx context.Context, questions []string, progress func(done, total int)) error {
	if p, ok := c.base.(Preparer); ok {
		return p.Prepare(ctx, questions, progress)
	}
	return nil
}

// ScoreAll implements Scorer.
func (c *ContextRanker) ScoreAll(ctx context.Context, question string, s *Scores) error {
	base := NewScores(c.Docs())
	if err := c.base.ScoreAll(ctx, question, base); err != nil {
		return err
	}
	best := make([]float64, c.nCtx)
	for i := range best {
		best[i] = math.Inf(-1)
	}
	for d, s := range base.Scores {
		if k := c.ctxOf[d]; s > best[k] {
			best[k] = s
		}
	}
	s.Reset()
	for d, v := range base.Scores {
		if c.mode == "ctxmax" {
			s.Scores[d] = best[c.ctxOf[d]]
		} else {
			s.Scores[d] = v - best[c.ctxOf[d]]
		}
	}
	s.TouchAll()
	return nil
}

// TopK implements Ranker.
func (c *ContextRanker) TopK(ctx context.Context, question string, k int) ([]Hit, error) {
	return topOf(ctx, c, question, k)
}

// derived builds the "ctxmax:R" / "ctxrel:R" ranker s names.
func (l *local) derived(s Spec) (Ranker, error) {
	b, err := s.with(s.Base)
	if err != nil {
		return nil, err
	}
	if (s.Method != "ctxmax" && s.Method != "ctxrel") || b.Kind == KindDefault || b.Kind == KindFusion {
		return nil, fmt.Errorf("%w %q: derives from %q, not a ranker to derive from", ErrUnknownRanker, s.Name, s.Base)
	}
	b.Dense.ANN = false // every candidate's score is needed
	r, err := l.x.Resolve(b)
	if err != nil {
		return nil, err
	}
	sc, ok := r.(Scorer)
	if !ok {
		return nil, fmt.Errorf("%w %q: %s does not score every candidate", ErrUnknownRanker, s.Name, r.Name())
	}
	return &ContextRanker{name: s.Name, mode: s.Method, base: sc, ctxOf: l.contextOf(), nCtx: l.r.Meta().Contexts}, nil
}
