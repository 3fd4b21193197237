package ann

import (
	"math"
	"math/rand/v2"
	"testing"
)

// synth draws L2-normalised vectors from a mixture of gaussian clusters:
// a point is centre + spread·g/√dim, g standard normal, normalised, with the
// centre a uniformly random unit vector. spread 1 puts a point at cosine
// ≈ 0.7 from its centre and ≈ 0.5 from its cluster mates, roughly how
// sentence embeddings of one topic sit, while the clusters themselves are
// near-orthogonal. This is the data set of every recall test and
// benchmark here, and of testdata/hnswlib_bench.py.
type synth struct {
	dim     int
	spread  float64
	centres [][]float64
}

func newSynth(dim, clusters int, spread float64, seed uint64) *synth {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	s := &synth{dim: dim, spread: spread}
	for range clusters {
		c := make([]float64, dim)
		var n float64
		for i := range c {
			c[i] = r.NormFloat64()
			n += c[i] * c[i]
		}
		n = math.Sqrt(n)
		for i := range c {
			c[i] /= n
		}
		s.centres = append(s.centres, c)
	}
	return s
}

// draw returns n points, flat, from stream stream (use different streams
// for the indexed set and the queries).
func (s *synth) draw(n int, stream uint64) []float32 {
	r := rand.New(rand.NewPCG(stream, 0xda7a))
	out := make([]float32, 0, n*s.dim)
	v := make([]float64, s.dim)
	sc := s.spread / math.Sqrt(float64(s.dim))
	for range n {
		c := s.centres[r.IntN(len(s.centres))]
		var norm float64
		for i := range v {
			v[i] = c[i] + sc*r.NormFloat64()
			norm += v[i] * v[i]
		}
		norm = math.Sqrt(norm)
		for i := range v {
			out = append(out, float32(v[i]/norm))
		}
	}
	return out
}

// dataset is a clustered base set and held-out queries from the same
// mixture.
type dataset struct {
	dim     int
	base    []float32
	queries []float32
}

func (d dataset) n() int                { return len(d.base) / d.dim }
func (d dataset) nq() int               { return len(d.queries) / d.dim }
func (d dataset) query(i int) []float32 { return d.queries[i*d.dim : (i+1)*d.dim] }
func (d dataset) vec(i int) []float32   { return d.base[i*d.dim : (i+1)*d.dim] }

// clusteredSet is the standard test set: n points in 100 clusters of
// spread 1, and nq queries.
func clusteredSet(n, nq, dim int, seed uint64) dataset {
	s := newSynth(dim, 100, 1.0, seed)
	return dataset{dim: dim, base: s.draw(n, seed*2+1), queries: s.draw(nq, seed*2+2)}
}

// groundTruth returns Exact's top-k ids for every query.
func groundTruth(d dataset, k int) [][]uint32 {
	gt := make([][]uint32, d.nq())
	for i := range gt {
		for _, r := range Exact(d.base, d.dim, d.query(i), k) {
			gt[i] = append(gt[i], r.ID)
		}
	}
	return gt
}

// recallAt returns the mean fraction of the true top-k ids found in the
// first k results.
func recallAt(k int, gt [][]uint32, got func(i int) []Result) float64 {
	var hit, total int
	for i, want := range gt {
		set := make(map[uint32]bool, k)
		for _, id := range want[:min(k, len(want))] {
			set[id] = true
		}
		res := got(i)
		for _, r := range res[:min(k, len(res))] {
			if set[r.ID] {
				hit++
			}
		}
		total += len(set)
	}
	if total == 0 {
		return 0
	}
	return float64(hit) / float64(total)
}

func buildGraph(tb testing.TB, d dataset, cfg Config) *Graph {
	tb.Helper()
	g := New(d.dim, cfg)
	g.Grow(d.n())
	for i := range d.n() {
		if _, err := g.Add(d.vec(i)); err != nil {
			tb.Fatal(err)
		}
	}
	return g
}
