//go:build unix

// Memory the row cache maps (rowcache.go): the index file's pages it gives
// back, and the anonymous memory its slots live in.

package store

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// releaseMapped drops the process's mapping of the index file's bytes
// lo..hi, p being where byte lo lies in the map (which starts on a page) —
// pages stay in the page cache, and a later read of them maps them again.
// The map is shared and read-only, so nothing is lost.
func releaseMapped(p unsafe.Pointer, lo, hi int64) {
	const page = 4096
	in := lo & (page - 1)
	if hi <= lo {
		return
	}
	unix.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, -in)), hi-lo+in), unix.MADV_DONTNEED)
}

// cacheMemory returns n bytes mapped outside the Go heap (pages the
// kernel provides as they are first written) and the function that
// unmaps them.
func cacheMemory(n int) ([]byte, func(), error) {
	if n == 0 {
		return nil, func() {}, nil
	}
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil, err
	}
	return b, func() { unix.Munmap(b) }, nil
}
