package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"unsafe"

	bolt "go.etcd.io/bbolt"
)

// Row sets: fixed-width rows (vectors) a reader uses in place, from the
// file's memory map, without copying or decoding them.
//
//	rows/NAME   a sub-bucket of the "rows" bucket per row set:
//	            8-byte big-endian chunk number → whole rows, zero bytes up
//	            to a multiple of 8 less 4, then the CRC-32C of all that;
//	            rowsHeaderKey → the JSON [RowsHeader], padded and sealed
//	            alike
//
// Every key is 8 bytes and every value a multiple of 8 bytes long, so each
// value starts 8-byte aligned in its page (a page header and leaf element
// headers are 16 bytes each): rows of float32 are read as float32 where they
// lie. A chunk found misaligned anyway (a tiny set stored inline in its
// parent's page) is copied once, so it is still read correctly.
//
// A chunk's checksum is verified the first time the chunk is used, not at
// open: a question touches a few chunks, and the file's other pages are
// never read.

// rowsPerChunk is how many rows of rowBytes a chunk holds: as many as
// fill a run of 2 to 4 pages of 4 KiB best once bbolt's page and element
// headers, the key, padding and checksum are counted (56 bytes), the
// shorter run on a tie, and at least one. A question's graph walk touches a
// thousand or so chunks scattered over the set and each touched chunk is
// read whole to check it, so a chunk is kept small (64 KiB chunks made the
// first question on a 121k-sentence index read 116 MB of a 250 MB set);
// between two and four pages the first `ask` there peaked at 328–329 MB
// either way, and full runs keep the file small (512-d float32 rows: 7 to
// a four-page run, 87.5% of it, a 753 MB file against 801 MB for 3 to two
// pages; 384-d: 5 to two pages, 94%).
func rowsPerChunk(rowBytes int) int {
	const page, overhead = 4096, 56
	best, bestFill := 1, 0.0
	for k := 2; k <= 4; k++ {
		r := (k*page - overhead) / rowBytes
		if fill := float64(r*rowBytes) / float64(k*page); r > 0 && fill > bestFill+1e-9 {
			best, bestFill = r, fill
		}
	}
	return best
}

// rowsTxBytes bounds the chunks PutRows writes in one transaction.
const rowsTxBytes = 16 << 20

var (
	bucketRows    = []byte("rows")
	rowsHeaderKey = []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
)

// RowsHeader describes a stored row set.
type RowsHeader struct {
	Rows     int `json:"rows"`
	RowBytes int `json:"row_bytes"`
	PerChunk int `json:"per_chunk"`
	Chunks   int `json:"chunks"`
}

func (h RowsHeader) valid() bool {
	if h.Rows < 0 || h.RowBytes <= 0 || h.PerChunk <= 0 || h.Chunks < 0 {
		return false
	}
	want := h.Rows / h.PerChunk
	if h.Rows%h.PerChunk != 0 {
		want++
	}
	return h.Chunks == want
}

// sealAligned returns payload padded with zero bytes and sealed so that
// the result is a multiple of 8 bytes long.
func sealAligned(payload []byte) []byte {
	n := len(payload) + 4
	pad := (8 - n%8) % 8
	out := make([]byte, len(payload)+pad, len(payload)+pad+4)
	copy(out, payload)
	return binary.BigEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
}

func rowsChunkKey(c int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(c)) }

// PutRows stores rows rows of rowBytes bytes each as the row set name,
// asking fill for rows lo..hi-1 at a time (dst: (hi-lo)·rowBytes bytes), a
// bounded number of chunks per transaction: the whole set is never held
// at once. A row set already stored under name is replaced. Nothing is
// visible until the writer commits.
func (w *Writer) PutRows(name string, rows, rowBytes int, fill func(lo, hi int, dst []byte)) error {
	if rows < 0 || rowBytes <= 0 {
		return fmt.Errorf("rows %s: %d rows of %d bytes", name, rows, rowBytes)
	}
	h := RowsHeader{Rows: rows, RowBytes: rowBytes, PerChunk: rowsPerChunk(rowBytes)}
	h.Chunks = (rows + h.PerChunk - 1) / h.PerChunk
	hj, _ := json.Marshal(h)
	err := w.Update(func(tx *WriteTx) error {
		if err := tx.DeleteRows(name); err != nil {
			return err
		}
		b, err := tx.rowsBucket(name, true)
		if err != nil {
			return err
		}
		return b.Put(rowsHeaderKey, sealAligned(hj))
	})
	if err != nil {
		return fmt.Errorf("rows %s: %w", name, err)
	}
	perTx := max(1, rowsTxBytes/(h.PerChunk*rowBytes))
	buf := make([]byte, h.PerChunk*rowBytes)
	for c0 := 0; c0 < h.Chunks; c0 += perTx {
		err := w.Update(func(tx *WriteTx) error {
			b, err := tx.rowsBucket(name, false)
			if err != nil {
				return err
			}
			for c := c0; c < min(c0+perTx, h.Chunks); c++ {
				lo, hi := c*h.PerChunk, min((c+1)*h.PerChunk, rows)
				dst := buf[:(hi-lo)*rowBytes]
				fill(lo, hi, dst)
				if err := b.Put(rowsChunkKey(c), sealAligned(dst)); err != nil {
					return fmt.Errorf("chunk %d: %w", c, err)
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("rows %s: %w", name, err)
		}
	}
	return nil
}

// rowsBucket returns the sub-bucket of row set name, created when create
// is set.
func (t *WriteTx) rowsBucket(name string, create bool) (*bolt.Bucket, error) {
	if create {
		top, err := t.tx.CreateBucketIfNotExists(bucketRows)
		if err != nil {
			return nil, err
		}
		return top.CreateBucketIfNotExists([]byte(name))
	}
	top := t.tx.Bucket(bucketRows)
	if top == nil || top.Bucket([]byte(name)) == nil {
		return nil, fmt.Errorf("rows %s: %w", name, ErrNotFound)
	}
	return top.Bucket([]byte(name)), nil
}

// DeleteRows removes the row set name; a set that is not there is not an
// error.
func (t *WriteTx) DeleteRows(name string) error {
	top := t.tx.Bucket(bucketRows)
	if top == nil || top.Bucket([]byte(name)) == nil {
		return nil
	}
	return top.DeleteBucket([]byte(name))
}

// Rows is a row set read in place: its chunks are slices of the file's
// memory map, valid until the Reader is closed. Its methods may be called
// from any number of goroutines.
type Rows struct {
	name string
	h    RowsHeader
	b    *bolt.Bucket // in the Reader's pinned transaction
	r    *Reader      // nil while checked inside another transaction
	mu   sync.Mutex   // held while a chunk is looked up and checked
	// chunks[c] is chunk c's rows, in place, once state[c] is 1.
	chunks [][]byte
	// state[c] is 0 until chunk c is first used, then 1 if it checked out
	// and 2 if it is damaged.
	state []atomic.Uint32
	// copies counts chunks that were not 8-byte aligned where they lie.
	copies atomic.Int64
	// validate, when set, checks a chunk's rows after its checksum
	// (SetValidate); why[c] keeps what it found wrong with chunk c.
	validate func(rows []byte) error
	why      map[int]error
	// cache, when set, is where chunks are read to (RowsCached): they are
	// then never read in place.
	cache *rowCache
}

// SetValidate makes every chunk's rows pass fn (after their checksum) the
// first time the chunk is used; a chunk fn refuses is damaged. Call it
// before the rows are used.
func (rs *Rows) SetValidate(fn func(rows []byte) error) { rs.validate = fn }

// Rows opens the row set name in place: the header now, each chunk when
// it is first used (Chunk), so that opening reads nothing in proportion to
// the set.
func (r *Reader) Rows(name string) (*Rows, error) {
	tx, err := r.pinned()
	if err != nil {
		return nil, err
	}
	var rs *Rows
	err = r.guard(func() error {
		top := tx.Bucket(bucketRows)
		if top == nil {
			return fmt.Errorf("rows %s: %w", name, ErrNotFound)
		}
		var err error
		rs, err = rowsOf(top, name)
		return err
	})
	if err != nil {
		return nil, err
	}
	rs.r = r
	return rs, nil
}

// rowsOf opens the row set name of the rows bucket top.
func rowsOf(top *bolt.Bucket, name string) (*Rows, error) {
	b := top.Bucket([]byte(name))
	if b == nil {
		return nil, fmt.Errorf("rows %s: %w", name, ErrNotFound)
	}
	rs := &Rows{name: name, b: b}
	hv := b.Get(rowsHeaderKey)
	if hv == nil {
		return nil, fmt.Errorf("rows %s: header missing: %w", name, ErrCorrupt)
	}
	p, err := unseal(hv, "rows "+name+" header")
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(bytes.TrimRight(p, "\x00"), &rs.h); err != nil || !rs.h.valid() {
		return nil, fmt.Errorf("rows %s: bad header: %w", name, ErrCorrupt)
	}
	// Every chunk takes a key and at least a checksum, every row its
	// bytes: a header promising more than the file holds is damaged (and
	// must not size the chunk table).
	if size := top.Tx().Size(); int64(rs.h.Chunks) > size/16 || int64(rs.h.Rows) > size/int64(rs.h.RowBytes) {
		return nil, fmt.Errorf("rows %s: header promises %d chunks of %d rows of %d bytes, more than the file's %d bytes: %w",
			name, rs.h.Chunks, rs.h.Rows, rs.h.RowBytes, size, ErrCorrupt)
	}
	rs.chunks = make([][]byte, rs.h.Chunks)
	rs.state = make([]atomic.Uint32, rs.h.Chunks)
	return rs, nil
}

// Read runs fn, which reads rows where they lie in the file's memory map
// (slices Chunk returned), turning a fault on a mapped page (the file cut
// short under the map) into an error wrapping ErrCorrupt instead of a
// crash, as every read of the Reader does.
func (rs *Rows) Read(fn func() error) error {
	if rs.r == nil {
		return fn()
	}
	return rs.r.guard(fn)
}

// Uint32s returns every row of a set of 4-byte rows as a little-endian
// uint32 (the context ids: RowsContextOf), checking every chunk.
func (rs *Rows) Uint32s() ([]uint32, error) {
	if rs.h.RowBytes != 4 {
		return nil, fmt.Errorf("rows %s: rows of %d bytes, not 4: %w", rs.name, rs.h.RowBytes, ErrCorrupt)
	}
	out := make([]uint32, 0, rs.h.Rows)
	for c := range rs.h.Chunks {
		b, err := rs.Chunk(c)
		if err != nil {
			return nil, err
		}
		for i := 0; i+4 <= len(b); i += 4 {
			out = append(out, binary.LittleEndian.Uint32(b[i:]))
		}
	}
	return out, nil
}

// Len returns the number of rows.
func (rs *Rows) Len() int { return rs.h.Rows }

// RowBytes returns the width of a row in bytes.
func (rs *Rows) RowBytes() int { return rs.h.RowBytes }

// PerChunk returns how many rows a chunk holds (the last may hold fewer).
func (rs *Rows) PerChunk() int { return rs.h.PerChunk }

// NumChunks returns the number of chunks.
func (rs *Rows) NumChunks() int { return rs.h.Chunks }

// Copied returns how many of the chunks used so far had to be copied out
// of the memory map because they were not aligned where they lie (none in
// a file written by PutRows, unless a tiny set is stored inline).
func (rs *Rows) Copied() int { return int(rs.copies.Load()) }

// Chunk returns the rows of chunk c, in place, looking it up and checking
// its checksum the first time (an error wraps ErrCorrupt and names the
// chunk). A set read through a cache (RowsCached) returns a copy.
func (rs *Rows) Chunk(c int) ([]byte, error) {
	if c < 0 || c >= rs.h.Chunks {
		return nil, fmt.Errorf("rows %s: chunk %d of %d", rs.name, c, rs.h.Chunks)
	}
	if rs.cache != nil {
		var out []byte
		err := rs.With(c, func(rows []byte) { out = append([]byte(nil), rows...) })
		return out, err
	}
	switch rs.state[c].Load() {
	case 1:
		return rs.chunks[c], nil
	case 2:
		return nil, rs.damaged(c)
	}
	rs.mu.Lock()
	var err error
	if rs.state[c].Load() == 0 {
		if rs.r != nil {
			err = rs.r.guard(func() error { return rs.load(c) })
		} else {
			err = rs.load(c)
		}
	}
	rs.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if rs.state[c].Load() == 2 {
		return nil, rs.damaged(c)
	}
	return rs.chunks[c], nil
}

// load looks chunk c up and checks it; rs.mu is held.
func (rs *Rows) load(c int) error {
	v := rs.b.Get(rowsChunkKey(c))
	if !rs.verify(c, v) {
		return nil
	}
	want := rs.chunkBytes(c)
	if uintptr(unsafe.Pointer(unsafe.SliceData(v)))%8 != 0 {
		v = append([]byte(nil), v[:want]...)
		rs.copies.Add(1)
	}
	rs.chunks[c] = v[:want:want]
	rs.state[c].Store(1)
	return nil
}

// chunkBytes is the length of chunk c's rows.
func (rs *Rows) chunkBytes(c int) int {
	return (min((c+1)*rs.h.PerChunk, rs.h.Rows) - c*rs.h.PerChunk) * rs.h.RowBytes
}

// verify checks chunk c's stored value v (its rows, padding and checksum;
// nil when missing): the length, the checksum and the validate function.
// A chunk that fails is marked damaged (why it failed kept for damaged).
// rs.mu is held.
func (rs *Rows) verify(c int, v []byte) bool {
	want := rs.chunkBytes(c)
	ok := len(v) >= want+4 && len(v)%8 == 0 && len(v)-want < 12 &&
		crc32.Checksum(v[:len(v)-4], castagnoli) == binary.BigEndian.Uint32(v[len(v)-4:])
	if !ok {
		rs.state[c].Store(2)
		return false
	}
	if rs.validate != nil {
		if err := rs.validate(v[:want]); err != nil {
			if rs.why == nil {
				rs.why = map[int]error{}
			}
			rs.why[c] = err
			rs.state[c].Store(2)
			return false
		}
	}
	return true
}

func (rs *Rows) damaged(c int) error {
	rs.mu.Lock()
	why := rs.why[c]
	rs.mu.Unlock()
	if why != nil {
		return fmt.Errorf("rows %s chunk %d: %w: %w", rs.name, c, ErrCorrupt, why)
	}
	return fmt.Errorf("rows %s chunk %d: missing, wrong length or checksum mismatch: %w", rs.name, c, ErrCorrupt)
}

// Check verifies every chunk and that there is no other (verify and
// tests; a question checks only the chunks it reads).
func (rs *Rows) Check() error {
	for c := range rs.h.Chunks {
		if err := rs.With(c, func([]byte) {}); err != nil {
			return err
		}
	}
	n := 0
	if rs.cache != nil {
		n = rs.cache.keys // counting them again would map the set's pages
	} else {
		n = rs.b.Stats().KeyN
	}
	if n != rs.h.Chunks+1 {
		return fmt.Errorf("rows %s: %d chunks stored, header says %d: %w", rs.name, n-1, rs.h.Chunks, ErrCorrupt)
	}
	return nil
}

// HasRows reports whether the row set name exists.
func (r *Reader) HasRows(name string) bool {
	ok := false
	r.view(func(tx *bolt.Tx) error {
		top := tx.Bucket(bucketRows)
		ok = top != nil && top.Bucket([]byte(name)) != nil
		return nil
	})
	return ok
}

// pin is the read transaction a Reader keeps open while row sets are read
// in place (their bytes are the memory map's).
type pin struct {
	once sync.Once
	tx   *bolt.Tx
	err  error
}

// pinned returns the Reader's long-lived read transaction, begun on first
// use and ended by Close.
func (r *Reader) pinned() (*bolt.Tx, error) {
	r.pin.once.Do(func() {
		r.pin.tx, r.pin.err = r.db.Begin(false)
		if r.pin.err != nil {
			r.pin.err = fmt.Errorf("index %s: %w", r.path, r.pin.err)
		}
	})
	return r.pin.tx, r.pin.err
}

// guard runs fn, turning a fault on a mapped page (a file cut short under
// the map) into ErrCorrupt.
func (r *Reader) guard(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("index %s: unreadable page (%v): %w", r.path, p, ErrCorrupt)
		}
	}()
	return fn()
}
