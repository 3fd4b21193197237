package ortlib

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reqa/reqa/internal/testenv"
)

// embeddedHash returns the SHA-256 of the embedded library, skipping the
// test when the binary carries none.
func embeddedHash(t *testing.T) string {
	t.Helper()
	if !Embedded() {
		testenv.Skip(t, "the ONNX Runtime library is not embedded in this test binary (lib/linux-GOARCH/libonnxruntime.so.1 is missing): run `make assets`")
	}
	h, err := libHash()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// isolate points every place the library could be extracted to at fresh
// directories and clears the overrides; it returns the cache and temporary
// directories.
func isolate(t *testing.T) (cache, tmp string) {
	t.Helper()
	root := t.TempDir()
	cache, tmp = filepath.Join(root, "cache"), filepath.Join(root, "tmp")
	for _, d := range []string{cache, tmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", root)
	t.Setenv("TMPDIR", tmp)
	t.Setenv("REQA_ORT_LIB", "")
	t.Setenv("REQA_ORT_EXTRACT", "")
	return cache, tmp
}

// files lists the regular files under dir.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Error(err)
			return nil
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// TestOrtlibExtractForced: with REQA_ORT_EXTRACT=1 the library is
// extracted to $XDG_CACHE_HOME/reqa/ort-HASH/ with the embedded bytes, and
// a second resolve reuses that verified copy.
func TestOrtlibExtractForced(t *testing.T) {
	sum := embeddedHash(t)
	cache, tmp := isolate(t)
	t.Setenv("REQA_ORT_EXTRACT", "1")
	p, inMem, err := resolve()
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(cache, "reqa", "ort-"+sum[:16], libName)
	if p != want || inMem {
		t.Fatalf("resolve with REQA_ORT_EXTRACT=1 = %q (in memory %v), want the file %s", p, inMem, want)
	}
	if ok, err := fileHash(p, sum); !ok {
		t.Fatalf("%s does not hash to the embedded library's %s (%v)", p, sum, err)
	}
	info, _ := os.Stat(p)
	if p2, _, err := resolve(); err != nil || p2 != p {
		t.Fatalf("second resolve: %q, %v", p2, err)
	}
	if info2, _ := os.Stat(p); !os.SameFile(info, info2) {
		t.Fatal("the second resolve rewrote the verified copy")
	}
	if got := files(t, tmp); len(got) != 0 {
		t.Fatalf("wrote into TMPDIR: %q", got)
	}

	// A damaged copy is replaced, never returned.
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("not a library"), 0o600); err != nil {
		t.Fatal(err)
	}
	if p3, _, err := resolve(); err != nil || p3 != p {
		t.Fatalf("resolve over a damaged copy: %q, %v", p3, err)
	}
	if ok, err := fileHash(p, sum); !ok {
		t.Fatalf("the damaged copy was not replaced (%v)", err)
	}
}

// TestOrtlibMemfdFailsExtracts: when the memory file cannot be made
// (memfd_create refused: an old kernel, seccomp, vm.memfd_noexec=2), the
// library is extracted to a file instead; when that fails too, both
// reasons are reported.
func TestOrtlibMemfdFailsExtracts(t *testing.T) {
	sum := embeddedHash(t)
	cache, tmp := isolate(t)
	refused := errors.New("memfd_create: permission denied")
	defer func(f func() (string, error)) { makeMem = f }(makeMem)
	makeMem = func() (string, error) { return "", refused }
	p, inMem, err := resolve()
	if want := filepath.Join(cache, "reqa", "ort-"+sum[:16], libName); err != nil || p != want || inMem {
		t.Fatalf("resolve without a memory file = %q (in memory %v), %v; want the file %s", p, inMem, err, want)
	}
	if err := os.RemoveAll(filepath.Join(cache, "reqa")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(cache, "reqa"), filepath.Join(tmp, fmt.Sprintf("reqa-%d", os.Getuid()))} {
		if err := os.WriteFile(d, nil, 0o600); err != nil { // MkdirAll fails, even for root
			t.Fatal(err)
		}
	}
	if _, _, err := resolve(); !errors.Is(err, refused) || !strings.Contains(err.Error(), "extract ONNX Runtime library") {
		t.Fatalf("neither memory file nor extraction: %v, want both reasons", err)
	}
}

// TestOrtlibExtractTempFallback: with no usable cache directory the
// library is extracted under $TMPDIR/reqa-UID.
func TestOrtlibExtractTempFallback(t *testing.T) {
	sum := embeddedHash(t)
	cache, tmp := isolate(t)
	// A file where the cache directory should be: MkdirAll fails even
	// for root.
	blocked := filepath.Join(cache, "reqa")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := extractFile()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p, tmp+string(filepath.Separator)+"reqa-") || filepath.Base(filepath.Dir(p)) != "ort-"+sum[:16] {
		t.Fatalf("extracted to %s, want %s/reqa-UID/ort-%s/", p, tmp, sum[:16])
	}
}

// TestOrtlibLoadFallsBackToFile: when the loader refuses the memory file,
// Load's logic loads the extracted file instead, exactly once; a library
// that is not the memory file (REQA_ORT_LIB, or already a file) is not
// retried.
func TestOrtlibLoadFallsBackToFile(t *testing.T) {
	refused := fmt.Errorf("%w: dlopen: failed to map segment from shared object", ErrRefused)
	var calls []string
	load := func(p string) error {
		calls = append(calls, p)
		if strings.HasPrefix(p, "/proc/self/fd/") {
			return refused
		}
		return nil
	}
	extracted := 0
	file := func() (string, error) { extracted++; return "/cache/reqa/ort-x/" + libName, nil }

	p, err := loadWith("/proc/self/fd/9", true, file, load)
	if err != nil || p != "/cache/reqa/ort-x/"+libName || extracted != 1 || strings.Join(calls, " ") != "/proc/self/fd/9 /cache/reqa/ort-x/"+libName {
		t.Fatalf("refused memory file: got %q, %v; calls %q, %d extractions", p, err, calls, extracted)
	}

	calls, extracted = nil, 0
	if _, err := loadWith("/proc/self/fd/9", false, file, load); !errors.Is(err, refused) || extracted != 0 || len(calls) != 1 {
		t.Fatalf("a REQA_ORT_LIB path was retried: %v; calls %q, %d extractions", err, calls, extracted)
	}

	// Both fail: both errors are reported.
	calls = nil
	other := errors.New("wrong ELF class")
	_, err = loadWith("/proc/self/fd/9", true, file, func(p string) error {
		calls = append(calls, p)
		if strings.HasPrefix(p, "/proc/") {
			return refused
		}
		return other
	})
	if !errors.Is(err, refused) || !errors.Is(err, other) || len(calls) != 2 {
		t.Fatalf("both failing: %v; calls %q", err, calls)
	}
	// A failure after the library loaded is not retried: no file is written.
	calls, extracted = nil, 0
	envFailed := errors.New("Error creating ORT environment")
	if _, err := loadWith("/proc/self/fd/9", true, file, func(p string) error { calls = append(calls, p); return envFailed }); !errors.Is(err, envFailed) || extracted != 0 || len(calls) != 1 {
		t.Fatalf("a failure after loading was retried: %v; calls %q, %d extractions", err, calls, extracted)
	}
	noFile := errors.New("read-only file system")
	_, err = loadWith("/proc/self/fd/9", true, func() (string, error) { return "", noFile }, load)
	if !errors.Is(err, refused) || !errors.Is(err, noFile) {
		t.Fatalf("extraction failing: %v", err)
	}
}

// TestOrtlibOverride: REQA_ORT_LIB is returned as is, and a missing one is
// an error, whatever REQA_ORT_EXTRACT says.
func TestOrtlibOverride(t *testing.T) {
	cache, tmp := isolate(t)
	lib := filepath.Join(t.TempDir(), "libonnxruntime.so.1")
	if err := os.WriteFile(lib, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("REQA_ORT_LIB", lib)
	for _, extract := range []string{"", "1"} {
		t.Setenv("REQA_ORT_EXTRACT", extract)
		if p, inMem, err := resolve(); err != nil || p != lib || inMem {
			t.Fatalf("REQA_ORT_LIB=%s REQA_ORT_EXTRACT=%q: %q %v %v", lib, extract, p, inMem, err)
		}
	}
	t.Setenv("REQA_ORT_LIB", lib+".missing")
	if _, _, err := resolve(); err == nil || !strings.Contains(err.Error(), "REQA_ORT_LIB") {
		t.Fatalf("missing REQA_ORT_LIB: %v", err)
	}
	if got := append(files(t, cache), files(t, tmp)...); len(got) != 0 {
		t.Fatalf("REQA_ORT_LIB still extracted %q", got)
	}
}
