package rank

import (
	"github.com/reqa/reqa/index/adapter"
	"github.com/reqa/reqa/store"
)

// SaveAdapter stores a trained question adapter in the index at path (what
// the dense ranker then applies to every question).
func SaveAdapter(path string, ad *adapter.Adapter) error {
	b := ad.Marshal()
	return store.Amend(path, func(tx *store.WriteTx) error { return tx.PutBlob(store.BlobAdapter, b) })
}
