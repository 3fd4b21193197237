//go:build unix

package ann

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user+system CPU time, or 0 where unknown.
// On a shared machine it is steadier than wall time: waiting for a core
// does not count.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
