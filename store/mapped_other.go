//go:build !unix

// Memory the row cache maps (rowcache.go), where there is no mmap.

package store

import "unsafe"

// releaseMapped does nothing where there is no madvise.
func releaseMapped(p unsafe.Pointer, lo, hi int64) {}

// cacheMemory returns n bytes from the Go heap.
func cacheMemory(n int) ([]byte, func(), error) { return make([]byte, n), func() {}, nil }
