package word

import (
	"testing"
)

// benchTexts returns the SQuAD test contexts from the shared data, or the
// fixtures when the shared data is absent.
func benchTexts(b *testing.B) []string {
	if sharedDir() != "" {
		return readJSONLField(b, "data/squad-multireqa-test/contexts.jsonl.gz", "text")
	}
	b.Log("shared test data not found at ../shared beside the repository; benchmarking the fixtures")
	return fixtureTexts(b)
}

func benchmark(b *testing.B, texts []string, tokenize func(string) []string) {
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
func BenchmarkTokenize(b *testing.B) {
	texts := benchTexts(b)
	benchmark(b, texts, Tokenize)
}

// BenchmarkTokenizeSentence is the Treebank rules alone over whole contexts.
func BenchmarkTokenizeSentence(b *testing.B) {
	texts := benchTexts(b)
	benchmark(b, texts, TokenizeSentence)
}

// BenchmarkReference is the plain regexp port, for comparison, on the first
// 100 texts only: it is some fifty times slower.
func BenchmarkReference(b *testing.B) {
	texts := benchTexts(b)
	benchmark(b, texts[:min(100, len(texts))], refTokenizeSentence)
}
