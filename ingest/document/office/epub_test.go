package office

import (
	"github.com/reqa/reqa/ingest/document/internal/doctest"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest/document"
)

// TestEPUB reads the fixture book: chapters in spine order are the
// sections of one document (a chapter that does not start with a heading
// goes on under the heading before it), each block anchored in its content
// document; the navigation document, the NCX, the guide's contents page,
// the cover and the repeated spine item are not read.
func TestEPUB(t *testing.T) {
	d, err := ParseEPUB("book.epub", epubBook(t))
	if err != nil {
		t.Fatal(err)
	}
	doctest.CheckDocument(t, d)
	if d.Title != "The Frob Handbook" || d.Format != document.EPUB {
		t.Errorf("title %q format %q, want the dc:title and epub", d.Title, d.Format)
	}
	ch1, ch2 := "book.epub:OEBPS/Text/chapter 1.xhtml:", "book.epub:OEBPS/Text/ch2.xhtml:"
	want := []string{
		ch1 + `7#install [Installing Frob] paragraph "Frob installs from a single archive."`,
		ch1 + `10#install [Installing Frob] list-item "Unpack the archive."`,
		ch1 + `11#install [Installing Frob] list-item "Run the installer."`,
		ch1 + `13#install [Installing Frob] code "$ frob --init"`,
		ch1 + `16#install [Installing Frob] table-row "Option: -q; Meaning: Quiet."`,
		ch2 + `6 [Installing Frob] paragraph "The installer asks no questions."`,
		ch2 + `8#backups [Installing Frob › Backups] paragraph "Frob keeps one backup per file."`,
	}
	if got := doctest.BlockLines(d); !slices.Equal(got, want) {
		t.Errorf("blocks\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, s := range d.Sections {
		if s.Part == "" {
			t.Errorf("section %q has no part", s.Path)
		}
	}
	// Obfuscated fonts are no DRM: the text is read.
	fonts := `<encryption><EncryptedData><CipherData><CipherReference URI="OEBPS/fonts/a.otf"/></CipherData></EncryptedData></encryption>`
	if d, err := ParseEPUB("book.epub", epubBook(t, "META-INF/encryption.xml", fonts)); err != nil || !slices.Equal(doctest.BlockLines(d), want) {
		t.Errorf("with obfuscated fonts: %v", err)
	}
}

// TestEPUBVariants: a book without dc:title takes its first level-1
// heading; a package document at the root of the zip, in another encoding
// than UTF-8, and a content document in windows-1252 are read, and a page
// the guide names as the contents is read when it holds text.
func TestEPUBVariants(t *testing.T) {
	// The guide names a as the contents, as Sphinx names its root page:
	// read, because it holds a paragraph.
	opf := `<?xml version="1.0" encoding="ISO-8859-1"?>
<package xmlns="http://www.idpf.org/2007/opf" version="2.0"><metadata/>
<manifest><item id="a" href="a.html" media-type="text/html"/><item id="b" href="b.xhtml"/></manifest>
<spine><itemref idref="a"/><itemref idref="b" linear="no"/></spine>
<guide><reference type="toc" title="Table of Contents" href="a.html"/></guide></package>`
	book := zipOf(t,
		"META-INF/container.xml", epubContainer("/root.opf"),
		"root.opf", opf,
		"a.html", "<html><head><meta charset=\"windows-1252\"></head><body><h1>Caf\xe9 Guide</h1><p>Order at the counter.</p>",
		"b.xhtml", xhtml("b", "<p>Notes stay.</p>"),
	)
	d, err := ParseEPUB("guide.epub", book)
	if err != nil {
		t.Fatal(err)
	}
	doctest.CheckDocument(t, d)
	want := []string{
		`guide.epub:a.html:1#café-guide [Café Guide] paragraph "Order at the counter."`,
		`guide.epub:b.xhtml:6 [Café Guide] paragraph "Notes stay."`,
	}
	if got := doctest.BlockLines(d); d.Title != "Café Guide" || !slices.Equal(got, want) {
		t.Errorf("title %q, blocks\n%s\nwant\n%s", d.Title, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestEPUBErrors: bad input is an *Error naming the book and the part.
func TestEPUBErrors(t *testing.T) {
	container := epubContainer("OEBPS/content.opf")
	for _, tc := range []struct {
		name string
		data []byte
		msg  string
	}{
		{"not a zip", []byte("%PDF-1.4 nothing"), "not a zip archive"},
		{"empty", nil, "not a zip archive"},
		{"no container", zipOf(t, "mimetype", "application/epub+zip"), "book.epub: META-INF/container.xml: missing from the archive"},
		{"no rootfile", zipOf(t, "META-INF/container.xml", "<container><rootfiles/></container>"), "META-INF/container.xml: names no package document"},
		{"container not XML", zipOf(t, "META-INF/container.xml", "<container><rootfiles><rootfile full-path=\"a\"</container>"), "META-INF/container.xml: line 1: xml:"},
		{"no package document", zipOf(t, "META-INF/container.xml", container), "book.epub: OEBPS/content.opf: missing from the archive"},
		{"package not XML", zipOf(t, "META-INF/container.xml", container, "OEBPS/content.opf", "<package><manifest><item id=\"a\" href=\"x"), "OEBPS/content.opf: line 1: xml: unexpected EOF"},
		{"spine item not in manifest", epubBook(t, "OEBPS/content.opf", strings.Replace(epubPackageDoc, `<itemref idref="ch2"/>`, `<itemref idref="ch9"/>`, 1)), `OEBPS/content.opf: the spine names item "ch9"`},
		{"item missing from the zip", zipOf(t, without("OEBPS/Text/ch2.xhtml", epubFiles(t)...)...), "book.epub: OEBPS/Text/ch2.xhtml: missing from the archive"},
		{"encrypted", epubBook(t, "META-INF/encryption.xml", `<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:CipherData><enc:CipherReference URI="OEBPS/fonts/a.otf"/></enc:CipherData></enc:EncryptedData><enc:EncryptedData><enc:CipherData><enc:CipherReference URI="OEBPS/Text/chapter%201.xhtml"/></enc:CipherData></enc:EncryptedData></encryption>`), "OEBPS/Text/chapter 1.xhtml: encrypted (DRM"},
		{"item not text", epubBook(t, "OEBPS/Text/ch2.xhtml", "<p>a</p>\n\x00\x01\x02"), "OEBPS/Text/ch2.xhtml: line 2: binary data, not XHTML"},
		{"claimed bomb", bombZip(t, "OEBPS/content.opf", 1<<10, 1<<40, "META-INF/container.xml", container), "OEBPS/content.opf: expands to 1099511627776 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseEPUB("book.epub", tc.data)
			doctest.WantError(t, err, "book.epub", tc.msg)
		})
	}
}

// epubFiles returns the fixture book's parts as zipOf takes them.
func epubFiles(t *testing.T) []string {
	z, err := openZip("book.epub", epubBook(t))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range z.z.File {
		b, err := z.part(f.Name)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f.Name, string(b))
	}
	return files
}

// TestZipBomb: a part whose header says it expands past the bound is
// refused before it is decompressed, and one whose header lies is refused
// when its data goes past what the header says; what is held meanwhile
// stays small.
func TestZipBomb(t *testing.T) {
	const size = maxPartBytes + 16<<20
	container := epubContainer("content.opf")
	for _, tc := range []struct {
		name  string
		parse func(string, []byte) (*document.Document, error)
		data  []byte
		msg   string
	}{
		{"book.epub", ParseEPUB, bombZip(t, "content.opf", size, size, "META-INF/container.xml", container), "content.opf: expands to 83886080 bytes, more than the 64 MiB"},
		{"book.epub", ParseEPUB, bombZip(t, "content.opf", size, 100, "META-INF/container.xml", container), "content.opf: corrupt data: zip: not a valid zip file"},
		{"report.docx", ParseDOCX, bombZip(t, "word/document.xml", size, size), "word/document.xml: expands to 83886080 bytes"},
		{"report.docx", ParseDOCX, bombZip(t, "word/document.xml", size, 100), "word/document.xml: corrupt data"},
		{"report.docx", ParseDOCX, bombZip(t, "word/styles.xml", size, size, "word/document.xml", docxDocument(wp("", "x"))), "word/styles.xml: expands to"},
		{"notes.odt", ParseODT, bombZip(t, "content.xml", size, size, "mimetype", odtMimetype), "content.xml: expands to 83886080 bytes"},
		{"notes.odt", ParseODT, bombZip(t, "content.xml", size, 100, "mimetype", odtMimetype), "content.xml: corrupt data"},
		{"notes.odt", ParseODT, bombZip(t, "styles.xml", size, size, "content.xml", odtContentXML("", tp("", 0, "x"))), "styles.xml: expands to"},
		{"notes.odt", ParseODT, bombZip(t, "meta.xml", size, 100, "content.xml", odtContentXML("", tp("", 0, "x"))), "meta.xml: corrupt data"},
	} {
		if len(tc.data) > size/500 {
			t.Fatalf("the bomb is %d bytes", len(tc.data))
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := tc.parse(tc.name, tc.data)
		runtime.ReadMemStats(&after)
		doctest.WantError(t, err, tc.name, tc.msg)
		if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
			t.Errorf("%s: %d KiB allocated for a bomb of %d MiB", tc.msg, got>>10, size>>20)
		}
	}
}
