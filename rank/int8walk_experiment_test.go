//go:build experiment

package rank_test

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/reqa/reqa/index/ann"
	"github.com/reqa/reqa/index/dense"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/store"
)

// int8Rows is an ann.DotSource over int8 copies of the answer vectors
// (one scale per row: max |x| / 127), for measuring what a walk over
// compact vectors would find (issue 32 point 2).
type int8Rows struct {
	dim   int
	q     []int8
	scale []float32
}

func quantize(v dense.Vectors) *int8Rows {
	n := v.Len()
	r := &int8Rows{dim: v.Dim, q: make([]int8, n*v.Dim), scale: make([]float32, n)}
	for i := range n {
		row := v.Row(i)
		m := float32(0)
		for _, x := range row {
			m = max(m, float32(math.Abs(float64(x))))
		}
		if m == 0 {
			continue
		}
		r.scale[i] = m / 127
		for j, x := range row {
			r.q[i*v.Dim+j] = int8(math.Round(float64(x / r.scale[i])))
		}
	}
	return r
}

func (r *int8Rows) Len() int { return len(r.scale) }
func (r *int8Rows) Dim() int { return r.dim }
func (r *int8Rows) Vector(id uint32) []float32 {
	out := make([]float32, r.dim)
	for j := range out {
		out[j] = float32(r.q[int(id)*r.dim+j]) * r.scale[id]
	}
	return out
}
func (r *int8Rows) Dot(q []float32, id uint32) float32 {
	row := r.q[int(id)*r.dim : int(id+1)*r.dim]
	s := float32(0)
	for j, x := range row {
		s += q[j] * float32(x)
	}
	return s * r.scale[id]
}

// slotRows is the stored graph's layer 0 (ann.LinkSource), from the index.
type slotRows struct {
	rs    *store.Rows
	words int
}

func (s slotRows) Len() int       { return s.rs.Len() }
func (s slotRows) SlotWords() int { return s.words }
func (s slotRows) Slot(id uint32) []uint32 {
	b, err := s.rs.Chunk(int(id) / s.rs.PerChunk())
	if err != nil {
		return nil
	}
	i := int(id) % s.rs.PerChunk() * s.rs.RowBytes()
	out := make([]uint32, s.words)
	for j := range out {
		out[j] = binary.LittleEndian.Uint32(b[i+4*j:])
	}
	return out
}

// floatRows is an ann.VectorSource over float vectors.
type floatRows struct{ v dense.Vectors }

func (f floatRows) Len() int                   { return f.v.Len() }
func (f floatRows) Dim() int                   { return f.v.Dim }
func (f floatRows) Vector(id uint32) []float32 { return f.v.Row(int(id)) }

// TestInt8Walk measures the stored graph walked over int8 copies of the
// answer vectors, the best `pool` rescored with float32, against the same
// walk over float32 and against exact search: recall@10 and agreement of
// the first answer, on the tune questions of the dataset
// REQA_INT8_DATASET indexed in REQA_INT8_INDEX. Measured only.
func TestInt8Walk(t *testing.T) {
	path, dir := os.Getenv("REQA_INT8_INDEX"), os.Getenv("REQA_INT8_DATASET")
	if path == "" || dir == "" {
		// May skip in CI: an experiment (tag experiment) run by hand.
		t.Skip("set REQA_INT8_INDEX and REQA_INT8_DATASET to run the int8 walk experiment")
	}
	ds, err := ingest.ReadDataset(dir)
	if err != nil {
		t.Fatal(err)
	}
	qs, _ := ds.SplitQuestions("tune")
	e, err := rank.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	d, err := e.DenseRanker(rank.Spec{Kind: rank.KindDense, Dense: rank.DenseOptions{ANN: true}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := d.AnswerVectors()
	if err != nil {
		t.Fatal(err)
	}
	q8 := quantize(v)
	r := e.Store()
	upper, err := r.LargeBlob(store.BlobDenseGraphUpper)
	if err != nil {
		t.Fatal(err)
	}
	slots, err := r.Rows(store.RowsDenseGraphSlots)
	if err != nil {
		t.Fatal(err)
	}
	links := slotRows{rs: slots, words: slots.RowBytes() / 4}
	gf, err := ann.LoadSplit(upper, floatRows{v}, links)
	if err != nil {
		t.Fatal(err)
	}
	g8, err := ann.LoadSplit(upper, q8, links)
	if err != nil {
		t.Fatal(err)
	}
	const k, ef = 10, 100
	exact := make([]float64, v.Len())
	for _, pool := range []int{10, 20, 40, 100} {
		var recF, rec8, top1F, top1Same int
		for _, q := range qs {
			qv, err := d.QuestionVector(context.Background(), q.Text)
			if err != nil {
				t.Fatal(err)
			}
			dense.ScoreAll(v, qv, exact)
			ids := make([]int, len(exact))
			for i := range ids {
				ids[i] = i
			}
			slices.SortFunc(ids, func(a, b int) int {
				if exact[a] != exact[b] {
					if exact[a] > exact[b] {
						return -1
					}
					return 1
				}
				return a - b
			})
			truth := map[uint32]bool{}
			for _, id := range ids[:k] {
				truth[uint32(id)] = true
			}
			fl := gf.Search(qv, k, ef)
			i8 := g8.Search(qv, max(k, pool), max(ef, pool))
			// Rescore the int8 walk's pool with float32.
			for i := range i8 {
				i8[i].Score = dense.Dot(qv, v.Row(int(i8[i].ID)))
			}
			slices.SortFunc(i8, func(a, b ann.Result) int {
				if a.Score != b.Score {
					if a.Score > b.Score {
						return -1
					}
					return 1
				}
				return int(a.ID) - int(b.ID)
			})
			i8 = i8[:min(k, len(i8))]
			for _, h := range fl {
				if truth[h.ID] {
					recF++
				}
			}
			for _, h := range i8 {
				if truth[h.ID] {
					rec8++
				}
			}
			if len(fl) > 0 && fl[0].ID == uint32(ids[0]) {
				top1F++
			}
			if len(fl) > 0 && len(i8) > 0 && fl[0].ID == i8[0].ID {
				top1Same++
			}
		}
		n := float64(len(qs))
		t.Logf("%s: %d tune questions, pool %d: recall@10 float walk %.4f, int8 walk + float rescoring %.4f (ratio %.4f); float walk's first = exact first %.4f; int8's first = float walk's first %.4f",
			strings.TrimSuffix(path, ".reqa"), len(qs), pool, float64(recF)/(n*k), float64(rec8)/(n*k), float64(rec8)/float64(recF), float64(top1F)/n, float64(top1Same)/n)
	}
	t.Logf("vectors: float32 %d bytes, int8 %d bytes + %d bytes of scales", 4*len(v.Data), len(q8.q), 4*len(q8.scale))
}
