package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestCommitTrimsPadding checks that a committed index ends at its last
// page in use (bbolt pads a growing file by up to 16 MB), that the trimmed
// file reads back whole, and that appending to it works.
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

// TestFormatOf: an index whose fields all use the expanded layout is
// written as format 1, which older readers read; one with another layout
// as format 2, which they refuse.
func TestFormatOf(t *testing.T) {
	for _, tc := range []struct {
		layouts []string
		want    int
	}{{nil, 1}, {[]string{"", ""}, 1}, {[]string{"", "context"}, 2}} {
		var m Meta
		for i, l := range tc.layouts {
			m.Fields = append(m.Fields, FieldMeta{Name: fmt.Sprint("f", i), Layout: l})
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
			t.Errorf("layouts %q: format %d, want %d", tc.layouts, got, tc.want)
		}
		r.Close()
	}
}

// TestUsage: every part of an index is listed, a large blob's pages count
// in "blobs", and the parts fit in the file.
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

// TestPutLargeBlobFrom: a blob written chunk by chunk from a fill function
// reads back as the same bytes PutLargeBlob stores, empty and over several
// chunks, and Check finds it whole.
func TestPutLargeBlobFrom(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.reqa")
	big := make([]byte, chunkSize*2+123)
	for i := range big {
		big[i] = byte(i * 7)
	}
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	fill := func(b []byte) func(off int64, chunk []byte) {
		return func(off int64, chunk []byte) { calls++; copy(chunk, b[off:]) }
	}
	if err := w.PutLargeBlobFrom("big", int64(len(big)), fill(big)); err != nil {
		t.Fatal(err)
	}
	if err := w.PutLargeBlobFrom("empty", 0, fill(nil)); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(Meta{}); err != nil {
		t.Fatal(err)
	}
	if calls != 3 {
		t.Fatalf("fill called %d times, want 3 (one per chunk)", calls)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := r.LargeBlob("big")
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("round trip: %d bytes, %v", len(got), err)
	}
	if got, err := r.LargeBlob("empty"); err != nil || len(got) != 0 {
		t.Fatalf("empty blob: %v %v", got, err)
	}
	if rep := r.Check(); len(rep.Problems) != 0 {
		t.Fatalf("check: %v", rep.Problems)
	}
}

// TestCheckPages: a healthy file passes; a leaf element pointing past its
// page, a page claiming another id and a truncated file are ErrCorrupt,
// found before bbolt reads them.
func TestCheckPages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.reqa")
	buildIndex(t, path, Meta{Contexts: 300}, func(tx *WriteTx) error {
		for i := uint32(0); i < 300; i++ {
			if err := tx.PutContext(Context{ID: i, Title: "t", Text: strings.Repeat("words here. ", 20)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err := CheckPages(path); err != nil {
		t.Fatalf("healthy file: %v", err)
	}
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	leaf := -1 // a leaf page with elements, past the meta pages
	for off := 2 * page; off+page <= len(orig); off += page {
		if binary.LittleEndian.Uint16(orig[off+8:]) == leafPageFlag && binary.LittleEndian.Uint16(orig[off+10:]) > 1 {
			leaf = off
			break
		}
	}
	if leaf < 0 {
		t.Fatal("no leaf page found")
	}
	for _, tc := range []struct {
		name string
		edit func(b []byte) []byte
		want string
	}{
		{"element past its page", func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[leaf+pageHeaderSize+4:], 1<<30) // first element's pos
			return b
		}, "runs past the page"},
		{"page with another id", func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[leaf:], 99999)
			return b
		}, "says it is page 99999"},
		{"truncated", func(b []byte) []byte { return b[:len(b)-page] }, "truncated"},
	} {
		bad := filepath.Join(t.TempDir(), "bad.reqa")
		if err := os.WriteFile(bad, tc.edit(bytes.Clone(orig)), 0o644); err != nil {
			t.Fatal(err)
		}
		err := CheckPages(bad)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(fmt.Sprint(err), tc.want) {
			t.Errorf("%s: %v, want ErrCorrupt saying %q", tc.name, err, tc.want)
		}
		if rep, err := CheckFile(bad); err != nil || len(rep.Problems) != 1 {
			t.Errorf("%s: CheckFile %v, %v", tc.name, rep.Problems, err)
		}
	}
}

// buildIndex creates an index at path, runs fill in one transaction and
// commits it with meta m.
func buildIndex(t *testing.T, path string, m Meta, fill func(tx *WriteTx) error) {
	t.Helper()
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Update(fill); err != nil {
		w.Abort()
		t.Fatal(err)
	}
	if err := w.Commit(m); err != nil {
		t.Fatal(err)
	}
}
