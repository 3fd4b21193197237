package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
	"golang.org/x/sys/unix"
)

// ErrLocked reports an index that another writer (a `reqa index --append`
// or the commit of a rebuild) holds.
var ErrLocked = errors.New("another reqa is writing this index")

// writerLock is an exclusive open-file-description lock (fcntl
// F_OFD_SETLK) on byte 0 of an index file. It serialises writers of one
// index; it does not conflict with the flock(2) that bbolt readers take, so
// `reqa serve` and `reqa ask` keep reading the last committed index while a
// writer works on its copy.
type writerLock struct{ f *os.File }

// tryLockWriter takes the writer lock on path without waiting. It returns
// ErrLocked when another writer holds it, and a nil lock with a nil error
// when path does not exist.
func tryLockWriter(path string) (*writerLock, os.FileInfo, error) {
	// A write lock needs a descriptor open for writing; the file itself
	// is never written through it.
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: 0, Len: 1}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk); err != nil {
		f.Close()
		if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EACCES) {
			return nil, nil, ErrLocked
		}
		return nil, nil, fmt.Errorf("lock: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return &writerLock{f: f}, st, nil
}

// lockWriter takes the writer lock on the file currently at path, waiting
// (polling) while another writer holds it. waiting, if set, is called once
// when it has to wait. Because a writer replaces the file by rename, the
// lock is retaken when path names a new file once the lock is acquired.
func lockWriter(ctx context.Context, path string, waiting func()) (*writerLock, error) {
	told := false
	for {
		l, st, err := tryLockWriter(path)
		switch {
		case err == nil && l == nil:
			return nil, nil
		case err == nil:
			cur, serr := os.Stat(path)
			if serr == nil && os.SameFile(cur, st) {
				return l, nil
			}
			l.unlock() // replaced while we waited: lock the new file
			continue
		case !errors.Is(err, ErrLocked):
			return nil, fmt.Errorf("lock index %s: %w", path, err)
		}
		if !told && waiting != nil {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("lock index %s: %w", path, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (l *writerLock) unlock() {
	if l != nil && l.f != nil {
		l.f.Close() // closing the description releases the OFD lock
		l.f = nil
	}
}

// CreateFrom starts an amended copy of the existing index at path: the new
// index begins as a consistent snapshot of the old one, written to a
// temporary file beside it, and replaces it on Commit — so a failed or
// killed writer leaves path exactly as it was, and readers of path keep
// reading its last committed state. CreateFrom holds path's writer lock
// until Commit or Abort, waiting for another writer first (waiting, if set,
// is called once when it does); cancelling ctx gives up waiting.
//
// The returned Meta is the existing index's; pass the updated one to Commit.
func CreateFrom(ctx context.Context, path string, waiting func()) (*Writer, Meta, error) {
	told := false
	waitOnce := func() {
		if !told && waiting != nil {
			waiting()
		}
		told = true
	}
	// A rebuild in progress holds no writer lock until its commit: wait
	// for it first, or it would replace this append's index.
	if err := afterOtherWriters(ctx, path, waitOnce, func() error { return nil }); err != nil {
		return nil, Meta{}, err
	}
	lock, err := lockWriter(ctx, path, waitOnce)
	if err != nil {
		return nil, Meta{}, err
	}
	if lock == nil {
		return nil, Meta{}, fmt.Errorf("append to index %s: %w", path, os.ErrNotExist)
	}
	w, meta, err := snapshot(path, lock)
	if err != nil {
		lock.unlock()
		return nil, Meta{}, err
	}
	return w, meta, nil
}

func snapshot(path string, lock *writerLock) (*Writer, Meta, error) {
	r, err := Open(path)
	if err != nil {
		return nil, Meta{}, err
	}
	defer r.Close()
	RemoveStale(path)
	// Created and locked under the directory's lock, and locked while it
	// is copied, as bbolt locks it afterwards: another writer sees it is
	// in use (afterOtherWriters, RemoveStale).
	unlockDir := lockDir(filepath.Dir(path))
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".reqa-build-*")
	if err == nil {
		unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	}
	unlockDir()
	if err != nil {
		return nil, Meta{}, fmt.Errorf("append to index %s: %w", path, err)
	}
	tmp := f.Name()
	err = r.view(func(tx *bolt.Tx) error {
		_, err := tx.WriteTo(f)
		return err
	})
	// From closing f (which releases its lock) to bbolt's lock, under the
	// directory's lock that writers look for temporary files under.
	unlock := lockDir(filepath.Dir(path))
	defer unlock()
	if err == nil {
		err = f.Close()
	} else {
		f.Close()
	}
	if err != nil {
		os.Remove(tmp)
		return nil, Meta{}, fmt.Errorf("append to index %s: copy: %w", path, err)
	}
	db, err := bolt.Open(tmp, 0o644, &bolt.Options{Timeout: time.Second, NoFreelistSync: true})
	if err != nil {
		os.Remove(tmp)
		return nil, Meta{}, fmt.Errorf("append to index %s: %w", path, err)
	}
	return &Writer{db: db, tmp: tmp, target: path, lock: lock}, r.Meta(), nil
}

// Meta returns the meta record stored in the index being written (the
// snapshot's, for a writer from CreateFrom).
func (t *WriteTx) Meta() (Meta, error) {
	var m Meta
	raw := t.tx.Bucket(bucketMeta).Get(keyMeta)
	if raw == nil {
		return m, fmt.Errorf("meta: %w", ErrNotFound)
	}
	p, err := unseal(raw, "meta")
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(p, &m); err != nil {
		return m, fmt.Errorf("meta: %v: %w", err, ErrCorrupt)
	}
	return m, nil
}

// PutMeta replaces the meta record of the index being amended (for
// changes that describe the same data, such as an engine's new address);
// the format version is recomputed from m.
func (t *WriteTx) PutMeta(m Meta) error {
	m.FormatVersion = formatOf(m)
	mj, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("meta: %w", err)
	}
	return t.tx.Bucket(bucketMeta).Put(keyMeta, seal(mj))
}

// LargeBlob returns a copy of the chunked blob name as stored in the index
// being written.
func (t *WriteTx) LargeBlob(name string) ([]byte, error) {
	return largeBlob(t.tx, name)
}

// HasBlob reports whether a blob called name exists in the index being
// written.
func (t *WriteTx) HasBlob(name string) bool {
	return t.tx.Bucket(bucketBlobs).Get([]byte(name)) != nil
}

// DeleteLargeBlob removes the chunked blob name, if present.
func (t *WriteTx) DeleteLargeBlob(name string) error {
	b := t.tx.Bucket(bucketBlobs)
	c := b.Cursor()
	prefix := []byte(name + "\x00")
	var keys [][]byte
	for k, _ := c.Seek(prefix); k != nil && len(k) == len(prefix)+4 && string(k[:len(prefix)]) == string(prefix); k, _ = c.Next() {
		keys = append(keys, append([]byte(nil), k...))
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return fmt.Errorf("blob %s: %w", name, err)
		}
	}
	return b.Delete([]byte(name))
}

// Postings returns a copy of the stored postings of term in the field, and
// false when the field has no such term.
func (f *FieldWriter) Postings(term string) ([]byte, bool, error) {
	v := f.p.Get([]byte(term))
	if v == nil {
		return nil, false, nil
	}
	p, err := unseal(v, fmt.Sprintf("field %s postings of %q", f.name, term))
	if err != nil {
		return nil, false, err
	}
	return append([]byte(nil), p...), true, nil
}

// SetPostings stores the encoded postings of term, in any order; call
// Redigest once done.
func (f *FieldWriter) SetPostings(term string, encoded []byte) error {
	if term == "" {
		return errors.New("empty term")
	}
	return f.p.Put([]byte(term), seal(encoded))
}

// DocLens returns the stored document lengths of the field.
func (f *FieldWriter) DocLens() ([]byte, error) {
	v := f.b.Get(keyDocLens)
	if v == nil {
		return nil, fmt.Errorf("field %s: document lengths missing: %w", f.name, ErrCorrupt)
	}
	p, err := unseal(v, "field "+f.name+" document lengths")
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), p...), nil
}

// ForEachPostings calls fn for every term of the field in byte order, with
// its verified encoded postings (valid only during the call).
func (f *FieldWriter) ForEachPostings(fn func(term string, encoded []byte) error) error {
	return f.p.ForEach(func(k, v []byte) error {
		p, err := unseal(v, fmt.Sprintf("field %s postings of %q", f.name, k))
		if err != nil {
			return err
		}
		return fn(string(k), p)
	})
}

// Redigest recomputes the field's term-dictionary digest and term count
// from what is stored (after SetPostings).
func (f *FieldWriter) Redigest() (uint32, int) {
	h := crc32.New(castagnoli)
	n := 0
	f.p.ForEach(func(k, v []byte) error {
		digestAdd(h, k, v)
		n++
		return nil
	})
	return h.Sum32(), n
}

// ForEachSentence calls fn for every sentence stored in the index being
// written, in id order.
func (t *WriteTx) ForEachSentence(fn func(Sentence) error) error {
	return t.tx.Bucket(bucketSentences).ForEach(func(k, v []byte) error {
		if len(k) != 4 {
			return fmt.Errorf("sentence key %x: %w", k, ErrCorrupt)
		}
		id := binary.BigEndian.Uint32(k)
		p, err := unseal(v, fmt.Sprintf("sentence %d", id))
		if err != nil {
			return err
		}
		var s Sentence
		if err := s.decode(id, p); err != nil {
			return err
		}
		return fn(s)
	})
}

// afterOtherWriters runs fn once no other writer of target is building
// its temporary file, waiting (polling) while one is: a rebuild or an
// append in progress holds bbolt's exclusive flock(2) on its temporary
// file from creation to commit. fn runs under an exclusive flock on
// target's directory, held only while looking and running fn, so that two
// writers starting at once cannot both find none: fn must create and lock
// its own temporary file. waiting, if set, is called once when it waits.
func afterOtherWriters(ctx context.Context, target string, waiting func(), fn func() error) error {
	told := false
	for {
		unlock := lockDir(filepath.Dir(target))
		if !buildingNow(target) {
			err := fn()
			unlock()
			return err
		}
		unlock()
		if !told && waiting != nil {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for another writer of %s: %w", target, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// lockDir takes an exclusive flock(2) on dir and returns what releases it
// (nothing is locked where dir cannot be opened: the writers then only
// rely on their temporary files' locks).
func lockDir(dir string) func() {
	d, err := os.Open(dir)
	if err != nil {
		return func() {}
	}
	if err := unix.Flock(int(d.Fd()), unix.LOCK_EX); err != nil {
		d.Close()
		return func() {}
	}
	return func() { d.Close() } // closing the descriptor releases the lock
}

// buildingNow reports whether another writer holds one of target's
// temporary build files (bbolt's exclusive flock on it).
func buildingNow(target string) bool {
	matches, _ := filepath.Glob(tmpPattern(target))
	for _, m := range matches {
		f, err := os.Open(m)
		if err != nil {
			continue
		}
		err = unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB)
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return true
		}
	}
	return false
}

// ForEachContext calls fn for every context stored in the index being
// written, in id order.
func (t *WriteTx) ForEachContext(fn func(Context) error) error {
	return t.tx.Bucket(bucketContexts).ForEach(func(k, v []byte) error {
		if len(k) != 4 {
			return fmt.Errorf("context key %x: %w", k, ErrCorrupt)
		}
		id := binary.BigEndian.Uint32(k)
		p, err := unseal(v, fmt.Sprintf("context %d", id))
		if err != nil {
			return err
		}
		var c Context
		if err := c.decode(id, p); err != nil {
			return err
		}
		return fn(c)
	})
}

// ResetRecords deletes every context and sentence of the index being
// written (a sync rewrites them all, renumbered).
func (t *WriteTx) ResetRecords() error {
	for _, b := range [][]byte{bucketContexts, bucketSentences} {
		if err := t.tx.DeleteBucket(b); err != nil {
			return fmt.Errorf("reset %s: %w", b, err)
		}
		if _, err := t.tx.CreateBucket(b); err != nil {
			return fmt.Errorf("reset %s: %w", b, err)
		}
	}
	return nil
}

// DeleteField deletes the BM25 field name (its postings and document
// lengths) from the index being written, if present.
func (t *WriteTx) DeleteField(name string) error {
	err := t.tx.DeleteBucket([]byte(fieldPrefix + name))
	if err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
		return fmt.Errorf("field %s: %w", name, err)
	}
	return nil
}
