package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/internal/display"
)

// memoryLimitFlag lets `reqa index` refuse a build that cannot fit in
// memory before it is killed by the kernel halfway.
var memoryLimitFlag = &cli.StringFlag{Name: "memory-limit", Usage: "refuse to start a build whose estimated peak memory exceeds this (e.g. 8G, 512M; default: the memory available now; off: never refuse)"}

// memoryLimit returns the limit --memory-limit sets for reading the inputs
// (0: none).
func memoryLimit(c *cli.Context) (int64, error) {
	switch v := strings.TrimSpace(c.String("memory-limit")); v {
	case "off":
		return 0, nil
	case "":
		avail, _ := availableMemory()
		return avail, nil
	default:
		n, err := parseSize(v)
		if err != nil {
			return 0, usagef("index: --memory-limit %q: %v", v, err)
		}
		return n, nil
	}
}

// checkBuildMemory returns an error when indexing corpus (plus extra bytes
// the build holds besides, e.g. an appended-to index's vectors) is
// estimated to need more memory than --memory-limit, or than is available.
func checkBuildMemory(c *cli.Context, corpus *ingest.Corpus, dense bool, extra int64) error {
	limit, source := int64(0), ""
	switch v := strings.TrimSpace(c.String("memory-limit")); v {
	case "off":
		return nil
	case "":
		avail, ok := availableMemory()
		if !ok {
			return nil
		}
		limit, source = avail, "available"
	default:
		n, err := parseSize(v)
		if err != nil {
			return usagef("index: --memory-limit %q: %v", v, err)
		}
		limit, source = n, "allowed by --memory-limit"
	}
	need := index.EstimateBuildMemory(&corpus.Corpus, dense) + extra
	if need <= limit {
		return nil
	}
	return fmt.Errorf("indexing %d sentences from %d contexts needs about %s of memory and %s is %s: "+
		"index the inputs in parts (`reqa index` the first, then `reqa index --append` the others; memory then "+
		"scales with each part) or pass --memory-limit off to try anyway",
		len(corpus.Sentences), len(corpus.Contexts), display.Bytes(need), display.Bytes(limit), source)
}

// availableMemory returns the memory this process can still use: the
// kernel's MemAvailable, lowered to the cgroup's remaining limit when one
// is set.
func availableMemory() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	avail := int64(-1)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				avail = kb << 10
			}
		}
	}
	if avail < 0 {
		return 0, false
	}
	if max, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if m, err := strconv.ParseInt(strings.TrimSpace(string(max)), 10, 64); err == nil {
			cur := int64(0)
			if b, err := os.ReadFile("/sys/fs/cgroup/memory.current"); err == nil {
				cur, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			}
			avail = min(avail, m-cur)
		}
	}
	return avail, true
}

// parseSize parses a byte count with an optional K, M, G or T suffix
// (powers of 1024; a trailing "B" or "iB" is allowed).
func parseSize(s string) (int64, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	u = strings.TrimSuffix(strings.TrimSuffix(u, "B"), "I")
	mult := int64(1)
	if n := len(u); n > 0 {
		switch u[n-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			u = u[:n-1]
		}
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(u), 64)
	if err != nil || f <= 0 {
		return 0, fmt.Errorf("want a size such as 8G or 512M")
	}
	return int64(f * float64(mult)), nil
}
