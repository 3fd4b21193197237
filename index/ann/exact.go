package ann

// Exact returns the k vectors most similar to q by dot product, by brute
// force over the flat store vectors (vector i at [i·dim, (i+1)·dim)). It is
// the reference Search is measured against and uses the same dot-product
// kernel and the same order (higher Score first, ties by lower ID), so for
// any id both return, both report the identical score. Exact returns nil
// when k ≤ 0, dim ≤ 0, len(q) ≠ dim or len(vectors) is not a multiple of
// dim.
func Exact(vectors []float32, dim int, q []float32, k int) []Result {
	if k <= 0 || dim <= 0 || len(q) != dim || len(vectors)%dim != 0 {
		return nil
	}
	n := len(vectors) / dim
	k = min(k, n)
	h := make(maxHeap, 0, k+1)
	for i := 0; i < n; i++ {
		c := cand{d: -dot(q, vectors[i*dim:(i+1)*dim:(i+1)*dim]), id: uint32(i)}
		if len(h) < k {
			h.push(c)
		} else if c.less(h[0]) {
			h.pop()
			h.push(c)
		}
	}
	w := h.drainSorted(nil)
	out := make([]Result, len(w))
	for i, c := range w {
		out[i] = Result{ID: c.id, Score: -c.d}
	}
	return out
}
