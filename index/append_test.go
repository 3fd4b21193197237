package index_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/index/dense"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/store"
)

// TestAppendEqualsFullBuild indexes part1 then appends part2, and checks the
// result against indexing both at once: the same records, byte-identical
// postings, document lengths, term dictionaries, embeddings and ANN graph,
// the same statistics, and the same answers from every ranker.
func TestAppendEqualsFullBuild(t *testing.T) {
	for _, tc := range []struct {
		name      string
		withDense bool
		contexts  string // Options.ContextVectors
	}{{"bm25", false, ""}, {"dense", true, ""}, {"dense, context vectors from sentences", true, store.ContextVectorsWindow},
		{"dense, context vectors the mean of sentences (before the weights)", true, store.ContextVectorsSentences}} {
		withDense := tc.withDense
		t.Run(tc.name, func(t *testing.T) {
			opt := appendOptions(t, withDense)
			opt.ContextVectors = tc.contexts
			dir := t.TempDir()
			full, half := filepath.Join(dir, "full.reqa"), filepath.Join(dir, "half.reqa")
			ctx := context.Background()
			if _, err := index.Build(ctx, readParts(t, "part1.txt", "part2.txt"), full, opt); err != nil {
				t.Fatal(err)
			}
			if _, err := index.Build(ctx, readParts(t, "part1.txt"), half, opt); err != nil {
				t.Fatal(err)
			}
			aopt := index.Options{} // the index's own encoder, loaded from it
			if _, err := index.Append(ctx, readParts(t, "part2.txt"), half, aopt); err != nil {
				t.Fatal(err)
			}
			compareIndexes(t, full, half)
			compareAnswers(t, full, half, withDense)
			if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) != 0 {
				t.Errorf("temporary files left: %v", m)
			}
		})
	}
}

func compareIndexes(t *testing.T, fullPath, appPath string) {
	t.Helper()
	full, err := store.Open(fullPath)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	app, err := store.Open(appPath)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	fm, am := full.Meta(), app.Meta()
	if fm.Contexts != am.Contexts || fm.Sentences != am.Sentences || !reflect.DeepEqual(fm.Sources, am.Sources) || !reflect.DeepEqual(fm.Dense, am.Dense) {
		t.Errorf("meta differs:\nfull   %+v\nappend %+v", fm, am)
	}
	if len(fm.Fields) != len(am.Fields) {
		t.Fatalf("fields: %d vs %d", len(fm.Fields), len(am.Fields))
	}
	for i := range fm.Fields {
		f, a := fm.Fields[i], am.Fields[i]
		if math.Abs(f.MeanIDF-a.MeanIDF) > 1e-12*math.Abs(f.MeanIDF) {
			t.Errorf("field %s mean idf %v vs %v", f.Name, f.MeanIDF, a.MeanIDF)
		}
		f.MeanIDF, a.MeanIDF = 0, 0
		if f != a {
			t.Errorf("field stats differ:\nfull   %+v\nappend %+v", f, a)
		}
		if err := app.VerifyField(a.Name); err != nil {
			t.Error(err)
		}
		fp := map[string][]byte{}
		full.ForEachPostings(f.Name, func(term string, enc []byte) error {
			fp[term] = append([]byte(nil), enc...)
			return nil
		})
		n := 0
		app.ForEachPostings(a.Name, func(term string, enc []byte) error {
			n++
			if !bytes.Equal(fp[term], enc) {
				t.Errorf("field %s postings of %q differ", a.Name, term)
			}
			return nil
		})
		if n != len(fp) {
			t.Errorf("field %s: %d terms vs %d", a.Name, n, len(fp))
		}
		fl, _ := full.DocLens(f.Name)
		al, _ := app.DocLens(a.Name)
		if !bytes.Equal(fl, al) {
			t.Errorf("field %s document lengths differ", f.Name)
		}
	}
	fc, _ := full.Contexts()
	ac, _ := app.Contexts()
	if !reflect.DeepEqual(fc, ac) {
		t.Errorf("contexts differ")
	}
	fs, _ := full.Sentences()
	as, _ := app.Sentences()
	if !reflect.DeepEqual(fs, as) {
		t.Errorf("sentences differ")
	}
	if fm.Dense != nil {
		for _, b := range []string{store.BlobDenseModel, store.BlobDenseVocab} {
			x, err1 := full.LargeBlob(b)
			y, err2 := app.LargeBlob(b)
			if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
				t.Errorf("blob %s differs (%v %v)", b, err1, err2)
			}
		}
		// An embedding depends on its batch mates in the last float32 bits
		// (a batch is padded to its longest text, which changes the
		// shapes ONNX Runtime multiplies), and the append batches the new
		// contexts without the old ones: equal up to 1e-6.
		for _, b := range []string{store.BlobDenseSent, store.BlobDenseCtx} {
			x, err1 := full.LargeBlob(b)
			y, err2 := app.LargeBlob(b)
			if err1 != nil || err2 != nil {
				t.Fatalf("blob %s: %v %v", b, err1, err2)
			}
			vx, err1 := dense.Decode(x)
			vy, err2 := dense.Decode(y)
			if err1 != nil || err2 != nil || vx.Dim != vy.Dim || len(vx.Data) != len(vy.Data) {
				t.Fatalf("blob %s: %v %v, %d vs %d floats", b, err1, err2, len(vx.Data), len(vy.Data))
			}
			worst := 0.0
			for i := range vx.Data {
				worst = max(worst, math.Abs(float64(vx.Data[i]-vy.Data[i])))
			}
			if worst > 1e-6 {
				t.Errorf("blob %s: embeddings differ by up to %g", b, worst)
			}
		}
		gx, err1 := full.LargeBlob(store.BlobDenseGraph)
		gy, err2 := app.LargeBlob(store.BlobDenseGraph)
		if err1 != nil || err2 != nil || len(gx) == 0 || len(gy) == 0 {
			t.Fatalf("graph: %v %v", err1, err2)
		}
		if !bytes.Equal(gx, gy) {
			t.Logf("note: ANN graphs differ in bytes (%d vs %d) — float noise changed a neighbour choice", len(gx), len(gy))
		}
	}
}

var appendQuestions = []string{
	"when was the lighthouse first lit",
	"how do bees tell each other where flowers are",
	"what makes sourdough rise",
	"how is glass made",
	"why do riders replace a bicycle chain",
	"what does a sundial show",
}

func compareAnswers(t *testing.T, fullPath, appPath string, withDense bool) {
	t.Helper()
	ef, err := rank.Open(fullPath)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	ea, err := rank.Open(appPath)
	if err != nil {
		t.Fatal(err)
	}
	defer ea.Close()
	type mk func(e *rank.Index) (rank.Ranker, error)
	rankers := map[string]mk{
		"bm25-word": func(e *rank.Index) (rank.Ranker, error) { return e.Ranker("bm25-word") },
		"bm25-wpm":  func(e *rank.Index) (rank.Ranker, error) { return e.Ranker("bm25-wpm") },
	}
	if withDense {
		rankers["dense-exact"] = func(e *rank.Index) (rank.Ranker, error) { return e.DenseRanker(rank.Spec{Dense: rank.DenseOptions{}}) }
		rankers["dense-ann"] = func(e *rank.Index) (rank.Ranker, error) {
			return e.DenseRanker(rank.Spec{Dense: rank.DenseOptions{ANN: true}})
		}
		rankers["fusion"] = func(e *rank.Index) (rank.Ranker, error) {
			return e.Fused(rank.DefaultFusion(), rank.Spec{})
		}
	}
	// BM25 is exact; dense scores carry the embeddings' float32 noise.
	tol := 1e-12
	if withDense {
		tol = 1e-5
	}
	for name, make := range rankers {
		rf, err := make(ef)
		if err != nil {
			t.Fatal(err)
		}
		ra, err := make(ea)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range appendQuestions {
			af, err1 := ef.Ask(context.Background(), rf, q, 5)
			aa, err2 := ea.Ask(context.Background(), ra, q, 5)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s %q: %v %v", name, q, err1, err2)
			}
			if len(af) != len(aa) {
				t.Fatalf("%s %q: %d answers vs %d", name, q, len(af), len(aa))
			}
			for i := range af {
				if af[i].SentenceID != aa[i].SentenceID || math.Abs(af[i].Score-aa[i].Score) > tol {
					t.Errorf("%s %q answer %d: full %d (%.12g), append %d (%.12g)", name, q, i+1, af[i].SentenceID, af[i].Score, aa[i].SentenceID, aa[i].Score)
				}
			}
		}
	}
}

// TestAppendRefusals: dataset inputs and dataset indexes are refused, a
// missing index is an error, and nothing changes on refusal.
func TestAppendRefusals(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	plain := filepath.Join(dir, "plain.reqa")
	if _, err := index.Build(ctx, readParts(t, "part1.txt"), plain, index.Options{}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(plain)
	ds := readParts(t, "part2.txt")
	ds.Dataset = "toy"
	if _, err := index.Append(ctx, ds, plain, index.Options{}); !errors.Is(err, index.ErrCannotAppend) {
		t.Errorf("dataset input: got %v, want ErrCannotAppend", err)
	}
	dsIndex := filepath.Join(dir, "ds.reqa")
	if _, err := index.Build(ctx, ds, dsIndex, index.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Append(ctx, readParts(t, "part1.txt"), dsIndex, index.Options{}); !errors.Is(err, index.ErrCannotAppend) {
		t.Errorf("dataset index: got %v, want ErrCannotAppend", err)
	}
	if _, err := index.Append(ctx, readParts(t, "part2.txt"), filepath.Join(dir, "missing.reqa"), index.Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing index: got %v, want ErrNotExist", err)
	}
	after, _ := os.ReadFile(plain)
	if !bytes.Equal(before, after) {
		t.Error("a refused append changed the index")
	}
}

// TestAppendCancelled: a cancelled append leaves the index byte-identical
// and no temporary file behind.
func TestAppendCancelled(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.reqa")
	if _, err := index.Build(context.Background(), readParts(t, "part1.txt"), path, index.Options{}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	for stop := 1; stop < 40; stop += 3 {
		ctx, cancel := context.WithCancel(context.Background())
		var calls atomic.Int64
		opt := index.Options{Progress: func(string, int, int) {
			if calls.Add(1) == int64(stop) {
				cancel()
			}
		}}
		_, err := index.Append(ctx, readParts(t, "part2.txt"), path, opt)
		cancel()
		if err == nil {
			break // stop is past the last progress call: the append finished
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("stop %d: %v", stop, err)
		}
		after, _ := os.ReadFile(path)
		if !bytes.Equal(before, after) {
			t.Fatalf("stop %d: cancelled append changed the index", stop)
		}
		if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) != 0 {
			t.Fatalf("stop %d: temporary files left: %v", stop, m)
		}
	}
}
