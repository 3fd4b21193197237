package document

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// fuzzParse parses data and checks the outcome: never a panic; an error is
// an *Error naming the file; a document satisfies checkDocument.
func fuzzParse(t *testing.T, f Format, data []byte) {
	d, err := Parse("in", f, data)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrMalformed) || e.Name != "in" || e.Msg == "" {
			t.Fatalf("error %T %v is not an *Error naming the file", err, err)
		}
		return
	}
	checkDocument(t, d)
}

func addFixtures(f *testing.F, names ...string) {
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func FuzzMarkdown(f *testing.F) {
	addFixtures(f, "guide.md")
	for _, s := range []string{"", "# h\n\ntext", "---\na: b\n---\n", "| a |\n|---|\n| b |", "<div>\n*x*\n</div>", "> > - 1. `c`\n", "__init__ __x__ _y_", "[a]: b\n[a]", "!!! note \"t\"\n    body\n\n    more\nout", "- ???+ tip\n      in a list\n", "> [!NOTE]\n> x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, Markdown, data) })
}

func FuzzText(f *testing.F) {
	addFixtures(f, "harbour.txt", "frob.txt")
	for _, s := range []string{"", "a\n===\n", "===\n a\n===\n", "- x\ny\n\n1) z", "===\n\n---\n", "ABC\n\n", "a. b\n\xff\n", "\ufeff- \n  - \n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, Text, data) })
}

func FuzzHTML(f *testing.F) {
	addFixtures(f, "manual.html")
	for _, s := range []string{"", "<h1>a</h1><p>b", "<table><tr><th>a<td>b", "<dl><dt>t<dd>d", "<pre>x</pre>", "<head><title>t</title>", "<ul><li><ul><li>x", "\xff\xfe<\x00p\x00>"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, HTML, data) })
}

func FuzzPDF(f *testing.F) {
	f.Add(manualPDF(f))
	f.Add(handbookPDF(f)) // a composite font: two bytes a glyph
	f.Add([]byte("%PDF-1.4\n%%EOF"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, PDF, data) })
}

func FuzzMan(f *testing.F) {
	addFixtures(f, "frob.1", "gizmo.1")
	for _, s := range []string{"", ".TH X 1\n.SH A\ntext", ".TP\n.B \\-e\nExit.\n.RS\n.TP\nx\ny\n.RE", ".TS\ntab(:);\nlb l.\na:b\nc:T{\nd\nT}\n.TE", ".de a\n.a\n..\n.a", ".ie n \\{\\\nx\n.\\}\n.el \\{\\\ny\n.\\}", "\\(bu\\[u00e9]\\*(lq\\s-1\\fBx\\c\ny", ".Dd x\n.Bl -tag\n.It Xo\n.Fl a\n.Xc\nz\n.El", ".Dd x\n.Bl -column a b\n.It Sy a Ta Sy b\n.It c Ta d\n.El", "caf\xe9\n.PP\n\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, Man, data) })
}

func FuzzRST(f *testing.F) {
	addFixtures(f, "widget.rst")
	for _, s := range []string{
		"",
		"Title\n=====\n\ntext *em* ``lit`` :ref:`a <b>` x_ [1]_ |s|\n",
		"- a\n\n  - b\n\n    1. c\n       d\n",
		"term : cls\n   def\n\n   inner\n      deeper\n",
		":field: body\n-a, --all  opts\n\n| line\n| block\n",
		"Text::\n\n    code\n\n>>> doctest\n",
		"=====  =====\na      b\n=====  =====\n1      2\n=====  =====\n",
		"+---+---+\n| a | b |\n+===+===+\n| c     |\n+---+   +\n| d |   |\n+---+---+\n",
		".. note:: x\n.. function:: f(a)\n\n   :param a: b\n\n   .. method:: g()\n\n      h\n",
		".. csv-table:: T\n   :header: a, b\n\n   1, \"2\n.. list-table::\n\n   * - a\n     - b\n",
		".. |a| replace:: |a| *b*\n.. |u| unicode:: 0x110000 U+41\n|a| |u|\n",
		"\xef\xbb\xbfcaf\xe9\r\n\t- \x00\n====\n\xff\n::\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, RST, data) })
}

// FuzzInfo parses arbitrary input as Info: never a panic; an error is an
// *Error naming the file; a document satisfies checkDocument.
func FuzzInfo(f *testing.F) {
	addFixtures(f, "frobutils.info")
	for _, s := range []string{
		"",
		"\x1f\nFile: x,  Node: Top,  Up: (dir)\n\nT\n*\n\ntext *note a::\n",
		"\x1f\nFile: x,  Node: A\n\n‘-a’\n‘--all’\n     desc\n\n     ‘x’\n          nested\n",
		"\x1f\nNode: B\n\n -- Function: int f (int\n          a)\n     Does.\n",
		"\x1f\nNode: C\n\n   • one\n  1. two\n     * Menu:\n* a::\n\nafter\n",
		"\x1f\nNode: D\n\nA   B\n   \n----------\nx   y\n    \n",
		"\x1f\nNode: E\n\nx(1)\n\n   ---------- Footnotes ----------\n\n   (1) n\n",
		"\x1f\nNode: F\n\n\x00\x08[index\x00\x08]\n* a: b. (line 1)\n",
		"\x1f\nIndirect:\nx-1: 1\n\x1f\nTag Table:\n(Indirect)\nNode: Top\x7f1\n\x1f\nEnd Tag Table\n",
		"\x1f\nNode: \x7fG, h\x7f\n\n*note \x7fi: j\x7f:: _k_ *l* ‘m’\r\n\xff\xfe\n\x1f\nLocal Variables:\ncoding: latin-1\nEnd:\n",
		"\x1f\nNode: H\n\n\x00\x08[image\n     $ code\n\t\ttab\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, Info, data) })
}

// FuzzEPUB parses arbitrary input as an EPUB, and the fixture book with a
// chapter and with its package document replaced by arbitrary input (a
// zip's checksums keep mutated archives from reaching the parts): never a
// panic; an error is an *Error naming the file; a document satisfies
// checkDocument.
func FuzzEPUB(f *testing.F) {
	f.Add(epubBook(f), []byte(xhtml("c", "<h1 id=a>A</h1><p>b</p><h2 id=a>A</h2><ul><li>c</ul>")))
	f.Add([]byte("PK\x03\x04"), []byte(epubPackageDoc))
	f.Add([]byte{}, []byte("<package><manifest><item id='a' href='../../%zz#x' properties='nav'/></manifest><spine toc='a'><itemref idref='a'/></spine></package>"))
	f.Fuzz(func(t *testing.T, data, part []byte) {
		fuzzParse(t, EPUB, data)
		fuzzParse(t, EPUB, epubBook(t, "OEBPS/Text/ch2.xhtml", string(part)))
		fuzzParse(t, EPUB, epubBook(t, "OEBPS/content.opf", string(part)))
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
	f.Fuzz(func(t *testing.T, data, part []byte) {
		fuzzParse(t, DOCX, data)
		fuzzParse(t, DOCX, docx(t, docxBody, "word/document.xml", string(part)))
		fuzzParse(t, DOCX, docx(t, docxBody, "word/styles.xml", string(part)))
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
	f.Fuzz(func(t *testing.T, data, part []byte) {
		fuzzParse(t, ODT, data)
		fuzzParse(t, ODT, odt(t, odtBody, "content.xml", string(part)))
		fuzzParse(t, ODT, odt(t, odtBody, "styles.xml", string(part)))
	})
}

// FuzzAsciiDoc parses arbitrary input as AsciiDoc: never a panic; an error
// is an *Error naming the file; a document satisfies checkDocument.
func FuzzAsciiDoc(f *testing.F) {
	for _, s := range []string{
		"",
		"= T\nA <a@b>\n:x: y\n\n== S\n\ntext *b* _i_ `m` {x} https://u[v] <<a,b>>\n",
		"* a\n** b\n+\nmore\n+\n----\nc\n----\n. d\nt:: u\nv;; w\n",
		"[cols=\"1,2\",options=\"header\"]\n|===\n|a |b\n2+|c\n|===\n,===\nx,\"y\n,===\n",
		"[NOTE]\n====\nn\n====\nTIP: t\n[quote]\n____\nq\n____\n////\nc\n",
		"[[id]]\n== h\n[#id]\n== h\n.title\n[source,go]\n----\nx\n",
		"\xef\xbb\xbfcaf\xe9\r\n\t* \x00\n====\n\xff\n::\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, AsciiDoc, data) })
}

// FuzzOrg parses arbitrary input as Org mode: never a panic or a hang; an
// error is an *Error naming the file; a document satisfies checkDocument.
func FuzzOrg(f *testing.F) {
	for _, s := range []string{
		"",
		"#+TITLE: T /x/\n#+OPTIONS: toc:t\nIntro[fn:1].\n* TODO [#A] H :a:b:\nSCHEDULED: <2024-05-01 Wed>\n:PROPERTIES:\n:CUSTOM_ID: h\n:END:\n*b* /i/ =v= ~c~ [[https://u][t]]\n* Footnotes\n[fn:1] n\n",
		"- a\n  - b\n1. c\n- t :: d\n| A | B |\n|---+---|\n| 1 | 2 |\n",
		"#+BEGIN_SRC go\n* x\n#+END_SRC\n#+BEGIN_EXAMPLE\ne\n#+END_EXAMPLE\n#+BEGIN_QUOTE\nq\n#+END_QUOTE\n: f\n",
		"#+MACRO: m $1 {{{m(x)}}}\n{{{m(y)}}}\n#+INCLUDE: \"x.org\"\n#+HTML: <h1>r</h1>\n@@html:<b>@@\n",
		"\xef\xbb\xbf** caf\xe9\r\n\t* \x00\n#+BEGIN_SRC\n\xff\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, Org, data) })
}
