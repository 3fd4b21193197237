package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckPages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.reqa")
	buildIndex(t, path, Meta{Contexts: 300}, func(tx *WriteTx) error {
		for i := uint32(0); i < 300; i++ {
			if err := tx.PutContext(Context{ID: i, Title: "t", Text: strings.Repeat("words here. ", 20)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err := CheckPages(path); err != nil {
		t.Fatalf("healthy file: %v", err)
	}
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	leaf := -1 // a leaf page with elements, past the meta pages
	for off := 2 * page; off+page <= len(orig); off += page {
		if binary.LittleEndian.Uint16(orig[off+8:]) == leafPageFlag && binary.LittleEndian.Uint16(orig[off+10:]) > 1 {
			leaf = off
			break
		}
	}
	if leaf < 0 {
		t.Fatal("no leaf page found")
	}
	for _, tc := range []struct {
		name string
		edit func(b []byte) []byte
		want string
	}{
		{"element past its page", func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[leaf+pageHeaderSize+4:], 1<<30) // first element's pos
			return b
		}, "runs past the page"},
		{"page with another id", func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[leaf:], 99999)
			return b
		}, "says it is page 99999"},
		{"truncated", func(b []byte) []byte { return b[:len(b)-page] }, "truncated"},
	} {
		bad := filepath.Join(t.TempDir(), "bad.reqa")
		if err := os.WriteFile(bad, tc.edit(bytes.Clone(orig)), 0o644); err != nil {
			t.Fatal(err)
		}
		err := CheckPages(bad)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(fmt.Sprint(err), tc.want) {
			t.Errorf("%s: %v, want ErrCorrupt saying %q", tc.name, err, tc.want)
		}
		if rep, err := CheckFile(bad); err != nil || len(rep.Problems) != 1 {
			t.Errorf("%s: CheckFile %v, %v", tc.name, rep.Problems, err)
		}
	}
}
