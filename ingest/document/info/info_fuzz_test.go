package info

import (
	"github.com/reqa/reqa/ingest/document/internal/doctest"
	"testing"

	"github.com/reqa/reqa/ingest/document"
)

// FuzzInfo parses arbitrary input as Info: never a panic; an error is an
// *Error naming the file; a document satisfies checkDocument.
func FuzzInfo(f *testing.F) {
	doctest.AddFixtures(f, "frobutils.info")
	for _, s := range []string{
		"",
		"\x1f\nFile: x,  Node: Top,  Up: (dir)\n\nT\n*\n\ntext *note a::\n",
		"\x1f\nFile: x,  Node: A\n\n‘-a’\n‘--all’\n     desc\n\n     ‘x’\n          nested\n",
		"\x1f\nNode: B\n\n -- Function: int f (int\n          a)\n     Does.\n",
		"\x1f\nNode: C\n\n   • one\n  1. two\n     * Menu:\n* a::\n\nafter\n",
		"\x1f\nNode: D\n\nA   B\n   \n----------\nx   y\n    \n",
		"\x1f\nNode: E\n\nx(1)\n\n   ---------- Footnotes ----------\n\n   (1) n\n",
		"\x1f\nNode: F\n\n\x00\x08[index\x00\x08]\n* a: b. (line 1)\n",
		"\x1f\nIndirect:\nx-1: 1\n\x1f\nTag Table:\n(Indirect)\nNode: Top\x7f1\n\x1f\nEnd Tag Table\n",
		"\x1f\nNode: \x7fG, h\x7f\n\n*note \x7fi: j\x7f:: _k_ *l* ‘m’\r\n\xff\xfe\n\x1f\nLocal Variables:\ncoding: latin-1\nEnd:\n",
		"\x1f\nNode: H\n\n\x00\x08[image\n     $ code\n\t\ttab\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, document.Info, data) })
}
