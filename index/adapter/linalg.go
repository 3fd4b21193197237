package adapter

import (
	"sync"

	"github.com/reqa/reqa/index/dense"
)

func dot(a, b []float32) float32 { return dense.Dot(a, b) }

// axpy adds a·x to y.
func axpy(y []float32, a float32, x []float32) {
	x = x[:len(y)]
	for i := range y {
		y[i] += a * x[i]
	}
}

// parallel splits [0,n) into at most workers contiguous chunks and runs f
// on each concurrently. Every index is handled by exactly one call, so
// results do not depend on the number of workers.
func parallel(n, workers int, f func(lo, hi int)) {
	if workers <= 1 || n < 2 {
		f(0, n)
		return
	}
	workers = min(workers, n)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := w*n/workers, (w+1)*n/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

// mulABtAdd adds a·bᵀ to out: a is n×k, b is m×k, out is n×m (row-major).
func mulABtAdd(a, b, out []float32, n, m, k, workers int) {
	parallel(n, workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ai := a[i*k : (i+1)*k]
			oi := out[i*m : (i+1)*m]
			for j := 0; j < m; j++ {
				oi[j] += dot(ai, b[j*k:(j+1)*k])
			}
		}
	})
}

// mulAtB adds aᵀ·b to out: a is n×m, b is n×k, out is m×k.
func mulAtB(a, b, out []float32, n, m, k, workers int) {
	parallel(m, workers, func(lo, hi int) {
		for o := lo; o < hi; o++ {
			oo := out[o*k : (o+1)*k]
			for i := 0; i < n; i++ {
				if x := a[i*m+o]; x != 0 {
					axpy(oo, x, b[i*k:(i+1)*k])
				}
			}
		}
	})
}

// transpose returns the k×n transpose of the n×k matrix a.
func transpose(a []float32, n, k int) []float32 {
	out := make([]float32, len(a))
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			out[j*n+i] = a[i*k+j]
		}
	}
	return out
}
