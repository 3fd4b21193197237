package rank_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/reqa/reqa/index/ann"
	"github.com/reqa/reqa/index/ann/npytest"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
)

// TestWriteSQuADVectors writes the SQuAD answer vectors of the index named
// by $REQA_PEERS_INDEX (the dense ranker's, at the index's λ) and the
// embeddings of the first 2,000 SQuAD questions as squad-base.npy and
// squad-queries.npy (float32) in $REQA_ANN_DUMP, for `make bench-peers`:
// index/ann's BenchmarkHNSW (REQA_ANN_SQUAD) and
// index/ann/testdata/hnswlib_bench.py build their graphs over the same
// vectors. Skipped unless both are set.
func TestWriteSQuADVectors(t *testing.T) {
	idx, dir := os.Getenv("REQA_PEERS_INDEX"), os.Getenv("REQA_ANN_DUMP")
	if idx == "" || dir == "" {
		// May skip in CI: an opt-in writer of benchmark data (make bench-peers).
		t.Skip("set REQA_PEERS_INDEX=index-with-embeddings and REQA_ANN_DUMP=dir to write the SQuAD vectors")
	}
	d, err := ingest.ReadDataset(squadDir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := rank.Open(idx)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	dr, err := e.DenseRanker(rank.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := dr.AnswerVectors()
	if err != nil {
		t.Fatal(err)
	}
	n := min(2000, len(d.Questions))
	qs := make([]float32, 0, n*v.Dim)
	for _, q := range d.Questions[:n] {
		x, err := dr.QuestionVector(context.Background(), q.Text)
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, x...)
	}
	// Exact's top 10 per question: the ground truth of recall@10.
	gt := make([]uint32, 0, n*10)
	for i := range n {
		for _, r := range ann.Exact(v.Data, v.Dim, qs[i*v.Dim:(i+1)*v.Dim], 10) {
			gt = append(gt, r.ID)
		}
	}
	f32 := func(x []float32) func(int) uint32 { return func(i int) uint32 { return math.Float32bits(x[i]) } }
	for _, f := range []struct {
		name, descr string
		words, cols int
		word        func(int) uint32
	}{
		{"squad-base.npy", "<f4", len(v.Data), v.Dim, f32(v.Data)},
		{"squad-queries.npy", "<f4", len(qs), v.Dim, f32(qs)},
		{"squad-gt.npy", "<i4", len(gt), 10, func(i int) uint32 { return gt[i] }},
	} {
		path := filepath.Join(dir, f.name)
		if err := npytest.Write(path, f.descr, f.words/f.cols, f.cols, f.word); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d x %d)", path, f.words/f.cols, f.cols)
	}
}
