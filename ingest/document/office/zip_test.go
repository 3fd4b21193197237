package office

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"testing"
)

// zipOf returns a zip archive of files, given as name and content in turn,
// in that order, stored (not compressed: fuzzing builds many, and a
// mutation of stored data is a mutation of the part).
func zipOf(t testing.TB, files ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i := 0; i+1 < len(files); i += 2 {
		f, err := w.CreateHeader(&zip.FileHeader{Name: files[i], Method: zip.Store})
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

// bombZip returns a zip archive of the files given (as zipOf) and of an
// entry named name whose deflated data expands to size zero bytes, while
// its header claims claim bytes.
func bombZip(t testing.TB, name string, size int, claim uint64, files ...string) []byte {
	t.Helper()
	var data bytes.Buffer
	fw, err := flate.NewWriter(&data, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, 1<<20)
	for n := 0; n < size; n += len(zeros) {
		if _, err := fw.Write(zeros[:min(len(zeros), size-n)]); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i := 0; i+1 < len(files); i += 2 {
		f, err := w.Create(files[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(files[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	f, err := w.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, CompressedSize64: uint64(data.Len()), UncompressedSize64: claim})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// epubContainer is a container.xml naming the package document opf.
func epubContainer(opf string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles>
    <rootfile full-path="` + opf + `" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>
`
}

// xhtml is an XHTML content document with title and body.
func xhtml(title, body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head><title>` + title + `</title></head>
<body>
` + body + `
</body>
</html>
`
}

// epubPackageDoc is the package document of the fixture book.
const epubPackageDoc = `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="id">urn:uuid:00000000-0000-0000-0000-000000000000</dc:identifier>
    <dc:title>The Frob Handbook</dc:title>
    <dc:language>en</dc:language>
    <meta property="dcterms:modified">2026-12-01T00:00:00Z</meta>
    <meta name="cover" content="cover-image"/>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>
    <item id="contents" href="Text/contents.xhtml" media-type="application/xhtml+xml"/>
    <item id="ch1" href="Text/chapter%201.xhtml" media-type="application/xhtml+xml"/>
    <item id="ch2" href="Text/ch2.xhtml" media-type="application/xhtml+xml"/>
    <item id="cover" href="cover.jpg" media-type="image/jpeg"/>
  </manifest>
  <spine toc="ncx">
    <itemref idref="nav"/>
    <itemref idref="contents"/>
    <itemref idref="cover"/>
    <itemref idref="ch1"/>
    <itemref idref="ch2"/>
    <itemref idref="ch1"/>
  </spine>
  <guide>
    <reference type="toc" title="Contents" href="Text/contents.xhtml#top"/>
  </guide>
</package>
`

// epubBook returns the fixture book: a navigation document, a guide's
// contents page, a cover, two chapters (the second starting without a
// heading) and the files they are in, as zipOf takes them; files replace
// or add parts.
func epubBook(t testing.TB, files ...string) []byte {
	t.Helper()
	parts := []string{
		"mimetype", "application/epub+zip",
		"META-INF/container.xml", epubContainer("OEBPS/content.opf"),
		"OEBPS/content.opf", epubPackageDoc,
		"OEBPS/nav.xhtml", xhtml("Navigation", `<nav epub:type="toc"><ol><li><a href="Text/chapter%201.xhtml">Installing Frob</a></li></ol></nav>
<p>Navigation page text.</p>`),
		"OEBPS/toc.ncx", `<?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/"><navMap><navPoint><navLabel><text>NCX text.</text></navLabel></navPoint></navMap></ncx>`,
		"OEBPS/Text/contents.xhtml", xhtml("Contents", `<h1 id="top">Contents</h1><ul><li><a href="chapter%201.xhtml">Installing Frob</a></li><li><a href="ch2.xhtml#backups">Backups</a></li></ul>`),
		"OEBPS/cover.jpg", "\xff\xd8\xff\xe0 not text",
		"OEBPS/Text/chapter 1.xhtml", xhtml("Chapter 1", `<h1 id="install">Installing Frob</h1>
<p>Frob installs from
a single archive.</p>
<ul>
<li>Unpack the archive.</li>
<li>Run the installer.</li>
</ul>
<pre>$ frob --init</pre>
<table>
<tr><th>Option</th><th>Meaning</th></tr>
<tr><td>-q</td><td>Quiet.</td></tr>
</table>`),
		"OEBPS/Text/ch2.xhtml", xhtml("Chapter 2", `<p>The installer asks no questions.</p>
<h2>Backups</h2>
<p>Frob keeps one backup per file.</p>`),
	}
	for i := 0; i+1 < len(files); i += 2 {
		found := false
		for j := 0; j < len(parts); j += 2 {
			if parts[j] == files[i] {
				parts[j+1], found = files[i+1], true
			}
		}
		if !found {
			parts = append(parts, files[i], files[i+1])
		}
	}
	return zipOf(t, parts...)
}

// without returns the parts of a zipOf list but for the one named name.
func without(name string, files ...string) []string {
	var out []string
	for i := 0; i+1 < len(files); i += 2 {
		if files[i] != name {
			out = append(out, files[i], files[i+1])
		}
	}
	return out
}

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`

// docxDocument wraps body in a document.xml.
func docxDocument(body string) string {
	return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document ` + wordNS + ` xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math">
<w:body>
` + body + `
<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr>
</w:body>
</w:document>
`
}

// wp is a paragraph of style (none if "") holding the runs given as text
// ("" for none: runs as raw XML go in rawRuns).
func wp(style, text string) string {
	ppr := ""
	if style != "" {
		ppr = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	r := ""
	if text != "" {
		r = `<w:r><w:t xml:space="preserve">` + text + `</w:t></w:r>`
	}
	return `<w:p>` + ppr + r + `</w:p>`
}

// docxStyles is the styles.xml of the fixture documents: built-in styles
// by their names (one with a localized id), a style based on a heading,
// a list style with numbering, a code and a quote style.
const docxStyles = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles ` + wordNS + `>
<w:latentStyles><w:lsdException w:name="heading 1"/></w:latentStyles>
<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="berschrift1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/><w:pPr><w:numPr><w:numId w:val="3"/></w:numPr><w:outlineLvl w:val="1"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="StepHead"><w:name w:val="Step Head"/><w:basedOn w:val="Heading2"/></w:style>
<w:style w:type="paragraph" w:styleId="TOC1"><w:name w:val="toc 1"/><w:basedOn w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="ListBullet"><w:name w:val="List Bullet"/><w:pPr><w:numPr><w:numId w:val="1"/></w:numPr></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="Plain"><w:name w:val="Plain"/><w:basedOn w:val="ListBullet"/><w:pPr><w:numPr><w:numId w:val="0"/></w:numPr></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="SourceCode"><w:name w:val="Source Code"/></w:style>
<w:style w:type="paragraph" w:styleId="Quote"><w:name w:val="Quote"/></w:style>
<w:style w:type="character" w:styleId="Heading1Char"><w:name w:val="Heading 1 Char"/></w:style>
<w:style w:type="table" w:styleId="ListTable1"><w:name w:val="List Table 1 Light"/></w:style>
</w:styles>
`

// docxCore is a docProps/core.xml with the title given.
func docxCore(title string) string {
	return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>` + title + `</dc:title><dc:creator>x</dc:creator></cp:coreProperties>`
}

// docxRels is the package relationships part naming word/document.xml.
const docxRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`

// docx returns a Word document of the body given, with the fixture styles;
// files replace or add parts ("" content removes one).
func docx(t testing.TB, body string, files ...string) []byte {
	t.Helper()
	parts := []string{
		"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
		"_rels/.rels", docxRels,
		"word/document.xml", docxDocument(body),
		"word/styles.xml", docxStyles,
	}
	for i := 0; i+1 < len(files); i += 2 {
		parts = without(files[i], parts...)
		if files[i+1] != "" {
			parts = append(parts, files[i], files[i+1])
		}
	}
	return zipOf(t, parts...)
}
