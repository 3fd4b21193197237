//go:build experiment

package eval

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/reqa/reqa/internal/metric"
	"github.com/reqa/reqa/rank/fuse"
)

// TestAgreementBonus measures the built-in default plus β × the number of
// its inputs that rank a candidate among their k best (CombMNZ's
// agreement, added in z-score units), on the LODO domains' pools, and β, k
// chosen leave-one-domain-out (best worst gain over β = 0 on the training
// domains' tune halves; ties: the smaller β).
//
//	REQA_DEFAULTS_DOMAINS=… REQA_DEFAULTS_CACHE=… go test -tags experiment -run TestAgreementBonus -v ./rank/
func TestAgreementBonus(t *testing.T) {
	ds := lodoDomains(t)
	p := shippedDefault()
	idx := inputIdx(p.Inputs)
	type dom struct {
		name       string
		lodo       bool
		tune, test []fuse.Example
	}
	var doms []dom
	for _, d := range ds {
		doms = append(doms, dom{d.Name, d.LODO, project(d.Tune, idx), project(d.Test, idx)})
	}
	type cfg struct {
		k    int
		beta float64
	}
	var cfgs []cfg
	for _, k := range []int{1, 3, 5, 10, 20} {
		for _, b := range []float64{0.05, 0.1, 0.2, 0.3, 0.5} {
			cfgs = append(cfgs, cfg{k, b})
		}
	}
	base := map[string][2]float64{}
	for _, d := range doms {
		base[d.name] = [2]float64{agreeP1(p, d.tune, 0, 0), agreeP1(p, d.test, 0, 0)}
		if want, _, _ := fuse.Evaluate(p, d.tune); math.Abs(want-base[d.name][0]) > 1e-9 {
			t.Fatalf("%s: β 0 gives %.2f, fuse.Evaluate %.2f", d.name, base[d.name][0], want)
		}
	}
	gain := map[cfg]map[string][2]float64{}
	var b strings.Builder
	fmt.Fprintf(&b, "\nthe default + β·agreement(k): tune | test gain over the default\n%-10s", "k, β")
	for _, d := range doms {
		fmt.Fprintf(&b, " %-13s", d.name)
	}
	b.WriteString("\n")
	for _, c := range cfgs {
		gain[c] = map[string][2]float64{}
		fmt.Fprintf(&b, "%2d, %-5g ", c.k, c.beta)
		for _, d := range doms {
			g := [2]float64{agreeP1(p, d.tune, c.k, c.beta) - base[d.name][0], agreeP1(p, d.test, c.k, c.beta) - base[d.name][1]}
			gain[c][d.name] = g
			fmt.Fprintf(&b, " %+5.1f|%+5.1f  ", g[0], g[1])
		}
		b.WriteString("\n")
	}
	b.WriteString("\nLODO: (k, β) chosen without the held-out domain → its tune | test gain\n")
	for _, held := range doms {
		if !held.lodo {
			continue
		}
		best, bestV := cfg{}, 0.0 // β 0 unless something beats it on every training domain
		for _, c := range cfgs {
			worst := math.Inf(1)
			for _, d := range doms {
				if d.name != held.name && d.lodo {
					worst = math.Min(worst, gain[c][d.name][0])
				}
			}
			if worst > bestV+1e-9 {
				best, bestV = c, worst
			}
		}
		g := gain[best][held.name]
		fmt.Fprintf(&b, "%-8s k %2d β %-5g (worst training gain %+.1f) tune %+5.1f test %+5.1f\n", held.name, best.k, best.beta, bestV, g[0], g[1])
	}
	t.Log(b.String())
}

// agreeP1 is P@1 of z-score fusion p plus beta for every input ranking a
// candidate among its k best, questions demoted as p says, within each
// example's pool (beta 0: p alone).
func agreeP1(p fuse.Params, exs []fuse.Example, k int, beta float64) float64 {
	ranks := make([]int, len(exs))
	for i, ex := range exs {
		buf := make([]float64, len(ex.Pool))
		for r, s := range ex.Scores {
			w := p.Weights[r]
			for j, x := range s {
				if w != 0 {
					buf[j] += w * ex.Stats[r].Z(x)
				}
				if beta != 0 && p.Weights[r] != 0 && ex.Ranks[r][j] <= k {
					buf[j] += beta
				}
			}
		}
		ranks[i] = goldRank(buf, ex, p.DemoteQuestions)
	}
	return metric.PAt(ranks, 1)
}
