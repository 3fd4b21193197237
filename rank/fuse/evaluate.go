package fuse

import (
	"fmt"

	"github.com/reqa/reqa/internal/metric"
)

// Evaluate scores p on tuning examples (P@1 and MRR in percent), as Tune
// scores its candidates: within each example's pool (every input's best
// candidates and the golds), so it needs no full score vectors. For
// "rerank" a gold outside the re-ranker's pool counts as a miss. "rrf" is
// not supported (its ranks reach beyond the pool).
func Evaluate(p Params, exs []Example) (p1, mrr float64, err error) {
	if err := p.Validate(); err != nil {
		return 0, 0, err
	}
	ranks := make([]int, len(exs))
	buf := make([]float64, 0, 256)
	switch p.Method {
	case "minmax", "zscore", "adaptive", "learned":
		method := p.Method
		if method != "minmax" {
			method = "zscore"
		}
		for i := range exs {
			if len(exs[i].Stats) != len(p.Inputs) {
				return 0, 0, fmt.Errorf("fusion %s: example of %d inputs, want %d", p.Name, len(exs[i].Stats), len(p.Inputs))
			}
			if cap(buf) < len(exs[i].Pool) {
				buf = make([]float64, 0, len(exs[i].Pool))
			}
			_, ranks[i] = exs[i].outcomeDemoted(method, p.WeightsFor(exs[i].Stats[0]), p.DemoteQuestions, buf)
		}
	case "rerank":
		if err := p.rerankRanks(exs, ranks); err != nil {
			return 0, 0, err
		}
	default:
		return 0, 0, fmt.Errorf("fusion %s: cannot evaluate method %q on tuning examples", p.Name, p.Method)
	}
	return metric.PAt(ranks, 1), metric.MRR(ranks), nil
}

// rerankRanks writes the rank of the best gold of every example under the
// re-ranker (0: no gold in its pool).
func (p Params) rerankRanks(exs []Example, ranks []int) error {
	rr := p.Rerank
	fs, qs, pi := rr.compiled(p.Inputs)
	for i := range exs {
		ex := &exs[i]
		if ex.Ranks == nil || (needMeta(fs) && ex.SentPos == nil) {
			return fmt.Errorf("fusion %s: examples lack what the re-ranker reads (build them with NewExampleContext and a corpus)", p.Name)
		}
		ev, gold := rr.exampleEvidence(ex, pi)
		s := rr.scorePool(&ev, fs, qs)
		if p.DemoteQuestions && len(ev.asks) == len(s) {
			Demote(s, ev.asks)
		}
		best := -1
		for j := range s {
			if gold[j] && (best < 0 || s[j] > s[best]) {
				best = j
			}
		}
		if best < 0 {
			ranks[i] = 0
			continue
		}
		r := 1
		for j, x := range s {
			if x > s[best] || (x == s[best] && j < best) {
				r++
			}
		}
		ranks[i] = r
	}
	return nil
}

// CVFolds is how many folds CrossValidate splits the examples into.
const CVFolds = 4

// CrossValidate returns method's P@1 (percent) over exs when it is tuned on
// CVFolds−1 folds and scored on the fold left out, each example scored
// once (folds interleave: example i is in fold i mod CVFolds). On a small
// tuning set a rich method fits its examples; this is what it carries to
// questions it has not seen.
func CrossValidate(method string, inputs []string, exs []Example, opt TuneOptions) (float64, error) {
	if len(exs) < CVFolds {
		return 0, fmt.Errorf("cross-validate %s: %d examples for %d folds", method, len(exs), CVFolds)
	}
	var hits float64
	for f := 0; f < CVFolds; f++ {
		var train, test []Example
		for i, ex := range exs {
			if i%CVFolds == f {
				test = append(test, ex)
			} else {
				train = append(train, ex)
			}
		}
		p, _, err := Tune(method, inputs, train, opt)
		if err != nil {
			return 0, err
		}
		p1, _, err := Evaluate(p, test)
		if err != nil {
			return 0, err
		}
		hits += p1 * float64(len(test))
	}
	return hits / float64(len(exs)), nil
}
