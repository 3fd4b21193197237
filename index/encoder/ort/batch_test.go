package ort_test

import (
	"fmt"
	"math"
	"sort"
	"sync"
	"syscall"
	"testing"

	"github.com/reqa/reqa/index/encoder/ort"
)

// TestBatchInvariance checks that a text's embedding does not depend on the
// batch around it: padding to a longer neighbour, sentences without tokens
// and the position in the batch must not change it beyond float rounding.
func TestBatchInvariance(t *testing.T) {
	lines := append(readGolden(t, "edge-cases.jsonl"), readGolden(t, "squad-sample.jsonl")[:40]...)
	s := useSession(t, ort.Options{})
	var seqs [][]int32
	for _, l := range lines {
		seqs = append(seqs, l.TokenIDs)
	}
	// Interleave empty sequences, and put the longest text last so that
	// everything else is padded.
	sort.SliceStable(seqs, func(i, j int) bool { return len(seqs[i]) < len(seqs[j]) })
	var batch [][]int32
	for i, seq := range seqs {
		if i%7 == 3 {
			batch = append(batch, nil)
		}
		batch = append(batch, seq)
	}
	batch = append([][]int32{{}}, batch...)
	together, err := s.Embed(batch)
	if err != nil {
		t.Fatalf("Embed batch: %v", err)
	}
	if len(together) != len(batch) {
		t.Fatalf("got %d embeddings for %d sequences", len(together), len(batch))
	}
	var emptyAlone []float32
	worst := 0.0
	for i, seq := range batch {
		alone, err := s.Embed([][]int32{seq})
		if err != nil {
			t.Fatalf("Embed alone %d: %v", i, err)
		}
		if len(seq) == 0 {
			emptyAlone = alone[0]
		}
		for k := range alone[0] {
			d := math.Abs(float64(alone[0][k] - together[i][k]))
			worst = max(worst, d)
		}
		if cs := cosine(alone[0], together[i]); !(cs >= 0.99999) {
			t.Errorf("sequence %d (%d tokens): cosine alone vs batched %.7f", i, len(seq), cs)
		}
	}
	t.Logf("%d sequences, max |alone-batched| %.2e", len(batch), worst)
	if emptyAlone == nil || math.IsNaN(float64(emptyAlone[0])) {
		t.Fatal("no finite embedding for an empty sequence")
	}
	var norm float64
	for _, v := range emptyAlone {
		norm += float64(v) * float64(v)
	}
	if math.Abs(norm-1) > 1e-4 {
		t.Errorf("empty-sequence embedding has squared norm %.6f, want 1", norm)
	}
}

// TestConcurrentGolden runs real-model batches from several goroutines and
// compares them with sequential results.
func TestConcurrentGolden(t *testing.T) {
	lines := readGolden(t, "squad-sample.jsonl")[:64]
	s := useSession(t, ort.Options{Threads: 1})
	var seqs [][]int32
	for _, l := range lines {
		seqs = append(seqs, l.TokenIDs)
	}
	want, err := s.Embed(seqs)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			part := seqs[g*16 : (g+1)*16]
			got, err := s.Embed(part)
			if err != nil {
				errs <- err
				return
			}
			for i := range got {
				if cs := cosine(got[i], want[g*16+i]); cs < 0.99999 {
					errs <- fmt.Errorf("goroutine %d row %d: cosine %.7f", g, i, cs)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestOutOfVocabulary(t *testing.T) {
	s := useSession(t, ort.Options{})
	if _, err := s.Embed([][]int32{{1, 2, 1 << 30}}); err == nil {
		t.Error("token id beyond the vocabulary accepted")
	}
}

// BenchmarkEmbed measures throughput on golden SQuAD sentences (38 tokens
// on average) at batch sizes 1 and 32, with one runtime thread and with
// ONNX Runtime's default of one per core. sentences/cpu-s divides by the
// process's CPU time instead of wall time, which is steadier on a shared
// machine.
func BenchmarkEmbed(b *testing.B) {
	lines := readGolden(b, "squad-sample.jsonl")
	for _, threads := range []int{1, 0} {
		s := useSession(b, ort.Options{Threads: threads})
		for _, size := range []int{1, 32} {
			b.Run(fmt.Sprintf("threads=%d/batch=%d", threads, size), func(b *testing.B) {
				batch := make([][]int32, size)
				next, tokens := 0, 0
				cpu0 := cpuSeconds()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					for j := range batch {
						batch[j] = lines[next].TokenIDs
						tokens += len(batch[j])
						next = (next + 1) % len(lines)
					}
					if _, err := s.Embed(batch); err != nil {
						b.Fatal(err)
					}
				}
				sec := b.Elapsed().Seconds()
				b.ReportMetric(float64(b.N*size)/(cpuSeconds()-cpu0), "sentences/cpu-s")
				b.ReportMetric(float64(b.N*size)/sec, "sentences/s")
				b.ReportMetric(float64(tokens)/sec, "tokens/s")
			})
		}
	}
}

// cpuSeconds returns the CPU time the process has used, user plus system.
// On a machine shared with other work it measures the encoder's cost better
// than wall time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
