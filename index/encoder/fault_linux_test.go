package encoder_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/reqa/reqa/index/encoder"
	"github.com/reqa/reqa/index/encoder/uselite"
	"github.com/reqa/reqa/index/encoder/usenet"
	"github.com/reqa/reqa/internal/testenv"
)

// TestNewFaultInPlace: a model read in place from a file cut short under
// its memory map is an error wrapping usenet.ErrFault, whichever of New's
// goroutines (the hash, the packing) touches the missing pages first —
// never a crash.
func TestNewFaultInPlace(t *testing.T) {
	onnx, vocab, err := uselite.ModelPrecision(uselite.PrecisionInt8)
	if err != nil {
		testenv.Skip(t, "%v", err)
	}
	spec := encoder.Spec{Name: uselite.Name, Kind: encoder.KindUSELite, Dim: uselite.Dim, Hash: encoder.Hash(onnx, vocab)}
	path := filepath.Join(t.TempDir(), "model.onnx")
	if err := os.WriteFile(path, onnx, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mapped, err := syscall.Mmap(int(f.Fd()), 0, len(onnx), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(mapped)
	e, err := encoder.New(spec, mapped, vocab, encoder.Options{FastStart: true})
	if err != nil {
		t.Fatalf("before the cut: %v", err)
	}
	e.Close()
	if err := os.Truncate(path, 4096); err != nil {
		t.Fatal(err)
	}
	if _, err := encoder.New(spec, mapped, vocab, encoder.Options{FastStart: true}); !errors.Is(err, usenet.ErrFault) {
		t.Fatalf("after the cut: err = %v, want usenet.ErrFault", err)
	}
}
