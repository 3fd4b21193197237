package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/reqa/reqa/store"
)

var (
	// ErrOutIsInput is wrapped by the error for an --out path that is one
	// of the inputs: it is never replaced, force or not.
	ErrOutIsInput = errors.New("the output is one of the inputs")
	// ErrOutNotIndex is wrapped by the error for an --out path that holds
	// something other than a reqa index: it is replaced only when forced.
	ErrOutNotIndex = errors.New("the output exists and is not a reqa index")
)

// CheckOut says whether a new index may be written at out, replacing what
// is there, before anything is read: a missing path or a reqa index
// (damaged ones included: rebuilding is how they are mended) may be
// replaced; a directory, a FIFO or a device never; any other file (a text
// file, another program's database) only when force — otherwise the error
// wraps ErrOutNotIndex and says why. An out that is one of the inputs
// named (os.SameFile) is refused with ErrOutIsInput even when forced; for
// the files inside directories given, pass out as package ingest's
// ReadOptions.Out so that the read refuses it.
func CheckOut(out string, inputs []string, force bool) error {
	st, err := os.Stat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	for _, in := range inputs {
		if in == "-" {
			continue
		}
		if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
			return fmt.Errorf("--out %s: %w (%s): refusing to replace an input with its index; write the index elsewhere", out, ErrOutIsInput, in)
		}
	}
	if st.IsDir() {
		return fmt.Errorf("--out %s: is a directory; give the index file's path (e.g. %s.reqa)", out, out)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("--out %s: %s; give the path of an index file", out, describeMode(st.Mode()))
	}
	r, err := store.Open(out)
	if err == nil {
		r.Close()
		return nil
	}
	if !errors.Is(err, store.ErrNotIndex) {
		return nil // a reqa index, damaged or newer: replacing it is allowed
	}
	if force {
		return nil
	}
	return fmt.Errorf("--out %s: %w: it holds %d bytes of something else, which the index would replace; give a new path, or --force to replace it", out, ErrOutNotIndex, st.Size())
}

// describeMode says what kind of file that is not regular mode is.
func describeMode(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO), not a regular file"
	case mode&fs.ModeCharDevice != 0:
		return "a character device, not a regular file"
	case mode&fs.ModeDevice != 0:
		return "a block device, not a regular file"
	case mode&fs.ModeSocket != 0:
		return "a socket, not a regular file"
	}
	return "not a regular file"
}
