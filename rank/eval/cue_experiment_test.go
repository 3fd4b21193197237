//go:build experiment

package eval

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/reqa/reqa/rank/fuse"
)

// rank.Answer-type cues: a question's type (its wh-word) and what an answer of
// that type tends to hold (a year for "when", a number for "how many", a
// reason word for "why"), the classic answer-type match of factoid QA.
var (
	cueMonths = `january|february|march|april|may|june|july|august|september|october|november|december`
	cueTypes  = []struct {
		name string
		q    *regexp.Regexp // the question's type, on its lower-cased text
		a    *regexp.Regexp // the cue, on the candidate's lower-cased text
	}{
		{"count", regexp.MustCompile(`^(how (many|much|long|big|large|old|far|often|fast))\b|\bwhat (percentage|proportion|number|amount)\b`),
			regexp.MustCompile(`\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|hundred|thousand|million|billion|dozen|several|single|half|percent)\b`)},
		{"when", regexp.MustCompile(`^when\b|\b(what|which) (year|century|decade|date|time|month|day)\b`),
			regexp.MustCompile(`\b(1[0-9]{3}|20[0-9]{2}|` + cueMonths + `|century|centuries|decade|year|years|era|period|after|before|during|until|since|once|when)\b`)},
		{"why", regexp.MustCompile(`^why\b`),
			regexp.MustCompile(`\b(because|purpose|reason|so that|in order to|due to|caus\w*|since|therefore|thus|result\w*)\b`)},
		{"where", regexp.MustCompile(`^where\b`),
			regexp.MustCompile(`\b(in|at|near|north|south|east|west|located|city|country|region|directory|file|folder)\b|/`)},
	}
)

// cueType returns the index of q's answer type in cueTypes, or −1.
func cueType(q string) int {
	q = strings.ToLower(strings.TrimSpace(q))
	for i, c := range cueTypes {
		if c.q.MatchString(q) {
			return i
		}
	}
	return -1
}

// cueDomain is one LODO domain's examples with every pool candidate's cue.
type cueDomain struct {
	name       string
	lodo       bool
	tune, test []fuse.Example
	tuneCue    [][]bool // nil row: the question has no type
	testCue    [][]bool
}

// TestAnswerTypeCue measures the built-in default plus γ × an answer-type
// cue (in z-score units) on the LODO domains' pools, every γ on every
// domain, and γ chosen leave-one-domain-out (best worst gain over γ = 0 on
// the training domains' tune halves).
//
//	REQA_DEFAULTS_DOMAINS=… REQA_DEFAULTS_CACHE=… go test -tags experiment -run TestAnswerTypeCue -v ./rank/
func TestAnswerTypeCue(t *testing.T) {
	ds := lodoDomains(t)
	specs := map[string][2]string{}
	for _, item := range strings.Split(os.Getenv("REQA_DEFAULTS_DOMAINS"), ";") {
		if p := strings.Split(strings.TrimSpace(item), "="); len(p) == 3 {
			specs[strings.TrimPrefix(p[0], "+")] = [2]string{p[1], p[2]}
		}
	}
	var cds []*cueDomain
	typed := map[string][2]int{}
	for _, d := range ds {
		sp := specs[d.Name]
		data, e := openDomain(t, sp[0], sp[1])
		cd := &cueDomain{name: d.Name, lodo: d.LODO, tune: d.Tune, test: d.Test}
		for _, half := range []string{"tune", "test"} {
			qs := splitQuestions(t, e, data, half)
			exs := d.Tune
			if half == "test" {
				exs = d.Test
			}
			if len(qs) != len(exs) {
				t.Fatalf("%s %s: %d questions, %d examples", d.Name, half, len(qs), len(exs))
			}
			cues := make([][]bool, len(qs))
			n := 0
			for i, q := range qs {
				ty := cueType(q.Text)
				if ty < 0 {
					continue
				}
				n++
				cues[i] = make([]bool, len(exs[i].Pool))
				for j, id := range exs[i].Pool {
					s, err := e.SentenceText(id)
					if err != nil {
						t.Fatal(err)
					}
					cues[i][j] = cueTypes[ty].a.MatchString(strings.ToLower(s))
				}
			}
			if half == "tune" {
				cd.tuneCue = cues
			} else {
				cd.testCue = cues
			}
			c := typed[d.Name]
			if half == "tune" {
				c[0] = n
			} else {
				c[1] = n
			}
			typed[d.Name] = c
		}
		cds = append(cds, cd)
	}
	p := shippedDefault()
	idx := inputIdx(p.Inputs)
	for _, cd := range cds {
		cd.tune, cd.test = project(cd.tune, idx), project(cd.test, idx)
		t.Logf("%s: typed questions tune %d/%d, test %d/%d", cd.name, typed[cd.name][0], len(cd.tune), typed[cd.name][1], len(cd.test))
	}
	gammas := []float64{0, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5}
	var b strings.Builder
	fmt.Fprintf(&b, "\nthe default + γ·cue, P@1 tune | test\n%-8s", "γ")
	for _, cd := range cds {
		fmt.Fprintf(&b, " %-15s", cd.name)
	}
	b.WriteString("\n")
	res := map[string][]float64{} // name → tune P@1 per γ
	for gi, g := range gammas {
		fmt.Fprintf(&b, "%-8g", g)
		for _, cd := range cds {
			tu := cueP1(p, cd.tune, cd.tuneCue, g)
			te := cueP1(p, cd.test, cd.testCue, g)
			res[cd.name] = append(res[cd.name], tu)
			if gi == 0 {
				if want, _, _ := fuse.Evaluate(p, cd.tune); math.Abs(want-tu) > 1e-9 {
					t.Fatalf("%s: γ = 0 gives %.2f, fuse.Evaluate %.2f", cd.name, tu, want)
				}
			}
			fmt.Fprintf(&b, " %6.2f|%6.2f  ", tu, te)
		}
		b.WriteString("\n")
	}
	names, lodo := make([]string, len(cds)), make([]bool, len(cds))
	for i, cd := range cds {
		names[i], lodo[i] = cd.name, cd.lodo
	}
	writeGammaLODO(&b, names, lodo, res, gammas, func(i int, g float64) (float64, float64) {
		cd := cds[i]
		return cueP1(p, cd.tune, cd.tuneCue, g) - cueP1(p, cd.tune, cd.tuneCue, 0),
			cueP1(p, cd.test, cd.testCue, g) - cueP1(p, cd.test, cd.testCue, 0)
	})
	t.Log(b.String())
}

// writeGammaLODO writes, for each LODO domain (lodo[i]) held out, the γ
// pickGamma chooses without it and gain(i, γ): its tune and test P@1 gain
// over γ = 0.
func writeGammaLODO(b *strings.Builder, names []string, lodo []bool, res map[string][]float64, gammas []float64, gain func(i int, g float64) (tune, test float64)) {
	b.WriteString("\nLODO: γ chosen without the held-out domain → its tune | test gain over γ = 0\n")
	var train []string
	for i, n := range names {
		if lodo[i] {
			train = append(train, n)
		}
	}
	for i, n := range names {
		if !lodo[i] {
			continue
		}
		g := gammas[pickGamma(res, train, n)]
		tu, te := gain(i, g)
		fmt.Fprintf(b, "%-8s γ %-5g tune %+6.2f test %+6.2f\n", n, g, tu, te)
	}
}

// pickGamma returns the index of the γ with the best worst tune-half P@1
// gain over γ = 0 (index 0) on the training domains other than held,
// res[domain][γ index] holding each domain's tune P@1 (ties: the smaller γ).
func pickGamma(res map[string][]float64, train []string, held string) int {
	best, bestV := 0, math.Inf(-1)
	for gi := range res[train[0]] {
		worst := math.Inf(1)
		for _, name := range train {
			if name != held {
				worst = math.Min(worst, res[name][gi]-res[name][0])
			}
		}
		if worst > bestV+1e-9 {
			best, bestV = gi, worst
		}
	}
	return best
}

// shippedDefault is the built-in default of an index with the stem field.
func shippedDefault() fuse.Params {
	return fuse.Params{Name: "fusion-zscore", Method: "zscore",
		Inputs:  []string{"bm25-wpm", "bm25-word", "bm25-stem", "dense"},
		Weights: []float64{0, 0.1, 0.5, 0.4}, DemoteQuestions: true}
}

// cueP1 is P@1 of z-score fusion p plus g per cue, questions demoted as p
// says, within each example's pool.
func cueP1(p fuse.Params, exs []fuse.Example, cues [][]bool, g float64) float64 {
	feat := make([][]float64, len(exs))
	for i, c := range cues {
		feat[i] = make([]float64, len(c))
		for j, on := range c {
			if on {
				feat[i][j] = 1
			}
		}
	}
	return bonusP1(p, exs, feat, g)
}

// goldRank is the rank of ex's best gold under the fused pool scores buf
// (questions demoted when demote; ties by pool order), 0 without a gold.
func goldRank(buf []float64, ex fuse.Example, demote bool) int {
	if demote && len(ex.Question) == len(buf) {
		fuse.Demote(buf, ex.Question)
	}
	best := -1
	for j := range buf {
		if ex.Gold[j] && (best < 0 || buf[j] > buf[best]) {
			best = j
		}
	}
	if best < 0 {
		return 0
	}
	rk := 1
	for j, x := range buf {
		if x > buf[best] || (x == buf[best] && j < best) {
			rk++
		}
	}
	return rk
}
