package office

import (
	"fmt"
	"github.com/reqa/reqa/ingest/document/internal/doctest"
	"slices"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest/document"
)

// odfNS declares the OpenDocument namespaces the fixtures use.
const odfNS = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" ` +
	`xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ` +
	`xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" ` +
	`xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" xmlns:xlink="http://www.w3.org/1999/xlink"`

// odtAutoStyles are the automatic styles of the fixture content.xml, as
// LibreOffice writes them for paragraphs with direct formatting: each
// inherits from a common style of odtStyles.
const odtAutoStyles = `<style:style style:name="P1" style:family="paragraph" style:parent-style-name="Preformatted_20_Text"><style:text-properties fo:font-weight="bold"/></style:style>
<style:style style:name="P2" style:family="paragraph" style:parent-style-name="Quotations"/>
<style:style style:name="P3" style:family="paragraph" style:parent-style-name="Title"/>
<style:style style:name="P4" style:family="paragraph" style:parent-style-name="Step_20_Head"/>
<style:style style:name="T1" style:family="text"><style:text-properties fo:font-style="italic"/></style:style>`

// odtBody is the body of the fixture document.
var odtBody = strings.Join([]string{
	`<text:tracked-changes><text:changed-region text:id="ct1"><text:deletion><office:change-info><dc:creator>x</dc:creator></office:change-info><text:p>deleted words</text:p></text:deletion></text:changed-region></text:tracked-changes>`,
	`<text:sequence-decls><text:sequence-decl text:display-outline-level="0" text:name="Table"/></text:sequence-decls>`,
	`<text:p text:style-name="P3">Frob Manual</text:p>`,
	`<text:table-of-content text:name="Contents"><text:table-of-content-source/><text:index-body><text:index-title><text:p text:style-name="Contents_20_Heading">Contents</text:p></text:index-title><text:p text:style-name="Contents_20_1">Installing<text:tab/>1</text:p></text:index-body></text:table-of-content>`,
	`<text:h text:style-name="Heading_20_1" text:outline-level="1"><text:number>1.</text:number>Installing</text:h>`,
	// Spaces, a tab, a line break, a span, a link, a bookmark, a note, a
	// comment, a tracked deletion's mark, a frame and a soft page break.
	`<text:p text:style-name="Text_20_body">Frob   installs<text:s text:c="3"/>quickly<text:change text:change-id="ct1"/>.<text:line-break/>Then<text:tab/>re-run ` +
		`<text:span text:style-name="T1">it</text:span><text:note text:id="ftn1" text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>A footnote.</text:p></text:note-body></text:note>; ` +
		`see <text:a xlink:href="https://example.com/">the site</text:a><text:bookmark text:name="b"/>.<office:annotation><dc:creator>x</dc:creator><text:p>A comment.</text:p></office:annotation>` +
		`<draw:frame draw:name="f"><draw:text-box><text:p>Box text.</text:p></draw:text-box></draw:frame><text:soft-page-break/> </text:p>`,
	`<text:list text:style-name="L1"><text:list-item><text:p text:style-name="P5">Unpack the archive.</text:p>` +
		`<text:list><text:list-item><text:p>Check its signature.</text:p></text:list-item></text:list></text:list-item>` +
		`<text:list-item><text:p>Run the installer.</text:p></text:list-item></text:list>`,
	`<text:p text:style-name="Standard"/>`,
	`<text:p text:style-name="Standard">Not a list item.</text:p>`,
	`<text:p text:style-name="P1">$ frob <text:s/>--init</text:p>`,
	`<text:p text:style-name="Source_20_Text"><text:s text:c="2"/>--force<text:tab/>again</text:p>`,
	`<text:p text:style-name="P2">Frobbing is an art.</text:p>`,
	`<text:p text:style-name="Quotations">So is waiting.</text:p>`,
	`<text:p text:style-name="P4">Options</text:p>`,
	`<table:table table:name="T1"><table:table-column table:number-columns-repeated="2"/>` +
		`<table:table-header-rows><table:table-row><table:table-cell><text:p text:style-name="Table_20_Heading">Option</text:p></table:table-cell><table:table-cell><text:p>Meaning</text:p></table:table-cell></table:table-row></table:table-header-rows>` +
		`<table:table-row><table:table-cell><text:p>-q</text:p></table:table-cell><table:table-cell><text:p>Quiet.</text:p><text:p>Prints nothing.</text:p></table:table-cell></table:table-row>` +
		`<table:table-row><table:table-cell table:number-columns-spanned="2"><text:p>Both columns.</text:p></table:table-cell><table:covered-table-cell/></table:table-row>` +
		`<table:table-row><table:covered-table-cell/><table:table-cell><text:p>Second column.</text:p></table:table-cell></table:table-row></table:table>`,
	`<table:table><table:table-rows><table:table-row><table:table-cell><text:p>Outer</text:p><table:table table:is-sub-table="true"><table:table-row><table:table-cell><text:p>in a</text:p></table:table-cell><table:table-cell><text:p>in b</text:p></table:table-cell></table:table-row></table:table></table:table-cell>` +
		`<table:table-cell><text:p>Right</text:p></table:table-cell></table:table-row></table:table-rows></table:table>`,
	`<text:h text:style-name="Heading_20_3">Limits</text:h>`,
	`<text:section text:name="S1"><text:p>Files over two gigabytes are refused.</text:p></text:section>`,
	`<text:alphabetical-index text:name="Index"><text:index-body><text:p>frob, 1</text:p></text:index-body></text:alphabetical-index>`,
	`<text:p text:style-name="Outline_20_Para">Limits are enforced.</text:p>`,
}, "\n")

// odtStyles is the styles.xml of the fixture documents: LibreOffice's
// common styles (named with ODF's escapes, display names as written), a
// style inheriting from a heading, one with a default outline level, and
// automatic styles of master pages that must not be read as the content's.
const odtStyles = `<?xml version="1.0" encoding="UTF-8"?>
<office:document-styles ` + odfNS + ` office:version="1.3">
<office:styles>
<style:default-style style:family="paragraph"/>
<style:style style:name="Standard" style:family="paragraph" style:class="text"/>
<style:style style:name="Heading" style:family="paragraph" style:parent-style-name="Standard" style:next-style-name="Text_20_body"/>
<style:style style:name="Text_20_body" style:display-name="Text body" style:family="paragraph" style:parent-style-name="Standard"/>
<style:style style:name="Title" style:family="paragraph" style:parent-style-name="Heading"/>
<style:style style:name="Heading_20_1" style:display-name="Heading 1" style:family="paragraph" style:parent-style-name="Heading" style:default-outline-level="1"/>
<style:style style:name="Heading_20_2" style:display-name="Heading 2" style:family="paragraph" style:parent-style-name="Heading" style:default-outline-level="2"/>
<style:style style:name="Heading_20_3" style:display-name="Heading 3" style:family="paragraph" style:parent-style-name="Heading" style:default-outline-level="3"/>
<style:style style:name="Step_20_Head" style:display-name="Step Head" style:family="paragraph" style:parent-style-name="Heading_20_2"/>
<style:style style:name="Outline_20_Para" style:display-name="Outline Para" style:family="paragraph" style:parent-style-name="Standard" style:default-outline-level=""/>
<style:style style:name="Preformatted_20_Text" style:display-name="Preformatted Text" style:family="paragraph" style:parent-style-name="Standard"/>
<style:style style:name="Source_20_Text" style:display-name="Source Text" style:family="text"/>
<style:style style:name="Source_20_Text" style:display-name="Source Text" style:family="paragraph" style:parent-style-name="Standard"/>
<style:style style:name="Quotations" style:family="paragraph" style:parent-style-name="Standard"/>
<style:style style:name="Loop_20_A" style:family="paragraph" style:parent-style-name="Loop_20_B"/>
<style:style style:name="Loop_20_B" style:family="paragraph" style:parent-style-name="Loop_20_A"/>
</office:styles>
<office:automatic-styles><style:style style:name="P1" style:family="paragraph" style:parent-style-name="Heading_20_1"/></office:automatic-styles>
<office:master-styles><style:master-page style:name="Standard"><style:header><text:p>Running header.</text:p></style:header></style:master-page></office:master-styles>
</office:document-styles>
`

// odtContentXML wraps automatic styles and a body in a content.xml.
func odtContentXML(auto, body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content ` + odfNS + ` office:version="1.3">
<office:font-face-decls/>
<office:automatic-styles>` + auto + `</office:automatic-styles>
<office:body>
<office:text>
` + body + `
</office:text>
</office:body>
</office:document-content>
`
}

// odtMeta is a meta.xml with the title given.
func odtMeta(title string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<office:document-meta ` + odfNS + ` office:version="1.3"><office:meta><meta:generator>LibreOffice</meta:generator><dc:title>` + title + `</dc:title></office:meta></office:document-meta>`
}

// odt returns an OpenDocument text of the body given, with the fixture
// styles; files replace or add parts ("" content removes one).
func odt(t testing.TB, body string, files ...string) []byte {
	t.Helper()
	parts := []string{
		"mimetype", odtMimetype,
		"META-INF/manifest.xml", `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`,
		"content.xml", odtContentXML(odtAutoStyles, body),
		"styles.xml", odtStyles,
	}
	for i := 0; i+1 < len(files); i += 2 {
		parts = without(files[i], parts...)
		if files[i+1] != "" {
			parts = append(parts, files[i], files[i+1])
		}
	}
	return zipOf(t, parts...)
}

// tp is a paragraph (text:h when level > 0) of style (none if "").
func tp(style string, level int, text string) string {
	s := ""
	if style != "" {
		s = ` text:style-name="` + style + `"`
	}
	if level > 0 {
		return `<text:h` + s + ` text:outline-level="` + string(rune('0'+level)) + `">` + text + `</text:h>`
	}
	return `<text:p` + s + `>` + text + `</text:p>`
}

// TestODT reads the fixture document: headings by text:h and by styles
// (an automatic style over a common one, a style inheriting a heading's
// outline level), a Title above the headings, ODF's white space, notes,
// comments, frames and tracked deletions dropped, nested lists, code,
// quotes and tables with header rows and spans; the table of contents and
// the index are not read.
func TestODT(t *testing.T) {
	d, err := ParseODT("report.odt", odt(t, odtBody, "meta.xml", odtMeta("The Frob Manual")))
	if err != nil {
		t.Fatal(err)
	}
	doctest.CheckDocument(t, d)
	if d.Title != "The Frob Manual" || d.Format != document.ODT {
		t.Errorf("title %q format %q, want meta.xml's dc:title and odt", d.Title, d.Format)
	}
	want := []string{
		`report.odt:3#installing [Frob Manual › Installing] paragraph "Frob installs quickly. Then re-run it; see the site."`,
		`report.odt:4#installing [Frob Manual › Installing] list-item "Unpack the archive."`,
		`report.odt:5#installing [Frob Manual › Installing] list-item "Check its signature."`,
		`report.odt:6#installing [Frob Manual › Installing] list-item "Run the installer."`,
		`report.odt:8#installing [Frob Manual › Installing] paragraph "Not a list item."`,
		"report.odt:9#installing [Frob Manual › Installing] code \"$ frob  --init\\n  --force\\tagain\"",
		`report.odt:11#installing [Frob Manual › Installing] quote "Frobbing is an art."`,
		`report.odt:12#installing [Frob Manual › Installing] quote "So is waiting."`,
		`report.odt:16#options [Frob Manual › Installing › Options] table-row "Option: -q; Meaning: Quiet. Prints nothing."`,
		`report.odt:19#options [Frob Manual › Installing › Options] table-row "Option: Both columns."`,
		`report.odt:20#options [Frob Manual › Installing › Options] table-row "Meaning: Second column."`,
		`report.odt:21#options [Frob Manual › Installing › Options] table-row "Outer in a; in b; Right"`,
		`report.odt:26#limits [Frob Manual › Installing › Options › Limits] paragraph "Files over two gigabytes are refused."`,
		`report.odt:27#limits [Frob Manual › Installing › Options › Limits] paragraph "Limits are enforced."`,
	}
	if got := doctest.BlockLines(d); !slices.Equal(got, want) {
		t.Errorf("blocks\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var groups []int
	for _, b := range d.Sections[1].Blocks {
		groups = append(groups, b.Group)
	}
	if groups[1] != groups[2] || groups[2] != groups[3] || groups[0] == groups[1] || groups[3] == groups[4] || groups[6] != groups[7] || groups[5] == groups[6] {
		t.Errorf("groups %v: the three list items should share one, and the two quotes", groups)
	}
}

// TestODTText checks ODF's white space and inline elements paragraph by
// paragraph.
func TestODTText(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"spaces collapse", tp("", 0, "\n  a \t\r\n b  "), `paragraph "a b"`},
		{"text:s counts", tp("Preformatted_20_Text", 0, "a<text:s text:c=\"3\"/>b<text:s/>c<text:s text:c=\"x\"/>d"), `code "a   b c d"`},
		{"leading space after text:s", tp("Preformatted_20_Text", 0, "<text:s/> a"), `code "  a"`},
		{"tabs and breaks in code", tp("P1", 0, "a<text:tab/>b<text:line-break/>  c"), "code \"a\\tb\\nc\""},
		{"nested spans and fields", tp("", 0, `<text:span>a <text:span>b</text:span></text:span> <text:page-number>3</text:page-number> <text:ruby><text:ruby-base>c</text:ruby-base><text:ruby-text>x</text:ruby-text></text:ruby>`), `paragraph "a b 3 c"`},
		{"hidden text and endnote", tp("", 0, `a<text:hidden-text text:string-value="h">h</text:hidden-text> b<text:note text:note-class="endnote"><text:note-body><text:p>n</text:p></text:note-body></text:note>.`), `paragraph "a b."`},
		{"a tracked insertion is text", tp("", 0, `a <text:change-start text:change-id="c"/>new<text:change-end text:change-id="c"/> b`), `paragraph "a new b"`},
		{"numbered paragraph", `<text:numbered-paragraph text:level="1"><text:number>1.</text:number><text:p>item</text:p></text:numbered-paragraph>`, `list-item "item"`},
		{"list header", `<text:list><text:list-header><text:p>head</text:p></text:list-header></text:list>`, `list-item "head"`},
		{"repeated cells", `<table:table><table:table-row><table:table-cell table:number-columns-repeated="3"><text:p>x</text:p></table:table-cell><table:table-cell table:number-columns-repeated="999999"/></table:table-row></table:table>`, `table-row "x; x; x"`},
		{"header rows alone", `<table:table><table:table-header-rows><table:table-row><table:table-cell><text:p>a</text:p></table:table-cell></table:table-row></table:table-header-rows></table:table>`, `table-row "a"`},
		{"two header rows", `<table:table><table:table-header-rows><table:table-row><table:table-cell><text:p>Size</text:p></table:table-cell></table:table-row><table:table-row><table:table-cell><text:p>(MB)</text:p></table:table-cell></table:table-row></table:table-header-rows><table:table-row><table:table-cell><text:p>3</text:p></table:table-cell></table:table-row></table:table>`, `table-row "Size (MB): 3"`},
		{"no header rows", `<table:table><table:table-row><table:table-cell><text:p>a</text:p></table:table-cell></table:table-row><table:table-row><table:table-cell><text:p>b</text:p></table:table-cell></table:table-row></table:table>`, `table-row "a" | table-row "b"`},
		{"style loop", tp("Loop_20_A", 0, "x"), `paragraph "x"`},
		{"unknown style", tp("Nowhere", 0, "x"), `paragraph "x"`},
		{"frame at block level", `<draw:frame><draw:text-box><text:p>boxed</text:p></draw:text-box></draw:frame>` + tp("", 0, "kept"), `paragraph "kept"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ParseODT("a.odt", odt(t, tc.body))
			if err != nil {
				t.Fatal(err)
			}
			doctest.CheckDocument(t, d)
			var got []string
			for _, s := range d.Sections {
				for _, b := range s.Blocks {
					got = append(got, fmt.Sprintf("%s %q", b.Kind, b.Text))
				}
			}
			if strings.Join(got, " | ") != tc.want {
				t.Errorf("got %s, want %s", strings.Join(got, " | "), tc.want)
			}
		})
	}
}

// TestODTTitles: without meta.xml's title the Title paragraph is the
// title; without either, the first level-1 heading, headings keeping
// their levels; a heading's level comes from text:outline-level, else its
// style's, else 1. Without styles.xml, styles are judged by their names.
func TestODTTitles(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		files      []string
		title      string
		paths      []string
	}{
		{"Title paragraph", tp("Title", 0, "Frob") + tp("Heading_20_1", 1, "Use") + tp("", 0, "Text."), nil, "Frob", []string{"Frob", "Frob › Use"}},
		{"empty meta title", tp("P3", 0, "Frob") + tp("", 0, "Text."), []string{"meta.xml", odtMeta(" ")}, "Frob", []string{"Frob"}},
		{"first heading", tp("", 1, "Use") + tp("", 2, "More") + tp("", 0, "Text."), nil, "Use", []string{"Use", "Use › More"}},
		{"levels from styles", `<text:h text:style-name="Heading_20_2">Two</text:h><text:h>One</text:h>` + tp("Heading_20_3", 0, "Three") + tp("", 0, "Text."), nil, "One", []string{"Two", "One", "One › Three"}},
		{"automatic style over a heading in styles.xml's", tp("P1", 0, "Not styles.xml's P1") + tp("", 0, "Text."), nil, "", []string{""}},
		{"no styles part", tp("Heading_20_1", 0, "Use") + tp("Preformatted_20_Text", 0, "code") + tp("Heading_20_11", 0, "Not a heading."), []string{"styles.xml", ""}, "Use", []string{"Use"}},
		{"no mimetype part", tp("", 1, "Use") + tp("", 0, "Text."), []string{"mimetype", ""}, "Use", []string{"Use"}},
		{"a template", tp("", 1, "Use") + tp("", 0, "Text."), []string{"mimetype", odtMimetype + "-template"}, "Use", []string{"Use"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ParseODT("a.odt", odt(t, tc.body, tc.files...))
			doctest.CheckOutline(t, d, err, tc.title, tc.paths)
		})
	}
}

// TestODTErrors: bad input is an *Error naming the file and the part.
func TestODTErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		msg  string
	}{
		{"not a zip", []byte("PK\x03\x04 cut short"), "notes.odt: not a zip archive"},
		{"no content", odt(t, "", "content.xml", ""), "notes.odt: content.xml: missing from the archive"},
		{"a spreadsheet", odt(t, "", "mimetype", "application/vnd.oasis.opendocument.spreadsheet"), `notes.odt: mimetype: "application/vnd.oasis.opendocument.spreadsheet" is not an OpenDocument text document`},
		{"an EPUB", epubBook(t), `mimetype: "application/epub+zip" is not an OpenDocument text document`},
		{"a spreadsheet's body", odt(t, "", "mimetype", "", "content.xml", `<office:document-content `+odfNS+`><office:body><office:spreadsheet><table:table/></office:spreadsheet></office:body></office:document-content>`), "content.xml: office:spreadsheet is not a text document"},
		{"no body", odt(t, "", "content.xml", `<office:document-content `+odfNS+`><office:automatic-styles/></office:document-content>`), "content.xml: no text body"},
		{"an empty body", odt(t, "", "content.xml", `<office:document-content `+odfNS+`><office:body></office:body></office:document-content>`), "content.xml: no text body"},
		{"encrypted", odt(t, "", "META-INF/manifest.xml", `<manifest:manifest><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data/></manifest:file-entry></manifest:manifest>`), "content.xml: encrypted"},
		{"content not XML", odt(t, "", "content.xml", "<office:document-content "+odfNS+"><office:body><office:text>\n<text:p><text:span>a</text:p></office:text></office:body></office:document-content>"), "content.xml: line 2: xml: element <span> closed by </p>"},
		{"content cut short", odt(t, "", "content.xml", "<office:document-content "+odfNS+"><office:body><office:text><text:p>"), "content.xml: line 1: xml: unexpected EOF"},
		{"content not text", odt(t, "", "content.xml", "\x00\x01binary"), "content.xml: line 1: xml: "},
		{"styles not XML", odt(t, tp("", 0, "a"), "styles.xml", "<office:document-styles "+odfNS+"><office:styles><style:style>"), "styles.xml: line 1: xml: unexpected EOF"},
		{"meta not XML", odt(t, tp("", 0, "a"), "meta.xml", "<office:document-meta><dc:title>x"), "meta.xml: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseODT("notes.odt", tc.data)
			doctest.WantError(t, err, "notes.odt", tc.msg)
		})
	}
}
