package wordpiece

import (
	"bytes"
	"testing"

	"github.com/reqa/reqa/internal/testenv"
	"github.com/sugarme/tokenizer/pretrained"
)

// benchTokenize tokenizes every SQuAD context once per iteration and reports
// throughput: MB/s of input text (via SetBytes), tokens/s and texts/s.
func benchTokenize(b *testing.B, tokenize func(string) []string) {
	texts := squadTexts(b, true)
	var size int64
	for _, s := range texts {
		size += int64(len(s))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	tokens := 0
	b.ResetTimer()
	for b.Loop() {
		for _, s := range texts {
			tokens += len(tokenize(s))
		}
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(tokens)/sec, "tokens/s")
	b.ReportMetric(float64(b.N*len(texts))/sec, "texts/s")
}

// BenchmarkTokenize measures the fast path, which New returns.
func BenchmarkTokenize(b *testing.B) {
	tk := newOrSkip(b)
	benchTokenize(b, tk.Tokenize)
}

// BenchmarkTokenizeParallel measures the fast path from GOMAXPROCS
// goroutines sharing one Tokenizer.
func BenchmarkTokenizeParallel(b *testing.B) {
	tk := newOrSkip(b)
	texts := squadTexts(b, true)
	var size int64
	for _, s := range texts {
		size += int64(len(s))
	}
	b.SetBytes(size)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			for _, s := range texts {
				tk.Tokenize(s)
			}
		}
	})
}

// BenchmarkSugarmeStock measures github.com/sugarme/tokenizer v0.3.0 as the
// file configures it (its own, wrong, normaliser; padding and truncation
// off), for the comparison in doc.go.
func BenchmarkSugarmeStock(b *testing.B) {
	data, err := assets.ReadFile(assetPath)
	if err != nil {
		testenv.Skip(b, "assets/tokenizer.json absent: run `make`")
	}
	tk, err := pretrained.FromReader(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	tk.WithPadding(nil)
	tk.WithTruncation(nil)
	benchTokenize(b, func(s string) []string {
		toks, err := tk.Tokenize(s)
		if err != nil {
			b.Fatal(err)
		}
		return toks
	})
}

// BenchmarkSugarme measures the test reference: normalisation by
// refNormalize (plain Go string functions), then sugarme's pre-tokenizer
// and WordPiece model.
func BenchmarkSugarme(b *testing.B) {
	ref := refOrSkip(b)
	benchTokenize(b, func(s string) []string {
		toks, err := ref.tokenize(s)
		if err != nil {
			b.Fatal(err)
		}
		return toks
	})
}

// BenchmarkNew measures building a Tokenizer from the embedded file, which
// New does once per process: parse the JSON and build the lookup tables.
func BenchmarkNew(b *testing.B) {
	data, err := assets.ReadFile(assetPath)
	if err != nil {
		testenv.Skip(b, "assets/tokenizer.json absent: run `make`")
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
