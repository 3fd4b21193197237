package index

import (
	"github.com/reqa/reqa/index/adapter"
	"github.com/reqa/reqa/store"
)

// What `reqa fuse` and `reqa tune` learn is amended into an existing index
// file, in one transaction each (store.Amend): the rest of the file is
// left as it was.

// SaveFusions stores encoded fusion parameters (rank.EncodeFusions: best
// first, the first is what `reqa ask` uses by default) in the index at
// path, replacing any stored before.
func SaveFusions(path string, encoded []byte) error {
	return store.Amend(path, func(tx *store.WriteTx) error { return tx.PutBlob(store.BlobFusion, encoded) })
}

// SaveAdapter stores a trained question adapter in the index at path (what
// the dense ranker then applies to every question).
func SaveAdapter(path string, ad *adapter.Adapter) error {
	b := ad.Marshal()
	return store.Amend(path, func(tx *store.WriteTx) error { return tx.PutBlob(store.BlobAdapter, b) })
}
