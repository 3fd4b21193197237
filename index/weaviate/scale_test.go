//go:build weaviatescale

// The scale measurement runs only with -tags weaviatescale
// (make bench-weaviate): REQA_WEAVIATE_SCALE sentences (default 100,000)
// of synthetic tokens and vectors of dimension REQA_WEAVIATE_DIM (default
// 512, USE-Lite's), imported into one local node and indexed locally by
// index/bm25 and index/ann, then the same questions asked of both.

package weaviate

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/reqa/reqa/index/ann"
	"github.com/reqa/reqa/index/bm25"
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func TestWeaviateScale(t *testing.T) {
	bin := serverBinary(t)
	n, dim, nq := envInt("REQA_WEAVIATE_SCALE", 100_000), envInt("REQA_WEAVIATE_DIM", 512), 500
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string { u := r.Float64(); return words[int(float64(len(words))*u*u*u)] }
	sent := func() []string {
		s := make([]string, 5+r.IntN(10))
		for i := range s {
			s[i] = word()
		}
		return s
	}
	// Contexts of 5 sentences: a document is the sentence then its context.
	tokens := make([][]string, n)
	for c := 0; c < n; c += 5 {
		var ctx []string
		var ss [][]string
		for i := c; i < min(c+5, n); i++ {
			s := sent()
			ss = append(ss, s)
			ctx = append(ctx, s...)
		}
		for i, s := range ss {
			tokens[c+i] = append(slices.Clip(s), ctx...)
		}
	}
	vectors := make([]float32, 0, n*dim)
	for i := 0; i < n; i++ {
		vectors = append(vectors, unit(r, dim)...)
	}
	qs := make([][]string, nq)
	qv := make([][]float32, nq)
	for i := range qs {
		qs[i] = sent()[:4]
		qv[i] = unit(r, dim)
	}
	at := func(i int) (Sentence, error) {
		return Sentence{ID: i, Text: "s", Context: "c", Tokens: tokens[i], Vector: vectors[i*dim : (i+1)*dim]}, nil
	}

	// Local: index/bm25 and index/ann.
	t0 := time.Now()
	b := bm25.NewBuilder()
	for _, toks := range tokens {
		b.Add(toks)
	}
	field := bm25.FromBuilder(b, "wpm-ctx", "wpm", true, bm25.Params{Variant: "lucene", K1: BM25K1, B: BM25B})
	tBM25 := time.Since(t0)
	t0 = time.Now()
	g := ann.New(dim, ann.Config{})
	for i := 0; i < n; i++ {
		if _, err := g.Add(vectors[i*dim : (i+1)*dim]); err != nil {
			t.Fatal(err)
		}
	}
	tANN := time.Since(t0)
	var lb, la []time.Duration
	var localRecall float64
	acc := bm25.NewAccumulator(field.Docs())
	for i := range qs {
		q0 := time.Now()
		acc.Reset()
		field.Score(qs[i], acc)
		acc.TopK(10)
		lb = append(lb, time.Since(q0))
		q0 = time.Now()
		res := g.Search(qv[i], 10, 0)
		la = append(la, time.Since(q0))
		if i < 100 {
			localRecall += recallAt10(res, ann.Exact(vectors, dim, qv[i], 10))
		}
	}
	t.Logf("local: %d sentences, dim %d: bm25 built in memory in %v, HNSW built in %v (%.0f vectors/s); per query bm25 p50 %v p99 %v, HNSW p50 %v p99 %v (recall@10 vs exact %.3f over 100 questions)",
		n, dim, tBM25.Round(time.Millisecond), tANN.Round(time.Millisecond), float64(n)/tANN.Seconds(), pct(lb, 50), pct(lb, 99), pct(la, 50), pct(la, 99), localRecall/100)

	// Weaviate, one node.
	nd := newCluster(t, bin, 1)[0]
	nd.start()
	nd.waitReady(3 * time.Minute)
	c, err := New(nd.addr())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	spec := ImportSpec{Collection: "ReqaScale", ModelHash: "synthetic", Dim: dim, Count: n, BatchSize: 500}
	t0 = time.Now()
	last := time.Now()
	spec.Progress = func(done, total int) {
		if time.Since(last) > 30*time.Second {
			t.Logf("  %d/%d after %v", done, total, time.Since(t0).Round(time.Second))
			last = time.Now()
		}
	}
	if err := c.Import(ctx, spec, at); err != nil {
		t.Fatal(err)
	}
	tImp := time.Since(t0)
	col, err := c.Open(ctx, spec.Collection, spec.ModelHash)
	if err != nil {
		t.Fatal(err)
	}
	var wb, wa []time.Duration
	var recall float64
	for i := range qs {
		q0 := time.Now()
		if _, err := col.BM25(ctx, qs[i], 10); err != nil {
			t.Fatal(err)
		}
		wb = append(wb, time.Since(q0))
		q0 = time.Now()
		hits, err := col.NearVector(ctx, qv[i], 10)
		if err != nil {
			t.Fatal(err)
		}
		wa = append(wa, time.Since(q0))
		if i < 100 {
			exact := map[int]bool{}
			for _, r := range ann.Exact(vectors, dim, qv[i], 10) {
				exact[int(r.ID)] = true
			}
			for _, h := range hits {
				if exact[h.ID] {
					recall += 0.1
				}
			}
		}
	}
	t.Logf("weaviate %s, one node: imported %d sentences in %v (%.0f sentences/s, batches of %d); per query over REST/GraphQL bm25 p50 %v p99 %v, nearVector p50 %v p99 %v (recall@10 vs exact %.3f over 100 questions)",
		TestedVersion, n, tImp.Round(time.Millisecond), float64(n)/tImp.Seconds(), spec.BatchSize, pct(wb, 50), pct(wb, 99), pct(wa, 50), pct(wa, 99), recall/100)
}

func recallAt10(got, exact []ann.Result) float64 {
	in := map[uint32]bool{}
	for _, r := range exact {
		in[r.ID] = true
	}
	n := 0
	for _, r := range got {
		if in[r.ID] {
			n++
		}
	}
	return float64(n) / float64(len(exact))
}

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)].Round(10 * time.Microsecond)
}
