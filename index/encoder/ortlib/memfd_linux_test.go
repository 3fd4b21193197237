//go:build linux

package ortlib

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOrtlibPathMemfd: on Linux, Path returns /proc/self/fd/N naming a
// sealed memory file whose bytes are the embedded library, and writes
// nothing to the cache or temporary directory.
func TestOrtlibPathMemfd(t *testing.T) {
	sum := embeddedHash(t)
	cache, tmp := isolate(t)
	p, err := Path()
	if err != nil {
		t.Fatal(err)
	}
	fdText, ok := strings.CutPrefix(p, "/proc/self/fd/")
	fd, err := strconv.Atoi(fdText)
	if !ok || err != nil || !libInMem {
		t.Fatalf("Path() = %q (in memory %v), want /proc/self/fd/N", p, libInMem)
	}
	if target, err := os.Readlink(p); err != nil || target != "/memfd:"+libName+" (deleted)" {
		t.Fatalf("%s links to %q (%v), want the memory file /memfd:%s (deleted)", p, target, err, libName)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sum {
		t.Fatalf("%s hashes to %s, the embedded library to %s", p, got, sum)
	}
	seals, err := unix.FcntlInt(uintptr(fd), unix.F_GET_SEALS, 0)
	if err != nil || seals&memSeals != memSeals {
		t.Fatalf("seals %#x (%v), want %#x", seals, err, memSeals)
	}
	if _, err := unix.Pwrite(fd, []byte("x"), 0); !errors.Is(err, syscall.EPERM) {
		t.Fatalf("writing into the sealed memory file: %v, want EPERM", err)
	}
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	if err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Fatalf("fd flags %#x (%v): not close-on-exec", flags, err)
	}
	if p2, err := Path(); p2 != p || err != nil {
		t.Fatalf("second Path() = %q, %v", p2, err)
	}
	if got := append(files(t, cache), files(t, tmp)...); len(got) != 0 {
		t.Fatalf("Path wrote %q", got)
	}
}
