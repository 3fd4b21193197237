package store

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// bbolt's on-disk layout (go.etcd.io/bbolt v1.4, internal/common), as far
// as CheckPages reads it. Values are in the machine's byte order; reqa
// targets little-endian machines.
const (
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	pageHeaderSize   = 16 // id u64, flags u16, count u16, overflow u32
	elementSize      = 16 // branch: pos, ksize u32, pgid u64; leaf: flags, pos, ksize, vsize u32
	bucketHeaderSize = 16 // root pgid u64, sequence u64
	metaSize         = 64
	branchPageFlag   = 0x01
	leafPageFlag     = 0x02
	metaPageFlag     = 0x04
	bucketLeafFlag   = 0x01
	maxTreeDepth     = 64
)

// CheckPages reads the B+tree of the bbolt file at path with plain reads,
// page by page, and checks its structure: a valid meta page, every page
// reachable from the root below the high-water mark and inside the file,
// of the expected id and kind, and every key and value inside its page.
//
// bbolt trusts its pages: it turns offsets read from them into pointers,
// so a damaged page can hand out a key whose pointer lands anywhere —
// including inside the Go heap, where the garbage collector then stops the
// process ("found bad pointer in Go heap"; no recover catches it). Check,
// which reads every page through bbolt, runs this first and gives up with
// its error instead.
//
// A file that does not start like a bbolt file is not checked (nil): Open
// says what it is.
func CheckPages(path string) error {
	if !hasBoltMagic(path) {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	c := pageChecker{f: f, size: st.Size(), seen: map[uint64]bool{}}
	m, err := c.meta()
	if err != nil {
		return err
	}
	c.pageSize, c.hwm = int64(m.pageSize), m.pgid
	if int64(c.hwm)*c.pageSize > c.size {
		return fmt.Errorf("file of %d bytes holds pages up to %d of %d bytes: truncated: %w", c.size, c.hwm, c.pageSize, ErrCorrupt)
	}
	return c.tree(m.root, 0)
}

// checkLength reports a file shorter than the pages its meta page says it
// has: a truncated copy, which bbolt would open and read until a question
// needs a page that is gone. It reads the two meta pages only; a file
// without a valid one is left to bbolt's own errors.
func checkLength(path string, size int64) error {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	c := pageChecker{f: f, size: size}
	m, err := c.meta()
	if err != nil {
		return nil
	}
	if need := int64(m.pgid) * int64(m.pageSize); need > size {
		return fmt.Errorf("truncated to %d of its %d bytes: %w", size, need, ErrCorrupt)
	}
	return nil
}

type boltMeta struct {
	pageSize uint32
	root     uint64
	pgid     uint64
	txid     uint64
}

type pageChecker struct {
	f        io.ReaderAt
	size     int64
	pageSize int64
	hwm      uint64
	seen     map[uint64]bool
}

// meta returns the meta page bbolt would use: the valid one with the
// higher transaction id.
func (c *pageChecker) meta() (boltMeta, error) {
	read := func(off int64) (boltMeta, bool) {
		b := make([]byte, pageHeaderSize+metaSize)
		if _, err := c.f.ReadAt(b, off); err != nil {
			return boltMeta{}, false
		}
		p := b[pageHeaderSize:]
		le := binary.LittleEndian
		if binary.LittleEndian.Uint16(b[8:]) != metaPageFlag || le.Uint32(p[0:]) != boltMagic || le.Uint32(p[4:]) != boltVersion {
			return boltMeta{}, false
		}
		h := fnv.New64a()
		h.Write(p[:56])
		if h.Sum64() != le.Uint64(p[56:]) {
			return boltMeta{}, false
		}
		return boltMeta{pageSize: le.Uint32(p[8:]), root: le.Uint64(p[16:]), pgid: le.Uint64(p[40:]), txid: le.Uint64(p[48:])}, true
	}
	m0, ok0 := read(0)
	size := int64(4096)
	if ok0 {
		size = int64(m0.pageSize)
	}
	m1, ok1 := read(size)
	switch {
	case ok0 && ok1 && m1.txid > m0.txid, !ok0 && ok1:
		m0 = m1
	case !ok0:
		return boltMeta{}, fmt.Errorf("no valid meta page: %w", ErrCorrupt)
	}
	if m0.pageSize < 1024 || m0.pageSize > 1<<16 || m0.pageSize&(m0.pageSize-1) != 0 {
		return boltMeta{}, fmt.Errorf("meta page: page size %d: %w", m0.pageSize, ErrCorrupt)
	}
	return m0, nil
}

// tree checks the B+tree whose root page is id.
func (c *pageChecker) tree(id uint64, depth int) error {
	if depth > maxTreeDepth {
		return fmt.Errorf("page %d: tree deeper than %d: %w", id, maxTreeDepth, ErrCorrupt)
	}
	if id < 2 || id >= c.hwm {
		return fmt.Errorf("page %d: outside pages 2..%d: %w", id, c.hwm-1, ErrCorrupt)
	}
	if c.seen[id] {
		return fmt.Errorf("page %d: reached twice: %w", id, ErrCorrupt)
	}
	c.seen[id] = true
	head := make([]byte, pageHeaderSize)
	if _, err := c.f.ReadAt(head, int64(id)*c.pageSize); err != nil {
		return fmt.Errorf("page %d: %v: %w", id, err, ErrCorrupt)
	}
	le := binary.LittleEndian
	if got := le.Uint64(head); got != id {
		return fmt.Errorf("page %d: says it is page %d: %w", id, got, ErrCorrupt)
	}
	overflow := uint64(le.Uint32(head[12:]))
	if id+overflow >= c.hwm {
		return fmt.Errorf("page %d: %d overflow pages run past page %d: %w", id, overflow, c.hwm, ErrCorrupt)
	}
	for p := id + 1; p <= id+overflow; p++ {
		if c.seen[p] {
			return fmt.Errorf("page %d: overflows into page %d, reached twice: %w", id, p, ErrCorrupt)
		}
		c.seen[p] = true
	}
	page := make([]byte, int64(1+overflow)*c.pageSize)
	if _, err := c.f.ReadAt(page, int64(id)*c.pageSize); err != nil {
		return fmt.Errorf("page %d: %v: %w", id, err, ErrCorrupt)
	}
	return c.page(page, id, depth)
}

// page checks one page's elements (p starts with its header; inline
// bucket pages are checked through it too, with id 0).
func (c *pageChecker) page(p []byte, id uint64, depth int) error {
	le := binary.LittleEndian
	if len(p) < pageHeaderSize {
		return fmt.Errorf("page %d: %d bytes: %w", id, len(p), ErrCorrupt)
	}
	flags, count := le.Uint16(p[8:]), int(le.Uint16(p[10:]))
	if flags != branchPageFlag && flags != leafPageFlag {
		return fmt.Errorf("page %d: flags %#x: %w", id, flags, ErrCorrupt)
	}
	if pageHeaderSize+count*elementSize > len(p) {
		return fmt.Errorf("page %d: %d elements do not fit: %w", id, count, ErrCorrupt)
	}
	for i := 0; i < count; i++ {
		e := pageHeaderSize + i*elementSize
		var pos, ksize, vsize uint64
		if flags == branchPageFlag {
			pos, ksize = uint64(le.Uint32(p[e:])), uint64(le.Uint32(p[e+4:]))
		} else {
			pos, ksize, vsize = uint64(le.Uint32(p[e+4:])), uint64(le.Uint32(p[e+8:])), uint64(le.Uint32(p[e+12:]))
		}
		start := uint64(e) + pos
		if start+ksize+vsize > uint64(len(p)) {
			return fmt.Errorf("page %d: element %d at %d+%d+%d runs past the page's %d bytes: %w", id, i, start, ksize, vsize, len(p), ErrCorrupt)
		}
		if flags == branchPageFlag {
			if err := c.tree(le.Uint64(p[e+8:]), depth+1); err != nil {
				return err
			}
			continue
		}
		if le.Uint32(p[e:])&bucketLeafFlag == 0 {
			continue
		}
		v := p[start+ksize : start+ksize+vsize]
		if len(v) < bucketHeaderSize {
			return fmt.Errorf("page %d: element %d: bucket value of %d bytes: %w", id, i, len(v), ErrCorrupt)
		}
		root := le.Uint64(v)
		var err error
		if root == 0 {
			err = c.page(v[bucketHeaderSize:], 0, depth+1)
		} else {
			err = c.tree(root, depth+1)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
