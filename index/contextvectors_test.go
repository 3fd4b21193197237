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
// store.ContextVectorsWindow (what --context-vectors sentences asks for)
// stores as each context's vector the normalized sum of its sentences'
// vectors, each weighted by its Encoder.PositionShares in the context, and
// one with store.ContextVectorsSentences (indexes from before the weights)
// their plain normalized mean; each says so in its meta, an append keeps
// the index's way (an append asking for "sentences" is either), and an
// append asking for the encoder's context vectors is refused.
func TestContextVectorsFromSentences(t *testing.T) {
	for _, how := range []string{store.ContextVectorsWindow, store.ContextVectorsSentences} {
		t.Run(how, func(t *testing.T) {
			opt := appendOptions(t, true) // skips (fails under CI) without the encoder
			opt.ContextVectors = how
			path := filepath.Join(t.TempDir(), "x.reqa")
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
			if m.Dense == nil || m.Dense.ContextVectors != how {
				t.Fatalf("meta's dense part %+v, want context vectors %q", m.Dense, how)
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
			sents, ctxs := records(t, r)
			of := make([][]store.Sentence, cv.Len()) // in text order, as the fixtures are
			for _, s := range sents {
				of[s.ContextID] = append(of[s.ContextID], s)
			}
			weighted := 0
			for c, ss := range of {
				if ss == nil {
					continue // a context without sentences keeps its own embedding
				}
				w := make([]float64, len(ss))
				for k := range w {
					w[k] = 1
				}
				if how == store.ContextVectorsWindow {
					parts := make([][2]int, len(ss))
					for k, s := range ss {
						parts[k] = [2]int{s.Start, s.End}
					}
					total := 0
					shares := opt.Encoder.PositionShares(ctxs[c].Text, parts)
					for _, n := range shares {
						total += n
					}
					for k, n := range shares {
						if total > 0 {
							w[k] = float64(n)
						}
						if n != shares[0] {
							weighted++
						}
					}
				}
				acc := make([]float64, cv.Dim)
				for k, s := range ss {
					for j, x := range sv.Row(int(s.ID)) {
						acc[j] += w[k] * float64(x)
					}
				}
				var norm float64
				for _, x := range acc {
					norm += x * x
				}
				norm = math.Sqrt(norm)
				for j, x := range cv.Row(c) {
					if want := acc[j] / norm; math.Abs(float64(x)-want) > 1e-5 {
						t.Fatalf("context %d, coordinate %d: %v, want %v", c, j, x, want)
					}
				}
			}
			if how == store.ContextVectorsWindow && weighted == 0 {
				t.Error("no context's sentences weigh differently: the fixtures do not test the weights")
			}
			model := ""
			if err := index.CheckAppendSettings(m, index.AppendSettings{ContextVectors: &model}); !errors.Is(err, index.ErrCannotAppend) {
				t.Errorf("an append asking for the encoder's context vectors: %v, want ErrCannotAppend", err)
			}
			for _, same := range []string{how, store.ContextVectorsWindow} {
				if err := index.CheckAppendSettings(m, index.AppendSettings{ContextVectors: &same}); err != nil {
					t.Errorf("an append asking for context vectors %q: %v", same, err)
				}
			}
		})
	}
}
