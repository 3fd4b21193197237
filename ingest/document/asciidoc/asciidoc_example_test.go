package asciidoc_test

import (
	"fmt"

	"github.com/reqa/reqa/ingest/document/asciidoc"
	"github.com/reqa/reqa/ingest/document/internal/doctest"
)

// AsciiDoc's document title roots the heading paths; a description list
// item is a definition, a table row carries its header, an admonition
// paragraph loses its label and a source block is code.
func ExampleParse() {
	src := []byte("= Widget\n:product: Widget Pro\n\n== Options\n\n`--level`:: How hard {product} tunes.\n\n" +
		"NOTE: Levels above *3* are slow.\n\n|===\n|Level |Speed\n\n|1 |fast\n|===\n\n[source,sh]\n----\nwidget --level 2\n----\n")
	d, err := asciidoc.Parse("widget.adoc", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	doctest.PrintBlocks(d)
	// Output:
	// [Widget › Options] definition "--level: How hard Widget Pro tunes."
	// [Widget › Options] paragraph "Levels above 3 are slow."
	// [Widget › Options] table-row "Level: 1; Speed: fast"
	// [Widget › Options] code "widget --level 2"
}
