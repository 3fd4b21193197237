package rank_test

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/reqa/reqa/index/encoder/uselite"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/store"
)

// TestDenseMixedScoring checks the exact dense scoring of an index too big
// for combined answer vectors (combineMax set to 0): every candidate's
// score equals the combined vectors' within 1e-6, for one question and a
// batch, for the dense rankers and the default fusion, and the answers are
// the same; a NaN in the vectors is still refused, naming the blob.
func TestDenseMixedScoring(t *testing.T) {
	requireDense(t)
	path := filepath.Join(t.TempDir(), "t.reqa")
	buildTestIndexDense(t, path, true)
	questions := []string{"Who kept the Bell Rock light?", "How do arch bridges carry loads?", "What do bees make?"}
	scores := func(name string) (one, batch [][]float64, answers [][]rank.Answer) {
		e, err := rank.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		r, err := e.Ranker(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range questions {
			acc := rank.NewScores(r.Docs())
			if err := r.(rank.Scorer).ScoreAll(context.Background(), q, acc); err != nil {
				t.Fatal(err)
			}
			one = append(one, append([]float64(nil), acc.Scores...))
			as, err := e.Ask(context.Background(), r, q, 5)
			if err != nil {
				t.Fatal(err)
			}
			answers = append(answers, as)
		}
		if b, ok := r.(rank.BatchScorer); ok {
			accs := make([]*rank.Scores, len(questions))
			for i := range accs {
				accs[i] = rank.NewScores(r.Docs())
			}
			if err := b.ScoreBatch(context.Background(), questions, accs); err != nil {
				t.Fatal(err)
			}
			for _, a := range accs {
				batch = append(batch, a.Scores)
			}
		}
		return one, batch, answers
	}
	for _, name := range []string{"dense", "dense/sent", ""} {
		// In place: the stored answer vectors; combined and mixed: as an
		// index without them.
		oneS, batchS, ansS := scores(name)
		noStored := rank.SetStoredAnswers(false)
		oneC, batchC, ansC := scores(name)
		restore := rank.SetCombineMax(0)
		oneM, batchM, ansM := scores(name)
		restore()
		noStored()
		for q := range ansS {
			for i := range ansS[q] {
				if ansS[q][i].SentenceID != ansC[q][i].SentenceID {
					t.Errorf("%q question %d rank %d: sentence %d stored, %d combined", name, q, i+1, ansS[q][i].SentenceID, ansC[q][i].SentenceID)
				}
			}
		}
		pairs := [][2][][]float64{{oneC, oneM}, {batchC, batchM}}
		if name != "" {
			// The default fusion over stored answer vectors is pooled:
			// its scores are the pool's (compared by answers above).
			pairs = append(pairs, [2][][]float64{oneS, oneC}, [2][][]float64{batchS, batchC})
		}
		for _, pair := range pairs {
			for q := range pair[0] {
				for i, x := range pair[0][q] {
					if d := math.Abs(x - pair[1][q][i]); d > 1e-6 {
						t.Fatalf("%q question %d candidate %d: combined %v, mixed %v", name, q, i, x, pair[1][q][i])
					}
				}
			}
		}
		for q := range ansC {
			if len(ansC[q]) != len(ansM[q]) {
				t.Fatalf("%q question %d: %d answers combined, %d mixed", name, q, len(ansC[q]), len(ansM[q]))
			}
			for i := range ansC[q] {
				if ansC[q][i].SentenceID != ansM[q][i].SentenceID {
					t.Errorf("%q question %d rank %d: sentence %d combined, %d mixed", name, q, i+1, ansC[q][i].SentenceID, ansM[q][i].SentenceID)
				}
			}
		}
	}

	// A NaN resealed into the sentence vectors: refused when mixing too.
	rewrite(t, path, []string{"blobs"}, chunkKey(store.BlobDenseSent, 0), func(v []byte) []byte {
		p := v[:len(v)-4]
		binary.LittleEndian.PutUint32(p[12+4*(uselite.Dim+7):], 0x7fc00000)
		return sealed(p)
	})
	defer rank.SetCombineMax(0)()
	defer rank.SetStoredAnswers(false)()
	e, err := rank.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Ranker("dense"); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("a NaN in the sentence vectors, mixed scoring: %v, want store.ErrCorrupt", err)
	}
}
