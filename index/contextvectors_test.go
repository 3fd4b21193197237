package index_test

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/index/dense"
	"github.com/reqa/reqa/store"
)

// TestContextVectorsFromSentences: a build with Options.ContextVectors
// store.ContextVectorsSentences stores as each context's vector the
// normalized mean of its sentences' vectors and says so in its meta; an
// append keeps the choice (and refuses another).
func TestContextVectorsFromSentences(t *testing.T) {
	opt := appendOptions(t, true) // skips (fails under CI) without the encoder
	opt.ContextVectors = store.ContextVectorsSentences
	dir := t.TempDir()
	path := filepath.Join(dir, "x.reqa")
	ctx := context.Background()
	if _, err := index.Build(ctx, readParts(t, "part1.txt"), path, opt); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Append(ctx, readParts(t, "part2.txt"), path, index.Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	m := r.Meta()
	if m.Dense == nil || m.Dense.ContextVectors != store.ContextVectorsSentences {
		t.Fatalf("meta's dense part %+v, want context vectors %q", m.Dense, store.ContextVectorsSentences)
	}
	vectors := func(name string) dense.Vectors {
		raw, err := r.LargeBlob(name)
		if err != nil {
			t.Fatal(err)
		}
		v, err := dense.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	sv, cv := vectors(store.BlobDenseSent), vectors(store.BlobDenseCtx)
	sents, err := r.Sentences()
	if err != nil {
		t.Fatal(err)
	}
	sum := make([][]float64, cv.Len())
	for _, s := range sents {
		if sum[s.ContextID] == nil {
			sum[s.ContextID] = make([]float64, cv.Dim)
		}
		for j, x := range sv.Row(int(s.ID)) {
			sum[s.ContextID][j] += float64(x)
		}
	}
	for c, acc := range sum {
		if acc == nil {
			continue // a context without sentences keeps its own embedding
		}
		var norm float64
		for _, x := range acc {
			norm += x * x
		}
		norm = math.Sqrt(norm)
		for j, x := range cv.Row(c) {
			if want := acc[j] / norm; math.Abs(float64(x)-want) > 1e-5 {
				t.Fatalf("context %d, coordinate %d: %v, the normalized mean of its sentences' is %v", c, j, x, want)
			}
		}
	}
	model := ""
	if err := index.CheckAppendSettings(m, index.AppendSettings{ContextVectors: &model}); !errors.Is(err, index.ErrCannotAppend) {
		t.Errorf("an append asking for the encoder's context vectors: %v, want ErrCannotAppend", err)
	}
	same := store.ContextVectorsSentences
	if err := index.CheckAppendSettings(m, index.AppendSettings{ContextVectors: &same}); err != nil {
		t.Errorf("an append asking for the index's own context vectors: %v", err)
	}
}
