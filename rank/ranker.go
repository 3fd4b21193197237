package rank

import (
	"context"

	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/index/tokenize"
)

// Ranker ranks the candidate sentences of an index for a question. Every
// Ranker an [Index] resolves is safe for concurrent use.
type Ranker interface {
	// Name is the ranker's name, e.g. "bm25-wpm".
	Name() string
	// Docs is the number of candidates.
	Docs() int
	// TopK returns the k best candidates for question, best first (ties:
	// lower id first). A question that matches nothing may return fewer,
	// or none.
	TopK(ctx context.Context, question string, k int) ([]Hit, error)
}

// Scorer is a Ranker that can score every candidate at once, what
// evaluation ranks gold sentences with. Rankers of an index kept in an
// engine score their best candidates (see [RemoteDepth]), every other one
// scoring 0.
type Scorer interface {
	Ranker
	// ScoreAll fills s (sized for Docs candidates) with every candidate's
	// score for question; candidates not in s.Touched score 0.
	ScoreAll(ctx context.Context, question string, s *Scores) error
}

// Hit is one ranked candidate.
type Hit struct {
	// ID is the candidate's sentence id.
	ID    uint32
	Score float64
	// Inputs holds each input ranker's score of the candidate when the
	// ranker is a fusion (by input name); nil otherwise.
	Inputs map[string]float64
}

// Scores is a score for every candidate of an index: the buffer a
// [Scorer] fills. Candidates outside Touched score 0.
type Scores struct {
	bm25.Accumulator
}

// NewScores returns a buffer for n candidates.
func NewScores(n int) *Scores { return &Scores{Accumulator: *bm25.NewAccumulator(n)} }

// Top returns the k best candidates of s, best first, ties by lower id.
func (s *Scores) Top(k int) []Hit {
	top := s.TopK(k)
	out := make([]Hit, len(top))
	for i, h := range top {
		out[i] = Hit{ID: h.Doc, Score: h.Score}
	}
	return out
}

// topOf is TopK for a Scorer: every candidate scored, the k best kept.
func topOf(ctx context.Context, r Scorer, question string, k int) ([]Hit, error) {
	s := NewScores(r.Docs())
	if err := r.ScoreAll(ctx, question, s); err != nil {
		return nil, err
	}
	return s.Top(k), nil
}

// Preparer is implemented by rankers that work faster on a known batch of
// questions (the dense ranker embeds them in batches).
type Preparer interface {
	Prepare(ctx context.Context, questions []string, progress func(done, total int)) error
}

// BatchScorer is implemented by rankers that score a block of questions
// faster than one by one (exhaustive dense search).
type BatchScorer interface {
	ScoreBatch(ctx context.Context, questions []string, s []*Scores) error
}

// BM25Ranker ranks with one BM25 field.
type BM25Ranker struct {
	name  string
	tok   tokenize.Tokenizer
	field *bm25.Field
}

// Name implements Ranker.
func (b *BM25Ranker) Name() string { return b.name }

// Docs implements Ranker.
func (b *BM25Ranker) Docs() int { return b.field.Docs() }

// Tokens returns the question's tokens as the ranker sees them.
func (b *BM25Ranker) Tokens(question string) []string {
	toks, _ := b.tok.Query(question)
	return toks
}

// ScoreAll implements Scorer.
func (b *BM25Ranker) ScoreAll(_ context.Context, question string, s *Scores) error {
	s.Reset()
	toks, weights := b.tok.Query(question)
	return b.field.ScoreWeighted(toks, weights, &s.Accumulator)
}

// TopK implements Ranker.
func (b *BM25Ranker) TopK(ctx context.Context, question string, k int) ([]Hit, error) {
	return topOf(ctx, b, question, k)
}

// Field returns the BM25 field the ranker scores with.
func (b *BM25Ranker) Field() *bm25.Field { return b.field }
