// Package ortlib carries the ONNX Runtime shared library inside the reqa
// binary and puts it on disk when it is first needed.
//
// `make` copies libonnxruntime.so.1 (ONNX Runtime 1.24.1, from the pinned npm
// package onnxruntime-node@1.24.1) into lib/, and go:embed bakes it into the
// binary. [Path] extracts it into a private cache directory named by its
// SHA-256 (under the user cache directory, or the system temp directory when
// there is none, e.g. with an empty HOME), verifies the hash of what is on
// disk before every use, and returns the path to hand to ort.Init. A copy
// whose bytes do not match is replaced, never loaded.
//
// REQA_ORT_LIB overrides all of this with an explicit library path.
package ortlib

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

//go:embed lib
var lib embed.FS

const libName = "libonnxruntime.so.1"

// ErrNotEmbedded reports a binary built without the library (the Makefile
// was not used); set REQA_ORT_LIB or rebuild with `make build`.
var ErrNotEmbedded = errors.New("ONNX Runtime library not embedded in this binary: build with `make build`, or set REQA_ORT_LIB to a libonnxruntime.so.1 (ONNX Runtime 1.24)")

var (
	once    sync.Once
	libPath string
	libErr  error
)

// Embedded reports whether the binary carries the library.
func Embedded() bool {
	_, err := lib.Open("lib/" + libName)
	return err == nil
}

// Path returns the path of a verified ONNX Runtime library, extracting the
// embedded copy on first use.
func Path() (string, error) {
	once.Do(func() { libPath, libErr = resolve() })
	return libPath, libErr
}

func resolve() (string, error) {
	if p := os.Getenv("REQA_ORT_LIB"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("REQA_ORT_LIB: %w", err)
		}
		return p, nil
	}
	data, err := lib.ReadFile("lib/" + libName)
	if err != nil {
		return "", ErrNotEmbedded
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	var bases []string
	if d, err := os.UserCacheDir(); err == nil {
		bases = append(bases, filepath.Join(d, "reqa"))
	}
	bases = append(bases, filepath.Join(os.TempDir(), fmt.Sprintf("reqa-%d", os.Getuid())))
	var errs []error
	for _, base := range bases {
		p, err := extract(base, hash, data)
		if err == nil {
			return p, nil
		}
		errs = append(errs, err)
	}
	return "", fmt.Errorf("extract ONNX Runtime library: %w", errors.Join(errs...))
}

// extract writes data to base/ort-HASH/libonnxruntime.so.1 unless a copy
// with the right hash is already there.
func extract(base, hash string, data []byte) (string, error) {
	dir := filepath.Join(base, "ort-"+hash[:16])
	p := filepath.Join(dir, libName)
	if ok, _ := fileHash(p, hash); ok {
		return p, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, ".lib-*")
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
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
