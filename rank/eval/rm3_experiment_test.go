//go:build experiment

package eval

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/index/tokenize/stem"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/fuse"
)

// TestSparsePRF measures relevance-model feedback (RM3) on the bm25-stem
// input of the default fusion: the k first answers of the default (their
// sentence and context) give a distribution over stems, P(w|R) = Σ_d
// P(w|d)·P(d|q) with P(d|q) ∝ exp(fused score), its m best terms by
// P(w|R)·idf(w) not in the question are added to bm25-stem's query with
// weights α·P(w|R)/max P(w|R), and the default is fused again (the
// definitions-first rule off in both arms). It prints each domain's
// right answers without and with feedback for every k, m and α.
//
//	REQA_RM3='name=INDEX=DATASET;…' REQA_RM3_SPLIT=tune go test -tags experiment -run TestSparsePRF -v ./rank/eval/
func TestSparsePRF(t *testing.T) {
	doms, split := experimentDomains(t, "REQA_RM3")
	ks, ms, alphas := []int{3, 5, 10, 20}, []int{5, 10, 20, 40}, []float64{0.1, 0.25, 0.5, 1}
	useCtx := os.Getenv("REQA_RM3_CTX") != "0"
	if !useCtx {
		t.Log("feedback from the sentences alone")
	}
	type key struct {
		k, m int
		a    float64
	}
	total := map[key]int{}
	var perDom []map[key]int
	var perBase []int
	base := 0
	nq := 0
	for _, dom := range doms {
		d, e := openDomain(t, dom.Index, dom.Dataset)
		eq := splitQuestions(t, e, d, split)
		p := e.BuiltinDefault()
		p.DefinitionsFirst = false
		r, err := e.Fused(p, rank.Spec{})
		if err != nil {
			t.Fatal(err)
		}
		f := r.(*rank.FusedRanker)
		si := -1
		for i, in := range f.Inputs() {
			if in.Name() == "bm25-stem" {
				si = i
			}
		}
		if si < 0 {
			t.Fatalf("%s: the default has no bm25-stem input", dom.Name)
		}
		field := f.Inputs()[si].(*rank.BM25Ranker).Field()
		n := f.Docs()
		acc := bm25.NewAccumulator(n)
		df := func(term string) int {
			acc.Reset()
			field.Score([]string{term}, acc)
			return len(acc.Touched)
		}
		dfs := map[string]int{}
		right := map[key]int{}
		b := 0
		out := make([]float64, n)
		for _, q := range eq {
			inputs, fused, _, err := f.Breakdown(context.Background(), q.Text)
			if err != nil {
				t.Fatal(err)
			}
			if isGoldTop(fused, q.Gold) {
				b++
			}
			as, err := e.Ask(context.Background(), f, q.Text, 10)
			if err != nil {
				t.Fatal(err)
			}
			qtoks, qw := stem.Query(q.Text)
			inQ := map[string]bool{}
			for _, x := range qtoks {
				inQ[x] = true
			}
			for _, k := range ks {
				// P(w|R) over the k first answers.
				pw := map[string]float64{}
				var z float64
				top := as[:min(k, len(as))]
				for _, a := range top {
					z += math.Exp(a.Score - top[0].Score)
				}
				for _, a := range top {
					text := a.Sentence
					if useCtx {
						text += " " + a.Context
					}
					toks := stem.Tokenize(text)
					if len(toks) == 0 {
						continue
					}
					pd := math.Exp(a.Score-top[0].Score) / z
					for _, w := range toks {
						pw[w] += pd / float64(len(toks))
					}
				}
				type cand struct {
					w    string
					p, s float64
				}
				var cs []cand
				for w, x := range pw {
					if inQ[w] || stem.Form(w) || !hasLetterOrDigit(w) {
						continue
					}
					c, ok := dfs[w]
					if !ok {
						c = df(w)
						dfs[w] = c
					}
					if c == 0 {
						continue
					}
					cs = append(cs, cand{w, x, x * field.IDF(c)})
				}
				sort.Slice(cs, func(i, j int) bool {
					if cs[i].s != cs[j].s {
						return cs[i].s > cs[j].s
					}
					return cs[i].w < cs[j].w
				})
				for _, m := range ms {
					sel := cs[:min(m, len(cs))]
					var pmax float64
					for _, c := range sel {
						pmax = max(pmax, c.p)
					}
					for _, a := range alphas {
						toks := append([]string(nil), qtoks...)
						ws := append([]float64(nil), qw...)
						for _, c := range sel {
							toks = append(toks, c.w)
							ws = append(ws, a*c.p/pmax)
						}
						acc.Reset()
						if err := field.ScoreWeighted(toks, ws, acc); err != nil {
							t.Fatal(err)
						}
						ins := append([][]float64(nil), inputs...)
						ins[si] = acc.Scores
						if err := fuse.FuseContext(p, ins, f.Corpus(), out); err != nil {
							t.Fatal(err)
						}
						if isGoldTop(out, q.Gold) {
							right[key{k, m, a}]++
						}
					}
				}
			}
		}
		var line strings.Builder
		best, bestK := -1, key{}
		for k, v := range right {
			if v > best || v == best && (k.k < bestK.k || k.k == bestK.k && (k.m < bestK.m || k.m == bestK.m && k.a < bestK.a)) {
				best, bestK = v, k
			}
			total[k] += v
		}
		fmt.Fprintf(&line, "%-22s questions %5d  without %5d  best with %5d (k %d, m %d, α %.2f)", dom.Name, len(eq), b, best, bestK.k, bestK.m, bestK.a)
		fmt.Println(line.String())
		base += b
		nq += len(eq)
		perDom = append(perDom, right)
		perBase = append(perBase, b)
	}
	// Cross-validated by domain: each domain scored with the setting best
	// on the others (ties: fewer terms, smaller k and α).
	less := func(a, b key) bool {
		if a.m != b.m {
			return a.m < b.m
		}
		if a.k != b.k {
			return a.k < b.k
		}
		return a.a < b.a
	}
	cv := 0
	for i := range perDom {
		sum := map[key]int{}
		for j, r := range perDom {
			if j != i {
				for k, v := range r {
					sum[k] += v - perBase[j]
				}
			}
		}
		var bk key
		bv := math.MinInt
		for k, v := range sum {
			if v > bv || v == bv && less(k, bk) {
				bk, bv = k, v
			}
		}
		// Feedback is used only where it gained on the others.
		if bv > 0 {
			cv += perDom[i][bk]
			fmt.Printf("  held out %-20s setting k %d m %d α %.2f (+%d on the others): %d → %d\n", doms[i].Name, bk.k, bk.m, bk.a, bv, perBase[i], perDom[i][bk])
		} else {
			cv += perBase[i]
			fmt.Printf("  held out %-20s no setting gained on the others: %d\n", doms[i].Name, perBase[i])
		}
	}
	fmt.Printf("cross-validated by domain: %d → %d right of %d\n", base, cv, nq)
	var keys []key
	for k := range total {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return total[keys[i]] > total[keys[j]] })
	fmt.Printf("all %d questions: without %d right\n", nq, base)
	for _, k := range keys[:min(12, len(keys))] {
		fmt.Printf("  k %2d m %2d α %.2f: %d (%+d)\n", k.k, k.m, k.a, total[k], total[k]-base)
	}
}

// isGoldTop reports whether the best-scored candidate of s is gold (ties
// by lower id, as rankings break them).
func isGoldTop(s []float64, gold []uint32) bool {
	top := fuse.TopIndices(s, 1)
	return len(top) == 1 && slices.Contains(gold, uint32(top[0]))
}

func hasLetterOrDigit(s string) bool {
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 {
			return true
		}
	}
	return false
}
