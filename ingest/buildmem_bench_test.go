package ingest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkBuildMemory builds a BM25-only index of 4 MB of pseudo-English
// (bigLine's sentences), once as paragraphs of about 450 bytes and once as a
// single line (cut into 4 KiB passages, so every sentence's document holds
// a 4 KiB context), and reports the peak Go heap during the build (sampled
// every 5 ms), the throughput, the index size per input byte and what
// EstimateBuildMemory predicted. Run: go test -run '^$' -bench BuildMemory
// -benchtime 1x ./ingest
func BenchmarkBuildMemory(b *testing.B) {
	const size = 4 << 20
	line := bigLine(size)
	var paras strings.Builder
	n := 0
	for _, s := range strings.SplitAfter(line, ". ") {
		paras.WriteString(s)
		if n += len(s); n >= 450 {
			paras.WriteString("\n\n")
			n = 0
		}
	}
	for _, in := range []struct{ name, text string }{{"paragraphs", paras.String()}, {"one-line", line}} {
		b.Run(in.name, func(b *testing.B) {
			dir := b.TempDir()
			src := filepath.Join(dir, "in.txt")
			if err := os.WriteFile(src, []byte(in.text), 0o644); err != nil {
				b.Fatal(err)
			}
			c, err := ReadInputs([]string{src})
			if err != nil {
				b.Fatal(err)
			}
			out := filepath.Join(dir, "x.reqa")
			var peak uint64
			for b.Loop() {
				peak = max(peak, peakHeap(5*time.Millisecond, func() {
					if _, err := Build(context.Background(), c, out, Options{}); err != nil {
						b.Fatal(err)
					}
				}))
			}
			st, err := os.Stat(out)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(len(in.text))/(1<<20)/(b.Elapsed().Seconds()/float64(b.N)), "MB/s")
			b.ReportMetric(float64(st.Size())/float64(len(in.text)), "index-bytes/input-byte")
			b.ReportMetric(float64(EstimateBuildMemory(c, false))/(1<<20), "estimate-MB")
		})
	}
}

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
