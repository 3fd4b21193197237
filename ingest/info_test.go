package ingest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reqa/reqa/store"
)

// infoManual is a small invented Info manual, split as makeinfo splits
// large ones: a main file of tables and one part holding the nodes.
const (
	infoMain = "This is frob.info, produced by makeinfo.\n\x1f\nIndirect:\nfrob.info-1: 120\n\x1f\nTag Table:\n(Indirect)\nNode: Top\x7f120\n\x1f\nEnd Tag Table\n"
	infoPart = "This is frob.info, produced by makeinfo.\n\x1f\nFile: frob.info,  Node: Top,  Next: Options,  Up: (dir)\n\n" +
		"Frob\n****\n\nFrob rewrites files in place.\n\n* Menu:\n\n* Options::     What to pass.\n\n" +
		"\x1f\nFile: frob.info,  Node: Options,  Prev: Top,  Up: Top\n\n1 Options\n*********\n\n" +
		"‘-n’\n‘--dry-run’\n     Show what would change; *note Top:: for more.\n\n" +
		"\x1f\nFile: frob.info,  Node: Index,  Prev: Options,  Up: Top\n\nIndex\n*****\n\n\x00\x08[index\x00\x08]\n* Menu:\n\n* dry run:     Options.     (line 6)\n\n"
)

// TestReadInfo reads a split Info manual in a directory walk, gzipped: the
// nodes give the title path, a table item is a definition with its terms,
// menus are not text and cross references read as words; the main file,
// only tables, adds nothing.
func TestReadInfo(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"info/frob.info.gz":   string(gzipped(t, []byte(infoMain))),
		"info/frob.info-1.gz": string(gzipped(t, []byte(infoPart))),
		"info/dir":            "the directory node of all manuals\n",
	})
	_, kinds := readWalk(t, dir, []string{
		"Frob rewrites files in place. | Frob | " + string(store.KindParagraph),
		"-n, --dry-run: Show what would change; see Top for more. | Frob › 1 Options | " + string(store.KindDefinition),
	})
	for p, k := range map[string]string{"info/frob.info-1.gz": "info read", "info/frob.info.gz": "info skipped", "info/dir": "other skipped"} {
		if kinds[p] != k {
			t.Errorf("%s: %q, want %q", p, kinds[p], k)
		}
	}
}

// TestInfoMarks: Info's index and image marks ("\x00\x08[") are text in an
// Info file, also when a read ends between the NUL and its backspace; any
// other NUL, and the marks in another kind of file, are binary.
func TestInfoMarks(t *testing.T) {
	node := "\x1f\nFile: f.info,  Node: Top,  Up: (dir)\n\nF\n*\n\nText stays.\n"
	long := strings.Repeat("A line of plain text for the reader.\n", 300) // past the first 8 KB
	for _, tc := range []struct {
		name, data string
		binary     bool
	}{
		{"f.info", node + "\x00\x08[index\x00\x08]\n", false},
		{"f.info", node + long + "\x00\x08[image src=\"a.png\"\x00\x08]\n", false},
		{"f.info", node + "\x00\x01\n", true},
		{"f.info", node + long + "\x00x\n", true},
		{"f.info", node + "\x00", true},
		{"f.txt", "Text.\n\x00\x08[index\x00\x08]\n", true},
	} {
		for _, gz := range []bool{false, true} {
			name, data := tc.name, []byte(tc.data)
			if gz {
				name, data = name+".gz", gzipped(t, data)
			}
			p := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadInputs([]string{p})
			if errors.Is(err, ErrBinary) != tc.binary {
				t.Errorf("%s %q: %v, want binary %v", name, tc.data[max(0, len(tc.data)-30):], err, tc.binary)
			}
		}
	}
}
