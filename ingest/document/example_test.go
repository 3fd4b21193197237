package document_test

import (
	"fmt"

	"github.com/reqa/reqa/ingest/document"
)

// printBlocks prints each block of d with its heading path and kind.
func printBlocks(d *document.Document) {
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			fmt.Printf("[%s] %s %q\n", s.Heading(), b.Kind, b.Text)
		}
	}
}

// Org's headlines are sections without their TODO keywords and tags; a
// description list item is a definition, a table row carries the header
// above the hline and a src block is code.
func ExampleParseOrg() {
	src := []byte("#+TITLE: Widget\n* TODO Options :docs:\n- =--level= :: How hard it tunes.\n\n" +
		"| Level | Speed |\n|-------+-------|\n| 1 | fast |\n\n#+BEGIN_SRC sh\nwidget --level 2\n#+END_SRC\n")
	d, err := document.ParseOrg("widget.org", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Title)
	printBlocks(d)
	// Output:
	// Widget
	// [Options] definition "--level: How hard it tunes."
	// [Options] table-row "Level: 1; Speed: fast"
	// [Options] code "widget --level 2"
}
