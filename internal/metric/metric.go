// Package metric holds reqa's ranking metrics, the MultiReQA paper's: a
// question is answered at rank r when its highest-ranked gold candidate is
// at r (1 is first); P@k is the percentage of questions with r ≤ k and MRR
// the mean of 1/r, in percent. A rank ≤ 0 means no gold candidate was
// ranked at all: it counts as a miss and adds 0 to MRR.
//
// rank.Summarize, the fusion tuner (rank/fuse) and the question adapter's
// validation (index/adapter) all score with these functions, so their
// numbers agree to the last bit.
package metric

// PAt returns P@k of ranks, in percent (0 for no questions).
func PAt(ranks []int, k int) float64 {
	if len(ranks) == 0 {
		return 0
	}
	var hits float64
	for _, r := range ranks {
		if r >= 1 && r <= k {
			hits++
		}
	}
	return 100 * hits / float64(len(ranks))
}

// MRR returns the mean reciprocal rank of ranks, in percent (0 for no
// questions).
func MRR(ranks []int) float64 {
	if len(ranks) == 0 {
		return 0
	}
	var sum float64
	for _, r := range ranks {
		if r >= 1 {
			sum += 1 / float64(r)
		}
	}
	return 100 * sum / float64(len(ranks))
}
