package encoder_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/reqa/reqa/index/encoder/uselite"
	"github.com/reqa/reqa/internal/testenv"
)

// squadCandidates reads the candidate sentences of the shared SQuAD set.
func squadCandidates(tb testing.TB) []string { return squadTexts(tb, "candidates", "text", -1) }

// squadQuestions reads the first n questions of the shared SQuAD set.
func squadQuestions(tb testing.TB, n int) []string { return squadTexts(tb, "questions", "question", n) }

// squadTexts reads field of the first n records (n < 0: all) of the shared
// SQuAD set's file name.jsonl.gz.
func squadTexts(tb testing.TB, name, field string, n int) []string {
	f, err := os.Open("../../../shared/data/squad-multireqa-test/" + name + ".jsonl.gz")
	if err != nil {
		testenv.Skip(tb, "SQuAD set not present: %v", err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(z)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() && (n < 0 || len(out) < n) {
		var rec map[string]json.RawMessage
		var text string
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			tb.Fatal(err)
		}
		if err := json.Unmarshal(rec[field], &text); err != nil {
			tb.Fatalf("%s: field %s: %v", name, field, err)
		}
		out = append(out, text)
	}
	return out
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// BenchmarkEncodeSQuAD embeds every SQuAD candidate sentence (10,642) per
// iteration, with the float32 and the int8 model, and reports sentences per
// second of wall time and per CPU second (robust on a shared machine).
func BenchmarkEncodeSQuAD(b *testing.B) {
	texts := squadCandidates(b)
	for _, p := range uselite.Precisions {
		b.Run(p, func(b *testing.B) {
			e := encoderOf(b, p)
			defer e.Close()
			cpu0 := cpuSeconds()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := e.Encode(context.Background(), texts, nil); err != nil {
					b.Fatal(err)
				}
			}
			n := float64(len(texts) * b.N)
			b.ReportMetric(n/b.Elapsed().Seconds(), "sentences/s")
			b.ReportMetric(n/(cpuSeconds()-cpu0), "sentences/cpu-s")
		})
	}
}

// BenchmarkEncodeQuestion embeds SQuAD questions one at a time, as `reqa
// ask` and `reqa serve` do, with each precision, and reports CPU
// milliseconds per question.
func BenchmarkEncodeQuestion(b *testing.B) {
	qs := squadQuestions(b, 1000)
	for _, p := range uselite.Precisions {
		b.Run(p, func(b *testing.B) {
			e := encoderOf(b, p)
			defer e.Close()
			cpu0 := cpuSeconds()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := e.Encode(context.Background(), []string{qs[i%len(qs)]}, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(1000*(cpuSeconds()-cpu0)/float64(b.N), "cpu-ms/question")
		})
	}
}
