package rst

import (
	"github.com/reqa/reqa/ingest/document/internal/doctest"
	"testing"

	"github.com/reqa/reqa/ingest/document"
)

func FuzzRST(f *testing.F) {
	doctest.AddFixtures(f, "widget.rst")
	for _, s := range []string{
		"",
		"Title\n=====\n\ntext *em* ``lit`` :ref:`a <b>` x_ [1]_ |s|\n",
		"- a\n\n  - b\n\n    1. c\n       d\n",
		"term : cls\n   def\n\n   inner\n      deeper\n",
		":field: body\n-a, --all  opts\n\n| line\n| block\n",
		"Text::\n\n    code\n\n>>> doctest\n",
		"=====  =====\na      b\n=====  =====\n1      2\n=====  =====\n",
		"+---+---+\n| a | b |\n+===+===+\n| c     |\n+---+   +\n| d |   |\n+---+---+\n",
		".. note:: x\n.. function:: f(a)\n\n   :param a: b\n\n   .. method:: g()\n\n      h\n",
		".. csv-table:: T\n   :header: a, b\n\n   1, \"2\n.. list-table::\n\n   * - a\n     - b\n",
		".. |a| replace:: |a| *b*\n.. |u| unicode:: 0x110000 U+41\n|a| |u|\n",
		"\xef\xbb\xbfcaf\xe9\r\n\t- \x00\n====\n\xff\n::\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, document.RST, data) })
}
