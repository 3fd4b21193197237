//go:build experiment

package rank_test

import (
	"context"
	"encoding/gob"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reqa/reqa/index/adapter"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/eval"
	"github.com/reqa/reqa/rank/fuse"
)

// dumpQ is one question reduced to a candidate pool with every input's
// evidence, for re-ranking experiments (REQA_RERANK_DUMP).
type dumpQ struct {
	ID    string
	Split string
	Title string
	Words int
	// Per input: statistics over all candidates.
	Mean, Std, Min, Top1, Top2 []float64
	Pool                       []uint32
	Gold                       []bool
	Ctx                        []uint32
	SentPos, SentLen, CtxSents []int
	// [input][pool]
	Score, CtxMax [][]float64
	Rank          [][]int
}

type dumpFile struct {
	Inputs []string
	Qs     []dumpQ
}

// TestRerankDump writes every question's pool (top 50 of each input plus
// the golds) with each input's scores, ranks and context maxima to
// REQA_RERANK_DUMP.
func TestRerankDump(t *testing.T) {
	out := os.Getenv("REQA_RERANK_DUMP")
	if out == "" {
		// May skip in CI: an experiment (tag experiment) run by hand with REQA_RERANK_DUMP.
		t.Skip("set REQA_RERANK_DUMP (and REQA_SQUAD_INDEX) to dump re-ranking data")
	}
	e, splits := experiment(t)
	d, err := ingest.ReadDataset(squadDir)
	if err != nil {
		t.Fatal(err)
	}
	title := map[string]string{}
	for _, q := range d.Questions {
		if len(q.Titles) > 0 {
			title[q.ID] = q.Titles[0]
		}
	}
	inputs := []string{"bm25-wpm", "bm25-word", "bm25-wpm/sent", "bm25-word/sent", "dense", "dense/sent"}
	if s := os.Getenv("REQA_RERANK_INPUTS"); s != "" {
		inputs = strings.Split(s, ",")
	}
	w := make([]float64, len(inputs))
	w[0] = 1
	dopt := rank.DenseOptions{}
	if os.Getenv("REQA_RERANK_CROSSFIT") != "" {
		crossFit(t, e, splits, title)
		dopt.NoAdapter = true // question vectors are set adapted
	}
	frr, err := e.Fused(fuse.Params{Name: "fusion-x", Method: "zscore", Inputs: inputs, Weights: w}, rank.Spec{Dense: dopt})
	if err != nil {
		t.Fatal(err)
	}
	fr := frr.(*rank.FusedRanker)
	ss := e.Sentences()
	nd := len(ss)
	pos := make([]int, nd)
	nsent := map[uint32]int{}
	for i, s := range ss {
		pos[i] = nsent[s.ContextID]
		nsent[s.ContextID]++
	}
	nctx := e.Meta().Contexts
	var qs []eval.Question
	var split []string
	for _, sp := range []string{"tune", "test"} {
		for _, q := range splits[sp] {
			qs = append(qs, q)
			split = append(split, sp)
		}
	}
	texts := make([]string, len(qs))
	for i, q := range qs {
		texts[i] = q.Text
	}
	t0 := time.Now()
	res := make([]dumpQ, len(qs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			accs := make([]*rank.Scores, len(inputs))
			for i := range accs {
				accs[i] = rank.NewScores(nd)
			}
			sorted := make([]float64, nd)
			cmax := make([]float64, nctx)
			for {
				i := int(next.Add(1)) - 1
				if i >= len(qs) {
					return
				}
				q := qs[i]
				for j, r := range fr.Inputs() {
					accs[j].Reset()
					if err := r.(rank.Scorer).ScoreAll(context.Background(), q.Text, accs[j]); err != nil {
						t.Error(err)
						return
					}
				}
				dq := dumpQ{ID: q.ID, Split: split[i], Title: title[q.ID], Words: len(strings.Fields(q.Text))}
				in := map[uint32]bool{}
				for _, a := range accs {
					for _, id := range topK(a.Scores, sorted, 50) {
						if !in[id] {
							in[id] = true
							dq.Pool = append(dq.Pool, id)
						}
					}
				}
				gold := map[uint32]bool{}
				for _, g := range q.Gold {
					gold[g] = true
					if !in[g] {
						in[g] = true
						dq.Pool = append(dq.Pool, g)
					}
				}
				sort.Slice(dq.Pool, func(a, b int) bool { return dq.Pool[a] < dq.Pool[b] })
				for _, id := range dq.Pool {
					s := ss[id]
					dq.Gold = append(dq.Gold, gold[id])
					dq.Ctx = append(dq.Ctx, s.ContextID)
					dq.SentPos = append(dq.SentPos, pos[id])
					dq.SentLen = append(dq.SentLen, s.End-s.Start)
					dq.CtxSents = append(dq.CtxSents, nsent[s.ContextID])
				}
				for _, a := range accs {
					st := fuse.Describe(a.Scores)
					dq.Mean = append(dq.Mean, st.Mean)
					dq.Std = append(dq.Std, st.Std)
					dq.Min = append(dq.Min, st.Min)
					dq.Top1 = append(dq.Top1, st.Top1)
					dq.Top2 = append(dq.Top2, st.Top2)
					copy(sorted, a.Scores)
					sort.Float64s(sorted)
					for c := range cmax {
						cmax[c] = -1e300
					}
					for d, x := range a.Scores {
						if c := ss[d].ContextID; x > cmax[c] {
							cmax[c] = x
						}
					}
					sc := make([]float64, len(dq.Pool))
					cm := make([]float64, len(dq.Pool))
					rk := make([]int, len(dq.Pool))
					for p, id := range dq.Pool {
						x := a.Scores[id]
						sc[p] = x
						cm[p] = cmax[ss[id].ContextID]
						// rank = 1 + how many score strictly higher
						k := sort.SearchFloat64s(sorted, x)
						for k < nd && sorted[k] == x {
							k++
						}
						rk[p] = 1 + nd - k
					}
					dq.Score = append(dq.Score, sc)
					dq.CtxMax = append(dq.CtxMax, cm)
					dq.Rank = append(dq.Rank, rk)
				}
				res[i] = dq
			}
		}()
	}
	wg.Wait()
	t.Logf("dumped %d questions in %v", len(res), time.Since(t0))
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := gob.NewEncoder(f).Encode(dumpFile{Inputs: inputs, Qs: res}); err != nil {
		t.Fatal(err)
	}
}

// crossFit replaces the cached question vectors by adapted ones: each tune
// question by an adapter trained (with reqa tune's defaults) on the other
// half of the tune articles, each test question by the index's adapter —
// so fusion learned on tune sees a dense ranker as good as on unseen text.
func crossFit(t *testing.T, e *rank.Index, splits map[string][]eval.Question, title map[string]string) {
	raw, err := e.DenseRanker(rank.Spec{Dense: rank.DenseOptions{NoAdapter: true}})
	if err != nil {
		t.Fatal(err)
	}
	full, err := e.DenseRanker(rank.Spec{Dense: rank.DenseOptions{}})
	if err != nil || !full.Adapted() {
		t.Fatalf("crossfit needs an index with an adapter (%v)", err)
	}
	answers, err := raw.AnswerVectors()
	if err != nil {
		t.Fatal(err)
	}
	ss := e.Sentences()
	ctxOf := make([]uint32, len(ss))
	for i, s := range ss {
		ctxOf[i] = s.ContextID
	}
	tune := splits["tune"]
	var titles []string
	seen := map[string]bool{}
	for _, q := range tune {
		if tt := title[q.ID]; !seen[tt] {
			seen[tt] = true
			titles = append(titles, tt)
		}
	}
	sort.Strings(titles)
	fold := map[string]int{}
	for i, tt := range titles {
		fold[tt] = i % 2
	}
	ctx := context.Background()
	vec := func(q string) []float32 {
		v, err := raw.QuestionVector(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	adapted := map[string][]float32{}
	for k := 0; k < 2; k++ {
		var d adapter.Data
		d.Answers, d.Context = answers, ctxOf
		gid := map[string]int{}
		for _, q := range tune {
			if fold[title[q.ID]] == k {
				continue
			}
			if _, ok := gid[title[q.ID]]; !ok {
				gid[title[q.ID]] = len(gid)
			}
			d.Questions = append(d.Questions, vec(q.Text))
			d.Gold = append(d.Gold, q.Gold)
			d.Group = append(d.Group, gid[title[q.ID]])
		}
		t0 := time.Now()
		ad, rep, err := adapter.Train(ctx, d, adapter.Options{Kind: adapter.Linear, Epochs: 10, Batch: 256, Temperature: 0.03,
			WeightDecay: 100, Seed: 1, ValFraction: 0.1, Patience: 3, HardNegatives: true, AllGolds: true, EncoderHash: e.Meta().Dense.Hash})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("fold %d adapter: %d questions, val P@1 %.2f → %.2f, %v", k, rep.TrainQuestions, rep.BaseValP1, rep.ValP1, time.Since(t0))
		for _, q := range tune {
			if fold[title[q.ID]] == k {
				adapted[q.Text] = ad.Apply(vec(q.Text))
			}
		}
	}
	for _, q := range splits["test"] {
		if _, dup := adapted[q.Text]; dup {
			t.Logf("question text in both halves: %q", q.Text)
		}
		v, err := full.QuestionVector(ctx, q.Text)
		if err != nil {
			t.Fatal(err)
		}
		adapted[q.Text] = v
	}
	var texts []string
	var vecs [][]float32
	for q, v := range adapted {
		texts = append(texts, q)
		vecs = append(vecs, v)
	}
	raw.SetQuestionVectors(texts, vecs)
}

// topK returns the ids of the k best scores (ties by lower id); buf is
// scratch of len(s).
func topK(s, buf []float64, k int) []uint32 {
	copy(buf, s)
	sort.Float64s(buf)
	th := buf[len(buf)-min(k, len(buf))]
	var out []uint32
	for i, x := range s {
		if x > th {
			out = append(out, uint32(i))
		}
	}
	for i, x := range s {
		if x == th && len(out) < k {
			out = append(out, uint32(i))
		}
	}
	return out
}
