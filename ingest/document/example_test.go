package document_test

import (
	"fmt"

	"github.com/reqa/reqa/ingest/document"
)

func ExampleParse() {
	md := []byte("# Widget\n\n## Install\n\n1. Download _the_ archive.\n2. Run `widget --init`.\n\n" +
		"```sh\n$ widget --init\n```\n\n| Option | Meaning |\n|---|---|\n| `-q` | Quiet. |\n")
	d, err := document.Parse("README.md", document.Markdown, md)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			fmt.Printf("%s [%s] %s: %q\n", d.Anchor(s, b), s.Heading(), b.Kind, b.Text)
		}
	}
	// Output:
	// README.md:5#install [Widget › Install] list-item: "Download the archive."
	// README.md:6#install [Widget › Install] list-item: "Run widget --init."
	// README.md:8#install [Widget › Install] code: "$ widget --init"
	// README.md:14#install [Widget › Install] table-row: "Option: -q; Meaning: Quiet."
}

// A manual page's options are definitions: the term stays with its text,
// and a nested option knows whose it is.
func ExampleParseMan() {
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
	d, err := document.ParseMan("frob.1", page)
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

// A Sphinx object directive is a definition of its signature; an
// admonition's label is not text; inline markup and roles are resolved.
func ExampleParseRST() {
	src := []byte("Widget\n======\n\n.. function:: connect(host, port=80)\n\n" +
		"   Open a connection to *host* on :data:`port`.\n\n.. note::\n\n" +
		"   Connections are closed after ``60`` seconds.\n")
	d, err := document.ParseRST("widget.rst", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	printBlocks(d)
	// Output:
	// [Widget] definition "connect(host, port=80): Open a connection to host on port."
	// [Widget] paragraph "Connections are closed after 60 seconds."
}

// An Info node is a section; a @table item is a definition of its terms;
// menus are navigation, not text.
func ExampleParseInfo() {
	src := []byte("\x1f\nFile: frob.info,  Node: Top,  Next: Options,  Up: (dir)\n\nFrob\n****\n\n" +
		"Frob rewrites files in place.\n\n* Menu:\n\n* Options::     What to pass.\n\n" +
		"\x1f\nFile: frob.info,  Node: Options,  Prev: Top,  Up: Top\n\n1 Options\n*********\n\n" +
		"‘-n’\n‘--dry-run’\n     Show what would change.\n")
	d, err := document.ParseInfo("frob.info", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	printBlocks(d)
	// Output:
	// [Frob] paragraph "Frob rewrites files in place."
	// [Frob › 1 Options] definition "-n, --dry-run: Show what would change."
}

// printBlocks prints each block of d with its heading path and kind.
func printBlocks(d *document.Document) {
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			fmt.Printf("[%s] %s %q\n", s.Heading(), b.Kind, b.Text)
		}
	}
}
