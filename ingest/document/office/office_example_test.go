package office_test

import (
	"archive/zip"
	"bytes"
	"fmt"

	"github.com/reqa/reqa/ingest/document/internal/doctest"
	"github.com/reqa/reqa/ingest/document/office"
)

// The chapters of an EPUB, in spine order, are the sections of one
// document; the navigation document is not read, and an anchor names the
// chapter's file and line.
func ExampleParseEPUB() {
	book := zipFiles(
		"META-INF/container.xml", `<container><rootfiles><rootfile full-path="OEBPS/book.opf"/></rootfiles></container>`,
		"OEBPS/book.opf", `<package xmlns:dc="http://purl.org/dc/elements/1.1/">
<metadata><dc:title>The Frob Handbook</dc:title></metadata>
<manifest>
  <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
  <item id="c1" href="options.xhtml" media-type="application/xhtml+xml"/>
</manifest>
<spine><itemref idref="nav"/><itemref idref="c1"/></spine>
</package>`,
		"OEBPS/nav.xhtml", `<html><body><nav><ol><li><a href="options.xhtml">Options</a></li></ol></nav></body></html>`,
		"OEBPS/options.xhtml", "<html><body>\n<h1>Options</h1>\n<p>Pass <code>-n</code> to see what would change.</p>\n</body></html>",
	)
	d, err := office.ParseEPUB("frob.epub", book)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Title)
	doctest.PrintBlocks(d)
	s := d.Sections[0]
	fmt.Println(d.Anchor(s, s.Blocks[0]))
	// Output:
	// The Frob Handbook
	// [Options] paragraph "Pass -n to see what would change."
	// frob.epub:OEBPS/options.xhtml:3#options
}

// A Word document's headings are its paragraphs in heading styles;
// tracked deletions are not text, and a table's first row is its header.
func ExampleParseDOCX() {
	p := func(style, runs string) string {
		return `<w:p><w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>` + runs + `</w:p>`
	}
	cell := func(text string) string { return `<w:tc><w:p><w:r><w:t>` + text + `</w:t></w:r></w:p></w:tc>` }
	body := p("Heading1", `<w:r><w:t>Options</w:t></w:r>`) +
		p("Normal", `<w:r><w:t xml:space="preserve">Frob </w:t></w:r><w:del><w:r><w:delText>never </w:delText></w:r></w:del><w:r><w:t>keeps backups.</w:t></w:r>`) +
		p("ListBullet", `<w:r><w:t>Pass -n to see what would change.</w:t></w:r>`) +
		`<w:tbl><w:tblPr><w:tblLook w:firstRow="1"/></w:tblPr><w:tr>` + cell("Option") + cell("Meaning") + `</w:tr><w:tr>` + cell("-q") + cell("Quiet.") + `</w:tr></w:tbl>`
	doc := zipFiles("word/document.xml", `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`+body+`</w:body></w:document>`)
	d, err := office.ParseDOCX("frob.docx", doc)
	if err != nil {
		fmt.Println(err)
		return
	}
	doctest.PrintBlocks(d)
	// Output:
	// [Options] paragraph "Frob keeps backups."
	// [Options] list-item "Pass -n to see what would change."
	// [Options] table-row "Option: -q; Meaning: Quiet."
}

// An OpenDocument text's headings are its text:h elements; a paragraph's
// style may be an automatic one that inherits from a named style (here
// code), footnotes are not text, and a table's header rows are its header.
func ExampleParseODT() {
	const ns = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" ` +
		`xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"`
	cell := func(text string) string { return `<table:table-cell><text:p>` + text + `</text:p></table:table-cell>` }
	content := `<office:document-content ` + ns + `>
<office:automatic-styles><style:style style:name="P1" style:family="paragraph" style:parent-style-name="Preformatted_20_Text"/></office:automatic-styles>
<office:body><office:text>
<text:h text:outline-level="1">Options</text:h>
<text:p>Frob keeps<text:s text:c="2"/>backups.<text:note><text:note-body><text:p>Since 2.0.</text:p></text:note-body></text:note></text:p>
<text:list><text:list-item><text:p>Pass -n to see what would change.</text:p></text:list-item></text:list>
<text:p text:style-name="P1">$ frob -n</text:p>
<table:table><table:table-header-rows><table:table-row>` + cell("Option") + cell("Meaning") + `</table:table-row></table:table-header-rows>
<table:table-row>` + cell("-q") + cell("Quiet.") + `</table:table-row></table:table>
</office:text></office:body></office:document-content>`
	doc := zipFiles("mimetype", "application/vnd.oasis.opendocument.text", "content.xml", content)
	d, err := office.ParseODT("frob.odt", doc)
	if err != nil {
		fmt.Println(err)
		return
	}
	doctest.PrintBlocks(d)
	// Output:
	// [Options] paragraph "Frob keeps backups."
	// [Options] list-item "Pass -n to see what would change."
	// [Options] code "$ frob -n"
	// [Options] table-row "Option: -q; Meaning: Quiet."
}

// zipFiles returns a zip archive of files, given as name and content in
// turn.
func zipFiles(files ...string) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i := 0; i+1 < len(files); i += 2 {
		f, err := w.Create(files[i])
		if err != nil {
			panic(err)
		}
		f.Write([]byte(files[i+1]))
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}
