package rank

import (
	"context"
	"fmt"

	"github.com/reqa/reqa/index/adapter"
	"github.com/reqa/reqa/store"
)

// AdapterData prepares what `reqa tune` trains a question adapter on:
// the questions' embeddings by the index's encoder (raw: an adapter is
// trained on the frozen towers, never on an adapted ranker), the answer
// vectors for the index's λ from its stored embeddings, each sentence's
// context, and the gold sentences. groups (optional) holds out whole groups
// of questions for validation (see adapter.Data).
func (e *Index) AdapterData(ctx context.Context, qs []EvalQuestion, groups []int, threads int) (adapter.Data, error) {
	m := e.r.Meta().Dense
	if m == nil {
		return adapter.Data{}, fmt.Errorf("index %s has no embeddings; rebuild it with `reqa index --dense`", e.r.Path())
	}
	st, err := e.loadDense(threads)
	if err != nil {
		return adapter.Data{}, err
	}
	answers, err := st.answers(m.Lambda)
	if err != nil {
		return adapter.Data{}, err
	}
	texts := make([]string, len(qs))
	gold := make([][]uint32, len(qs))
	for i, q := range qs {
		texts[i], gold[i] = q.Text, q.Gold
	}
	qvecs, err := st.enc.Encode(ctx, texts, nil)
	if err != nil {
		return adapter.Data{}, fmt.Errorf("embedding questions: %w", err)
	}
	return adapter.Data{Questions: qvecs, Answers: answers, Context: st.ctxOf, Gold: gold, Group: groups}, nil
}

// SaveAdapter stores a trained question adapter in the index at path (what
// the dense ranker then applies to every question).
func SaveAdapter(path string, ad *adapter.Adapter) error {
	b := ad.Marshal()
	return store.Amend(path, func(tx *store.WriteTx) error { return tx.PutBlob(store.BlobAdapter, b) })
}
