package store

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

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
