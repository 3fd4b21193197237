package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"
)

// A row set read through a cache (RowsCached) is never read from the
// memory map after it is opened: rows are read from the file with pread
// into a fixed number of row slots, the least recently used (by the
// clock) given up for the next. A long-running process (reqa serve) then
// holds at most its cache of the set: what it read of the set in place
// would stay mapped, and counted in its resident memory, for as long as
// it runs (a graph walk reads a thousand rows scattered over the set, and
// the kernel maps the pages around each).
//
// Where each chunk lies in the file is found once, at open, by a cursor
// over the set's keys; the pages that mapped are then released from the
// process's map (madvise, where there is one) — they stay in the page
// cache, shared with every other reader of the file. A chunk is checked
// (length, checksum, Validate) the first time one of its rows is read, as
// in place: that read takes the whole chunk; later ones take the row.

// rowCache is the cache of one row set.
type rowCache struct {
	f *os.File
	// mem holds every slot's row, outside the Go heap where there is
	// mmap (cacheMemory): the collector then neither scans it nor lets
	// the heap grow by its size before collecting.
	mem  []byte
	free func()
	// off[c] is where chunk c's value (rows, padding, checksum) starts in
	// the file, −1 when the chunk is missing; size[c] is its length.
	off  []int64
	size []int32
	// slotOf[i] is 1 + the slot holding row i, 0 when none does.
	slotOf []atomic.Int32
	slots  []cacheSlot
	mu     sync.Mutex // held while a slot is chosen for a row
	hand   int
	// chunkBuf holds a chunk's value while it is checked (or read whole);
	// chunkMax is the longest a chunk's value can be.
	chunkBuf sync.Pool
	chunkMax int
	reads    atomic.Int64
	fills    atomic.Int64
	// keys is how many keys the set's bucket held at open (Check).
	keys int
}

// cacheSlot holds one row. Its lock is held for reading while the row is
// used and for writing while it is replaced.
type cacheSlot struct {
	mu   sync.RWMutex
	row  int // −1: empty
	used atomic.Bool
	buf  []byte
	// hits counts the rows handed out from the slot (beside its lock,
	// which every hit writes anyway).
	hits atomic.Int64
}

// RowsCached opens the row set name to be read through a cache of at
// most budget bytes of rows (at least two) instead of in place: WithRow
// hands out a row from the cache, reading it from the file when it is not
// there; With reads a chunk from the file each time, and Chunk returns a
// copy. A set whose chunks do not lie in the file's pages (a tiny set
// stored inline in its parent) is read in place, as Rows opens it.
func (r *Reader) RowsCached(name string, budget int64) (*Rows, error) {
	rs, err := r.Rows(name)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(r.path)
	if err != nil {
		return nil, fmt.Errorf("rows %s: %w", name, err)
	}
	if st, err := f.Stat(); err != nil || !os.SameFile(st, r.file) {
		f.Close()
		return nil, fmt.Errorf("rows %s: index %s was replaced since it was opened", name, r.path)
	}
	c := &rowCache{f: f, off: make([]int64, rs.h.Chunks), size: make([]int32, rs.h.Chunks)}
	base := r.db.Info().Data
	var lo, hi int64 = -1, -1
	var loAt unsafe.Pointer
	inPages := true
	err = r.guard(func() error {
		for i := range c.off {
			c.off[i] = -1
		}
		cur := rs.b.Cursor()
		for k, v := cur.First(); k != nil; k, v = cur.Next() {
			c.keys++
			if len(k) != 8 || string(k) == string(rowsHeaderKey) {
				continue
			}
			i := binary.BigEndian.Uint64(k)
			if i >= uint64(rs.h.Chunks) || len(v) == 0 {
				continue // Check reports keys that are not chunks
			}
			off := int64(uintptr(unsafe.Pointer(unsafe.SliceData(v))) - base)
			if off < 0 || off+int64(len(v)) > r.file.Size() || len(v) > 1<<30 {
				inPages = false
				return nil
			}
			c.off[i], c.size[i] = off, int32(len(v))
			if lo < 0 || off < lo {
				lo, loAt = off, unsafe.Pointer(unsafe.SliceData(v))
			}
			hi = max(hi, off+int64(len(v)))
		}
		return nil
	})
	if err != nil {
		f.Close()
		return nil, err
	}
	if !inPages {
		f.Close()
		return rs, nil
	}
	rowBytes := rs.h.RowBytes
	n := int(min(int64(rs.h.Rows), max(2, budget/int64(rowBytes))))
	if c.mem, c.free, err = cacheMemory(n * rowBytes); err != nil {
		f.Close()
		return nil, fmt.Errorf("rows %s: cache of %d bytes: %w", name, n*rowBytes, err)
	}
	c.slotOf = make([]atomic.Int32, rs.h.Rows)
	c.slots = make([]cacheSlot, n)
	for i := range c.slots {
		c.slots[i].row = -1
		c.slots[i].buf = c.mem[i*rowBytes : (i+1)*rowBytes : (i+1)*rowBytes]
	}
	// Rows, padding, checksum (a header's PerChunk may exceed the rows,
	// which fit the file).
	c.chunkMax = (min(rs.h.PerChunk, rs.h.Rows)*rowBytes + 11) &^ 7
	c.chunkBuf.New = func() any { return new([]byte) }
	if lo >= 0 {
		// The cursor mapped the pages around every chunk: give them back.
		releaseMapped(loAt, lo, hi)
	}
	rs.cache, rs.chunks = c, nil
	r.closersMu.Lock()
	r.closers = append(r.closers, func() { f.Close(); c.free() })
	r.closersMu.Unlock()
	return rs, nil
}

// WithRow calls fn with row i, checking its chunk the first time one of
// its rows is read (an error wraps ErrCorrupt and names the chunk). The
// slice is valid only while fn runs, and fn must not call WithRow. A set
// read in place passes the row where it lies.
func (rs *Rows) WithRow(i int, fn func(row []byte)) error {
	if i < 0 || i >= rs.h.Rows {
		return fmt.Errorf("rows %s: row %d of %d", rs.name, i, rs.h.Rows)
	}
	w := rs.h.RowBytes
	if rs.cache == nil {
		b, err := rs.Chunk(i / rs.h.PerChunk)
		if err != nil {
			return err
		}
		k := i % rs.h.PerChunk * w
		fn(b[k : k+w : k+w])
		return nil
	}
	cc := rs.cache
	for filled := false; ; filled = true {
		if rs.state[i/rs.h.PerChunk].Load() == 2 {
			return rs.damaged(i / rs.h.PerChunk)
		}
		if s := cc.slotOf[i].Load(); s > 0 {
			sl := &cc.slots[s-1]
			sl.mu.RLock()
			if sl.row == i {
				if !sl.used.Load() {
					sl.used.Store(true)
				}
				if !filled {
					sl.hits.Add(1)
				}
				fn(sl.buf)
				sl.mu.RUnlock()
				return nil
			}
			sl.mu.RUnlock()
		}
		if err := rs.fill(i); err != nil {
			return err
		}
	}
}

// fill reads row i into a slot (unless another caller has meanwhile).
func (rs *Rows) fill(i int) error {
	cc := rs.cache
	cc.mu.Lock()
	if cc.slotOf[i].Load() > 0 {
		cc.mu.Unlock()
		return nil
	}
	// The clock: the first slot not used since the hand last passed.
	var sl *cacheSlot
	for {
		s, at := &cc.slots[cc.hand], cc.hand
		cc.hand = (cc.hand + 1) % len(cc.slots)
		if s.used.Swap(false) {
			continue
		}
		sl = s
		sl.mu.Lock() // waits for the slot's readers
		if sl.row >= 0 {
			cc.slotOf[sl.row].Store(0)
		}
		sl.row = i
		sl.used.Store(true) // not the hand's next victim while it is read
		cc.slotOf[i].Store(int32(at + 1))
		break
	}
	cc.mu.Unlock()
	cc.fills.Add(1)
	err := rs.readRow(i, sl.buf)
	if err != nil || rs.state[i/rs.h.PerChunk].Load() != 1 {
		cc.slotOf[i].Store(0)
		sl.row = -1
	}
	sl.mu.Unlock()
	return err
}

// readRow reads row i into dst: the row alone once its chunk has been
// checked, else the whole chunk, checked.
func (rs *Rows) readRow(i int, dst []byte) error {
	c := i / rs.h.PerChunk
	k := int64(i%rs.h.PerChunk) * int64(rs.h.RowBytes)
	if rs.state[c].Load() == 1 {
		return rs.pread(c, dst, rs.cache.off[c]+k)
	}
	return rs.withChunk(c, func(rows []byte) { copy(dst, rows[k:]) })
}

// withChunk reads chunk c from the file and calls fn with its rows,
// checking them the first time (a damaged chunk: fn is not called, and
// the state says so).
func (rs *Rows) withChunk(c int, fn func(rows []byte)) error {
	cc := rs.cache
	n := int(cc.size[c])
	if cc.off[c] < 0 || n > cc.chunkMax { // missing, or longer than a chunk can be
		rs.mu.Lock()
		rs.state[c].Store(2)
		rs.mu.Unlock()
		return nil
	}
	bp := cc.chunkBuf.Get().(*[]byte)
	defer cc.chunkBuf.Put(bp)
	if cap(*bp) < n {
		*bp = make([]byte, n)
	}
	b := (*bp)[:n]
	if err := rs.pread(c, b, cc.off[c]); err != nil {
		return err
	}
	if rs.state[c].Load() == 0 {
		rs.mu.Lock()
		if rs.state[c].Load() == 0 && rs.verify(c, b) {
			rs.state[c].Store(1)
		}
		rs.mu.Unlock()
	}
	if rs.state[c].Load() == 1 {
		fn(b[:rs.chunkBytes(c)])
	}
	return nil
}

// pread reads len(b) bytes of chunk c's value from the file at off.
func (rs *Rows) pread(c int, b []byte, off int64) error {
	rs.cache.reads.Add(1)
	if _, err := rs.cache.f.ReadAt(b, off); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("rows %s chunk %d: file cut short: %w", rs.name, c, ErrCorrupt)
		}
		return fmt.Errorf("rows %s chunk %d: %w", rs.name, c, err)
	}
	return nil
}

// With calls fn with the rows of chunk c, checking them the first time
// they are read (an error wraps ErrCorrupt and names the chunk). The
// slice is valid only while fn runs. A set read in place passes the rows
// where they lie; a cached set reads the chunk from the file each time
// (it is for reading the whole set: Check, exact scoring), without
// touching the cache.
func (rs *Rows) With(c int, fn func(rows []byte)) error {
	if rs.cache == nil {
		b, err := rs.Chunk(c)
		if err != nil {
			return err
		}
		fn(b)
		return nil
	}
	if c < 0 || c >= rs.h.Chunks {
		return fmt.Errorf("rows %s: chunk %d of %d", rs.name, c, rs.h.Chunks)
	}
	if rs.state[c].Load() == 2 {
		return rs.damaged(c)
	}
	if err := rs.withChunk(c, fn); err != nil {
		return err
	}
	if rs.state[c].Load() == 2 {
		return rs.damaged(c)
	}
	return nil
}

// Reads returns how many reads a cached set has made of the file (0 for
// a set read in place).
func (rs *Rows) Reads() int64 {
	if rs.cache == nil {
		return 0
	}
	return rs.cache.reads.Load()
}

// CacheStats is what a cached row set's cache holds and has done.
type CacheStats struct {
	// Bytes is the cache's size; Rows how many rows it holds now.
	Bytes int64 `json:"bytes"`
	Rows  int   `json:"rows"`
	// Hits counts rows found in the cache, Misses rows read into it from
	// the file (the first of a chunk's rows read the whole chunk, to
	// check it).
	Hits   int64 `json:"hits"`
	Misses int64 `json:"misses"`
}

// CacheStats returns the cache's figures (zero for a set read in place).
func (rs *Rows) CacheStats() CacheStats {
	cc := rs.cache
	if cc == nil {
		return CacheStats{}
	}
	st := CacheStats{Bytes: int64(len(cc.mem)), Misses: cc.fills.Load()}
	for i := range cc.slots {
		st.Hits += cc.slots[i].hits.Load()
	}
	for i := range cc.slotOf {
		if cc.slotOf[i].Load() > 0 {
			st.Rows++
		}
	}
	return st
}

// Cached reports whether the set is read through a cache.
func (rs *Rows) Cached() bool { return rs.cache != nil }
