package eval

import (
	"context"
	"fmt"

	"github.com/reqa/reqa/index/adapter"
	"github.com/reqa/reqa/rank"
)

// AdapterData prepares what `reqa tune` trains a question adapter on:
// the questions' embeddings by the index's encoder (raw: an adapter is
// trained on the frozen towers, never on an adapted ranker), the answer
// vectors for the index's λ from its stored embeddings, each sentence's
// context, and the gold sentences. groups (optional) holds out whole groups
// of questions for validation (see adapter.Data).
func AdapterData(ctx context.Context, x *rank.Index, qs []Question, groups []int, threads int) (adapter.Data, error) {
	if x.Meta().Dense == nil {
		return adapter.Data{}, fmt.Errorf("index %s: %w", x.Store().Path(), rank.ErrNoEmbeddings)
	}
	d, err := x.DenseRanker(rank.Spec{Name: "dense", Dense: rank.DenseOptions{Threads: threads, NoAdapter: true}})
	if err != nil {
		return adapter.Data{}, err
	}
	answers, err := d.AnswerVectors()
	if err != nil {
		return adapter.Data{}, err
	}
	texts := make([]string, len(qs))
	gold := make([][]uint32, len(qs))
	for i, q := range qs {
		texts[i], gold[i] = q.Text, q.Gold
	}
	qvecs, err := d.EmbedQuestions(ctx, texts)
	if err != nil {
		return adapter.Data{}, fmt.Errorf("embedding questions: %w", err)
	}
	ss := x.Sentences()
	ctxOf := make([]uint32, len(ss))
	for i, s := range ss {
		ctxOf[i] = s.ContextID
	}
	return adapter.Data{Questions: qvecs, Answers: answers, Context: ctxOf, Gold: gold, Group: groups}, nil
}
