package usenet_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/reqa/reqa/index/encoder/usenet"
)

// TestFaultInPlace: a model read from a memory map that is cut short
// under the Net (the index file truncated while reqa reads it) makes
// Embed fail with ErrFault, not crash, wherever the cut falls.
func TestFaultInPlace(t *testing.T) {
	onnx, _ := int8Model(t)
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
	net, err := usenet.Load(mapped)
	if err != nil {
		t.Fatal(err)
	}
	ids := []int32{1945, 15, 1711, 26, 9, 3591, 813, 105, 691, 1284, 54}
	if _, err := net.Embed(ids); err != nil {
		t.Fatalf("before the cut: %v", err)
	}
	// Cut at the start and through the weights (read in place by the
	// vector products on worker goroutines): every cut is ErrFault.
	for _, cut := range []int{4096, len(onnx) / 4, len(onnx) / 2, len(onnx) * 3 / 4} {
		if err := os.WriteFile(path, onnx, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := net.Embed(ids); err != nil {
			t.Fatalf("before the cut at %d: %v", cut, err)
		}
		if err := os.Truncate(path, int64(cut)); err != nil {
			t.Fatal(err)
		}
		if _, err := net.Embed(ids); !errors.Is(err, usenet.ErrFault) {
			t.Fatalf("after the cut at %d of %d bytes: err = %v, want ErrFault", cut, len(onnx), err)
		}
	}
	if _, err := usenet.Load(mapped); !errors.Is(err, usenet.ErrFault) && !errors.Is(err, usenet.ErrUnsupported) {
		t.Fatalf("Load after the cut: err = %v, want ErrFault", err)
	}
}
