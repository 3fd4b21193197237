//go:build unix

package word

import "syscall"

// cpuSeconds returns the user plus system CPU time this process has used, so
// benchmarks can report throughput that other load on a shared machine does
// not distort.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
