// Package npytest writes NumPy .npy files for tests and benchmark-data
// writers: the arrays the hnswlib comparison (index/ann) and the peers
// benchmark (rank) hand to Python.
package npytest

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
)

// Write writes a little-endian rows × cols array of 4-byte words (descr
// "<f4" or "<i4"; word(i) gives the i-th, row-major) in NumPy's .npy
// format, version 1.0.
func Write(path, descr string, rows, cols int, word func(i int) uint32) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }", descr, rows, cols)
	// Magic, version and length take 10 bytes; pad so data starts on a
	// 64-byte boundary, header ending in a newline.
	pad := 64 - (10+len(header)+1)%64
	header += strings.Repeat(" ", pad%64) + "\n"
	w.WriteString("\x93NUMPY\x01\x00")
	binary.Write(w, binary.LittleEndian, uint16(len(header)))
	w.WriteString(header)
	var buf [4]byte
	for i := range rows * cols {
		binary.LittleEndian.PutUint32(buf[:], word(i))
		w.Write(buf[:])
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
