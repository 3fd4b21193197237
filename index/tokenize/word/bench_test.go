package word

import (
	"testing"
)

// benchTexts returns the SQuAD test contexts from the shared data, or the
// fixtures when the shared data is absent.
func benchTexts(b *testing.B) (texts []string, source string) {
	if sharedDir() != "" {
		return readJSONLField(b, "data/squad-multireqa-test/contexts.jsonl.gz", "text"), "squad-contexts"
	}
	b.Log("shared test data not found at ../shared beside the repository; benchmarking the fixtures")
	return fixtureTexts(b), "fixtures"
}

func benchmark(b *testing.B, tokenize func(string) []string) {
	texts, _ := benchTexts(b)
	size := 0
	for _, s := range texts {
		size += len(s)
	}
	tokens := 0
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuSeconds()
	for i := 0; i < b.N; i++ {
		tokens = 0
		for _, s := range texts {
			tokens += len(tokenize(s))
		}
	}
	cpu := cpuSeconds() - cpu0
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(size)*float64(b.N)/sec/1e6, "MB/s")
	b.ReportMetric(float64(tokens)*float64(b.N)/sec, "tokens/s")
	b.ReportMetric(float64(size)/1e6, "MB/op")
	if cpu > 0 {
		// Throughput per CPU second (GC included): the number to trust
		// when the machine is shared.
		b.ReportMetric(float64(size)*float64(b.N)/cpu/1e6, "MB/cpu-s")
	}
}

// BenchmarkTokenize is word_tokenize over every SQuAD test context: sentence
// splitting plus the Treebank rules.
func BenchmarkTokenize(b *testing.B) { benchmark(b, Tokenize) }

// BenchmarkTokenizeSentence is the Treebank rules alone over whole contexts.
func BenchmarkTokenizeSentence(b *testing.B) { benchmark(b, TokenizeSentence) }

// BenchmarkReference is the plain regexp port, for comparison.
func BenchmarkReference(b *testing.B) { benchmark(b, refTokenizeSentence) }
