//go:build linux

package ortlib

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// memFiles keeps every memory file made open for the life of the process:
// the /proc/self/fd/N name Path returns is valid only while its file is.
var memFiles []*os.File

// memSeals forbid any change to the memory file's contents or size, and
// any change to these seals.
const memSeals = unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE | unix.F_SEAL_SEAL

// memPath copies the embedded library into a sealed anonymous memory file
// and returns /proc/self/fd/N, after checking that this name opens that
// file at its full size. On any error nothing is left open.
func memPath() (string, error) {
	src, size, err := openLib()
	if err != nil {
		return "", err
	}
	defer src.Close()
	fd, err := unix.MemfdCreate(libName, unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return "", fmt.Errorf("memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "memfd:"+libName)
	fail := func(err error) (string, error) {
		f.Close()
		return "", err
	}
	if n, err := io.Copy(f, src); err != nil {
		return fail(fmt.Errorf("write memory file: %w", err))
	} else if n != size {
		return fail(fmt.Errorf("write memory file: %d of %d bytes", n, size))
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, memSeals); err != nil {
		return fail(fmt.Errorf("seal memory file: %w", err))
	}
	p := fmt.Sprintf("/proc/self/fd/%d", fd)
	st, err := os.Stat(p)
	if err != nil {
		return fail(fmt.Errorf("memory file: %w", err))
	}
	own, err := f.Stat()
	if err != nil {
		return fail(fmt.Errorf("memory file: %w", err))
	}
	if !os.SameFile(st, own) || st.Size() != size {
		return fail(fmt.Errorf("%s is not the %d-byte memory file (size %d)", p, size, st.Size()))
	}
	memFiles = append(memFiles, f)
	releaseEmbedded()
	return p, nil
}

// embedFS is embed.FS's layout, which the compiler fixes (embed.FS and
// embed.file say so: cmd/compile/internal/staticdata's WriteEmbed).
type embedFS struct {
	files *[]struct {
		name, data string
		hash       [16]byte
	}
}

// embeddedData returns the embedded library's bytes where they lie in the
// binary's read-only data, or "" when they are not found there as lib.Open
// reads them (length, first and last pages compared).
func embeddedData() string {
	fsys := (*embedFS)(unsafe.Pointer(&lib))
	if fsys.files == nil {
		return ""
	}
	var data string
	for _, f := range *fsys.files {
		if f.name == libDir+"/"+libName {
			data = f.data
		}
	}
	src, size, err := openLib()
	if err != nil || data == "" || int64(len(data)) != size {
		return ""
	}
	defer src.Close()
	r, ok := src.(io.ReaderAt)
	if !ok {
		return ""
	}
	const n = 4096
	for _, off := range []int64{0, max(0, size-n)} {
		b := make([]byte, min(n, size))
		if _, err := r.ReadAt(b, off); err != nil || !bytes.Equal(b, []byte(data[off:off+int64(len(b))])) {
			return ""
		}
	}
	return data
}

// releaseEmbedded gives back the pages of the binary that hold the
// embedded library once it has been copied into the memory file: it is
// not read again (a later read, extracting it, faults them back in from
// the executable). Only pages wholly inside the library's bytes are
// released, and they are read-only data never written, so nothing else
// changes. About 35 MB of a serving process's resident memory.
func releaseEmbedded() {
	data := embeddedData()
	if data == "" {
		return
	}
	const page = 4096
	start := uintptr(unsafe.Pointer(unsafe.StringData(data)))
	skip := int((page - start%page) % page)
	n := (len(data) - skip) &^ (page - 1)
	if n <= 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(data)), skip)), n)
	unix.Madvise(b, unix.MADV_DONTNEED)
}
