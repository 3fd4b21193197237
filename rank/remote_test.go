package rank_test

import (
	"slices"
	"testing"

	"github.com/reqa/reqa/index/tokenize/stem"
	"github.com/reqa/reqa/rank"
)

// TestRepeated checks how weighted query tokens go to an engine: each
// token repeated weight × scale times, scale the smallest that makes every
// repeat count whole, and weights no whole count expresses refused.
func TestRepeated(t *testing.T) {
	for _, tc := range []struct {
		name    string
		toks    []string
		weights []float64
		want    []string
		scale   float64
		bad     bool
	}{
		{"unweighted", []string{"a", "b"}, nil, []string{"a", "b"}, 1, false},
		{"all 1", []string{"a", "b"}, []float64{1, 1}, []string{"a", "b"}, 1, false},
		{"halves", []string{"how", "log"}, []float64{0.5, 1}, []string{"how", "log", "log"}, 2, false},
		{"thirds", []string{"a", "b"}, []float64{1.0 / 3, 2.0 / 3}, []string{"a", "b", "b"}, 3, false},
		{"empty", []string{}, []float64{}, []string{}, 1, false},
		{"irrational", []string{"a"}, []float64{0.1234567}, nil, 0, true},
		{"zero", []string{"a"}, []float64{0}, nil, 0, true},
		{"length mismatch", []string{"a", "b"}, []float64{1}, nil, 0, true},
	} {
		got, scale, err := rank.Repeated(tc.toks, tc.weights)
		if tc.bad {
			if err == nil {
				t.Errorf("%s: %q accepted", tc.name, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) || scale != tc.scale {
			t.Errorf("%s: %q scale %v (%v), want %q scale %v", tc.name, got, scale, err, tc.want, tc.scale)
		}
	}
	// The stem tokenizer's weights always go through.
	toks, weights := stem.Query("How do I roll back what I did?")
	got, scale, err := rank.Repeated(toks, weights)
	if err != nil || scale != 1/stem.FormWeight || len(got) != 2*len(toks)-countForm(toks) {
		t.Fatalf("stem query %q %v: %q scale %v (%v)", toks, weights, got, scale, err)
	}
}

func countForm(toks []string) int {
	n := 0
	for _, t := range toks {
		if stem.Form(t) {
			n++
		}
	}
	return n
}
