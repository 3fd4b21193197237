package mrqa_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reqa/reqa/ingest/mrqa"
)

// writeSynthetic writes an MRQA file of about size bytes: invented
// contexts of ten sentences, three questions each, with unique qids.
func writeSynthetic(t testing.TB, path string, size int64) int {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintln(w, `{"header": {"dataset": "SQuAD", "split": "synthetic"}}`)
	rng := rand.New(rand.NewSource(1))
	words := strings.Fields("amber basalt cinder dune ember fjord glacier harbor isthmus jetty kelp lagoon marsh nectar oxbow prairie quarry reef savanna tundra upland valley wadi xeric yardang zephyr")
	var written int64
	n := 0
	type det struct {
		Text  string   `json:"text"`
		Spans [][2]int `json:"char_spans"`
	}
	type qa struct {
		QID      string   `json:"qid"`
		Question string   `json:"question"`
		Answers  []string `json:"answers"`
		Detected []det    `json:"detected_answers"`
	}
	var sb strings.Builder
	for written < size {
		sb.Reset()
		var starts []int
		for s := 0; s < 10; s++ {
			if s > 0 {
				sb.WriteByte(' ')
			}
			starts = append(starts, sb.Len())
			k := 8 + rng.Intn(12)
			for i := 0; i < k; i++ {
				wd := words[rng.Intn(len(words))]
				if i == 0 {
					wd = strings.ToUpper(wd[:1]) + wd[1:]
				} else {
					sb.WriteByte(' ')
				}
				sb.WriteString(wd)
			}
			sb.WriteByte('.')
		}
		text := sb.String()
		var qas []qa
		for q := 0; q < 3; q++ {
			s := starts[rng.Intn(len(starts))]
			e := strings.IndexByte(text[s:], ' ')
			ans := text[s : s+e]
			n++
			qas = append(qas, qa{QID: strconv.FormatInt(int64(n), 16) + "f00d", Question: "Which word begins the sentence about " + ans + "?",
				Answers: []string{ans}, Detected: []det{{Text: ans, Spans: [][2]int{{s, s + e - 1}}}}})
		}
		b, _ := json.Marshal(map[string]any{"context": text, "qas": qas})
		w.Write(b)
		w.WriteByte('\n')
		written += int64(len(b) + 1)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return n
}

// peakHeap runs fn while sampling the live heap (what the last garbage
// collection found reachable: runtime/metrics /gc/heap/live:bytes), and
// returns its peak. The heap in use would also count garbage the collector
// has not reached yet, which grows when the machine is busy and the
// collector lags, not with what conversion keeps.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	fn()
	close(done)
	wg.Wait()
	// What fn left reachable at its end counts too.
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	return max(peak.Load(), sample[0].Value.Uint64())
}

// TestConvertStreams converts synthetic MRQA files of two sizes and checks
// that the heap in use does not grow with the input: conversion reads one
// line at a time and writes as it goes. REQA_STREAM_MB sets the larger
// size (default 48); the smaller is a quarter of it.
func TestConvertStreams(t *testing.T) {
	if testing.Short() {
		// May skip in CI: -short is a mode; make test and CI run without it.
		t.Skip("writes and converts tens of megabytes")
	}
	mb := int64(48)
	if s := os.Getenv("REQA_STREAM_MB"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 4 {
			t.Fatalf("REQA_STREAM_MB=%q: want a number of megabytes ≥ 4", s)
		}
		mb = v
	}
	dir := t.TempDir()
	var peaks [2]uint64
	for i, size := range []int64{mb << 20 / 4, mb << 20} {
		in := filepath.Join(dir, fmt.Sprintf("synthetic-%d.jsonl", i))
		questions := writeSynthetic(t, in, size)
		out := filepath.Join(dir, fmt.Sprintf("out-%d", i))
		var rep *mrqa.Report
		var err error
		start := time.Now()
		peaks[i] = peakHeap(func() {
			rep, err = mrqa.Convert(context.Background(), []string{in}, out, mrqa.Options{})
		})
		if err != nil {
			t.Fatal(err)
		}
		if d := rep.Datasets[0]; d.Questions != questions {
			t.Fatalf("%d questions, want %d", d.Questions, questions)
		}
		t.Logf("%d MB, %d questions: peak live heap %.1f MB, %.1fs", size>>20, questions, float64(peaks[i])/(1<<20), time.Since(start).Seconds())
		os.Remove(in)
		os.RemoveAll(out)
	}
	// Four times the input, at most the small run's heap plus slack for the
	// collector.
	if limit := peaks[0] + peaks[0]/2 + 8<<20; peaks[1] > limit {
		t.Errorf("peak live heap grew from %.1f MB to %.1f MB with 4× the input", float64(peaks[0])/(1<<20), float64(peaks[1])/(1<<20))
	}
}

// BenchmarkConvertMRQA converts a synthetic 8 MB MRQA file and reports the
// input throughput.
func BenchmarkConvertMRQA(b *testing.B) {
	dir := b.TempDir()
	in := filepath.Join(dir, "synthetic.jsonl")
	const size = 8 << 20
	questions := writeSynthetic(b, in, size)
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out := filepath.Join(dir, fmt.Sprintf("out-%d", i))
		if _, err := mrqa.Convert(context.Background(), []string{in}, out, mrqa.Options{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		os.RemoveAll(out)
		b.StartTimer()
	}
	b.ReportMetric(float64(questions)*float64(b.N)/b.Elapsed().Seconds(), "questions/s")
}
