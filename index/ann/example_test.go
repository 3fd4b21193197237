package ann_test

import (
	"context"
	"fmt"
	"math"

	"github.com/reqa/reqa/index/ann"
)

func unit(v ...float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

// Build a graph over a few sentence embeddings, save its structure, load it
// back over the same vector store and search it.
func Example() {
	g := ann.New(3, ann.Config{M: 8, Seed: 1})
	for _, v := range [][]float32{
		unit(1, 0, 0),
		unit(0, 1, 0),
		unit(1, 1, 0),
		unit(0, 0, 1),
		unit(1, 1, 1),
	} {
		if _, err := g.Add(v); err != nil {
			fmt.Println(err)
			return
		}
	}

	// The graph's bytes hold structure only; the vectors are stored once,
	// by the caller, and handed back to Load.
	data, err := g.MarshalBinary()
	if err != nil {
		fmt.Println(err)
		return
	}
	loaded, err := ann.Load(data, g.Vectors(), g.Dim())
	if err != nil {
		fmt.Println(err)
		return
	}

	q := unit(1, 0.9, 0)
	for _, r := range loaded.Search(q, 3, 0) {
		fmt.Printf("id %d score %.3f\n", r.ID, r.Score)
	}
	fmt.Println(ann.Exact(g.Vectors(), g.Dim(), q, 1)[0].ID)
	// Output:
	// id 2 score 0.999
	// id 4 score 0.815
	// id 0 score 0.743
	// 2
}

// Update a graph for a changed set: the first vector removed, the others
// renumbered one down, a new one added at the end. The result answers as
// a graph of the new set.
func ExampleGraph_Update() {
	old := [][]float32{unit(1, 0, 0), unit(0, 1, 0), unit(1, 1, 0), unit(0, 0, 1)}
	g := ann.New(3, ann.Config{M: 8, Seed: 1})
	for _, v := range old {
		if _, err := g.Add(v); err != nil {
			fmt.Println(err)
			return
		}
	}
	keep := []int32{-1, 0, 1, 2} // old node i becomes keep[i]; -1: removed
	var vecs []float32
	for _, v := range old[1:] {
		vecs = append(vecs, v...)
	}
	vecs = append(vecs, unit(1, 0, 0.1)...) // the added node, id 3
	u, err := g.Update(context.Background(), keep, vecs)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range u.Search(unit(1, 0, 0), 2, 0) {
		fmt.Printf("%d %.3f\n", r.ID, r.Score)
	}
	fmt.Println(u.Len(), "nodes")
	// Output:
	// 3 0.995
	// 1 0.707
	// 4 nodes
}

// rows keeps vectors where a file keeps them, here in chunks of two.
type rows struct{ chunks [][]float32 }

func (r rows) Len() int { return 2 * len(r.chunks) }
func (r rows) Dim() int { return 2 }
func (r rows) Vector(id uint32) []float32 {
	c := r.chunks[id/2]
	return c[2*(id%2) : 2*(id%2)+2]
}

// Load a graph over vectors kept elsewhere (an index's memory map, say):
// nothing is copied, and the graph cannot change.
func ExampleLoadFrom() {
	g := ann.New(2, ann.Config{M: 4, Seed: 1})
	vecs := [][]float32{unit(1, 0), unit(0, 1), unit(1, 1), unit(-1, 1)}
	for _, v := range vecs {
		g.Add(v)
	}
	data, _ := g.MarshalBinary()
	h, err := ann.LoadFrom(data, rows{chunks: [][]float32{append(vecs[0], vecs[1]...), append(vecs[2], vecs[3]...)}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(h.Search(unit(1, 0.1), 1, 0)[0].ID)
	_, err = h.Add(unit(1, 0))
	fmt.Println(err)
	// Output:
	// 0
	// ann: add: ann: graph over vectors kept elsewhere is read-only
}
