package testenv

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// ResidentKB returns how many KB of the file at path this process has
// resident in its memory maps (Linux: the Rss of each mapping of path in
// /proc/self/smaps); path must be written as the kernel shows it (whole).
func ResidentKB(tb testing.TB, path string) int {
	tb.Helper()
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		tb.Fatalf("reading the process's maps: %v", err)
	}
	kb, in := 0, false
	for _, line := range strings.Split(string(b), "\n") {
		fs := strings.Fields(line)
		if len(fs) >= 5 && strings.Contains(fs[0], "-") && !strings.HasSuffix(fs[0], ":") {
			in = fs[len(fs)-1] == path // a mapping's header line
			continue
		}
		if in && len(fs) >= 2 && fs[0] == "Rss:" {
			n, _ := strconv.Atoi(fs[1])
			kb += n
		}
	}
	return kb
}
