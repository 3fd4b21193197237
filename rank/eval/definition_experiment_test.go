//go:build experiment

package eval

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/reqa/reqa/rank"
)

// TestDefinitionsFirst measures the definitions-first rule
// (rank.DefinitionSubject, rank.Defines) on the default fusion: for a
// question asking what X is, the sentences among the default's best
// rank.DefinitionDepth that define X come first, in their order. It prints
// each domain's P@1 and top-3 before and after, and how many questions
// have the form and how many rankings changed.
//
//	REQA_DEF='name=INDEX=DATASET;…' REQA_DEF_SPLIT=tune go test -tags experiment -run TestDefinitionsFirst -v ./rank/eval/
func TestDefinitionsFirst(t *testing.T) {
	doms, split := experimentDomains(t, "REQA_DEF")
	depth := rank.DefinitionDepth
	if v, err := strconv.Atoi(os.Getenv("REQA_DEF_DEPTH")); err == nil {
		depth = v
	}
	var tot [5]int
	for _, dom := range doms {
		d, e := openDomain(t, dom.Index, dom.Dataset)
		eq := splitQuestions(t, e, d, split)
		p := e.BuiltinDefault()
		p.DefinitionsFirst = false // the rule is applied here
		r, err := e.Fused(p, rank.Spec{})
		if err != nil {
			t.Fatal(err)
		}
		sc := r.(rank.Scorer)
		buf := rank.NewScores(r.Docs())
		// before P@1, after P@1, before top-3, after top-3, of the form, changed
		var c [6]int
		for _, q := range eq {
			if err := sc.ScoreAll(context.Background(), q.Text, buf); err != nil {
				t.Fatal(err)
			}
			top := buf.Top(depth)
			order := make([]uint32, len(top))
			for i, h := range top {
				order[i] = h.ID
			}
			after := order
			if subj, ok := rank.DefinitionSubject(q.Text); ok {
				c[4]++
				var first, rest []uint32
				for _, id := range order {
					text, err := e.SentenceText(id)
					if err != nil {
						t.Fatal(err)
					}
					if rank.Defines(text, subj) {
						first = append(first, id)
					} else {
						rest = append(rest, id)
					}
				}
				after = append(first, rest...)
				if len(first) > 0 && first[0] != order[0] {
					c[5]++
					if os.Getenv("REQA_DEF_SHOW") != "" {
						t.Logf("%s: %q → %q", dom.Name, q.Text, must(e.SentenceText(first[0])))
					}
				}
			}
			bb, ab := firstGold(order, q.Gold), firstGold(after, q.Gold)
			if bb == 1 {
				c[0]++
			}
			if ab == 1 {
				c[1]++
			}
			if bb >= 1 && bb <= 3 {
				c[2]++
			}
			if ab >= 1 && ab <= 3 {
				c[3]++
			}
		}
		fmt.Printf("%-24s questions %4d  P@1 %6.2f → %6.2f  top-3 %6.2f → %6.2f  definition form %d, first answer changed %d\n",
			dom.Name, len(eq), pct(c[0], len(eq)), pct(c[1], len(eq)), pct(c[2], len(eq)), pct(c[3], len(eq)), c[4], c[5])
		tot[0] += c[0]
		tot[1] += c[1]
		tot[2] += len(eq)
		tot[3] += c[4]
		tot[4] += c[5]
	}
	fmt.Printf("%-24s questions %4d  right %d → %d; definition form %d, changed %d\n", "all", tot[2], tot[0], tot[1], tot[3], tot[4])
}

func firstGold(order []uint32, gold []uint32) int {
	for i, id := range order {
		for _, g := range gold {
			if id == g {
				return i + 1
			}
		}
	}
	return 0
}

func pct(a, n int) float64 {
	if n == 0 {
		return 0
	}
	return 100 * float64(a) / float64(n)
}

func must(s string, err error) string {
	if err != nil {
		return err.Error()
	}
	return s
}
