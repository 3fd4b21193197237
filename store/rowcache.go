package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"
)

// A row set read through a cache (RowsCached) is never read from the
// memory map after it is opened: each chunk is read from the file with
// pread into one of a fixed number of buffers, the least recently used
// (by the clock) given up for the next. A long-running process (reqa
// serve) then holds at most its cache of the set: what it read of the
// set in place would stay mapped, and counted in its resident memory,
// for as long as it runs (a graph walk reads a thousand chunks scattered
// over the set, and the kernel maps the pages around each).
//
// Where each chunk lies in the file is found once, at open, by a cursor
// over the set's keys; the pages that mapped are then released from the
// process's map (madvise, where there is one) — they stay in the page
// cache, shared with every other reader of the file. A chunk is checked
// (length, checksum, Validate) the first time it is read, as in place.

// rowCache is the cache of one row set.
type rowCache struct {
	f *os.File
	// mem holds every slot's buffer, outside the Go heap where there is
	// mmap (cacheMemory): the collector then neither scans it nor lets
	// the heap grow by its size before collecting. slotBytes is a slot's
	// share.
	mem       []byte
	free      func()
	slotBytes int
	// off[c] is where chunk c's value (rows, padding, checksum) starts in
	// the file, −1 when the chunk is missing; size[c] is its length.
	off  []int64
	size []int32
	// slotOf[c] is 1 + the slot holding chunk c, 0 when none does.
	slotOf []atomic.Int32
	slots  []cacheSlot
	mu     sync.Mutex // held while a slot is chosen for a chunk
	hand   int
	reads  atomic.Int64
	// keys is how many keys the set's bucket held at open (Check).
	keys int
}

// cacheSlot holds one chunk's rows. Its lock is held for reading while
// the rows are used and for writing while they are replaced.
type cacheSlot struct {
	mu    sync.RWMutex
	chunk int // −1: empty
	used  atomic.Bool
	buf   []byte
}

// RowsCached opens the row set name to be read through a cache of at
// most budget bytes of chunks (at least two chunks) instead of in place:
// With hands out rows from the cache, reading a chunk from the file when
// it is not there; Chunk returns a copy. A set whose chunks do not lie in
// the file's pages (a tiny set stored inline in its parent) is read in
// place, as Rows opens it.
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
	c := &rowCache{f: f, off: make([]int64, rs.h.Chunks), size: make([]int32, rs.h.Chunks), slotOf: make([]atomic.Int32, rs.h.Chunks)}
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
			i := beUint64(k)
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
	if err != nil || !inPages {
		f.Close()
		return rs, err
	}
	c.slotBytes = (rs.h.PerChunk*rs.h.RowBytes + 11) &^ 7 // rows, padding, checksum
	n := int(min(int64(rs.h.Chunks), max(2, budget/int64(c.slotBytes))))
	if c.mem, c.free, err = cacheMemory(n * c.slotBytes); err != nil {
		f.Close()
		return nil, fmt.Errorf("rows %s: cache of %d bytes: %w", name, n*c.slotBytes, err)
	}
	c.slots = make([]cacheSlot, n)
	for i := range c.slots {
		c.slots[i].chunk = -1
		c.slots[i].buf = c.mem[i*c.slotBytes : i*c.slotBytes : (i+1)*c.slotBytes]
	}
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

func beUint64(b []byte) uint64 {
	var x uint64
	for _, c := range b[:8] {
		x = x<<8 | uint64(c)
	}
	return x
}

// With calls fn with the rows of chunk c, checking them the first time
// they are read (an error wraps ErrCorrupt and names the chunk). The
// slice is valid only while fn runs, and fn must not call With. A set
// read in place passes the rows where they lie.
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
	cc := rs.cache
	for {
		if rs.state[c].Load() == 2 {
			return rs.damaged(c)
		}
		if s := cc.slotOf[c].Load(); s > 0 {
			sl := &cc.slots[s-1]
			sl.mu.RLock()
			if sl.chunk == c {
				if !sl.used.Load() {
					sl.used.Store(true)
				}
				fn(sl.buf)
				sl.mu.RUnlock()
				return nil
			}
			sl.mu.RUnlock()
		}
		if err := rs.fill(c); err != nil {
			return err
		}
	}
}

// fill reads chunk c into a slot (unless another caller has meanwhile).
func (rs *Rows) fill(c int) error {
	cc := rs.cache
	cc.mu.Lock()
	if cc.slotOf[c].Load() > 0 {
		cc.mu.Unlock()
		return nil
	}
	// The clock: the first slot not used since the hand last passed.
	var sl *cacheSlot
	for {
		s := &cc.slots[cc.hand]
		i := cc.hand
		cc.hand = (cc.hand + 1) % len(cc.slots)
		if s.used.Swap(false) {
			continue
		}
		sl = s
		sl.mu.Lock() // waits for the slot's readers
		if sl.chunk >= 0 {
			cc.slotOf[sl.chunk].Store(0)
		}
		sl.chunk = c
		cc.slotOf[c].Store(int32(i + 1))
		break
	}
	cc.mu.Unlock()
	err := rs.read(c, sl)
	if err != nil || rs.state[c].Load() != 1 {
		cc.slotOf[c].Store(0)
		sl.chunk = -1
	}
	sl.used.Store(true)
	sl.mu.Unlock()
	return err
}

// read reads chunk c into sl.buf (its write lock held), checking it the
// first time.
func (rs *Rows) read(c int, sl *cacheSlot) error {
	cc := rs.cache
	if cc.off[c] < 0 {
		rs.mu.Lock()
		rs.state[c].Store(2)
		rs.mu.Unlock()
		return nil
	}
	n := int(cc.size[c])
	if n > cap(sl.buf) { // longer than a chunk can be: damaged
		rs.mu.Lock()
		rs.state[c].Store(2)
		rs.mu.Unlock()
		return nil
	}
	b := sl.buf[:n]
	if _, err := cc.f.ReadAt(b, cc.off[c]); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("rows %s chunk %d: file cut short: %w", rs.name, c, ErrCorrupt)
		}
		return fmt.Errorf("rows %s chunk %d: %w", rs.name, c, err)
	}
	cc.reads.Add(1)
	if rs.state[c].Load() == 0 {
		rs.mu.Lock()
		if rs.state[c].Load() == 0 && rs.verify(c, b) {
			rs.state[c].Store(1)
		}
		rs.mu.Unlock()
	}
	sl.buf = b[:rs.chunkBytes(c)]
	return nil
}

// Reads returns how many chunks a cached set has read from the file
// (0 for a set read in place).
func (rs *Rows) Reads() int64 {
	if rs.cache == nil {
		return 0
	}
	return rs.cache.reads.Load()
}

// Cached reports whether the set is read through a cache.
func (rs *Rows) Cached() bool { return rs.cache != nil }
