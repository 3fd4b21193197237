package ingest

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/store"
)

// zipFiles returns a zip archive of files, given as name and content in
// turn.
func zipFiles(t testing.TB, files ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i := 0; i+1 < len(files); i += 2 {
		method := zip.Deflate
		if files[i] == "mimetype" {
			method = zip.Store // as EPUB requires: readers sniff it
		}
		f, err := w.CreateHeader(&zip.FileHeader{Name: files[i], Method: method})
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

// TestReadOffice reads an EPUB and a Word document (gzipped too) in a
// directory walk: they are not refused as binary, their headings give the
// titles, EPUB anchors name the chapter's file and DOCX ones the
// paragraph; a broken one is refused naming its part, and the walk goes
// on.
func TestReadOffice(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"books/keeper.epub":     string(epubBook(t)),
		"office/ferry.docx.gz":  string(gzipped(t, wordDoc(t))),
		"office/broken.docx":    string(zipFiles(t, "word/styles.xml", "<w:styles/>")),
		"office/old-format.doc": "\xd0\xcf\x11\xe0 not read",
	})
	c, kinds := readWalk(t, dir, []string{
		"The keeper trims the wick at dusk. | The Lamp | " + string(store.KindParagraph),
		"The foghorn sounds twice a minute in fog. | The Fog Signal › Foghorns | " + string(store.KindListItem),
		"The ferry leaves the harbour at nine. | Ferry Timetable › Crossings | " + string(store.KindParagraph),
		"Ticket: Child; Price: Free on weekdays | Ferry Timetable › Crossings › Fares | " + string(store.KindTableRow),
	})
	for p, k := range map[string]string{"books/keeper.epub": "epub read", "office/ferry.docx.gz": "docx read", "office/broken.docx": "docx refused", "office/old-format.doc": "other skipped"} {
		if kinds[p] != k {
			t.Errorf("%s: %q, want %q", p, kinds[p], k)
		}
	}
	for _, f := range c.Files {
		if strings.HasSuffix(f.Path, "broken.docx") && !strings.Contains(f.Reason, "word/document.xml: missing from the archive") {
			t.Errorf("broken.docx: reason %q, want the part named", f.Reason)
		}
	}
	var anchors []string
	for _, x := range candidates(c) {
		anchors = append(anchors, strings.TrimPrefix(x.anchor, dir+string(filepath.Separator)))
	}
	want := []string{"books/keeper.epub:OEBPS/ch1.xhtml:4#the-lamp", "books/keeper.epub:OEBPS/ch2.xhtml:5#foghorns", "office/ferry.docx.gz:3#crossings", "office/ferry.docx.gz:7#fares"}
	if strings.Join(anchors, " ") != strings.Join(want, " ") {
		t.Errorf("anchors %q, want %q", anchors, want)
	}
}

// TestReadOfficeStdin: standard input is sniffed as EPUB (its mimetype
// entry) or DOCX, or read as the kind given.
func TestReadOfficeStdin(t *testing.T) {
	for _, tc := range []struct {
		kind string
		data []byte
		want string
	}{
		{"", epubBook(t), "epub"},
		{"", wordDoc(t), "docx"},
		{"docx", wordDoc(t), "docx"},
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
}

// TestAskOffice builds an index of an EPUB and a Word document and asks
// it: the answers come with their heading paths as titles and their
// anchors.
func TestAskOffice(t *testing.T) {
	dir := writeFiles(t, map[string]string{"keeper.epub": string(epubBook(t)), "ferry.docx": string(wordDoc(t))})
	c, err := ReadInputs([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "x.reqa")
	if _, err := Build(context.Background(), c, out, Options{Tokenizers: []string{"word"}}); err != nil {
		t.Fatal(err)
	}
	e, err := rank.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.Ranker("bm25-word")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ q, sentence, title, source string }{
		{"how often does the foghorn sound", "The foghorn sounds twice a minute in fog.", "The Fog Signal › Foghorns", "keeper.epub:OEBPS/ch2.xhtml:5#foghorns"},
		{"when does the ferry leave the harbour", "The ferry leaves the harbour at nine.", "Ferry Timetable › Crossings", "ferry.docx:3#crossings"},
	} {
		a, err := e.Ask(r, tc.q, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(a) == 0 || a[0].Sentence != tc.sentence || a[0].Title != tc.title || !strings.HasSuffix(a[0].Source, string(filepath.Separator)+tc.source) {
			t.Errorf("%q: %+v, want %q under %q at %s", tc.q, a, tc.sentence, tc.title, tc.source)
		}
	}
}
