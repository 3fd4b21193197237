package index_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/ingest"
)

// TestCheckOut checks --out replaces only a missing path or a reqa index,
// other files only when forced, and never an input.
func TestCheckOut(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"notes.txt": strings.Repeat("Precious notes. ", 500), "small.txt": "x"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx := filepath.Join(dir, "x.reqa")
	c, err := ingest.ReadInputs([]string{"testdata/corpus/bridges.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.Build(context.Background(), c, idx, index.Options{Tokenizers: []string{"word"}}); err != nil {
		t.Fatal(err)
	}
	notes, small := filepath.Join(dir, "notes.txt"), filepath.Join(dir, "small.txt")
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	cases := []struct {
		out    string
		inputs []string
		force  bool
		want   error // nil: allowed; errAny: refused for another reason
	}{
		{filepath.Join(dir, "new.reqa"), []string{notes}, false, nil},
		{idx, []string{notes}, false, nil},
		{notes, []string{"testdata/corpus"}, false, index.ErrOutNotIndex},
		{small, []string{"testdata/corpus"}, false, index.ErrOutNotIndex},
		{notes, []string{"testdata/corpus"}, true, nil},
		{notes, []string{notes}, false, index.ErrOutIsInput},
		{notes, []string{notes}, true, index.ErrOutIsInput},
		{idx, []string{idx}, true, index.ErrOutIsInput},
		{dir, nil, true, errAny},
		{fifo, nil, true, errAny},
	}
	for _, tc := range cases {
		err := index.CheckOut(tc.out, tc.inputs, tc.force)
		switch {
		case tc.want == nil && err != nil:
			t.Errorf("CheckOut(%s, %v, %v): %v", tc.out, tc.inputs, tc.force, err)
		case tc.want == errAny && err == nil:
			t.Errorf("CheckOut(%s, %v, %v) allowed", tc.out, tc.inputs, tc.force)
		case tc.want != nil && tc.want != errAny && !errors.Is(err, tc.want):
			t.Errorf("CheckOut(%s, %v, %v): got %v, want %v", tc.out, tc.inputs, tc.force, err, tc.want)
		}
	}
}

var errAny = errors.New("any error")
