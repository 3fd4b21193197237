package pdf

import (
	"testing"

	"github.com/reqa/reqa/ingest/document"
	"github.com/reqa/reqa/ingest/document/internal/doctest"
)

// parsers are the readers of this package by format.
var parsers = map[document.Format]doctest.ParseFunc{document.PDF: Parse}

// fuzzParse parses data as format f and checks the outcome (doctest.FuzzParse).
func fuzzParse(t *testing.T, f document.Format, data []byte) {
	doctest.FuzzParse(t, parsers[f], data)
}
