package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	bolt "go.etcd.io/bbolt"
)

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
	fifo := filepath.Join(dir, "fifo") // would block a reader forever
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		want error
	}{
		{junk, ErrNotIndex},
		{small, ErrNotIndex},
		{dir, ErrNotIndex},
		{fifo, ErrNotIndex},
		{"/dev/null", ErrNotIndex},
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

// index.

// index.

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

// index.

// index.

// index.

func TestCommitTrimsPadding(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.reqa")
	blob := bytes.Repeat([]byte("0123456789abcdef"), 1<<20) // 16 MB: past bbolt's doubling
	buildIndex(t, path, Meta{Contexts: 1}, func(tx *WriteTx) error {
		if err := tx.PutContext(Context{ID: 0, Title: "t", Text: "One. Two."}); err != nil {
			return err
		}
		return tx.PutLargeBlob("big", blob)
	})
	checkTrimmed := func() {
		t.Helper()
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		db, err := bolt.Open(path, 0o644, &bolt.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		var used int64
		db.View(func(tx *bolt.Tx) error { used = tx.Size(); return nil })
		db.Close()
		if st.Size() != used {
			t.Fatalf("file is %d bytes, its pages in use end at %d", st.Size(), used)
		}
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		got, err := r.LargeBlob("big")
		if err != nil || !bytes.Equal(got, blob) {
			t.Fatalf("blob after trimming: %v (equal %v)", err, bytes.Equal(got, blob))
		}
	}
	checkTrimmed()

	// Append to the trimmed file: it grows again and is trimmed again.
	w, _, err := CreateFrom(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = w.Update(func(tx *WriteTx) error {
		return tx.PutContext(Context{ID: 1, Title: "u", Text: "Three."})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(Meta{Contexts: 2}); err != nil {
		t.Fatal(err)
	}
	checkTrimmed()

	// Amend trims as well (it used to put the padding back: 33.6 → 67.2 MB).
	if err := Amend(path, func(tx *WriteTx) error { return tx.PutBlob("tuned", bytes.Repeat([]byte("x"), 3<<20)) }); err != nil {
		t.Fatal(err)
	}
	checkTrimmed()
}

// index.

// index.

// index.

// TestFormatOf checks that an index is written in the oldest format
// that describes it: 1 expanded fields, 2 a context layout, 3 an engine
// index, 4 a field of normalised tokens (file or engine).
func TestFormatOf(t *testing.T) {
	for _, tc := range []struct {
		layouts []string
		norms   []string
		engine  bool
		want    int
	}{
		{nil, nil, false, 1},
		{[]string{"", ""}, nil, false, 1},
		{[]string{"", "context"}, nil, false, 2},
		{[]string{"context"}, nil, true, 3},
		{[]string{"", "context"}, []string{"nfkc1", "nfkc1"}, false, 4},
		{[]string{"", ""}, []string{"", "nfkc1"}, false, 4},
		{[]string{"context"}, []string{"nfkc1"}, true, 4},
	} {
		var m Meta
		for i, l := range tc.layouts {
			m.Fields = append(m.Fields, FieldMeta{Name: fmt.Sprint("f", i), Layout: l})
		}
		for i, n := range tc.norms {
			m.Fields[i].Norm = n
		}
		if tc.engine {
			m.Engine = &EngineMeta{Kind: "weaviate", URL: "weaviate://127.0.0.1:8080/X"}
		}
		path := filepath.Join(t.TempDir(), "x.reqa")
		w, err := Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(m); err != nil {
			t.Fatal(err)
		}
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Meta().FormatVersion; got != tc.want {
			t.Errorf("layouts %q, norms %q, engine %v: format %d, want %d", tc.layouts, tc.norms, tc.engine, got, tc.want)
		}
		r.Close()
	}
}

// index.

// index.

func TestUsage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.reqa")
	buildIndex(t, path, Meta{Contexts: 1}, func(tx *WriteTx) error {
		if err := tx.PutContext(Context{ID: 0, Title: "t", Text: "One. Two."}); err != nil {
			return err
		}
		fw, err := tx.Field("word/ctx")
		if err != nil {
			return err
		}
		if err := fw.PutPostings("one", []byte{1, 0, 1}); err != nil {
			return err
		}
		return tx.PutLargeBlob("big", bytes.Repeat([]byte{7}, 3<<20))
	})
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	us, err := r.Usage()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	var sum int64
	for _, u := range us {
		got[u.Part] = u.Bytes
		sum += u.Bytes
	}
	if got["blobs"] < 3<<20 || got["contexts"] == 0 || got["field word/ctx"] == 0 || got["meta"] == 0 {
		t.Fatalf("usage %v", us)
	}
	if sum > r.SizeBytes() {
		t.Fatalf("parts take %d bytes, the file is %d", sum, r.SizeBytes())
	}
}

// index.

// index.

// index.

// index.

// index.

// index.

// index.

// index.

// TestEngineIndexFormat: an index kept in an engine is format 3, holds no
// records or fields and checks clean; PutMeta keeps it readable.
func TestEngineIndexFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "e.reqa")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	m := Meta{Contexts: 2, Sentences: 5, Fields: []FieldMeta{{Name: FieldName("wpm", true), Tokenizer: "wpm", WithContext: true, Docs: 5}},
		Engine: &EngineMeta{Kind: "weaviate", URL: "weaviate://127.0.0.1:8080/Docs"}}
	if err := w.Commit(m); err != nil {
		t.Fatal(err)
	}
	rep, err := CheckFile(path)
	if err != nil || len(rep.Problems) > 0 {
		t.Fatalf("check: %v %v", rep.Problems, err)
	}
	if err := Amend(path, func(tx *WriteTx) error {
		m, err := tx.Meta()
		if err != nil {
			return err
		}
		m.Engine.URL = "weaviate://10.0.0.1:8080/Docs"
		return tx.PutMeta(m)
	}); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Meta(); got.FormatVersion != 3 || got.Engine == nil || got.Engine.URL != "weaviate://10.0.0.1:8080/Docs" || got.Sentences != 5 {
		t.Errorf("meta after PutMeta: %+v", got)
	}
}
