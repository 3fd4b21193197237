package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// FormatVersion is the newest on-disk format version this package writes
// and reads.
const FormatVersion = 4

// formatOf returns the oldest format that describes an index with meta m,
// so that older readers keep reading what they can: 4 when a field's
// tokens were made from normalised text (FieldMeta.Norm), 3 when the index
// lives in an external engine (Meta.Engine), 2 when a field uses a layout
// other than the expanded one, else 1.
func formatOf(m Meta) int {
	for _, f := range m.Fields {
		if f.Norm != "" {
			return 4
		}
	}
	if m.Engine != nil {
		return 3
	}
	for _, f := range m.Fields {
		if f.Layout != "" {
			return 2
		}
	}
	return 1
}

const magic = "reqa-index"

// Sentinel errors callers can test with errors.Is.
var (
	// ErrNotIndex reports a file that is not a reqa index.
	ErrNotIndex = errors.New("not a reqa index")
	// ErrNewerFormat reports an index written by a newer reqa.
	ErrNewerFormat = errors.New("index format is newer than this reqa understands")
	// ErrCorrupt reports a record whose checksum or encoding is damaged.
	ErrCorrupt = errors.New("index is damaged")
	// ErrNotFound reports a record, field or blob the index does not hold.
	ErrNotFound = errors.New("not found in index")
)

var (
	bucketMeta      = []byte("meta")
	bucketContexts  = []byte("contexts")
	bucketSentences = []byte("sentences")
	bucketBlobs     = []byte("blobs")
	bucketPostings  = []byte("postings")
	keyMagic        = []byte("magic")
	keyMeta         = []byte("meta")
	keyDocLens      = []byte("doclens")
	keyTermFilter   = []byte("termfilter")
	fieldPrefix     = "field/"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// seal appends the CRC-32C of payload to it.
func seal(payload []byte) []byte {
	out := make([]byte, len(payload), len(payload)+4)
	copy(out, payload)
	return binary.BigEndian.AppendUint32(out, crc32.Checksum(payload, castagnoli))
}

// unseal verifies and strips the checksum; what names the record in errors.
func unseal(v []byte, what string) ([]byte, error) {
	p, err := unsealed(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return p, nil
}

// unsealed is unseal without naming the record, for loops over many
// records that name it only when one is damaged.
func unsealed(v []byte) ([]byte, error) {
	if len(v) < 4 {
		return nil, fmt.Errorf("record too short: %w", ErrCorrupt)
	}
	p := v[:len(v)-4]
	if crc32.Checksum(p, castagnoli) != binary.BigEndian.Uint32(v[len(v)-4:]) {
		return nil, fmt.Errorf("checksum mismatch: %w", ErrCorrupt)
	}
	return p, nil
}

func idKey(id uint32) []byte { return binary.BigEndian.AppendUint32(nil, id) }

// Writer builds a new index in a temporary file. Call Commit to publish it
// under its target name, or Abort to discard it. A Writer is not safe for
// concurrent use.
type Writer struct {
	db     *bolt.DB
	tmp    string
	target string
	done   bool
	// lock is the target's writer lock: held from CreateFrom on, or taken
	// by Commit just for the rename.
	lock *writerLock
}

// tmpPattern is the glob of temporary build files for target.
func tmpPattern(target string) string {
	return filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+".reqa-build-*")
}

// Create starts a new index that will replace path on Commit. Nothing at path
// is touched until then. It is CreateWait with no way to stop waiting.
func Create(path string) (*Writer, error) {
	return CreateWait(context.Background(), path, nil)
}

// CreateWait starts a new index that will replace path on Commit, after
// any other writer of path (another rebuild, an append) has finished: two
// rebuilds of one index take turns, the later one's index replacing the
// earlier's, instead of running at once and one silently losing. waiting,
// if set, is called once when it has to wait; cancelling ctx gives up.
// Nothing at path is touched until Commit.
func CreateWait(ctx context.Context, path string, waiting func()) (*Writer, error) {
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("create index %s: %w", path, err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("create index %s: %s is not a directory", path, dir)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("create index %s: is a directory", path)
	}
	var w *Writer
	err := afterOtherWriters(ctx, path, waiting, func() error {
		// Under the directory's lock: the temporary file is locked by
		// bbolt before another writer looks for one.
		RemoveStale(path)
		f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".reqa-build-*")
		if err != nil {
			return err
		}
		tmp := f.Name()
		f.Close()
		db, err := bolt.Open(tmp, 0o644, &bolt.Options{Timeout: time.Second, NoFreelistSync: true})
		if err != nil {
			os.Remove(tmp)
			return err
		}
		w = &Writer{db: db, tmp: tmp, target: path}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("create index %s: %w", path, err)
	}
	db := w.db
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketMeta, bucketContexts, bucketSentences, bucketBlobs} {
			if _, err := tx.CreateBucket(b); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketMeta).Put(keyMagic, []byte(magic))
	})
	if err != nil {
		w.Abort()
		return nil, fmt.Errorf("create index %s: %w", path, err)
	}
	return w, nil
}

// RemoveStale deletes temporary build files for target that no running
// build holds (a build killed with SIGKILL leaves one behind). It returns the
// paths removed.
func RemoveStale(target string) []string {
	matches, _ := filepath.Glob(tmpPattern(target))
	var removed []string
	for _, m := range matches {
		// bbolt holds an exclusive flock while a build runs: if we can take
		// it without waiting, nobody is using the file.
		db, err := bolt.Open(m, 0o644, &bolt.Options{Timeout: 50 * time.Millisecond, ReadOnly: true})
		if err == nil {
			db.Close()
		} else if !errors.Is(err, berrors.ErrTimeout) && !strings.Contains(err.Error(), "timeout") {
			// Not a valid bolt file (killed before its first page): still
			// ours by name, and no lock can be held on what bolt rejects.
			err = nil
		}
		if err == nil && os.Remove(m) == nil {
			removed = append(removed, m)
		}
	}
	return removed
}

// Path returns the temporary file the writer is building.
func (w *Writer) Path() string { return w.tmp }

// Update runs fn in one write transaction on the index being built.
func (w *Writer) Update(fn func(tx *WriteTx) error) error {
	return w.db.Update(func(tx *bolt.Tx) error { return fn(&WriteTx{tx: tx}) })
}

// Commit writes meta, makes the file durable and renames it to the target.
func (w *Writer) Commit(m Meta) error {
	if w.done {
		return errors.New("commit: writer already finished")
	}
	m.FormatVersion = formatOf(m)
	if m.Created.IsZero() {
		m.Created = time.Now().UTC()
	}
	mj, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("commit index %s: %w", w.target, err)
	}
	if err := w.db.Update(func(tx *bolt.Tx) error {
		if err := putTermFilters(tx, m); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keyMeta, seal(mj))
	}); err != nil {
		w.Abort()
		return fmt.Errorf("commit index %s: %w", w.target, err)
	}
	if err := w.db.Sync(); err != nil {
		w.Abort()
		return fmt.Errorf("commit index %s: %w", w.target, err)
	}
	var used int64 // bytes up to the last page in use
	w.db.View(func(tx *bolt.Tx) error { used = tx.Size(); return nil })
	w.done = true
	// The file is trimmed, published and renamed while bbolt still holds
	// its exclusive lock on it, so that another writer's RemoveStale never
	// takes it for a stale temporary file; bbolt lets go of it last. (Its
	// pages are durable already: nothing bbolt does on close writes.)
	defer func() {
		w.db.Close()
		w.lock.unlock() // w.lock may be taken below
	}()
	if err := trimFile(w.tmp, used); err != nil {
		os.Remove(w.tmp)
		return fmt.Errorf("commit index %s: %w", w.target, err)
	}
	// CreateTemp made the file private; an index is as readable as any
	// file the user writes.
	if err := os.Chmod(w.tmp, 0o644&^umask()); err != nil {
		os.Remove(w.tmp)
		return fmt.Errorf("commit index %s: %w", w.target, err)
	}
	if w.lock == nil {
		// A rebuild replaces the index whole, but not in the middle of
		// another writer's append: wait for its writer lock.
		if w.lock, err = lockWriter(context.Background(), w.target, nil); errors.Is(err, os.ErrPermission) {
			w.lock = nil // a read-only file is replaced, as rename allows
		} else if err != nil {
			os.Remove(w.tmp)
			return fmt.Errorf("commit index %s: %w", w.target, err)
		}
	}
	if err := os.Rename(w.tmp, w.target); err != nil {
		os.Remove(w.tmp)
		return fmt.Errorf("commit index %s: %w", w.target, err)
	}
	if d, err := os.Open(filepath.Dir(w.target)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// trimFile cuts the file at path to used bytes, its last page in use, and
// makes that durable. bbolt grows a file ahead of its pages (to the next
// power of two, then by 16 MB) and never shrinks it; nothing past the last
// page is ever read, so an index ships without that padding (a 5-sentence
// index with embeddings: 45.2 → 29 MB).
func trimFile(path string, used int64) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if used <= 0 || st.Size() <= used {
		return nil
	}
	if err := f.Truncate(used); err != nil {
		return err
	}
	return f.Sync()
}

// Abort discards the build. It is safe to call after Commit (it does nothing).
func (w *Writer) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.db.Close()
	os.Remove(w.tmp)
	w.lock.unlock()
}

// WriteTx is a write transaction on an index being built.
type WriteTx struct{ tx *bolt.Tx }

// PutContext stores c under c.ID. Records are meant to be put in
// increasing id order (builds and appends do): pages are then filled to
// [recordFill] instead of bbolt's half, which on 10 MB of paragraphs took
// the contexts from 27.0 to 14 MB of pages.
func (t *WriteTx) PutContext(c Context) error {
	b := t.tx.Bucket(bucketContexts)
	b.FillPercent = recordFill
	return b.Put(idKey(c.ID), seal(c.encode()))
}

// PutSentence stores s under s.ID, in increasing id order like PutContext.
func (t *WriteTx) PutSentence(s Sentence) error {
	b := t.tx.Bucket(bucketSentences)
	b.FillPercent = recordFill
	return b.Put(idKey(s.ID), seal(s.encode()))
}

// recordFill is the page fill of the record and postings buckets, whose
// keys are written in increasing order: nearly full, as bbolt advises for
// sequential inserts.
const recordFill = 0.95

// PutBlob stores a large opaque value under name.
func (t *WriteTx) PutBlob(name string, v []byte) error {
	return t.tx.Bucket(bucketBlobs).Put([]byte(name), seal(v))
}

// Field returns the writer for the BM25 field name, creating it.
func (t *WriteTx) Field(name string) (*FieldWriter, error) {
	b, err := t.tx.CreateBucketIfNotExists([]byte(fieldPrefix + name))
	if err != nil {
		return nil, fmt.Errorf("field %s: %w", name, err)
	}
	p, err := b.CreateBucketIfNotExists(bucketPostings)
	if err != nil {
		return nil, fmt.Errorf("field %s: %w", name, err)
	}
	p.FillPercent = recordFill
	return &FieldWriter{name: name, b: b, p: p, digest: crc32.New(castagnoli)}, nil
}

// ResumeField returns a writer for the same field as prev, bound to this
// transaction and carrying prev's term-dictionary digest and term count
// on, so that one field can be written over several transactions (which
// bounds the memory bbolt holds for a transaction's changed pages). prev
// must not be used afterwards.
func (t *WriteTx) ResumeField(prev *FieldWriter) (*FieldWriter, error) {
	fw, err := t.Field(prev.name)
	if err != nil {
		return nil, err
	}
	fw.digest, fw.terms = prev.digest, prev.terms
	return fw, nil
}

// FieldWriter writes one BM25 field's postings and document lengths.
type FieldWriter struct {
	name   string
	b, p   *bolt.Bucket
	digest hash.Hash32
	terms  int
}

// PutPostings stores the encoded postings of term. Terms must come in
// strictly increasing byte order (the field digest depends on it).
func (f *FieldWriter) PutPostings(term string, encoded []byte) error {
	if term == "" {
		return errors.New("empty term")
	}
	v := seal(encoded)
	digestAdd(f.digest, []byte(term), v)
	f.terms++
	return f.p.Put([]byte(term), v)
}

// Digest returns the field's term-dictionary digest (CRC-32C over every term
// and its record's checksum, in order) and its term count. Store them in
// FieldMeta: a damaged term key — which no value checksum can catch, since a
// lookup of the undamaged term then simply misses — fails VerifyField.
func (f *FieldWriter) Digest() (uint32, int) { return f.digest.Sum32(), f.terms }

func digestAdd(h hash.Hash32, key, sealed []byte) { h.Write(digestBytes(nil, key, sealed)) }

// digestBytes appends what a term adds to its field's digest: the key's
// length (4 bytes, big-endian), the key, and its sealed value's checksum
// (the value's last 4 bytes).
func digestBytes(dst, key, sealed []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(key)))
	dst = append(dst, key...)
	if len(sealed) >= 4 {
		dst = append(dst, sealed[len(sealed)-4:]...)
	}
	return dst
}

// VerifyField checks field name's term dictionary against the digest and
// term count in its FieldMeta (fields written before digests existed, with
// a zero count, are not checked).
func (r *Reader) VerifyField(name string) error {
	fm, ok := r.meta.Field(name)
	if !ok {
		return fmt.Errorf("field %s: %w", name, ErrNotFound)
	}
	if fm.DigestTerms == 0 {
		return nil
	}
	// One checksum update a term, into a reused buffer (a field of a
	// million sentences has hundreds of thousands of terms).
	var sum uint32
	var buf []byte
	n := 0
	err := r.view(func(tx *bolt.Tx) error {
		pb, err := postingsBucket(tx, name, ErrCorrupt)
		if err != nil {
			return err
		}
		return pb.ForEach(func(k, v []byte) error {
			buf = digestBytes(buf[:0], k, v)
			sum = crc32.Update(sum, castagnoli, buf)
			n++
			return nil
		})
	})
	if err != nil {
		return err
	}
	if n != fm.DigestTerms || sum != fm.Digest {
		return fmt.Errorf("field %s: term dictionary damaged (%d terms, digest %08x; meta says %d, %08x): %w", name, n, sum, fm.DigestTerms, fm.Digest, ErrCorrupt)
	}
	return nil
}

// PutDocLens stores the encoded document lengths.
func (f *FieldWriter) PutDocLens(encoded []byte) error {
	return f.b.Put(keyDocLens, seal(encoded))
}

// Reader is an open index. Its methods are safe for concurrent use.
type Reader struct {
	db   *bolt.DB
	path string
	meta Meta
	pin  pin
	// lazyTerms is OpenOptions.LazyTerms; checks holds a *fieldCheck per
	// field name (termfilter.go).
	lazyTerms bool
	checks    sync.Map
	// file is the index file as OpenWith found it; closers release what
	// cached row sets hold (RowsCached): run by Close.
	file      os.FileInfo
	closersMu sync.Mutex
	closers   []func()
}

// OpenOptions tune a Reader.
type OpenOptions struct {
	// LazyTerms is for a process that asks a question or two: CheckField
	// reads a field's term filter instead of verifying its whole term
	// dictionary, and lookups that miss are checked against the filter
	// (termfilter.go).
	LazyTerms bool
}

// Open opens the index at path read-only.
func Open(path string) (*Reader, error) { return OpenWith(path, OpenOptions{}) }

// OpenWith opens the index at path read-only with o.
func OpenWith(path string, o OpenOptions) (*Reader, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("open index %s: is a directory: %w", path, ErrNotIndex)
	}
	if !st.Mode().IsRegular() {
		// A FIFO or device would block or never end: an index is a file.
		return nil, fmt.Errorf("open index %s: not a regular file (%v): %w", path, st.Mode().Type(), ErrNotIndex)
	}
	if st.Size() < 4096 {
		if hasBoltMagic(path) {
			return nil, fmt.Errorf("open index %s: truncated to %d bytes: %w", path, st.Size(), ErrCorrupt)
		}
		return nil, fmt.Errorf("open index %s: file too small (%d bytes): %w", path, st.Size(), ErrNotIndex)
	}
	if err := checkLength(path, st.Size()); err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	db, err := openBolt(path)
	if err != nil {
		if errors.Is(err, berrors.ErrTimeout) {
			return nil, fmt.Errorf("open index %s: another process is writing it (file locked): %w", path, err)
		}
		if hasBoltMagic(path) {
			return nil, fmt.Errorf("open index %s: unreadable (%v): %w", path, err, ErrCorrupt)
		}
		return nil, fmt.Errorf("open index %s: %w (%v)", path, ErrNotIndex, err)
	}
	r := &Reader{db: db, path: path, lazyTerms: o.LazyTerms, file: st}
	err = r.view(func(tx *bolt.Tx) error {
		mb := tx.Bucket(bucketMeta)
		if mb == nil || !bytes.Equal(mb.Get(keyMagic), []byte(magic)) {
			return ErrNotIndex
		}
		raw := mb.Get(keyMeta)
		if raw == nil {
			return fmt.Errorf("meta missing (unfinished build): %w", ErrNotIndex)
		}
		p, err := unseal(raw, "meta")
		if err != nil {
			return err
		}
		if err := json.Unmarshal(p, &r.meta); err != nil {
			return fmt.Errorf("meta: %v: %w", err, ErrCorrupt)
		}
		if r.meta.FormatVersion > FormatVersion {
			return fmt.Errorf("format version %d, this reqa reads up to %d: %w", r.meta.FormatVersion, FormatVersion, ErrNewerFormat)
		}
		if r.meta.FormatVersion < 1 {
			return fmt.Errorf("format version %d: %w", r.meta.FormatVersion, ErrCorrupt)
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	return r, nil
}

// hasBoltMagic reports whether path begins with a bbolt meta page (its
// magic number after the 16-byte page header): a short file that does is a
// damaged index rather than some other file.
func hasBoltMagic(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [20]byte
	if _, err := io.ReadFull(f, b[:]); err != nil {
		return false
	}
	return binary.LittleEndian.Uint32(b[16:]) == 0xED0CDAED
}

// openBolt opens a bolt file read-only, turning bolt's panics on garbage
// input into errors.
func openBolt(path string) (db *bolt.DB, err error) {
	defer func() {
		if p := recover(); p != nil {
			db, err = nil, fmt.Errorf("unreadable database: %v", p)
		}
	}()
	return bolt.Open(path, 0o444, &bolt.Options{ReadOnly: true, Timeout: 2 * time.Second})
}

// Path returns the file the reader has open.
func (r *Reader) Path() string { return r.path }

// Meta returns the index's metadata.
func (r *Reader) Meta() Meta { return r.meta }

// Close releases the file.
func (r *Reader) Close() error {
	if r.pin.tx != nil {
		r.pin.tx.Rollback()
	}
	r.closersMu.Lock()
	for _, f := range r.closers {
		f()
	}
	r.closers = nil
	r.closersMu.Unlock()
	return r.db.Close()
}

// SizeBytes returns the size of the index file.
func (r *Reader) SizeBytes() int64 {
	if st, err := os.Stat(r.path); err == nil {
		return st.Size()
	}
	return 0
}

// Usage is how many bytes of pages one part of an index takes.
type Usage struct {
	// Part is "contexts", "sentences", "blobs", "meta" or "field NAME".
	Part  string `json:"part"`
	Bytes int64  `json:"bytes"`
}

// Usage returns the bytes of pages each part of the index takes (bbolt's
// page counts; the rest of the file is free pages and bbolt's own), in
// bucket order. It reads every page of the index's B+trees, not their
// overflow pages.
func (r *Reader) Usage() ([]Usage, error) {
	var out []Usage
	err := r.view(func(tx *bolt.Tx) error {
		page := int64(tx.DB().Info().PageSize)
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			st := b.Stats()
			part := string(name)
			if f, ok := strings.CutPrefix(part, fieldPrefix); ok {
				part = "field " + f
			}
			n := int64(st.BranchPageN+st.LeafPageN+st.LeafOverflowN+st.BranchOverflowN) * page
			if st.BranchPageN+st.LeafPageN == 0 {
				// A small bucket lives inside its parent's page: count
				// the bytes it uses there (a sub-bucket inside this
				// bucket's own pages is counted with them).
				n = int64(st.InlineBucketInuse)
			}
			out = append(out, Usage{Part: part, Bytes: n})
			return nil
		})
	})
	return out, err
}

// Context returns the context with id.
func (r *Reader) Context(id uint32) (Context, error) {
	return one(r, bucketContexts, "context", id, (*Context).decode)
}

// Sentence returns the sentence with id.
func (r *Reader) Sentence(id uint32) (Sentence, error) {
	return one(r, bucketSentences, "sentence", id, (*Sentence).decode)
}

// one decodes the checksummed record id of an id-keyed bucket.
func one[T any](r *Reader, bucket []byte, what string, id uint32, decode func(*T, uint32, []byte) error) (T, error) {
	var x T
	err := r.view(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucket).Get(idKey(id))
		if v == nil {
			return fmt.Errorf("%s %d: %w", what, id, ErrNotFound)
		}
		p, err := unseal(v, fmt.Sprintf("%s %d", what, id))
		if err != nil {
			return err
		}
		return decode(&x, id, p)
	})
	return x, err
}

// Contexts returns every context in id order.
func (r *Reader) Contexts() ([]Context, error) {
	return all(r, bucketContexts, "context", r.meta.Contexts, (*Context).decode)
}

// Sentences returns every sentence in id order.
func (r *Reader) Sentences() ([]Sentence, error) {
	return all(r, bucketSentences, "sentence", r.meta.Sentences, (*Sentence).decode)
}

// all decodes every checksummed record of an id-keyed bucket; n, the count
// the meta gives, sizes the result. (Naming each record only when it is
// damaged and sizing the result once took reading 934,585 sentences from
// 1.35 s to 0.4 s.)
func all[T any](r *Reader, bucket []byte, what string, n int, decode func(*T, uint32, []byte) error) ([]T, error) {
	out := make([]T, 0, max(0, min(n, 1<<26)))
	err := r.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucket).ForEach(func(k, v []byte) error {
			if len(k) != 4 {
				return fmt.Errorf("%s key %x: %w", what, k, ErrCorrupt)
			}
			id := binary.BigEndian.Uint32(k)
			p, err := unsealed(v)
			if err != nil {
				return fmt.Errorf("%s %d: %w", what, id, err)
			}
			var x T
			if err := decode(&x, id, p); err != nil {
				return err
			}
			out = append(out, x)
			return nil
		})
	})
	return out, err
}

// Blob returns a copy of the blob stored under name.
func (r *Reader) Blob(name string) ([]byte, error) {
	var out []byte
	err := r.view(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketBlobs).Get([]byte(name))
		if v == nil {
			return fmt.Errorf("blob %s: %w", name, ErrNotFound)
		}
		p, err := unseal(v, "blob "+name)
		if err != nil {
			return err
		}
		out = append([]byte(nil), p...)
		return nil
	})
	return out, err
}

// HasField reports whether the index holds the BM25 field name.
func (r *Reader) HasField(name string) bool {
	ok := false
	r.view(func(tx *bolt.Tx) error {
		ok = tx.Bucket([]byte(fieldPrefix+name)) != nil
		return nil
	})
	return ok
}

// DocLens returns the encoded document lengths of field name.
func (r *Reader) DocLens(name string) ([]byte, error) {
	var out []byte
	err := r.view(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(fieldPrefix + name))
		if b == nil {
			return fmt.Errorf("field %s: %w", name, ErrNotFound)
		}
		v := b.Get(keyDocLens)
		if v == nil {
			return fmt.Errorf("field %s: document lengths missing: %w", name, ErrCorrupt)
		}
		p, err := unseal(v, "field "+name+" document lengths")
		if err != nil {
			return err
		}
		out = append([]byte(nil), p...)
		return nil
	})
	return out, err
}

// Postings returns a copy of the encoded postings of term in field name,
// and false when the field has no such term.
func (r *Reader) Postings(name, term string) ([]byte, bool, error) {
	var out []byte
	found := false
	err := r.view(func(tx *bolt.Tx) error {
		pb, err := postingsBucket(tx, name, ErrNotFound)
		if err != nil {
			return err
		}
		v := pb.Get([]byte(term))
		if v == nil {
			return nil
		}
		p, err := unseal(v, fmt.Sprintf("field %s postings of %q", name, term))
		if err != nil {
			return err
		}
		out = append([]byte(nil), p...)
		found = true
		return nil
	})
	if err == nil && !found {
		err = r.checkMissing(name, []byte(term))
	}
	return out, found, err
}

// postingsBucket returns field name's postings bucket; a missing field is
// reported wrapping ifMissing (ErrNotFound, or ErrCorrupt where meta says
// the field exists).
func postingsBucket(tx *bolt.Tx, name string, ifMissing error) (*bolt.Bucket, error) {
	b := tx.Bucket([]byte(fieldPrefix + name))
	if b == nil {
		return nil, fmt.Errorf("field %s: %w", name, ifMissing)
	}
	pb := b.Bucket(bucketPostings)
	if pb == nil {
		return nil, fmt.Errorf("field %s: postings missing: %w", name, ErrCorrupt)
	}
	return pb, nil
}

// ForEachPostings calls fn for every term of field name in byte order. The
// slice passed to fn is only valid during the call.
func (r *Reader) ForEachPostings(name string, fn func(term string, encoded []byte) error) error {
	return r.view(func(tx *bolt.Tx) error {
		pb, err := postingsBucket(tx, name, ErrNotFound)
		if err != nil {
			return err
		}
		return pb.ForEach(func(k, v []byte) error {
			p, err := unseal(v, fmt.Sprintf("field %s postings of %q", name, k))
			if err != nil {
				return err
			}
			return fn(string(k), p)
		})
	})
}

// Amend opens the existing index at path for writing and runs fn in one
// bbolt transaction, which commits atomically: a crash leaves either the old
// or the new state. Use it for small additions such as tuned parameters;
// rebuilding goes through Create.
func Amend(path string, fn func(tx *WriteTx) error) error {
	r, err := Open(path) // validates magic and format version first
	if err != nil {
		return err
	}
	r.Close()
	db, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		return fmt.Errorf("amend index %s: %w", path, err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bolt.Tx) error { return fn(&WriteTx{tx: tx}) }); err != nil {
		return fmt.Errorf("amend index %s: %w", path, err)
	}
	// Trim bbolt's growth padding again, under its lock: readers only
	// read pages below the high-water mark, which never goes down.
	var used int64
	db.View(func(tx *bolt.Tx) error { used = tx.Size(); return nil })
	if err := trimFile(path, used); err != nil {
		return fmt.Errorf("amend index %s: %w", path, err)
	}
	return nil
}

// umask returns the process umask (read by setting and restoring it).
func umask() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m)
}

// view runs fn in a read transaction, turning what a damaged file can do to
// bbolt — a Go panic on inconsistent page data, or a memory fault on a page
// pointer outside the mapping (made recoverable with SetPanicOnFault) — into
// an ErrCorrupt error instead of a crash.
func (r *Reader) view(fn func(tx *bolt.Tx) error) error {
	return r.guard(func() error { return r.db.View(fn) })
}
