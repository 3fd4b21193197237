package rank_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/index/encoder"
	"github.com/reqa/reqa/index/encoder/uselite"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/internal/testenv"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/fuse"
)

// buildTestIndex builds a real index of the ingest test corpus with both
// BM25 fields and, when the encoder is embedded, embeddings and an ANN
// graph. It reports whether the index is dense.
func buildTestIndex(t *testing.T, path string) bool {
	t.Helper()
	dense := uselite.Available()
	if !dense {
		t.Log("the USE-Lite encoder is not embedded in this build (fetch it with make): the index has no embeddings")
	}
	return buildTestIndexDense(t, path, dense)
}

// buildTestIndexDense is buildTestIndex, with embeddings only when dense
// (which needs the embedded encoder; see requireDense).
func buildTestIndexDense(t *testing.T, path string, dense bool) bool {
	t.Helper()
	buildIndexOf(t, path, dense, "../ingest/testdata/corpus")
	return dense
}

// buildIndexOf builds an index of inputs at path as reqa index does, with
// embeddings when dense.
func buildIndexOf(t *testing.T, path string, dense bool, inputs ...string) {
	t.Helper()
	buildIndexPrecision(t, path, dense, uselite.PrecisionFP32, inputs...)
}

// buildIndexPrecision is buildIndexOf with the embedded USE-Lite of the
// given precision.
func buildIndexPrecision(t *testing.T, path string, dense bool, precision string, inputs ...string) {
	t.Helper()
	c, err := ingest.ReadInputs(inputs)
	if err != nil {
		t.Fatal(err)
	}
	opt := index.Options{} // every tokenizer, as reqa index builds
	if dense {
		onnx, vocab, err := uselite.ModelPrecision(precision)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := encoder.New(encoder.Spec{Name: uselite.Name, Kind: encoder.KindUSELite, Dim: uselite.Dim, Precision: precision}, onnx, vocab, encoder.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer enc.Close()
		opt.Encoder, opt.EncoderModel, opt.EncoderVocab, opt.Lambda = enc, onnx, vocab, 0.25
	}
	if _, err := index.Build(context.Background(), c, path, opt); err != nil {
		t.Fatal(err)
	}
}

// openDenseTestIndex builds the test corpus's index with embeddings in a
// temporary directory and opens it for the rest of t (requireDense).
func openDenseTestIndex(t *testing.T) *rank.Index {
	t.Helper()
	requireDense(t)
	path := filepath.Join(t.TempDir(), "t.reqa")
	buildTestIndexDense(t, path, true)
	e, err := rank.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// requireDense skips t when the dense encoder is not embedded in this build
// (fetch it with make), and fails it under CI=true, where it must run.
func requireDense(t *testing.T) {
	t.Helper()
	if !uselite.Available() {
		testenv.Skip(t, "the USE-Lite encoder is not embedded in this build (fetch it with make)")
	}
}

// fusedRanker resolves the fusion p on e as a *rank.FusedRanker (for its
// Breakdown).
func fusedRanker(e *rank.Index, p fuse.Params) (*rank.FusedRanker, error) {
	r, err := e.Fused(p, rank.Spec{})
	if err != nil {
		return nil, err
	}
	f, ok := r.(*rank.FusedRanker)
	if !ok {
		return nil, fmt.Errorf("%s: a %T, not a *rank.FusedRanker", p.Name, r)
	}
	return f, nil
}

// copyIndex copies the index file src to dst (to damage a copy).
func copyIndex(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// askWord asks the index at path, opened with o, question with bm25-word
// for three answers.
func askWord(path string, o rank.OpenOptions, question string) ([]rank.Answer, error) {
	e, err := rank.OpenWith(path, o)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	r, err := e.Ranker("bm25-word")
	if err != nil {
		return nil, err
	}
	return e.Ask(context.Background(), r, question, 3)
}

// vectorRankers are the rankers that read an index's answer vectors: dense
// and the default fusion, each exact and over the graph.
var vectorRankers = map[string]rank.Spec{
	"dense exact":   {Kind: rank.KindDense},
	"dense ANN":     {Kind: rank.KindDense, Dense: rank.DenseOptions{ANN: true}},
	"default exact": {},
	"default ANN":   {Dense: rank.DenseOptions{ANN: true}},
}

// openResolved opens the index at path with o, closed when t ends, and
// resolves s on it.
func openResolved(t *testing.T, path string, o rank.OpenOptions, s rank.Spec) (*rank.Index, rank.Ranker) {
	t.Helper()
	e, err := rank.OpenWith(path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	r, err := e.Resolve(s)
	if err != nil {
		t.Fatal(err)
	}
	return e, r
}
