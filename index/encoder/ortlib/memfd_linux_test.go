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

	"github.com/reqa/reqa/internal/testenv"
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

// TestReleaseEmbedded: the embedded library's bytes are found where they
// lie in the binary (embed.FS's layout, checked against lib.Open), and
// releasing them drops them from the process's resident pages of the
// executable; read again, they are the same bytes.
func TestReleaseEmbedded(t *testing.T) {
	sum := embeddedHash(t)
	data := embeddedData()
	if data == "" {
		t.Fatal("the embedded library's bytes were not found through embed.FS's layout (did the compiler change it?)")
	}
	h := sha256.Sum256([]byte(data)) // reads every page of it
	if hex.EncodeToString(h[:]) != sum {
		t.Fatal("the bytes found are not the embedded library")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	before := testenv.ResidentKB(t, exe)
	releaseEmbedded()
	after := testenv.ResidentKB(t, exe)
	if drop := before - after; drop < len(data)/1024*9/10 {
		t.Errorf("resident pages of the executable: %d KB before, %d KB after releasing a %d KB library", before, after, len(data)/1024)
	}
	if h := sha256.Sum256([]byte(data)); hex.EncodeToString(h[:]) != sum {
		t.Fatal("read again after the release, the library's bytes differ")
	}
}
