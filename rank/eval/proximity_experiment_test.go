//go:build experiment

package eval

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kljensen/snowball/english"

	"github.com/reqa/reqa/index/tokenize/stem"
	"github.com/reqa/reqa/index/tokenize/word"
	"github.com/reqa/reqa/internal/metric"
	"github.com/reqa/reqa/rank/fuse"
)

// contentStems are the stems of question's words that are not stop words
// and hold a letter or digit, in order.
func contentStems(text string) []string {
	var out []string
	for _, t := range word.Tokenize(text) {
		l := strings.ToLower(t)
		if english.IsStopWord(l) || !hasAlnum(l) {
			continue
		}
		out = append(out, stem.Stem(l))
	}
	return out
}

func hasAlnum(s string) bool {
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 {
			return true
		}
	}
	return false
}

// pairsNear is the fraction of the question's adjacent content-stem pairs
// found within w positions of each other (either order) in toks.
func pairsNear(q, toks []string, w int) float64 {
	if len(q) < 2 {
		return 0
	}
	pos := map[string][]int{}
	for i, t := range toks {
		pos[t] = append(pos[t], i)
	}
	n := 0
	for i := 0; i+1 < len(q); i++ {
		a, b := pos[q[i]], pos[q[i+1]]
		found := false
		for _, x := range a {
			for _, y := range b {
				if d := x - y; d != 0 && d <= w && d >= -w {
					found = true
					break
				}
			}
			if found {
				break
			}
		}
		if found {
			n++
		}
	}
	return float64(n) / float64(len(q)-1)
}

// coverage is the fraction of q's distinct stems in toks.
func coverage(q, toks []string) float64 {
	if len(q) == 0 {
		return 0
	}
	have := map[string]bool{}
	for _, t := range toks {
		have[t] = true
	}
	seen := map[string]bool{}
	n, m := 0, 0
	for _, t := range q {
		if seen[t] {
			continue
		}
		seen[t] = true
		m++
		if have[t] {
			n++
		}
	}
	return float64(n) / float64(m)
}

type proxFeat struct {
	name string
	f    func(q, sent, ctx []string) float64
}

var proxFeats = []proxFeat{
	{"pair1-sent", func(q, s, c []string) float64 { return pairsNear(q, s, 1) }},
	{"pair3-sent", func(q, s, c []string) float64 { return pairsNear(q, s, 3) }},
	{"pair1-ctx", func(q, s, c []string) float64 { return pairsNear(q, c, 1) }},
	{"pair3-ctx", func(q, s, c []string) float64 { return pairsNear(q, c, 3) }},
	{"cover-sent", func(q, s, c []string) float64 { return coverage(q, s) }},
	{"allpair3-ctx", func(q, s, c []string) float64 { return allPairsNear(q, c, 3) }},
	{"allpair5-ctx", func(q, s, c []string) float64 { return allPairsNear(q, c, 5) }},
	{"allpair3-sent", func(q, s, c []string) float64 { return allPairsNear(q, s, 3) }},
	{"pair2-ctx", func(q, s, c []string) float64 { return pairsNear(q, c, 2) }},
}

// allPairsNear is the fraction of all pairs of the question's distinct
// content stems found within w positions of each other in toks.
func allPairsNear(q, toks []string, w int) float64 {
	var d []string
	seen := map[string]bool{}
	for _, t := range q {
		if !seen[t] {
			seen[t] = true
			d = append(d, t)
		}
	}
	if len(d) < 2 {
		return 0
	}
	pos := map[string][]int{}
	for i, t := range toks {
		pos[t] = append(pos[t], i)
	}
	n, m := 0, 0
	for i := range d {
		for j := i + 1; j < len(d); j++ {
			m++
			a, b := pos[d[i]], pos[d[j]]
		scan:
			for _, x := range a {
				for _, y := range b {
					if e := x - y; e <= w && e >= -w {
						n++
						break scan
					}
				}
			}
		}
	}
	return float64(n) / float64(m)
}

// TestProximityBonus measures the built-in default plus γ × a term
// proximity feature (the question's adjacent content words near each
// other in the candidate), γ chosen leave-one-domain-out as in
// TestAnswerTypeCue.
func TestProximityBonus(t *testing.T) {
	ds := lodoDomains(t)
	specs := map[string][2]string{}
	for _, item := range strings.Split(os.Getenv("REQA_DEFAULTS_DOMAINS"), ";") {
		if p := strings.Split(strings.TrimSpace(item), "="); len(p) == 3 {
			specs[strings.TrimPrefix(p[0], "+")] = [2]string{p[1], p[2]}
		}
	}
	type dom struct {
		name       string
		lodo       bool
		tune, test []fuse.Example
		feat       map[string][2][][]float64 // feature → tune, test → question → pool
	}
	p := shippedDefault()
	idx := inputIdx(p.Inputs)
	var doms []*dom
	for _, d := range ds {
		sp := specs[d.Name]
		data, e := openDomain(t, sp[0], sp[1])
		dd := &dom{name: d.Name, lodo: d.LODO, tune: project(d.Tune, idx), test: project(d.Test, idx), feat: map[string][2][][]float64{}}
		ctxToks := map[uint32][]string{}
		for h, half := range []string{"tune", "test"} {
			qs := splitQuestions(t, e, data, half)
			exs := dd.tune
			if h == 1 {
				exs = dd.test
			}
			if len(qs) != len(exs) {
				t.Fatalf("%s %s: %d questions, %d examples", d.Name, half, len(qs), len(exs))
			}
			vals := make([][][]float64, len(proxFeats))
			for f := range proxFeats {
				vals[f] = make([][]float64, len(qs))
			}
			for i, q := range qs {
				qt := contentStems(q.Text)
				for f := range proxFeats {
					vals[f][i] = make([]float64, len(exs[i].Pool))
				}
				for j, id := range exs[i].Pool {
					text, err := e.SentenceText(id)
					if err != nil {
						t.Fatal(err)
					}
					st := stem.Tokenize(text)
					cid := e.Sentences()[id].ContextID
					ct, ok := ctxToks[cid]
					if !ok {
						c, err := e.Store().Context(cid)
						if err != nil {
							t.Fatal(err)
						}
						ct = stem.Tokenize(c.Text)
						ctxToks[cid] = ct
					}
					for f, pf := range proxFeats {
						vals[f][i][j] = pf.f(qt, st, ct)
					}
				}
			}
			for f, pf := range proxFeats {
				v := dd.feat[pf.name]
				v[h] = vals[f]
				dd.feat[pf.name] = v
			}
		}
		e.Close()
		doms = append(doms, dd)
	}
	gammas := []float64{0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1}
	var b strings.Builder
	for _, pf := range proxFeats {
		fmt.Fprintf(&b, "\n%s: the default + γ·feature, P@1 tune | test\n%-8s", pf.name, "γ")
		for _, d := range doms {
			fmt.Fprintf(&b, " %-15s", d.name)
		}
		b.WriteString("\n")
		res := map[string][]float64{}
		for _, g := range gammas {
			fmt.Fprintf(&b, "%-8g", g)
			for _, d := range doms {
				fv := d.feat[pf.name]
				tu, tm := bonusP1MRR(p, d.tune, fv[0], g)
				te, _ := bonusP1MRR(p, d.test, fv[1], g)
				res[d.name] = append(res[d.name], tu)
				fmt.Fprintf(&b, " %6.2f/%5.1f|%6.2f", tu, tm, te)
			}
			b.WriteString("\n")
		}
		names, lodo := make([]string, len(doms)), make([]bool, len(doms))
		for i, d := range doms {
			names[i], lodo[i] = d.name, d.lodo
		}
		writeGammaLODO(&b, names, lodo, res, gammas, func(i int, g float64) (float64, float64) {
			fv := doms[i].feat[pf.name]
			return bonusP1(p, doms[i].tune, fv[0], g) - bonusP1(p, doms[i].tune, fv[0], 0),
				bonusP1(p, doms[i].test, fv[1], g) - bonusP1(p, doms[i].test, fv[1], 0)
		})
	}
	t.Log(b.String())
}

// bonusP1 is bonusP1MRR's P@1.
func bonusP1(p fuse.Params, exs []fuse.Example, feat [][]float64, g float64) float64 {
	p1, _ := bonusP1MRR(p, exs, feat, g)
	return p1
}

// bonusP1MRR is P@1 and MRR of z-score fusion p plus g × feat within each pool.
func bonusP1MRR(p fuse.Params, exs []fuse.Example, feat [][]float64, g float64) (float64, float64) {
	ranks := make([]int, len(exs))
	for i, ex := range exs {
		buf := make([]float64, len(ex.Pool))
		for r, s := range ex.Scores {
			if p.Weights[r] == 0 {
				continue
			}
			for j, x := range s {
				buf[j] += p.Weights[r] * ex.Stats[r].Z(x)
			}
		}
		for j, x := range feat[i] {
			buf[j] += g * x
		}
		ranks[i] = goldRank(buf, ex, p.DemoteQuestions)
	}
	return metric.PAt(ranks, 1), metric.MRR(ranks)
}
