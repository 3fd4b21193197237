package index_test

import (
	"path/filepath"
	"testing"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/index/encoder"
	"github.com/reqa/reqa/index/encoder/uselite"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/internal/testenv"
	"github.com/reqa/reqa/store"
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

// records returns r's sentences and contexts.
func records(t *testing.T, r *store.Reader) ([]store.Sentence, []store.Context) {
	t.Helper()
	sents, err := r.Sentences()
	if err != nil {
		t.Fatal(err)
	}
	ctxs, err := r.Contexts()
	if err != nil {
		t.Fatal(err)
	}
	return sents, ctxs
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
