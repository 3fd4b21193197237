//go:build experiment

package eval

// Experiments on document-level evidence and question candidates for the
// built-in default (BENCHMARKS.md "Questions are not answers"): on top of
// the default fusion's scores, every candidate gets
//
//   - a boost from its group's best fused scores (the mean of the group's
//     top k, groups: the context's title, the file named by its first
//     " › " part, the context),
//   - a boost from its group's document-level BM25 (stem tokens of every
//     context of the group; Lucene idf, k1 1.2, b 0.75; z-scored over the
//     groups; REQA_DOCTOK another tokenizer),
//   - a boost from its group's document-level dense score (the mean of
//     the dense input over the group's sentences, z-scored over groups),
//   - (REQA_PEN=1) a penalty when it is a question (a question mark; or
//     that, or an interrogative opening without final punctuation),
//
// and P@1 is printed for each domain's tune / test half:
//
//	REQA_GROUP_DOMAINS='docs=IDX=DATASET;golibs=…' REQA_GROUPS=1 \
//	go test -tags experiment -run TestDocumentEvidence -v -timeout 0 ./rank/
//
// No boost gained on any tune half (they lowered docs); the question
// penalty never lowered one and became fuse.Params.DemoteQuestions.

import (
	"context"
	"fmt"
	"github.com/reqa/reqa/rank"
	"math"
	"os"

	"sort"
	"strings"
	"testing"

	"github.com/reqa/reqa/index/sentence"
	"github.com/reqa/reqa/index/tokenize"
)

type grpQ struct {
	fused []float64
	gold  map[uint32]bool
	// doc[key][tok] = z-scored document-level BM25 of every group
	doc map[string][]float64
}

type grpDom struct {
	name       string
	tune, test []grpQ
	keys       map[string][]uint32 // grouping name → group id per candidate
	isq        map[string][]bool
}

// questionLike is rule q1 (a final question mark) or q2 (IsQuestion).
func questionLike(t string, rule string) bool {
	if rule == "q2" {
		return sentence.IsQuestion(t)
	}
	return strings.HasSuffix(strings.TrimSpace(t), "?")
}

func loadGrpDom(t *testing.T, name, index, dataset string) *grpDom {
	d, e := openDomain(t, index, dataset)
	ctxs, err := e.Store().Contexts()
	if err != nil {
		t.Fatal(err)
	}
	g := &grpDom{name: name, keys: map[string][]uint32{}}
	mk := func(key func(c ingestCtx) string) []uint32 {
		ids := map[string]uint32{}
		out := make([]uint32, len(e.Sentences()))
		for i, s := range e.Sentences() {
			c := ctxs[s.ContextID]
			k := key(ingestCtx{c.Title, c.Doc, s.ContextID})
			id, ok := ids[k]
			if !ok {
				id = uint32(len(ids))
				ids[k] = id
			}
			out[i] = id
		}
		return out
	}
	g.keys["title"] = mk(func(c ingestCtx) string { return c.title })
	g.keys["file"] = mk(func(c ingestCtx) string { f, _, _ := strings.Cut(c.title, " › "); return f })
	g.keys["ctx"] = mk(func(c ingestCtx) string { return fmt.Sprint(c.ctx) })
	// Document-level BM25 statistics per grouping (title, file) over the
	// stem tokens of every context.
	type docStats struct {
		tf     []map[string]int
		len    []float64
		avg    float64
		df     map[string]int
		groups int
	}
	stats := map[string]*docStats{}
	tok, _ := tokenize.Get(os.Getenv("REQA_DOCTOK"))
	if tok == nil {
		tok, _ = tokenize.Get("stem")
	}
	for _, key := range []string{"title", "file"} {
		grp := g.keys[key]
		ctxGroup := map[uint32]uint32{}
		ng := 0
		for i, s := range e.Sentences() {
			ctxGroup[s.ContextID] = grp[i]
			ng = max(ng, int(grp[i])+1)
		}
		st := &docStats{tf: make([]map[string]int, ng), len: make([]float64, ng), df: map[string]int{}, groups: ng}
		for i := range st.tf {
			st.tf[i] = map[string]int{}
		}
		for cid, gid := range ctxGroup {
			for _, w := range tok.Tokenize(ctxs[cid].Text) {
				st.tf[gid][w]++
				st.len[gid]++
			}
		}
		tot := 0.0
		for gi := range st.tf {
			tot += st.len[gi]
			for w := range st.tf[gi] {
				st.df[w]++
			}
		}
		st.avg = tot / float64(ng)
		stats[key] = st
	}
	docScores := func(q string) map[string][]float64 {
		out := map[string][]float64{}
		qt := tok.Tokenize(q)
		for key, st := range stats {
			sc := make([]float64, st.groups)
			for _, w := range qt {
				df := st.df[w]
				if df == 0 {
					continue
				}
				idf := math.Log(1 + (float64(st.groups)-float64(df)+0.5)/(float64(df)+0.5))
				for gi := range sc {
					tf := float64(st.tf[gi][w])
					if tf == 0 {
						continue
					}
					sc[gi] += idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*st.len[gi]/st.avg))
				}
			}
			out[key] = zscores(sc)
		}
		return out
	}
	g.isq = map[string][]bool{}
	for _, rule := range []string{"q1", "q2"} {
		b := make([]bool, len(e.Sentences()))
		n := 0
		for i, s := range e.Sentences() {
			txt := ctxs[s.ContextID].Text[s.Start:s.End]
			b[i] = questionLike(txt, rule)
			if b[i] {
				n++
			}
		}
		g.isq[rule] = b
		fmt.Printf("%s %s: %d of %d question-like\n", name, rule, n, len(b))
	}
	fr, err := e.Fused(e.BuiltinDefault(), rank.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	f, ok := fr.(*rank.FusedRanker)
	if !ok {
		t.Fatalf("%T", fr)
	}
	half := func(split string) []grpQ {
		qs := splitQuestions(t, e, d, split)
		texts := []string{}
		for _, q := range qs {
			texts = append(texts, q.Text)
		}
		f.Prepare(t.Context(), texts, nil)
		var out []grpQ
		for _, q := range qs {
			x := grpQ{gold: map[uint32]bool{}}
			for _, id := range q.Gold {
				x.gold[id] = true
			}
			ins, fused, _, err := f.Breakdown(context.Background(), q.Text)
			if err != nil {
				t.Fatal(err)
			}
			x.fused = fused
			x.doc = docScores(q.Text)
			// Document-level dense: the mean dense score of a group's
			// sentences (q · the group's mean answer vector), z-scored
			// over the groups.
			dense := ins[len(ins)-1]
			for _, key := range []string{"title", "file"} {
				grp := g.keys[key]
				ng := 0
				for _, gi := range grp {
					ng = max(ng, int(gi)+1)
				}
				sum, n := make([]float64, ng), make([]float64, ng)
				for c, v := range dense {
					sum[grp[c]] += v
					n[grp[c]]++
				}
				for gi := range sum {
					sum[gi] /= max(n[gi], 1)
				}
				x.doc["dense-"+key] = zscores(sum)
			}
			out = append(out, x)
		}
		return out
	}
	g.tune, g.test = half("tune"), half("test")
	return g
}

type ingestCtx struct {
	title, doc string
	ctx        uint32
}

// groupP1: final(c) = f(c) + beta * agg(group(c)), agg = mean of the group's top k fused scores.
func groupP1(qs []grpQ, grp []uint32, beta float64, k int, mode string) float64 {
	right := 0
	ng := 0
	for _, g := range grp {
		ng = max(ng, int(g)+1)
	}
	for _, q := range qs {
		final := q.fused
		if beta != 0 {
			tops := make([][]float64, ng)
			for c, s := range q.fused {
				g := grp[c]
				tk := tops[g]
				if len(tk) < k {
					tk = append(tk, s)
					sort.Float64s(tk)
				} else if s > tk[0] {
					tk[0] = s
					sort.Float64s(tk)
				}
				tops[g] = tk
			}
			agg := make([]float64, ng)
			for g, tk := range tops {
				sum := 0.0
				for _, s := range tk {
					sum += s
				}
				if mode == "sumk" {
					agg[g] = sum / float64(k)
				} else {
					agg[g] = sum / float64(max(1, len(tk)))
				}
			}
			final = make([]float64, len(q.fused))
			for c, s := range q.fused {
				final[c] = s + beta*agg[grp[c]]
			}
		}
		best, bi := math.Inf(-1), 0
		for c, s := range final {
			if s > best {
				best, bi = s, c
			}
		}
		if q.gold[uint32(bi)] {
			right++
		}
	}
	return 100 * float64(right) / float64(len(qs))
}

func TestDocumentEvidence(t *testing.T) {
	spec := os.Getenv("REQA_GROUP_DOMAINS")
	if spec == "" {
		// May skip in CI: an experiment (tag experiment) run by hand with REQA_GROUP_DOMAINS.
		t.Skip("set REQA_GROUP_DOMAINS 'name=INDEX=DATASET;…' to run the document-evidence experiment")
	}
	var doms []*grpDom
	for _, item := range strings.Split(spec, ";") {
		p := strings.Split(item, "=")
		doms = append(doms, loadGrpDom(t, p[0], p[1], p[2]))
	}
	for _, key := range []string{"title", "file", "dense-title", "dense-file"} {
		grpKey := strings.TrimPrefix(key, "dense-")
		for _, beta := range []float64{0, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5} {
			line := fmt.Sprintf("doc %-11s b=%-4g", key, beta)
			for _, d := range doms {
				line += fmt.Sprintf(" %s %5.1f/%5.1f", d.name, docP1(d.tune, d.keys[grpKey], key, beta), docP1(d.test, d.keys[grpKey], key, beta))
			}
			fmt.Println(line)
		}
	}
	if os.Getenv("REQA_PEN") == "" {
		return
	}
	for _, rule := range []string{"q1", "q2"} {
		for _, pen := range []float64{0, 0.25, 0.5, 1, 1.5, 2, 3, 100} {
			line := fmt.Sprintf("%s pen=%-4g", rule, pen)
			for _, d := range doms {
				line += fmt.Sprintf(" %s %5.1f/%5.1f", d.name, penP1(d.tune, d.isq[rule], pen), penP1(d.test, d.isq[rule], pen))
			}
			fmt.Println(line)
		}
	}
	if os.Getenv("REQA_GROUPS") == "" {
		return
	}
	for _, key := range []string{"title", "file", "ctx"} {
		for _, mode := range []string{"meank", "sumk"} {
			for _, k := range []int{1, 2, 3, 5, 10} {
				for _, beta := range []float64{0, 0.25, 0.5, 1, 2} {
					line := fmt.Sprintf("%-6s %-5s k=%-2d b=%-4g", key, mode, k, beta)
					for _, d := range doms {
						line += fmt.Sprintf(" %s %5.1f/%5.1f", d.name, groupP1(d.tune, d.keys[key], beta, k, mode), groupP1(d.test, d.keys[key], beta, k, mode))
					}
					fmt.Println(line)
				}
			}
		}
	}
}

func penP1(qs []grpQ, isq []bool, pen float64) float64 {
	right := 0
	for _, q := range qs {
		best, bi := math.Inf(-1), 0
		for c, s := range q.fused {
			if isq[c] {
				s -= pen
			}
			if s > best {
				best, bi = s, c
			}
		}
		if q.gold[uint32(bi)] {
			right++
		}
	}
	return 100 * float64(right) / float64(len(qs))
}

func docP1(qs []grpQ, grp []uint32, key string, beta float64) float64 {
	right := 0
	for _, q := range qs {
		best, bi := math.Inf(-1), 0
		z := q.doc[key]
		for c, s := range q.fused {
			s += beta * z[grp[c]]
			if s > best {
				best, bi = s, c
			}
		}
		if q.gold[uint32(bi)] {
			right++
		}
	}
	return 100 * float64(right) / float64(len(qs))
}

// zscores standardises xs (all zeros when they are constant).
func zscores(xs []float64) []float64 {
	mean, sd := 0.0, 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	sd = math.Sqrt(sd / float64(len(xs)))
	out := make([]float64, len(xs))
	for i, x := range xs {
		if sd > 0 {
			out[i] = (x - mean) / sd
		}
	}
	return out
}
