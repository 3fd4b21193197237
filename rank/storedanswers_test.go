package rank_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/store"
)

// asPreviousFormat rewrites the index at path as reqa wrote it before the
// answer vectors and context ids were stored (before f4722bb): no row
// sets, no moments blob, no split graph, no "answers", "context_of" or
// "graph_slots" in the meta. Every other byte those versions wrote is
// written the same way today.
func asPreviousFormat(t *testing.T, path string) {
	t.Helper()
	stripFormat(t, path, []string{`,"answers":true`, `,"context_of":true`, `,"graph_slots":true`},
		[]string{store.BlobDenseMoments, store.BlobDenseGraphUpper}, nil)
}

// asBeforeGraphSlots rewrites the index at path as reqa wrote it before the
// graph was stored split (e24ee2e): no graph slots, no upper-layers blob,
// no "graph_slots" in the meta.
func asBeforeGraphSlots(t *testing.T, path string) {
	t.Helper()
	stripFormat(t, path, []string{`,"graph_slots":true`}, []string{store.BlobDenseGraphUpper}, []string{store.RowsDenseGraphSlots})
}

// stripFormat deletes the meta flags, blobs and row sets named (every row
// set when rowSets is nil) from the index at path.
func stripFormat(t *testing.T, path string, flags, blobNames, rowSets []string) {
	t.Helper()
	updateFile(t, path, func(tx *bolt.Tx) error {
		if rowSets == nil {
			if err := tx.DeleteBucket([]byte("rows")); err != nil {
				return err
			}
		}
		for _, name := range rowSets {
			if err := tx.Bucket([]byte("rows")).DeleteBucket([]byte(name)); err != nil {
				return err
			}
		}
		blobs := tx.Bucket([]byte("blobs"))
		var del [][]byte
		blobs.ForEach(func(k, _ []byte) error {
			for _, name := range blobNames {
				if string(k) == name || strings.HasPrefix(string(k), name+"\x00") {
					del = append(del, append([]byte(nil), k...))
				}
			}
			return nil
		})
		for _, k := range del {
			if err := blobs.Delete(k); err != nil {
				return err
			}
		}
		mb := tx.Bucket([]byte("meta"))
		v := mb.Get([]byte("meta"))
		p := string(v[:len(v)-4])
		for _, flag := range flags {
			if !strings.Contains(p, flag) {
				t.Fatalf("meta has no %s: %s", flag, p)
			}
			p = strings.Replace(p, flag, "", 1)
		}
		return mb.Put([]byte("meta"), sealed([]byte(p)))
	})
}

// TestPreviousFormatAnswers checks that an index written before the answer
// vectors were stored opens and answers as an index with them does (dense
// exact and over the graph, the default fusion exact and as ask asks it),
// and that appending to it stores them.
func TestPreviousFormatAnswers(t *testing.T) {
	requireDense(t)
	dir := t.TempDir()
	now := filepath.Join(dir, "now.reqa")
	buildTestIndexDense(t, now, true)
	old := filepath.Join(dir, "old.reqa")
	b, err := os.ReadFile(now)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, b, 0o644); err != nil {
		t.Fatal(err)
	}
	asPreviousFormat(t, old)
	questions := []string{"Who kept the Bell Rock light?", "How do arch bridges carry loads?", "What do bees make?", "Where do ants live?"}
	ask := func(path string, s rank.Spec) [][]rank.Answer {
		e, err := rank.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		r, err := e.Resolve(s)
		if err != nil {
			t.Fatal(err)
		}
		var out [][]rank.Answer
		for _, q := range questions {
			a, err := e.Ask(context.Background(), r, q, 5)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, a)
		}
		return out
	}
	for name, s := range vectorRankers {
		got, want := ask(old, s), ask(now, s)
		for q := range want {
			if len(got[q]) != len(want[q]) {
				t.Fatalf("%s %q: %d answers from the previous format, %d now", name, questions[q], len(got[q]), len(want[q]))
			}
			for i := range want[q] {
				g, w := got[q][i], want[q][i]
				// The default as ask asks it is pooled now and scored
				// over every candidate before: the same answers, scores
				// to rounding (the engine's shift of pooled scores aside).
				if g.SentenceID != w.SentenceID {
					t.Errorf("%s %q rank %d: sentence %d from the previous format, %d now", name, questions[q], i+1, g.SentenceID, w.SentenceID)
				}
				if name != "default ANN" && math.Abs(g.Score-w.Score) > 1e-6 {
					t.Errorf("%s %q rank %d: score %v from the previous format, %v now", name, questions[q], i+1, g.Score, w.Score)
				}
			}
		}
	}
	rep, err := index.Verify(old, index.VerifyOptions{Fusions: rank.CheckFusions})
	if err != nil || !rep.OK() {
		t.Fatalf("verify of the previous format: %v %v", err, rep.Problems)
	}
	// Appending to it stores the answer vectors of every sentence.
	c, err := ingest.ReadInputs([]string{"../index/testdata/append/part2.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.Append(context.Background(), c, old, index.Options{}); err != nil { // the stored encoder
		t.Fatal(err)
	}
	r, err := store.Open(old)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Meta().Dense.Answers || !r.HasRows(store.RowsDenseAnswers) {
		t.Errorf("after an append: answers %v, row set %v", r.Meta().Dense.Answers, r.HasRows(store.RowsDenseAnswers))
	}
	r.Close()
	rep, err = index.Verify(old, index.VerifyOptions{Fusions: rank.CheckFusions})
	if err != nil || !rep.OK() {
		t.Fatalf("verify after the append: %v %v", err, rep.Problems)
	}
}

// TestBeforeGraphSlots: an index written before the graph was stored
// split (e24ee2e) answers as one with it — dense and the default as ask
// asks them, over the graph decoded whole — verifies, and gains the split
// graph on a sync.
func TestBeforeGraphSlots(t *testing.T) {
	requireDense(t)
	dir := t.TempDir()
	now := filepath.Join(dir, "now.reqa")
	buildTestIndexDense(t, now, true)
	r, err := store.Open(now)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Meta().Dense.GraphSlots || !r.HasRows(store.RowsDenseGraphSlots) || !r.HasBlob(store.BlobDenseGraphUpper) {
		t.Fatalf("a new index: graph slots %v, row set %v, upper blob %v", r.Meta().Dense.GraphSlots, r.HasRows(store.RowsDenseGraphSlots), r.HasBlob(store.BlobDenseGraphUpper))
	}
	r.Close()
	before := filepath.Join(dir, "before.reqa")
	b, err := os.ReadFile(now)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(before, b, 0o644); err != nil {
		t.Fatal(err)
	}
	asBeforeGraphSlots(t, before)
	questions := []string{"Who kept the Bell Rock light?", "How do arch bridges carry loads?", "What do bees make?", "zzzz"}
	for _, s := range []rank.Spec{{Kind: rank.KindDense, Dense: rank.DenseOptions{ANN: true}}, {Dense: rank.DenseOptions{ANN: true}}} {
		var got [2][][]rank.Answer
		for i, path := range []string{before, now} {
			e, err := rank.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			rr, err := e.Resolve(s)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range questions {
				a, err := e.Ask(context.Background(), rr, q, 5)
				if err != nil {
					t.Fatal(err)
				}
				got[i] = append(got[i], a)
			}
			e.Close()
		}
		for q := range questions {
			if len(got[0][q]) != len(got[1][q]) {
				t.Fatalf("%v %q: %d answers before, %d now", s.Kind, questions[q], len(got[0][q]), len(got[1][q]))
			}
			for i := range got[0][q] {
				if g, w := got[0][q][i], got[1][q][i]; g.SentenceID != w.SentenceID || g.Score != w.Score {
					t.Errorf("%v %q rank %d: %d (%v) before, %d (%v) now", s.Kind, questions[q], i+1, g.SentenceID, g.Score, w.SentenceID, w.Score)
				}
			}
		}
	}
	rep, err := index.Verify(before, index.VerifyOptions{Fusions: rank.CheckFusions})
	if err != nil || !rep.OK() {
		t.Fatalf("verify before graph slots: %v %v", err, rep.Problems)
	}
}
