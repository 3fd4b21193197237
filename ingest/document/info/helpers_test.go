package info

import (
	"testing"

	"github.com/reqa/reqa/ingest/document"
	"github.com/reqa/reqa/ingest/document/internal/doctest"
)

// parsers are the readers of this package by format.
var parsers = map[document.Format]doctest.ParseFunc{document.Info: Parse}

// parseFile parses testdata/name as format f and checks the document.
func parseFile(t *testing.T, name string, f document.Format) *document.Document {
	t.Helper()
	return doctest.ParseFile(t, parsers[f], name)
}

// fuzzParse parses data as format f and checks the outcome (doctest.FuzzParse).
func fuzzParse(t *testing.T, f document.Format, data []byte) {
	doctest.FuzzParse(t, parsers[f], data)
}
