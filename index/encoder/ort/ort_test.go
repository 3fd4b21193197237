package ort_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/reqa/reqa/index/encoder/ort"
)

// TestInitErrors checks that Init refuses an empty and a missing path before
// the library is touched. The runtime is initialised once per process, so
// when another test of this binary already loaded it the cases run in a
// child process, where nothing did.
func TestInitErrors(t *testing.T) {
	if ort.Version() != "" {
		if os.Getenv("REQA_ORT_TEST_INIT_ERRORS") != "" {
			t.Fatal("child: runtime already initialised")
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestInitErrors$", "-test.v")
		cmd.Env = append(os.Environ(), "REQA_ORT_TEST_INIT_ERRORS=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		t.Logf("runtime already initialised here: ran in a child process:\n%s", out)
		return
	}
	missing := filepath.Join(t.TempDir(), "libonnxruntime.so.1")
	for _, tc := range []struct{ name, path string }{
		{"empty", ""},
		{"missing", missing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := ort.Init(tc.path); err == nil {
				t.Fatalf("Init(%q) succeeded", tc.path)
			}
		})
	}
}

func TestNewSessionErrors(t *testing.T) {
	initRuntime(t)
	for _, tc := range []struct {
		name  string
		model []byte
		opts  ort.Options
	}{
		{"empty model", nil, ort.Options{}},
		{"garbage model", []byte("\x08\x08garbage"), ort.Options{}},
		{"negative threads", toyModel(t), ort.Options{Threads: -1}},
		{"negative batch", toyModel(t), ort.Options{MaxBatch: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ort.NewSession(tc.model, tc.opts)
			if err == nil {
				s.Close()
				t.Fatal("NewSession succeeded")
			}
		})
	}
}

func TestInitSwitchLibrary(t *testing.T) {
	initRuntime(t)
	if err := ort.Init(libPath(t)); err != nil {
		t.Fatalf("second Init with the same path: %v", err)
	}
	if err := ort.Init(libPath(t) + ".other"); err == nil {
		t.Fatal("Init with another path succeeded")
	}
	if v := ort.Version(); !strings.HasPrefix(v, "1.") {
		t.Errorf("Version() = %q", v)
	}
}

func TestToyEmbed(t *testing.T) {
	initRuntime(t)
	for _, opts := range []ort.Options{{Threads: 1}, {MaxBatch: 1, Spin: true}, {MaxBatch: 2}} {
		s, err := ort.NewSession(toyModel(t), opts)
		if err != nil {
			t.Fatalf("NewSession: %v", err)
		}
		defer s.Close()
		testToyEmbed(t, s)
	}
}

func testToyEmbed(t *testing.T, s *ort.Session) {
	for _, tc := range []struct {
		name string
		in   [][]int32
		want [][]float32
	}{
		{"none", nil, [][]float32{}},
		{"one", [][]int32{{5}}, [][]float32{{5, 1}}},
		{"ragged", [][]int32{{1, 2, 3}, {10}, {4, 4}}, [][]float32{{6, 3}, {10, 1}, {8, 2}}},
		{"mixed", [][]int32{{9, 9, 9, 9}, {}, {1}, {2, 2}, {}, {3, 3, 3}},
			[][]float32{{36, 4}, {0, 0}, {1, 1}, {4, 2}, {0, 0}, {9, 3}}},
		// Empty sequences take the row of an empty sentence: zero sum, zero count.
		{"empty last", [][]int32{{7, 7}, {}}, [][]float32{{14, 2}, {0, 0}}},
		{"empty first", [][]int32{{}, {2}}, [][]float32{{0, 0}, {2, 1}}},
		{"all empty", [][]int32{{}, {}}, [][]float32{{0, 0}, {0, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Embed(tc.in)
			if err != nil {
				t.Fatalf("Embed: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Embed(%v) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
	if _, err := s.Embed([][]int32{{1, -2}}); err == nil {
		t.Error("negative token id accepted")
	}
}

func TestConcurrentEmbedAndClose(t *testing.T) {
	initRuntime(t)
	s, err := ort.NewSession(toyModel(t), ort.Options{Threads: 1})
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				got, err := s.Embed([][]int32{{int32(g), int32(i)}})
				if err != nil {
					errs <- err
					return
				}
				if want := float32(g + i); got[0][0] != want {
					errs <- errors.New("wrong sum under concurrency")
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := s.Embed([][]int32{{1}}); err == nil {
		t.Error("Embed after Close succeeded")
	}
}

// TestInitNotALibrary checks that a file the dynamic loader refuses is
// reported as ErrLoad (ortlib then falls back to an extracted copy), in a
// child process, because the runtime can be initialised once per process.
func TestInitNotALibrary(t *testing.T) {
	if p := os.Getenv("REQA_ORT_TEST_NOT_A_LIBRARY"); p != "" {
		err := ort.Init(p)
		if !errors.Is(err, ort.ErrLoad) {
			fmt.Fprintf(os.Stderr, "Init(%s) = %v, want ErrLoad\n", p, err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	junk := filepath.Join(t.TempDir(), "libonnxruntime.so.1")
	if err := os.WriteFile(junk, []byte("not an ELF file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestInitNotALibrary$")
	cmd.Env = append(os.Environ(), "REQA_ORT_TEST_NOT_A_LIBRARY="+junk)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
