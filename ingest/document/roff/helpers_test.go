package roff

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

// parsers are the readers of this package by format.
var parsers = map[document.Format]doctest.ParseFunc{document.Man: Parse}

// parseFile parses testdata/name as format f and checks the document.
func parseFile(t *testing.T, name string, f document.Format) *document.Document {
	t.Helper()
	return doctest.ParseFile(t, parsers[f], name)
}

// fuzzParse parses data as format f and checks the outcome (doctest.FuzzParse).
func fuzzParse(t *testing.T, f document.Format, data []byte) {
	doctest.FuzzParse(t, parsers[f], data)
}
