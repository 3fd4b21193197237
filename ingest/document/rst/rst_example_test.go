package rst_test

import (
	"fmt"

	"github.com/reqa/reqa/ingest/document/internal/doctest"
	"github.com/reqa/reqa/ingest/document/rst"
)

// A Sphinx object directive is a definition of its signature; an
// admonition's label is not text; inline markup and roles are resolved.
func ExampleParse() {
	src := []byte("Widget\n======\n\n.. function:: connect(host, port=80)\n\n" +
		"   Open a connection to *host* on :data:`port`.\n\n.. note::\n\n" +
		"   Connections are closed after ``60`` seconds.\n")
	d, err := rst.Parse("widget.rst", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	doctest.PrintBlocks(d)
	// Output:
	// [Widget] definition "connect(host, port=80): Open a connection to host on port."
	// [Widget] paragraph "Connections are closed after 60 seconds."
}
