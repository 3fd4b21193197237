package store

import (
	"fmt"

	"errors"
	bolt "go.etcd.io/bbolt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func build(t *testing.T, path string, title string) {
	t.Helper()
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	err = w.Update(func(tx *WriteTx) error {
		if err := tx.PutContext(Context{ID: 0, Title: title, Text: "One. Two.", Source: "a.txt:1"}); err != nil {
			return err
		}
		if err := tx.PutSentence(Sentence{ID: 0, ContextID: 0, Start: 0, End: 4}); err != nil {
			return err
		}
		fw, err := tx.Field("word/ctx")
		if err != nil {
			return err
		}
		if err := fw.PutPostings("One", []byte{1, 0, 1}); err != nil {
			return err
		}
		return fw.PutDocLens([]byte{1, 4})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(Meta{Contexts: 1, Sentences: 1, Fields: []FieldMeta{{Name: "word/ctx", Docs: 1}}}); err != nil {
		t.Fatal(err)
	}
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.reqa")
	build(t, path, "T1")
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// Fields in the expanded layout only: format 1, which older readers
	// read too.
	if r.Meta().FormatVersion != 1 || r.Meta().Contexts != 1 {
		t.Fatalf("meta %+v", r.Meta())
	}
	c, err := r.Context(0)
	if err != nil || c.Title != "T1" || c.Text != "One. Two." || c.Source != "a.txt:1" {
		t.Fatalf("context %+v %v", c, err)
	}
	s, err := r.Sentence(0)
	if err != nil || s.Text(c) != "One." {
		t.Fatalf("sentence %+v %v", s, err)
	}
	p, ok, err := r.Postings("word/ctx", "One")
	if err != nil || !ok || len(p) != 3 {
		t.Fatalf("postings %v %v %v", p, ok, err)
	}
	if _, ok, _ := r.Postings("word/ctx", "none"); ok {
		t.Fatal("missing term found")
	}
	if _, err := r.Context(9); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing context: %v", err)
	}
}

func TestAbortKeepsExisting(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.reqa")
	build(t, path, "old")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w.Update(func(tx *WriteTx) error { return tx.PutContext(Context{ID: 0, Title: "new"}) })
	w.Abort()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := r.Context(0)
	r.Close()
	if c.Title != "old" {
		t.Fatalf("abort damaged the existing index: title %q", c.Title)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*reqa-build*")); len(m) != 0 {
		t.Fatalf("temporary files left: %v", m)
	}
}

func TestStaleTempRemoved(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.reqa")
	stale := filepath.Join(dir, ".x.reqa.reqa-build-123")
	os.WriteFile(stale, []byte("half a build"), 0o644)
	build(t, path, "T")
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("stale temp file survived a new build: %v", err)
	}
}

func TestOpenRejects(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk")
	os.WriteFile(junk, make([]byte, 8192), 0o644)
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("hello"), 0o644)
	cases := []struct {
		path string
		want error
	}{
		{junk, ErrNotIndex},
		{small, ErrNotIndex},
		{dir, ErrNotIndex},
	}
	for _, c := range cases {
		if _, err := Open(c.path); !errors.Is(err, c.want) {
			t.Errorf("Open(%s) = %v, want %v", c.path, err, c.want)
		}
	}
	if _, err := Open(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing file opened")
	}
}

func TestCorruptRecord(t *testing.T) {
	if _, err := unseal(seal([]byte("payload"))[1:], "x"); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("damaged record accepted: %v", err)
	}
	if p, err := unseal(seal([]byte("payload")), "x"); err != nil || string(p) != "payload" {
		t.Fatalf("good record rejected: %v", err)
	}
}

func TestNewerFormatRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.reqa")
	build(t, path, "T")
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(keyMeta, seal([]byte(`{"format_version": 99}`)))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); !errors.Is(err, ErrNewerFormat) {
		t.Fatalf("newer format: %v", err)
	}
}

func TestDamagedMetaRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.reqa")
	build(t, path, "T")
	db, _ := bolt.Open(path, 0o644, nil)
	db.Update(func(tx *bolt.Tx) error {
		v := append([]byte(nil), tx.Bucket(bucketMeta).Get(keyMeta)...)
		v[3] ^= 0xff
		return tx.Bucket(bucketMeta).Put(keyMeta, v)
	})
	db.Close()
	if _, err := Open(path); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("damaged meta: %v", err)
	}
}

func ExampleCreate() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "notes.reqa")
	w, _ := Create(path)
	w.Update(func(tx *WriteTx) error {
		tx.PutContext(Context{ID: 0, Title: "Ferries", Text: "The ferry leaves at nine. It returns at noon."})
		return tx.PutSentence(Sentence{ID: 0, ContextID: 0, Start: 26, End: 45})
	})
	w.Commit(Meta{Builder: "example", Contexts: 1, Sentences: 1})

	r, _ := Open(path)
	defer r.Close()
	s, _ := r.Sentence(0)
	c, _ := r.Context(s.ContextID)
	fmt.Println(s.Text(c))
	// Output: It returns at noon.
}

func TestLargeBlob(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.reqa")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, chunkSize*2+123)
	for i := range big {
		big[i] = byte(i * 7)
	}
	if err := w.Update(func(tx *WriteTx) error {
		if err := tx.PutLargeBlob("big", big); err != nil {
			return err
		}
		return tx.PutLargeBlob("empty", nil)
	}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(Meta{}); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.LargeBlob("big")
	if err != nil || string(got) != string(big) {
		t.Fatalf("large blob round trip: %d bytes, %v", len(got), err)
	}
	if got, err := r.LargeBlob("empty"); err != nil || len(got) != 0 {
		t.Fatalf("empty blob: %v %v", got, err)
	}
	if _, err := r.LargeBlob("none"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing blob: %v", err)
	}
	r.Close()
	// Flip one byte inside chunk 1: the error names the chunk.
	db, _ := bolt.Open(path, 0o644, nil)
	db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketBlobs)
		v := append([]byte(nil), b.Get(chunkKey("big", 1))...)
		v[1000] ^= 1
		return b.Put(chunkKey("big", 1), v)
	})
	db.Close()
	r, _ = Open(path)
	defer r.Close()
	if _, err := r.LargeBlob("big"); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "chunk 1") {
		t.Fatalf("damaged chunk: %v", err)
	}
}

// TestTruncatedBelowTwoPages: an index cut below bbolt's first pages is
// reported as damaged (it starts like one), other short files as not an
// index.
func TestTruncatedBelowTwoPages(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.reqa")
	build(t, path, "T")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.reqa")
	os.WriteFile(cut, b[:1000], 0o644)
	if _, err := Open(cut); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "truncated to 1000 bytes") {
		t.Errorf("truncated index: %v", err)
	}
	other := filepath.Join(dir, "other.reqa")
	os.WriteFile(other, []byte(strings.Repeat("x", 1000)), 0o644)
	if _, err := Open(other); !errors.Is(err, ErrNotIndex) {
		t.Errorf("short non-index: %v", err)
	}
}
