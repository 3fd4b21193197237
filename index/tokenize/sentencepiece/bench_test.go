package sentencepiece

import (
	"strings"
	"testing"
)

// benchTexts returns the golden SQuAD sentences and questions when the shared
// data is present, and otherwise the sentences of this package's fixtures.
func benchTexts(b *testing.B) (texts []string, source string) {
	b.Helper()
	if lines := readGoldenIfPresent(b, "squad-sample.jsonl"); lines != nil {
		for _, g := range lines {
			texts = append(texts, g.Text)
		}
		return texts, "golden squad-sample"
	}
	for _, fx := range loadFixtures(b) {
		if fx.Vocab == "embedded" {
			for _, c := range fx.Cases {
				texts = append(texts, c.Text)
			}
		}
	}
	return texts, "testdata fixtures"
}

func benchmarkEncode(b *testing.B, texts []string) {
	tok := embeddedTokenizer(b)
	var bytes, tokens int
	for _, s := range texts {
		bytes += len(s)
		tokens += len(tok.Encode(s))
	}
	b.SetBytes(int64(bytes))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, s := range texts {
			tok.Encode(s)
		}
	}
	b.ReportMetric(float64(tokens)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
	b.ReportMetric(float64(len(texts))*float64(b.N)/b.Elapsed().Seconds(), "texts/s")
}

// BenchmarkEncode tokenizes SQuAD sentences and questions (mostly ASCII).
func BenchmarkEncode(b *testing.B) {
	texts, source := benchTexts(b)
	b.Logf("%d texts from %s", len(texts), source)
	benchmarkEncode(b, texts)
}

// BenchmarkEncodeAccented tokenizes the same texts with accents added, so
// that every text goes through NFKC.
func BenchmarkEncodeAccented(b *testing.B) {
	texts, _ := benchTexts(b)
	r := strings.NewReplacer("e", "é", "a", "à", "o", "ö")
	for i, s := range texts {
		texts[i] = r.Replace(s)
	}
	benchmarkEncode(b, texts)
}

// BenchmarkEncodeLong tokenizes one text of about 100 kB.
func BenchmarkEncodeLong(b *testing.B) {
	texts, _ := benchTexts(b)
	var sb strings.Builder
	for sb.Len() < 100_000 {
		sb.WriteString(texts[sb.Len()%len(texts)])
		sb.WriteByte(' ')
	}
	benchmarkEncode(b, []string{sb.String()})
}

func BenchmarkNew(b *testing.B) {
	embeddedTokenizer(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(); err != nil {
			b.Fatal(err)
		}
	}
}
