package index_test

import (
	"context"
	"github.com/reqa/reqa/internal/testtext"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/ingest"
)

// BenchmarkBuildMemory builds a BM25-only index of 4 MB of pseudo-English
// (bigLine's sentences), once as paragraphs of about 450 bytes and once as a
// single line (cut into 4 KiB passages, so every sentence's document holds
// a 4 KiB context), and reports the peak Go heap during the build (sampled
// every 5 ms), the throughput, the index size per input byte and what
// EstimateBuildMemory predicted. Run: go test -run '^$' -bench BuildMemory
// -benchtime 1x ./index
func BenchmarkBuildMemory(b *testing.B) {
	const size = 4 << 20
	line := testtext.BigLine(size)
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
			c, err := ingest.ReadInputs([]string{src})
			if err != nil {
				b.Fatal(err)
			}
			out := filepath.Join(dir, "x.reqa")
			var peak uint64
			for b.Loop() {
				peak = max(peak, index.PeakHeap(5*time.Millisecond, func() {
					if _, err := index.Build(context.Background(), c, out, index.Options{}); err != nil {
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
			b.ReportMetric(float64(index.EstimateBuildMemory(&c.Corpus, false))/(1<<20), "estimate-MB")
		})
	}
}
