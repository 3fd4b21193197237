package pdf

import (
	"testing"

	"github.com/reqa/reqa/ingest/document"
)

func FuzzPDF(f *testing.F) {
	f.Add(manualPDF(f))
	f.Add(handbookPDF(f)) // a composite font: two bytes a glyph
	f.Add([]byte("%PDF-1.4\n%%EOF"))
	f.Add(flatPDF(3))
	for _, tc := range hostilePDFs() {
		if len(tc.data) < 64<<10 {
			f.Add(tc.data) // issue 33's hostile files
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, document.PDF, data) })
}
