package index

import (
	"math/rand"
	"path/filepath"
	"testing"
	"time"

	"github.com/reqa/reqa/index/dense"
	"github.com/reqa/reqa/store"
)

// BenchmarkWriteDense measures the peak Go heap of storing the vectors of
// 100,000 sentences and 20,000 contexts (512 dimensions: 246 MB of floats)
// two ways: encoding each blob whole and writing it in one transaction (as
// builds did), and writeDenseBlobs, which writes chunk by chunk from the arrays.
// Run: go test -run '^$' -bench WriteDense -benchtime 1x ./index
func BenchmarkWriteDense(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	mk := func(n int) dense.Vectors {
		v := dense.Vectors{Dim: 512, Data: make([]float32, n*512)}
		for i := range v.Data {
			v.Data[i] = rng.Float32()
		}
		return v
	}
	sent, ctxv := mk(100000), mk(20000)
	for _, how := range []string{"whole", "streamed"} {
		b.Run(how, func(b *testing.B) {
			var peak uint64
			for b.Loop() {
				w, err := store.Create(filepath.Join(b.TempDir(), "x.reqa"))
				if err != nil {
					b.Fatal(err)
				}
				peak = max(peak, peakHeap(2*time.Millisecond, func() {
					if how == "whole" {
						err = w.Update(func(tx *store.WriteTx) error {
							if err := tx.PutLargeBlob(store.BlobDenseSent, sent.Encode()); err != nil {
								return err
							}
							return tx.PutLargeBlob(store.BlobDenseCtx, ctxv.Encode())
						})
					} else {
						err = writeDenseBlobs(w, nil, nil, nil, sent, ctxv, dense.Vectors{Dim: 512}, &store.DenseMeta{}) // no answer vectors: the vectors alone
					}
				}))
				if err != nil {
					b.Fatal(err)
				}
				w.Abort()
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}
