//go:build linux

package ortlib

import (
	"fmt"
	"io"
	"os"

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
	return p, nil
}
