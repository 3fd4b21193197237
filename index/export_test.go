package index

import (
	"runtime"
	"sync/atomic"
	"time"
)

// PeakHeap is peakHeap for the tests outside the package (index_test),
// which cannot share its files: they read inputs with package ingest, which
// imports index.
var PeakHeap = peakHeap

// peakHeap runs fn and returns the highest Go heap in use above what was
// in use when it started, sampled every interval.
func peakHeap(interval time.Duration, fn func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > base && ms.HeapInuse-base > peak.Load() {
				peak.Store(ms.HeapInuse - base)
			}
			select {
			case <-stop:
				return
			case <-time.After(interval):
			}
		}
	}()
	defer func() {
		close(stop)
		<-sampled
	}()
	fn()
	return peak.Load()
}
