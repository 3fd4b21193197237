package index_test

import (
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/index/encoder"
	"github.com/reqa/reqa/index/encoder/uselite"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/internal/testenv"
)

// The tests of package index read their inputs with package ingest, as
// reqa index does.

// appendOptions returns build options with the embedded encoder when it is
// available (dense false otherwise).
func appendOptions(t *testing.T, withDense bool) index.Options {
	opt := index.Options{Builder: "test"}
	if !withDense {
		return opt
	}
	onnx, vocab, err := uselite.Model()
	if err != nil {
		testenv.Skip(t, "dense part skipped: %v (run `make assets`)", err)
	}
	enc, err := encoder.New(encoder.Spec{Name: uselite.Name, Kind: encoder.KindUSELite, Dim: uselite.Dim}, onnx, vocab, encoder.Options{})
	if err != nil {
		testenv.Skip(t, "dense part skipped: %v", err)
	}
	t.Cleanup(func() { enc.Close() })
	opt.Encoder, opt.EncoderModel, opt.EncoderVocab, opt.Lambda = enc, onnx, vocab, 0.25
	return opt
}

// readParts reads parts of testdata/append into one corpus.
func readParts(t *testing.T, parts ...string) *ingest.Corpus {
	t.Helper()
	var paths []string
	for _, p := range parts {
		paths = append(paths, filepath.Join("testdata", "append", p))
	}
	c, err := ingest.ReadInputs(paths)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// readDocs reads files of testdata/docs into one corpus.
func readDocs(t *testing.T, names ...string) *ingest.Corpus {
	t.Helper()
	var paths []string
	for _, n := range names {
		paths = append(paths, filepath.Join("testdata", "docs", n))
	}
	c, err := ingest.ReadInputs(paths)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// bigLine returns about n bytes of pseudo-English sentences on one line
// (a copy of package ingest's test helper).
func bigLine(n int) string {
	rng := rand.New(rand.NewSource(1))
	syll := []string{"ka", "lo", "mi", "ne", "ru", "ta", "shi", "po", "ve", "da", "en", "or", "al", "is", "um"}
	vocab := make([]string, 20000)
	for i := range vocab {
		var w strings.Builder
		for range 1 + rng.Intn(4) {
			w.WriteString(syll[rng.Intn(len(syll))])
		}
		vocab[i] = w.String()
	}
	var b strings.Builder
	b.Grow(n + 200)
	for b.Len() < n {
		k := 6 + rng.Intn(15)
		for j := range k {
			w := vocab[rng.Intn(len(vocab))]
			if j == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			b.WriteString(w)
			if j < k-1 {
				b.WriteByte(' ')
			}
		}
		b.WriteString(". ")
	}
	return b.String()
}
