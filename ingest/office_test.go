package ingest

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reqa/reqa/store"
)

// zipFiles returns a zip archive of files, given as name and content in
// turn.
func zipFiles(t testing.TB, files ...string) []byte {
	return zipHeaders(t, func(i int, name string) *zip.FileHeader {
		method := zip.Deflate
		if name == "mimetype" {
			method = zip.Store // as EPUB requires: readers sniff it
		}
		return &zip.FileHeader{Name: name, Method: method}
	}, files...)
}

// zipHeaders returns a zip archive of files, given as name and content in
// turn, the i-th with the header header(i, name) makes.
func zipHeaders(t testing.TB, header func(i int, name string) *zip.FileHeader, files ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i := 0; i+1 < len(files); i += 2 {
		f, err := w.CreateHeader(header(i/2, files[i]))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(files[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// epubBook is a small invented EPUB: a navigation document and two
// chapters.
func epubBook(t testing.TB) []byte {
	return zipFiles(t,
		"mimetype", "application/epub+zip",
		"META-INF/container.xml", `<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`,
		"OEBPS/content.opf", `<?xml version="1.0"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Lighthouse Keeping</dc:title></metadata>
<manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/><item id="c1" href="ch1.xhtml" media-type="application/xhtml+xml"/><item id="c2" href="ch2.xhtml" media-type="application/xhtml+xml"/></manifest>
<spine><itemref idref="nav"/><itemref idref="c1"/><itemref idref="c2"/></spine></package>`,
		"OEBPS/nav.xhtml", `<html><body><nav><ol><li>The Lamp</li></ol></nav><p>Only navigation here.</p></body></html>`,
		"OEBPS/ch1.xhtml", "<html>\n<body>\n<h1>The Lamp</h1>\n<p>The keeper trims the wick at dusk.</p>\n</body>\n</html>\n",
		"OEBPS/ch2.xhtml", "<html>\n<body>\n<h1>The Fog Signal</h1>\n<h2>Foghorns</h2>\n<ul><li>The foghorn sounds twice a minute in fog.</li></ul>\n</body>\n</html>\n",
	)
}

// wordDoc is a small invented Word document: a Title, headings, a
// paragraph with a tracked deletion and a table.
func wordDoc(t testing.TB) []byte {
	p := func(style, text string) string {
		return `<w:p><w:pPr><w:pStyle w:val="` + style + `"/></w:pPr><w:r><w:t xml:space="preserve">` + text + `</w:t></w:r></w:p>`
	}
	cell := func(text string) string { return `<w:tc><w:p><w:r><w:t>` + text + `</w:t></w:r></w:p></w:tc>` }
	body := p("Title", "Ferry Timetable") + p("Heading1", "Crossings") +
		`<w:p><w:r><w:t xml:space="preserve">The ferry leaves the harbour at nine</w:t></w:r><w:del><w:r><w:delText> sharp</w:delText></w:r></w:del><w:r><w:t>.</w:t></w:r></w:p>` +
		p("Heading2", "Fares") +
		`<w:tbl><w:tblPr><w:tblLook w:firstRow="1"/></w:tblPr><w:tr>` + cell("Ticket") + cell("Price") + `</w:tr><w:tr>` + cell("Child") + cell("Free on weekdays") + `</w:tr></w:tbl>`
	return zipFiles(t,
		"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
		"word/document.xml", `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`+body+`</w:body></w:document>`,
	)
}

// odfNS declares the OpenDocument namespaces odtDoc uses.
const odfNS = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" ` +
	`xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ` +
	`xmlns:dc="http://purl.org/dc/elements/1.1/"`

// odtDoc is a small invented OpenDocument text: a title in meta.xml,
// headings, a paragraph with a footnote, a list and a table with a header
// row; mimetype is its media type.
func odtDoc(t testing.TB, mimetype string) []byte {
	cell := func(text string) string { return `<table:table-cell><text:p>` + text + `</text:p></table:table-cell>` }
	body := `<text:h text:outline-level="1">High Water</text:h>` +
		`<text:p>Spring tides peak two days after the full moon.<text:note text:note-class="footnote"><text:note-body><text:p>Roughly.</text:p></text:note-body></text:note></text:p>` +
		`<text:list><text:list-item><text:p>Moor the dinghy above the wrack line.</text:p></text:list-item></text:list>` +
		`<text:h text:outline-level="2">Heights</text:h>` +
		`<table:table><table:table-header-rows><table:table-row>` + cell("Port") + cell("Range") + `</table:table-row></table:table-header-rows>` +
		`<table:table-row>` + cell("Avonmouth") + cell("Fourteen metres") + `</table:table-row></table:table>`
	return zipFiles(t,
		"mimetype", mimetype,
		"content.xml", `<?xml version="1.0" encoding="UTF-8"?><office:document-content `+odfNS+`><office:body><office:text>`+body+`</office:text></office:body></office:document-content>`,
		"meta.xml", `<?xml version="1.0" encoding="UTF-8"?><office:document-meta `+odfNS+`><office:meta><dc:title>Tide Notes</dc:title></office:meta></office:document-meta>`,
	)
}

// TestReadOffice reads an EPUB, a Word document and an OpenDocument text
// (gzipped too) in a directory walk: they are not refused as binary, their
// headings give the titles, EPUB anchors name the chapter's file and DOCX
// and ODT ones the paragraph; a broken one is refused naming its part, and
// the walk goes on.
func TestReadOffice(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"books/keeper.epub":     string(epubBook(t)),
		"office/ferry.docx.gz":  string(gzipped(t, wordDoc(t))),
		"office/broken.docx":    string(zipFiles(t, "word/styles.xml", "<w:styles/>")),
		"office/tides.odt.gz":   string(gzipped(t, odtDoc(t, "application/vnd.oasis.opendocument.text"))),
		"office/sheet.odt":      string(odtDoc(t, "application/vnd.oasis.opendocument.spreadsheet")),
		"office/old-format.doc": "\xd0\xcf\x11\xe0 not read",
	})
	c, kinds := readWalk(t, dir, []string{
		"The keeper trims the wick at dusk. | The Lamp | " + string(store.KindParagraph),
		"The foghorn sounds twice a minute in fog. | The Fog Signal › Foghorns | " + string(store.KindListItem),
		"The ferry leaves the harbour at nine. | Ferry Timetable › Crossings | " + string(store.KindParagraph),
		"Ticket: Child; Price: Free on weekdays | Ferry Timetable › Crossings › Fares | " + string(store.KindTableRow),
		"Spring tides peak two days after the full moon. | High Water | " + string(store.KindParagraph),
		"Moor the dinghy above the wrack line. | High Water | " + string(store.KindListItem),
		"Port: Avonmouth; Range: Fourteen metres | High Water › Heights | " + string(store.KindTableRow),
	})
	for p, k := range map[string]string{"books/keeper.epub": "epub read", "office/ferry.docx.gz": "docx read", "office/broken.docx": "docx refused", "office/old-format.doc": "other skipped",
		"office/tides.odt.gz": "odt read", "office/sheet.odt": "odt refused"} {
		if kinds[p] != k {
			t.Errorf("%s: %q, want %q", p, kinds[p], k)
		}
	}
	for _, f := range c.Files {
		if strings.HasSuffix(f.Path, "broken.docx") && !strings.Contains(f.Reason, "word/document.xml: missing from the archive") {
			t.Errorf("broken.docx: reason %q, want the part named", f.Reason)
		}
		if strings.HasSuffix(f.Path, "sheet.odt") && !strings.Contains(f.Reason, `mimetype: "application/vnd.oasis.opendocument.spreadsheet" is not an OpenDocument text document`) {
			t.Errorf("sheet.odt: reason %q, want the mimetype named", f.Reason)
		}
	}
	var anchors []string
	for _, x := range candidates(c) {
		anchors = append(anchors, strings.TrimPrefix(x.anchor, dir+string(filepath.Separator)))
	}
	want := []string{"books/keeper.epub:OEBPS/ch1.xhtml:4#the-lamp", "books/keeper.epub:OEBPS/ch2.xhtml:5#foghorns", "office/ferry.docx.gz:3#crossings", "office/ferry.docx.gz:7#fares",
		"office/tides.odt.gz:2#high-water", "office/tides.odt.gz:3#high-water", "office/tides.odt.gz:7#heights"}
	if strings.Join(anchors, " ") != strings.Join(want, " ") {
		t.Errorf("anchors %q, want %q", anchors, want)
	}
}

// TestReadOfficeStdin: standard input is sniffed as EPUB or ODT (their
// mimetype entries) or DOCX, or read as the kind given.
func TestReadOfficeStdin(t *testing.T) {
	for _, tc := range []struct {
		kind string
		data []byte
		want string
	}{
		{"", epubBook(t), "epub"},
		{"", wordDoc(t), "docx"},
		{"docx", wordDoc(t), "docx"},
		{"", odtDoc(t, "application/vnd.oasis.opendocument.text"), "odt"},
		{"", odtDoc(t, "application/vnd.oasis.opendocument.text-template"), "odt"},
		{"odt", odtDoc(t, "application/vnd.oasis.opendocument.text"), "odt"},
	} {
		c, err := ReadInputsContext(context.Background(), []string{"-"}, ReadOptions{Stdin: bytes.NewReader(tc.data), StdinKind: tc.kind})
		if err != nil {
			t.Fatalf("%q: %v", tc.kind, err)
		}
		if len(c.Files) != 1 || c.Files[0].Kind != tc.want || len(c.Sentences) < 2 {
			t.Errorf("stdin as %q: %+v, %d sentences, want read as %s", tc.kind, c.Files, len(c.Sentences), tc.want)
		}
	}
	_, err := ReadInputsContext(context.Background(), []string{"-"}, ReadOptions{Stdin: bytes.NewReader(wordDoc(t)), StdinKind: "epub"})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(ie.Msg, "META-INF/container.xml: missing from the archive") {
		t.Errorf("a DOCX read as EPUB: %v, want the container named missing", err)
	}
	_, err = ReadInputsContext(context.Background(), []string{"-"}, ReadOptions{Stdin: bytes.NewReader(wordDoc(t)), StdinKind: "odt"})
	if !errors.As(err, &ie) || !strings.Contains(ie.Msg, "content.xml: missing from the archive") {
		t.Errorf("a DOCX read as ODT: %v, want content.xml named missing", err)
	}
	// A spreadsheet is not sniffed as ODT: a zip of no kind known is
	// binary.
	_, err = ReadInputsContext(context.Background(), []string{"-"}, ReadOptions{Stdin: bytes.NewReader(odtDoc(t, "application/vnd.oasis.opendocument.spreadsheet"))})
	if !errors.Is(err, ErrBinary) {
		t.Errorf("a spreadsheet on standard input: %v, want it refused as binary", err)
	}
}

// TestAskOffice builds an index of an EPUB, a Word document and an
// OpenDocument text and asks
// it: the answers come with their heading paths as titles and their
// anchors.
func TestAskOffice(t *testing.T) {
	dir := writeFiles(t, map[string]string{"keeper.epub": string(epubBook(t)), "ferry.docx": string(wordDoc(t)), "tides.odt": string(odtDoc(t, "application/vnd.oasis.opendocument.text"))})
	askFirst(t, dir, []askCase{
		{"how often does the foghorn sound", "The foghorn sounds twice a minute in fog.", "The Fog Signal › Foghorns", "keeper.epub:OEBPS/ch2.xhtml:5#foghorns"},
		{"when does the ferry leave the harbour", "The ferry leaves the harbour at nine.", "Ferry Timetable › Crossings", "ferry.docx:3#crossings"},
		{"when do spring tides peak", "Spring tides peak two days after the full moon.", "High Water", "tides.odt:2#high-water"},
		{"what is the range at Avonmouth", "Port: Avonmouth; Range: Fourteen metres", "High Water › Heights", "tides.odt:7#heights"},
	})
}

// TestSniffODT: an ODT is known by its first entry, a stored "mimetype"
// naming OpenDocument text, whatever extra field the entry has and
// whatever its other parts say ("word/" in the text does not make it a
// DOCX); a compressed mimetype is not ODF's.
func TestSniffODT(t *testing.T) {
	zipWith := func(method uint16, extra []byte, files ...string) []byte {
		return zipHeaders(t, func(i int, name string) *zip.FileHeader {
			h := &zip.FileHeader{Name: name, Method: zip.Store}
			if i == 0 {
				h.Method, h.Extra = method, extra
			}
			return h
		}, files...)
	}
	const mt = "application/vnd.oasis.opendocument.text"
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"plain", zipWith(zip.Store, nil, "mimetype", mt), "odt"},
		{"extra field", zipWith(zip.Store, []byte{0xfe, 0xca, 0, 0}, "mimetype", mt), "odt"},
		{"word/ in the text", zipWith(zip.Store, nil, "mimetype", mt, "content.xml", "<text:p>the password/key pair</text:p>"), "odt"},
		{"compressed mimetype", zipWith(zip.Deflate, nil, "mimetype", mt), "txt"},
		{"a spreadsheet", zipWith(zip.Store, nil, "mimetype", "application/vnd.oasis.opendocument.spreadsheet"), "txt"},
		{"mimetype not first", zipWith(zip.Store, nil, "content.xml", "x", "mimetype", mt), "txt"},
		{"cut short", zipWith(zip.Store, nil, "mimetype", mt)[:34], "txt"},
	} {
		if got := sniffKind(tc.data); got != tc.want {
			t.Errorf("%s: sniffed %q, want %q", tc.name, got, tc.want)
		}
	}
}
