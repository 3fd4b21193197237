//go:build !unix

package word

// cpuSeconds is unavailable here; benchmarks then omit CPU-time metrics.
func cpuSeconds() float64 { return 0 }
