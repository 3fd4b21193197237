package metric

import (
	"math"
	"testing"
)

func TestMetrics(t *testing.T) {
	for _, c := range []struct {
		ranks       []int
		p1, p5, mrr float64
	}{
		{nil, 0, 0, 0},
		{[]int{1}, 100, 100, 100},
		{[]int{1, 2, 0, 10}, 25, 50, 100 * (1 + 0.5 + 0 + 0.1) / 4},
		{[]int{5, 6}, 0, 50, 100 * (0.2 + 1.0/6) / 2},
		{[]int{-1, 0}, 0, 0, 0},
	} {
		if got := PAt(c.ranks, 1); got != c.p1 {
			t.Errorf("P@1%v = %v, want %v", c.ranks, got, c.p1)
		}
		if got := PAt(c.ranks, 5); got != c.p5 {
			t.Errorf("P@5%v = %v, want %v", c.ranks, got, c.p5)
		}
		if got := MRR(c.ranks); math.Abs(got-c.mrr) > 1e-12 {
			t.Errorf("MRR%v = %v, want %v", c.ranks, got, c.mrr)
		}
	}
}
