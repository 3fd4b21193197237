package office

import (
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest/document"
)

// FuzzEPUB parses arbitrary input as an EPUB, and the fixture book with a
// chapter and with its package document replaced by arbitrary input (a
// zip's checksums keep mutated archives from reaching the parts): never a
// panic; an error is an *Error naming the file; a document satisfies
// checkDocument.
func FuzzEPUB(f *testing.F) {
	f.Add(epubBook(f), []byte(xhtml("c", "<h1 id=a>A</h1><p>b</p><h2 id=a>A</h2><ul><li>c</ul>")))
	f.Add([]byte("PK\x03\x04"), []byte(epubPackageDoc))
	f.Add([]byte{}, []byte("<package><manifest><item id='a' href='../../%zz#x' properties='nav'/></manifest><spine toc='a'><itemref idref='a'/></spine></package>"))
	// Issue 33: blank bold runs (quadratic once), tiny paragraphs.
	f.Add([]byte{}, []byte(xhtml("b", "<p>"+strings.Repeat("<b> </b>", 2000)+"</p>"+strings.Repeat("<p>a</p>", 2000))))
	f.Fuzz(func(t *testing.T, data, part []byte) {
		fuzzParse(t, document.EPUB, data)
		fuzzParse(t, document.EPUB, epubBook(t, "OEBPS/Text/ch2.xhtml", string(part)))
		fuzzParse(t, document.EPUB, epubBook(t, "OEBPS/content.opf", string(part)))
	})
}

// FuzzDOCX parses arbitrary input as a Word document, and the fixture
// document with its main part and with its styles replaced by arbitrary
// input: never a panic; an error is an *Error naming the file; a document
// satisfies checkDocument.
func FuzzDOCX(f *testing.F) {
	f.Add(docx(f, docxBody, "docProps/core.xml", docxCore("T")), []byte(docxDocument(docxBody)))
	f.Add([]byte("PK\x03\x04"), []byte(docxStyles))
	f.Add([]byte{}, []byte(docxDocument(`<w:tbl><w:tr><w:tc><w:tbl><w:tr><w:tc><w:tcPr><w:gridSpan w:val="99999"/></w:tcPr></w:tc></w:tr></w:tbl></w:tc></w:tr></w:tbl>`)))
	// Issue 33: empty and nested paragraphs.
	f.Add([]byte{}, []byte(docxDocument(strings.Repeat("<w:p/>", 5000)+strings.Repeat("<w:p>", 5000)+strings.Repeat("</w:p>", 5000))))
	f.Fuzz(func(t *testing.T, data, part []byte) {
		fuzzParse(t, document.DOCX, data)
		fuzzParse(t, document.DOCX, docx(t, docxBody, "word/document.xml", string(part)))
		fuzzParse(t, document.DOCX, docx(t, docxBody, "word/styles.xml", string(part)))
	})
}

// FuzzODT parses arbitrary input as an OpenDocument text, and the fixture
// document with its content.xml and with its styles.xml replaced by
// arbitrary input: never a panic; an error is an *Error naming the file; a
// document satisfies checkDocument.
func FuzzODT(f *testing.F) {
	f.Add(odt(f, odtBody, "meta.xml", odtMeta("T")), []byte(odtContentXML(odtAutoStyles, odtBody)))
	f.Add([]byte("PK\x03\x04"), []byte(odtStyles))
	f.Add([]byte{}, []byte(odtContentXML(`<style:style style:name="P1" style:family="paragraph" style:parent-style-name="P1"/>`,
		`<table:table><table:table-row><table:table-cell><table:table><table:table-row><table:table-cell table:number-columns-repeated="99999"/></table:table-row></table:table></table:table-cell></table:table-row></table:table>`+
			`<text:list><text:list-item><text:h text:outline-level="99" text:style-name="P1">x<text:s text:c="-1"/></text:h></text:list-item></text:list>`)))
	// Issue 33: empty paragraphs, nested sections.
	f.Add([]byte{}, []byte(odtContentXML("", strings.Repeat("<text:p/>", 5000)+strings.Repeat("<text:section>", 5000)+strings.Repeat("</text:section>", 5000))))
	f.Fuzz(func(t *testing.T, data, part []byte) {
		fuzzParse(t, document.ODT, data)
		fuzzParse(t, document.ODT, odt(t, odtBody, "content.xml", string(part)))
		fuzzParse(t, document.ODT, odt(t, odtBody, "styles.xml", string(part)))
	})
}
