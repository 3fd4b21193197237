package office

import (
	"github.com/reqa/reqa/ingest/document/internal/doctest"
	"slices"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest/document"
)

// docxBody is the body of the fixture Word document.
var docxBody = strings.Join([]string{
	wp("Title", "Frob Manual"),
	wp("TOC1", "Installing\t1"),
	wp("berschrift1", "Installing"),
	// Runs: a tracked insertion kept, a deletion and a move away dropped,
	// a soft line break, a tab, a non-breaking hyphen, a symbol, a field's
	// result without its instructions, hidden text, a text box.
	`<w:p><w:r><w:t>Frob</w:t></w:r><w:ins w:id="1"><w:r><w:t xml:space="preserve"> installs</w:t></w:r></w:ins>` +
		`<w:del w:id="2"><w:r><w:delText xml:space="preserve"> never</w:delText></w:r></w:del>` +
		`<w:moveFrom w:id="3"><w:r><w:t>moved</w:t></w:r></w:moveFrom>` +
		`<w:r><w:t xml:space="preserve"> quickly.</w:t><w:br/><w:t>Then</w:t><w:tab/><w:t>re</w:t><w:noBreakHyphen/><w:t>run</w:t><w:sym w:font="Wingdings" w:char="F0E0"/><w:t xml:space="preserve"> it; see page </w:t></w:r>` +
		`<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> PAGEREF _Toc1 \h </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>12</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>` +
		`<w:r><w:rPr><w:vanish/></w:rPr><w:t>secret</w:t></w:r><w:hyperlink r:id="rId9" xmlns:r="x"><w:r><w:t>.</w:t></w:r></w:hyperlink>` +
		`<w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:txbxContent><w:p><w:r><w:t>Box text.</w:t></w:r></w:p></w:txbxContent></w:drawing></mc:Choice><mc:Fallback><w:pict><w:t>Fallback.</w:t></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>`,
	`<w:p><w:pPr><w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="0"/><w:numId w:val="2"/></w:numPr></w:pPr><w:r><w:t>Unpack the archive.</w:t></w:r></w:p>`,
	`<w:p><w:pPr><w:numPr><w:ilvl w:val="1"/><w:numId w:val="2"/></w:numPr></w:pPr><w:r><w:t>Check its signature.</w:t></w:r></w:p>`,
	wp("ListBullet", "Run the installer."),
	wp("", ""),
	wp("Plain", "Not a list item."),
	wp("SourceCode", "$ frob --init"),
	`<w:p><w:pPr><w:pStyle w:val="SourceCode"/></w:pPr><w:r><w:t xml:space="preserve">  --force</w:t><w:tab/><w:t>again</w:t></w:r></w:p>`,
	wp("Quote", "Frobbing is an art."),
	wp("StepHead", "Options"),
	`<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/><w:tblLook w:val="04A0" w:firstRow="1" w:lastRow="0"/></w:tblPr><w:tblGrid/>` +
		`<w:tr><w:tc><w:p><w:r><w:t>Option</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Meaning</w:t></w:r></w:p></w:tc></w:tr>` +
		`<w:tr><w:tc><w:p><w:r><w:t>-q</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Quiet.</w:t></w:r></w:p><w:p><w:r><w:t>Prints nothing.</w:t></w:r></w:p></w:tc></w:tr>` +
		`<w:tr><w:tc><w:tcPr><w:gridSpan w:val="2"/></w:tcPr><w:p><w:r><w:t>Both columns.</w:t></w:r></w:p></w:tc></w:tr></w:tbl>`,
	`<w:tbl><w:tblPr><w:tblLook w:val="0000"/></w:tblPr>` +
		`<w:tr><w:tc><w:p><w:r><w:t>Outer</w:t></w:r></w:p><w:tbl><w:tr><w:tc><w:p><w:r><w:t>in a</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>in b</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:tc>` +
		`<w:tc><w:p><w:r><w:t>Right</w:t></w:r></w:p></w:tc></w:tr></w:tbl>`,
	`<w:p><w:pPr><w:outlineLvl w:val="2"/></w:pPr><w:r><w:t>Limits</w:t></w:r></w:p>`,
	`<w:sdt><w:sdtPr><w:alias w:val="x"/></w:sdtPr><w:sdtContent>` + wp("", "Files over two gigabytes are refused.") + `</w:sdtContent></w:sdt>`,
	`<w:p><w:pPr><w:rPr><w:del w:id="5"/></w:rPr><w:pPrChange><w:pPr><w:pStyle w:val="Heading2"/></w:pPr></w:pPrChange></w:pPr><w:r><w:t>Formatting history is not read.</w:t></w:r></w:p>`,
	`<w:p><m:oMathPara><m:oMath><m:r><m:t>x=1</m:t></m:r></m:oMath></m:oMathPara></w:p>`,
}, "\n")

// TestDOCX reads the fixture document: styles by their names (a localized
// id, a style based on a heading), outline levels, a Title above the
// headings, runs with tracked changes, fields, breaks and hidden text,
// lists, code, quotes and tables; the table of contents is not read.
func TestDOCX(t *testing.T) {
	d, err := ParseDOCX("report.docx", docx(t, docxBody, "docProps/core.xml", docxCore("The Frob Manual")))
	if err != nil {
		t.Fatal(err)
	}
	doctest.CheckDocument(t, d)
	if d.Title != "The Frob Manual" || d.Format != document.DOCX {
		t.Errorf("title %q format %q, want core.xml's dc:title and docx", d.Title, d.Format)
	}
	want := []string{
		`report.docx:4#installing [Frob Manual › Installing] paragraph "Frob installs quickly. Then re-run it; see page 12."`,
		`report.docx:5#installing [Frob Manual › Installing] list-item "Unpack the archive."`,
		`report.docx:6#installing [Frob Manual › Installing] list-item "Check its signature."`,
		`report.docx:7#installing [Frob Manual › Installing] list-item "Run the installer."`,
		`report.docx:9#installing [Frob Manual › Installing] paragraph "Not a list item."`,
		"report.docx:10#installing [Frob Manual › Installing] code \"$ frob --init\\n  --force\\tagain\"",
		`report.docx:12#installing [Frob Manual › Installing] quote "Frobbing is an art."`,
		`report.docx:16#options [Frob Manual › Installing › Options] table-row "Option: -q; Meaning: Quiet. Prints nothing."`,
		`report.docx:19#options [Frob Manual › Installing › Options] table-row "Option: Both columns."`,
		`report.docx:20#options [Frob Manual › Installing › Options] table-row "Outer in a; in b; Right"`,
		`report.docx:25#limits [Frob Manual › Installing › Options › Limits] paragraph "Files over two gigabytes are refused."`,
		`report.docx:26#limits [Frob Manual › Installing › Options › Limits] paragraph "Formatting history is not read."`,
	}
	if got := doctest.BlockLines(d); !slices.Equal(got, want) {
		t.Errorf("blocks\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var groups []int
	for _, b := range d.Sections[1].Blocks {
		groups = append(groups, b.Group)
	}
	if groups[1] != groups[2] || groups[2] != groups[3] || groups[0] == groups[1] || groups[3] == groups[4] {
		t.Errorf("groups %v: the three list items should share one", groups)
	}
}

// TestDOCXTitles: without core.xml's title the Title paragraph is the
// title; without either, the first level-1 heading, headings keeping their
// levels. Without styles.xml, styles are judged by their ids.
func TestDOCXTitles(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		files      []string
		title      string
		paths      []string
	}{
		{"Title paragraph", wp("Title", "Frob") + wp("Heading1", "Use") + wp("", "Text."), nil, "Frob", []string{"Frob", "Frob › Use"}},
		{"empty core title", wp("Title", "Frob") + wp("", "Text."), []string{"docProps/core.xml", docxCore(" ")}, "Frob", []string{"Frob"}},
		{"first heading", wp("Heading1", "Use") + wp("Heading2", "More") + wp("", "Text."), nil, "Use", []string{"Use", "Use › More"}},
		{"no styles part", wp("Heading1", "Use") + wp("ListBullet", "Item.") + wp("Heading10", "Not a heading."), []string{"word/styles.xml", ""}, "Use", []string{"Use"}},
		{"main part named by relationships", "", []string{"_rels/.rels", strings.Replace(docxRels, "word/document.xml", "/word/main.xml", 1), "word/main.xml", docxDocument(wp("Heading1", "Main"))}, "Main", []string{"Main"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ParseDOCX("a.docx", docx(t, tc.body, tc.files...))
			doctest.CheckOutline(t, d, err, tc.title, tc.paths)
		})
	}
}

// TestDOCXErrors: bad input is an *Error naming the file and the part.
func TestDOCXErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		msg  string
	}{
		{"not a zip", []byte("PK\x03\x04 cut short"), "report.docx: not a zip archive"},
		{"no main part", zipOf(t, "[Content_Types].xml", "<Types/>"), "report.docx: word/document.xml: missing from the archive"},
		{"main part missing", docx(t, "", "_rels/.rels", strings.Replace(docxRels, "word/document.xml", "word/gone.xml", 1)), "report.docx: word/gone.xml: missing from the archive"},
		{"main part not XML", docx(t, "", "word/document.xml", "<w:document "+wordNS+"><w:body>\n<w:p><w:r><w:t>a</w:r></w:p></w:body></w:document>"), "word/document.xml: line 2: xml: element <t> closed by </r>"},
		{"main part cut short", docx(t, "", "word/document.xml", "<w:document "+wordNS+"><w:body><w:p>"), "word/document.xml: line 1: xml: unexpected EOF"},
		{"styles not XML", docx(t, wp("", "a"), "word/styles.xml", "<w:styles "+wordNS+"><w:style>"), "word/styles.xml: line 1: xml: unexpected EOF"},
		{"core not XML", docx(t, wp("", "a"), "docProps/core.xml", "<cp:coreProperties><dc:title>x"), "docProps/core.xml: "},
		{"relationships not XML", docx(t, wp("", "a"), "_rels/.rels", "<Relationships><"), "_rels/.rels: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseDOCX("report.docx", tc.data)
			doctest.WantError(t, err, "report.docx", tc.msg)
		})
	}
}
