package formats_test

import (
	"fmt"

	"github.com/reqa/reqa/ingest/document"
	"github.com/reqa/reqa/ingest/document/formats"
)

func ExampleParse() {
	md := []byte("# Widget\n\n## Install\n\n1. Download _the_ archive.\n2. Run `widget --init`.\n\n" +
		"```sh\n$ widget --init\n```\n\n| Option | Meaning |\n|---|---|\n| `-q` | Quiet. |\n")
	d, err := formats.Parse("README.md", document.Markdown, md)
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
