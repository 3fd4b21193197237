package roff_test

import (
	"fmt"

	"github.com/reqa/reqa/ingest/document/roff"
)

// A manual page's options are definitions: the term stays with its text,
// and a nested option knows whose it is.
func ExampleParse() {
	page := []byte(`.TH FROB 1
.SH OPTIONS
.TP
.B \-n
Show what would change.
.TP
.BI \-\-mode " mode"
Choose a mode:
.RS
.TP
.B fast
Skip the backup.
.RE
`)
	d, err := roff.Parse("frob.1", page)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			fmt.Printf("[%s] %s %q term %q parents %q\n", s.Heading(), b.Kind, b.Text, b.Text[:b.Term], b.Parents)
		}
	}
	// Output:
	// [FROB › OPTIONS] definition "-n: Show what would change." term "-n" parents []
	// [FROB › OPTIONS] definition "--mode mode: Choose a mode:" term "--mode mode" parents []
	// [FROB › OPTIONS] definition "fast: Skip the backup." term "fast" parents ["--mode mode"]
}
