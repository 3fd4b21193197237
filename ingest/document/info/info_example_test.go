package info_test

import (
	"fmt"

	"github.com/reqa/reqa/ingest/document/info"
	"github.com/reqa/reqa/ingest/document/internal/doctest"
)

// An Info node is a section; a @table item is a definition of its terms;
// menus are navigation, not text.
func ExampleParse() {
	src := []byte("\x1f\nFile: frob.info,  Node: Top,  Next: Options,  Up: (dir)\n\nFrob\n****\n\n" +
		"Frob rewrites files in place.\n\n* Menu:\n\n* Options::     What to pass.\n\n" +
		"\x1f\nFile: frob.info,  Node: Options,  Prev: Top,  Up: Top\n\n1 Options\n*********\n\n" +
		"‘-n’\n‘--dry-run’\n     Show what would change.\n")
	d, err := info.Parse("frob.info", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	doctest.PrintBlocks(d)
	// Output:
	// [Frob] paragraph "Frob rewrites files in place."
	// [Frob › 1 Options] definition "-n, --dry-run: Show what would change."
}
