// Package ortlib carries the ONNX Runtime shared library inside the reqa
// binary and hands it to the dynamic loader without writing a file.
//
// `make` copies libonnxruntime.so.1 (ONNX Runtime 1.24.1, from the pinned npm
// package onnxruntime-node@1.24.1) for the target's architecture into
// lib/linux-GOARCH/ (amd64 and arm64; embed_GOARCH.go), and go:embed bakes
// it into the binary. On Linux, [Path] copies it into an anonymous memory file
// (memfd_create), seals the file against any further change, keeps it open
// for the life of the process and returns its /proc/self/fd/N name, which
// ort.Init passes to dlopen; /proc/PID/maps then shows the library as
// "/memfd:libonnxruntime.so.1 (deleted)". Nothing is written to disk, so
// using embeddings works where HOME and the temporary directory are
// read-only or mounted noexec.
//
// Where the memory file cannot be made (a kernel before 3.17, a seccomp
// filter, vm.memfd_noexec=2, no /proc), and on other systems, Path falls
// back to extracting the library into a private cache directory named by
// its SHA-256: $XDG_CACHE_HOME/reqa/ort-HASH/ (~/.cache/reqa/...), or
// $TMPDIR/reqa-UID/ort-HASH/ when there is no usable cache directory. The
// hash of what is on disk is verified before every use, and a copy whose
// bytes do not match is replaced, never loaded. Where the memory file is
// made but the loader refuses it (a security policy that forbids mapping
// memory-backed code), [Load] retries once with that extracted file.
//
// Two environment variables change this. REQA_ORT_LIB names a library to
// load instead of the embedded one; nothing is copied or extracted.
// REQA_ORT_EXTRACT=1 skips the memory file and extracts to the cache
// directory as described above.
//
// The memory file costs memory, not time. Measured on Linux 6.18 (x86-64,
// 2 cores, no swap) with the 35 MB library: making it takes 37 ms, against
// 61 ms to verify an extracted copy (two SHA-256 passes) and 89 ms to
// write one. `reqa ask -r dense` on a small index peaks at the same RSS
// either way (191 MB); in `serve`, after a dense question, the library's
// mapped pages are 18 MB of RssShmem instead of RssFile. But the memory
// file holds the whole library (34,240 kB of Shmem in /proc/meminfo) for as
// long as the process runs, a copy per process that the kernel cannot drop
// without swap, whereas an extracted file is page cache that every reqa
// process shares and the kernel may reclaim. Neither way copies the library
// onto the heap: it is streamed from the binary.
package ortlib

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

const libName = "libonnxruntime.so.1"

// ErrNotEmbedded reports a binary built without the library (the Makefile
// was not used); set REQA_ORT_LIB or rebuild with `make build`.
var ErrNotEmbedded = errors.New("ONNX Runtime library not embedded in this binary: build with `make build`, or set REQA_ORT_LIB to a libonnxruntime.so.1 (ONNX Runtime 1.24)")

var (
	once     sync.Once
	libPath  string
	libInMem bool // libPath names the memory file
	libErr   error

	fileOnce sync.Once
	filePath string
	fileErr  error

	loadMu sync.Mutex
	loaded string // the path Load's function accepted

	// makeMem makes the memory file; tests replace it to make it fail.
	makeMem = memPath
)

// Embedded reports whether the binary carries the library.
func Embedded() bool {
	_, err := lib.Open(libDir + "/" + libName)
	return err == nil
}

// Path returns the path of the ONNX Runtime library to load: REQA_ORT_LIB
// when it is set; otherwise, on Linux, /proc/self/fd/N naming a sealed
// memory file that holds the embedded library; otherwise (or with
// REQA_ORT_EXTRACT=1) the embedded library extracted to a hash-verified
// file, as [FilePath] returns. The work is done on the first call; later
// calls return the same result.
func Path() (string, error) {
	once.Do(func() { libPath, libInMem, libErr = resolve() })
	return libPath, libErr
}

// FilePath returns the path of the embedded library extracted to a file in
// the cache directory (or the temporary directory), hash-verified, and
// extracts it on first use. It is the fallback when the memory file Path
// returns cannot be loaded; [Load] calls it then. It ignores REQA_ORT_LIB.
func FilePath() (string, error) {
	fileOnce.Do(func() { filePath, fileErr = extractFile() })
	return filePath, fileErr
}

// Load calls load — ort.Init — with the library [Path] returns, and
// returns the path that was loaded. When that library is the memory file
// and load fails with [ErrRefused] (the dynamic loader may refuse to map
// code from a memory file), Load extracts the library with [FilePath] and
// calls load once more with that file. After a success, later calls hand load the same
// path again.
func Load(load func(path string) error) (string, error) {
	loadMu.Lock()
	defer loadMu.Unlock()
	if loaded != "" {
		return loaded, load(loaded)
	}
	p, err := Path()
	if err != nil {
		return "", err
	}
	p, err = loadWith(p, libInMem, FilePath, load)
	if err == nil {
		loaded = p
	}
	return p, err
}

// ErrRefused is what a load function passed to [Load] wraps when the
// dynamic loader refused the library file (dlopen failed), as opposed to a
// failure after loading. Only then does Load retry with an extracted file:
// for any other failure a second copy would fail the same way, and writing
// it would break the promise that nothing is written.
var ErrRefused = errors.New("the dynamic loader refused the library")

// loadWith calls load with p and, when p is the memory file and the loader
// refused it ([ErrRefused]), with the path file returns.
func loadWith(p string, inMem bool, file func() (string, error), load func(string) error) (string, error) {
	err := load(p)
	if err == nil || !inMem || !errors.Is(err, ErrRefused) {
		return p, err
	}
	fp, ferr := file()
	if ferr != nil {
		return "", fmt.Errorf("%w; extracting the library to a file instead: %w", err, ferr)
	}
	if err2 := load(fp); err2 != nil {
		return "", fmt.Errorf("%w; the library extracted to a file instead: %w", err, err2)
	}
	return fp, nil
}

// resolve does Path's work without its sync.Once.
func resolve() (p string, inMem bool, err error) {
	if p := os.Getenv("REQA_ORT_LIB"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", false, fmt.Errorf("REQA_ORT_LIB: %w", err)
		}
		return p, false, nil
	}
	if !Embedded() {
		return "", false, ErrNotEmbedded
	}
	var memErr error
	if os.Getenv("REQA_ORT_EXTRACT") != "1" {
		if p, memErr = makeMem(); memErr == nil {
			return p, true, nil
		}
	}
	p, err = extractFile()
	if err != nil && memErr != nil && !errors.Is(memErr, errors.ErrUnsupported) {
		err = fmt.Errorf("%w (and in memory: %w)", err, memErr)
	}
	return p, false, err
}

// openLib opens the embedded library.
func openLib() (fs.File, int64, error) {
	f, err := lib.Open(libDir + "/" + libName)
	if err != nil {
		return nil, 0, ErrNotEmbedded
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, info.Size(), nil
}

// libHash returns the hex SHA-256 of the embedded library, read in pieces
// so that no copy of it is made on the heap.
func libHash() (string, error) {
	f, _, err := openLib()
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// extractFile does FilePath's work without its sync.Once: it tries the
// user cache directory, then the temporary directory.
func extractFile() (string, error) {
	hash, err := libHash()
	if err != nil {
		return "", err
	}
	var bases []string
	if d, err := os.UserCacheDir(); err == nil {
		bases = append(bases, filepath.Join(d, "reqa"))
	}
	bases = append(bases, filepath.Join(os.TempDir(), fmt.Sprintf("reqa-%d", os.Getuid())))
	var errs []error
	for _, base := range bases {
		p, err := extract(base, hash)
		if err == nil {
			return p, nil
		}
		errs = append(errs, err)
	}
	return "", fmt.Errorf("extract ONNX Runtime library: %w", errors.Join(errs...))
}

// extract writes the embedded library to base/ort-HASH/libonnxruntime.so.1
// unless a copy with the right hash is already there.
func extract(base, hash string) (string, error) {
	dir := filepath.Join(base, "ort-"+hash[:16])
	p := filepath.Join(dir, libName)
	if ok, _ := fileHash(p, hash); ok {
		return p, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	src, _, err := openLib()
	if err != nil {
		return "", err
	}
	defer src.Close()
	f, err := os.CreateTemp(dir, ".lib-*")
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	if _, err := io.Copy(f, src); err != nil {
		f.Close()
		os.Remove(tmp)
		return "", err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return "", err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return "", err
	}
	if ok, err := fileHash(p, hash); !ok {
		return "", fmt.Errorf("%s: hash mismatch after writing (%v)", p, err)
	}
	return p, nil
}

func fileHash(p, want string) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return false, err
	}
	return hex.EncodeToString(h.Sum(nil)) == want, nil
}
