package document_test

import (
	"testing"

	"github.com/reqa/reqa/ingest/document"
	"github.com/reqa/reqa/ingest/document/internal/doctest"
)

// got is one block as the tests see it (doctest.Got, a type of this
// package so that its literals may go unkeyed).
type got doctest.Got

// flatten lists a document's blocks with their heading paths.
func flatten(d *document.Document) []got {
	var out []got
	for _, b := range doctest.Flatten(d) {
		out = append(out, got(b))
	}
	return out
}

// find returns the block whose text contains sub.
func find(t *testing.T, blocks []got, sub string) got {
	t.Helper()
	return got(doctest.Find(t, gots(blocks), sub))
}

func gots(blocks []got) []doctest.Got {
	out := make([]doctest.Got, len(blocks))
	for i, b := range blocks {
		out[i] = doctest.Got(b)
	}
	return out
}

// wantBlock is a block expected in a document (doctest.WantBlock).
type wantBlock doctest.WantBlock

// expectBlocks checks that each of want is among blocks, as described.
func expectBlocks(t *testing.T, blocks []got, want []wantBlock) {
	t.Helper()
	w := make([]doctest.WantBlock, len(want))
	for i, b := range want {
		w[i] = doctest.WantBlock(b)
	}
	doctest.ExpectBlocks(t, gots(blocks), w)
}

// parsers are the readers of this package by format.
var parsers = map[document.Format]doctest.ParseFunc{document.Markdown: document.ParseMarkdown, document.HTML: document.ParseHTML, document.Text: document.ParseText, document.Org: document.ParseOrg}

// parseFile parses testdata/name as format f and checks the document.
func parseFile(t *testing.T, name string, f document.Format) *document.Document {
	t.Helper()
	return doctest.ParseFile(t, parsers[f], name)
}

// fuzzParse parses data as format f and checks the outcome (doctest.FuzzParse).
func fuzzParse(t *testing.T, f document.Format, data []byte) {
	doctest.FuzzParse(t, parsers[f], data)
}
