package fuse

import (
	"math"
	"testing"
)

// TestEvaluate checks that Evaluate agrees with what Tune reports for every
// method it scores, and with full fusion for the re-ranker; rrf is an error.
func TestEvaluate(t *testing.T) {
	exs := synthetic(300, 3)
	for _, m := range []string{"minmax", "zscore", "adaptive", "learned"} {
		p, _, err := Tune(m, []string{"a", "b"}, exs, TuneOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p1, mrr, err := Evaluate(p, exs)
		if err != nil || math.Abs(p1-p.TuneP1) > 1e-9 || mrr < p1 || mrr > 100 {
			t.Errorf("%s: Evaluate = %.2f/%.2f, %v; Tune reported P@1 %.2f", m, p1, mrr, err, p.TuneP1)
		}
	}
	p, ins, golds, ctxOf := synthTune(t)
	var rexs []Example
	for i := range ins {
		rexs = append(rexs, NewExampleContext(ins[i], golds[i], 20, ctxOf))
	}
	got, _, err := Evaluate(p, rexs)
	if want := p1(t, p, ins, golds, ctxOf); err != nil || math.Abs(got-want) > 1e-9 {
		t.Errorf("rerank: Evaluate P@1 %.2f, %v; fusing every candidate gives %.2f", got, err, want)
	}
	if _, _, err := Evaluate(Params{Name: "fusion-rrf", Method: "rrf", Inputs: []string{"a", "b"}, K: 60}, exs); err == nil {
		t.Error("rrf evaluated on tuning examples, want an error")
	}
	if _, _, err := Evaluate(Params{Name: "fusion-zscore", Method: "zscore", Inputs: []string{"a", "b", "c"}, Weights: []float64{1, 0, 0}}, exs); err == nil {
		t.Error("three inputs on two-input examples accepted")
	}
	if _, _, err := Evaluate(Params{Name: "x", Method: "zscore"}, exs); err == nil {
		t.Error("invalid parameters accepted")
	}
}

// TestCrossValidate: every example is scored once by a fit that did not
// see it; on these examples that is below the in-sample P@1 (not a theorem:
// folds fit different weights), and too few examples are an error.
func TestCrossValidate(t *testing.T) {
	exs := synthetic(300, 5)
	for _, m := range []string{"zscore", "learned"} {
		p, _, err := Tune(m, []string{"a", "b"}, exs, TuneOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cv, err := CrossValidate(m, []string{"a", "b"}, exs, TuneOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cv <= 0 || cv > p.TuneP1+1e-9 {
			t.Errorf("%s: cross-validated P@1 %.2f, in-sample %.2f", m, cv, p.TuneP1)
		}
	}
	if _, err := CrossValidate("zscore", []string{"a", "b"}, exs[:CVFolds-1], TuneOptions{}); err == nil {
		t.Error("fewer examples than folds accepted")
	}
}
