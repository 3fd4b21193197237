package ingest

import (
	"errors"
	"strings"
	"testing"

	"github.com/reqa/reqa/store"
)

// rstGuide is a small invented reStructuredText page.
const rstGuide = `Frob
====

Frob rewrites files in place.

Options
-------

.. option:: -n, --dry-run

   Shows what would change.

.. note::

   Backups are kept for a week.
`

// TestReadRST reads reStructuredText in a directory walk: sections give the
// title path, a Sphinx option is a definition with its term, an
// admonition's label is not text; invalid UTF-8 is refused naming the line.
func TestReadRST(t *testing.T) {
	dir := writeFiles(t, map[string]string{"docs/guide.rst": rstGuide, "docs/bad.rst": "Title\n=====\n\nok\n\xff\n"})
	c, _ := readWalk(t, dir, []string{
		"Frob rewrites files in place. | Frob | " + string(store.KindParagraph),
		"-n, --dry-run: Shows what would change. | Frob › Options | " + string(store.KindDefinition),
		"Backups are kept for a week. | Frob › Options | " + string(store.KindParagraph),
	})
	for _, f := range c.Files {
		if strings.HasSuffix(f.Path, "bad.rst") && f.Status != FileRefused {
			t.Errorf("bad.rst: %+v, want refused", f)
		}
	}
	err := readDocument(&Corpus{}, "bad.rst", "rst", []byte("x\n\xff\n"))
	var ie *InputError
	if !errors.Is(err, ErrBadInput) || !errors.As(err, &ie) || ie.Line != 2 {
		t.Errorf("invalid UTF-8: %v, want ErrBadInput at line 2", err)
	}
}
