package ann

import "slices"

// cand is a node and its distance to the current query, where distance is
// the negated dot product: ordering by it equals ordering by 1 − dot, without
// the rounding that subtracting from 1 would add.
type cand struct {
	d  float32
	id uint32
}

// less orders candidates nearest first, ties by lower id, so that every
// comparison in the package is a total order and results are reproducible.
func (a cand) less(b cand) bool {
	return a.d < b.d || (a.d == b.d && a.id < b.id)
}

func sortCands(cs []cand) {
	slices.SortFunc(cs, func(a, b cand) int {
		switch {
		case a.less(b):
			return -1
		case b.less(a):
			return 1
		}
		return 0
	})
}

// minHeap keeps the nearest candidate at index 0.
type minHeap []cand

func (h *minHeap) push(c cand) {
	s := append(*h, c)
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s[i].less(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
	*h = s
}

func (h *minHeap) pop() cand {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		j := l
		if r := l + 1; r < n && s[r].less(s[l]) {
			j = r
		}
		if !s[j].less(s[i]) {
			break
		}
		s[i], s[j] = s[j], s[i]
		i = j
	}
	*h = s
	return top
}

// maxHeap keeps the farthest candidate at index 0.
type maxHeap []cand

func (h *maxHeap) push(c cand) {
	s := append(*h, c)
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s[p].less(s[i]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
	*h = s
}

func (h *maxHeap) pop() cand {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		j := l
		if r := l + 1; r < n && s[l].less(s[r]) {
			j = r
		}
		if !s[i].less(s[j]) {
			break
		}
		s[i], s[j] = s[j], s[i]
		i = j
	}
	*h = s
	return top
}

// drainSorted empties the heap into dst, nearest first, and returns dst.
func (h *maxHeap) drainSorted(dst []cand) []cand {
	n := len(*h)
	dst = slices.Grow(dst[:0], n)[:n]
	for i := n - 1; i >= 0; i-- {
		dst[i] = h.pop()
	}
	return dst
}

// searcher is the scratch state of one search: visited marks and the two
// heaps. Search takes one from a pool; Add keeps its own.
type searcher struct {
	marks []uint16 // marks[id] == epoch: visited in the current search
	epoch uint16

	cand minHeap
	res  maxHeap
	eps  []cand

	selBuf    []cand
	shrinkBuf []cand
	shrinkSel []cand
}

// reset starts a new search over n nodes.
func (s *searcher) reset(n int) {
	if len(s.marks) < n {
		m := make([]uint16, n+n/4)
		copy(m, s.marks)
		s.marks = m
	}
	s.epoch++
	if s.epoch == 0 { // wrapped: old marks could collide
		clear(s.marks)
		s.epoch = 1
	}
}

// visit marks id and reports whether it was already marked.
func (s *searcher) visit(id uint32) bool {
	if s.marks[id] == s.epoch {
		return true
	}
	s.marks[id] = s.epoch
	return false
}
