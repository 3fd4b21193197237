package office

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/reqa/reqa/ingest/document"
)

// ParseODT reads an OpenDocument text document (.odt, as LibreOffice
// writes it; its templates and master documents too): content.xml is read
// with encoding/xml, its paragraph styles resolved through its automatic
// styles and the common styles of styles.xml.
//
// Kept: the text of headings (text:h) and paragraphs (text:p), with spans,
// links, bookmarks, fields' displayed text and tracked insertions; ODF's
// white space rules are applied (runs of white space are one space), a
// text:s reads as its count of spaces, a tab (text:tab) as a tab and a
// line break (text:line-break) as a line break (white space but in code).
// Headings are text:h elements, their level from text:outline-level, else
// their style's default outline level, else 1; a text:p is a heading when
// its style is named "Heading N" or has a default outline level. A style
// is known by its name (ODF's escapes decoded: "Preformatted_20_Text" is
// "Preformatted Text") or its display name, and by the styles it inherits
// from (style:parent-style-name): the automatic style "P1" that LibreOffice
// writes for a paragraph with direct formatting is what its parent is. A
// paragraph in the "Title" style is a level-1 heading, and in a document
// with one the heading levels are one below it. List items are the
// paragraphs in a text:list (or text:numbered-paragraph), those of one list
// one group (Block.Group) whatever their nesting, as nested Markdown lists
// are; a list item's paragraphs are items each. Quotes are the paragraphs
// in a style whose name holds "quot" (LibreOffice's "Quotations"); code is
// the paragraphs in a style whose name holds "code" or "preformatted"
// ("Preformatted Text") or is "Source Text", those that follow each other
// one code block with their lines. A table's rows are table rows
// "Header: cell; …" when it has header rows (table:table-header-rows, their
// cells joined column by column) and another row, else "cell; …" (ODF has
// no other mark of a header); a cell's paragraphs are joined, a covered
// cell (under a cell spanning columns) is an empty cell in its column, and
// a table nested in a cell is read as the cell's text, its rows joined with
// "; ". Sections (text:section) are read as if their content stood in
// their place. The title is meta.xml's dc:title, else the first Title
// paragraph or level-1 heading.
//
// ODT has no lines: a block's Line is the 1-based number of the paragraph
// it starts at, counting the paragraphs and headings of the body in
// order, those in lists and table cells included (those dropped, below,
// not).
//
// Dropped: footnotes and endnotes (text:note), comments
// (office:annotation), tracked deletions (text:tracked-changes, where ODF
// keeps the deleted text), tables of contents and indexes
// (text:table-of-content, text:alphabetical-index and the other index
// elements), frames and drawings (draw:frame, with their text boxes and
// captions), hidden text (text:hidden-text), ruby annotations, forms and
// declarations, repeated rows past their first (table:number-rows-repeated)
// and the parts that are not content.xml, styles.xml and meta.xml: headers
// and footers are in styles.xml's master pages, which are not read.
//
// Bad input (not a zip, a mimetype of another kind of document, such as a
// spreadsheet, an encrypted document, no content.xml, a part that is not
// well-formed XML, a content.xml without a text body) is an *Error naming
// the file and the part: "notes.odt: content.xml: line 3: xml: …". Parts
// are decompressed within the bounds ParseEPUB keeps: a zip bomb is
// refused.
func ParseODT(name string, data []byte) (*document.Document, error) {
	return ParseODTContext(context.Background(), name, data)
}

// ParseODTContext is [ParseODT], stopping with ctx's error (wrapped) once ctx is
// done, between the tokens of its XML.
func ParseODTContext(ctx context.Context, name string, data []byte) (d *document.Document, err error) {
	defer stopOn(ctx, name, &err)
	defer document.Recover(name, &err)
	zp, err := openZipContext(ctx, name, data)
	if err != nil {
		return nil, err
	}
	if err := odtCheckKind(zp); err != nil {
		return nil, err
	}
	r := &odtReader{zp: zp, common: map[string]*odtStyle{}, auto: map[string]*odtStyle{}}
	if zp.has("styles.xml") {
		if err := r.readStylesPart("styles.xml"); err != nil {
			return nil, err
		}
	}
	title, err := dcTitle(zp, "meta.xml")
	if err != nil {
		return nil, err
	}
	src, err := zp.part(odtContent)
	if err != nil {
		return nil, err
	}
	r.d = zp.xmlDecoder(src, true)
	if err := r.document(); err != nil {
		var e *document.Error
		if errors.As(err, &e) {
			return nil, err
		}
		return nil, zp.partError(odtContent, "%s", xmlError(err))
	}
	if r.full {
		return nil, zp.partError(odtContent, "more than %d paragraphs and tables: not read", document.MaxBlocks)
	}
	r.b = document.NewBuilderContext(ctx, name, document.ODT)
	r.b.Doc.Title = title
	r.emit()
	return r.b.Doc, nil
}

// odtContent is the part holding an OpenDocument's body.
const odtContent = "content.xml"

// odtMimetype is the media type of OpenDocument text; its templates,
// master documents and web pages have media types starting with it.
const odtMimetype = "application/vnd.oasis.opendocument.text"

// odtCheckKind refuses a container that is not OpenDocument text: its
// mimetype part names another media type (a spreadsheet, a presentation,
// an EPUB), or its manifest says its content is encrypted.
func odtCheckKind(zp *zipParts) error {
	if zp.has("mimetype") {
		data, err := zp.part("mimetype")
		if err != nil {
			return err
		}
		if mt := strings.TrimSpace(string(data)); !strings.HasPrefix(mt, odtMimetype) {
			if len(mt) > 80 {
				mt = mt[:80] + "…"
			}
			return zp.partError("mimetype", "%q is not an OpenDocument text document (%s)", strings.ToValidUTF8(mt, "\uFFFD"), odtMimetype)
		}
	}
	const manifest = "META-INF/manifest.xml"
	if zp.has(manifest) {
		data, err := zp.part(manifest)
		if err != nil {
			return err
		}
		if bytes.Contains(data, []byte("encryption-data")) {
			return zp.partError(odtContent, "encrypted (a password-protected document cannot be read)")
		}
	}
	return nil
}

// OpenDocument's namespaces.
const (
	odfOffice = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
	odfText   = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
	odfTable  = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
	odfStyle  = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"
)

// odtStyle is a paragraph style: a common style of styles.xml or an
// automatic style of content.xml.
type odtStyle struct {
	name, display, parent string
	outline               int // style:default-outline-level, 0 without one
	resolved, resolving   bool
	info                  odtStyleInfo
}

// odtStyleInfo is what a paragraph style makes of its paragraphs.
type odtStyleInfo struct {
	level       int  // heading level, 0 for none
	title       bool // the Title style
	code, quote bool
}

// odtPara is a paragraph or heading read.
type odtPara struct {
	line    int
	style   string
	heading bool // a text:h
	outline int  // text:outline-level, 0 without one
	list    int  // the list the paragraph is in (1, 2…), 0 for none
	text    bytes.Buffer
	space   int // the length of text after its last collapsed space, -1 for none
	ws      bool
}

// odtRow is a table row read: its cells' texts.
type odtRow struct {
	cells  []string
	header bool // in table:table-header-rows
	line   int
}

type odtTable struct{ rows []odtRow }

type odtItem struct {
	para  *odtPara
	table *odtTable
}

type odtReader struct {
	zp           *zipParts
	d            *xmlDecoder
	b            *document.Builder
	common, auto map[string]*odtStyle // paragraph styles by name
	paras        int                  // paragraphs read
	lists        int                  // lists read
	items        []odtItem
	body         bool // office:text read
	blank        bool // the last item kept is an empty paragraph (see addPara)
	full         bool // more than document.MaxBlocks items: the rest are not kept
}

// addPara keeps a paragraph of the body; of a run of empty paragraphs
// that are neither code nor a title only the first (see the DOCX reader's
// addPara: 16 MiB of <text:p/> took 750–940 MB).
func (r *odtReader) addPara(p *odtPara) {
	info := r.paraInfo(p)
	blank := strings.TrimSpace(p.text.String()) == "" && !info.title && !(info.code && info.level == 0)
	if blank && r.blank {
		return
	}
	r.addItem(odtItem{para: p})
	r.blank = blank
}

// addItem keeps a paragraph or table of the body, at most
// document.MaxBlocks of them (full says there were more).
func (r *odtReader) addItem(it odtItem) {
	r.blank = false
	if len(r.items) >= document.MaxBlocks {
		r.full = true
		return
	}
	r.items = append(r.items, it)
}

// odtIs reports whether n is the element space:local.
func odtIs(n xml.Name, space, local string) bool { return n.Space == space && n.Local == local }

// readStylesPart reads the common paragraph styles of styles.xml (those of
// office:styles: its automatic styles are its master pages').
func (r *odtReader) readStylesPart(p string) error {
	data, err := r.zp.part(p)
	if err != nil {
		return err
	}
	d := r.zp.xmlDecoder(data, true)
	for {
		t, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err == nil {
			if e, ok := t.(xml.StartElement); ok && odtIs(e.Name, odfOffice, "styles") {
				err = readODTStyles(d, r.common)
			}
		}
		if err != nil {
			return r.zp.partError(p, "%s", xmlError(err))
		}
	}
}

// readODTStyles reads the paragraph styles of the element just started
// (office:styles, office:automatic-styles) into styles, the first of a
// name kept.
func readODTStyles(d *xmlDecoder, styles map[string]*odtStyle) error {
	return eachStart(d, func(e xml.StartElement, depth int) {
		if depth != 1 || !odtIs(e.Name, odfStyle, "style") {
			return
		}
		name := attr(e, "name")
		if fam := attr(e, "family"); fam != "paragraph" || name == "" {
			return
		}
		if _, dup := styles[name]; dup {
			return
		}
		styles[name] = &odtStyle{
			name:    name,
			display: attr(e, "display-name"),
			parent:  attr(e, "parent-style-name"),
			outline: odtLevel(attr(e, "default-outline-level")),
		}
	})
}

// odtLevel returns an outline level attribute's heading level: 1–10, else
// 0.
func odtLevel(v string) int {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 || n > 10 {
		return 0
	}
	return n
}

// odtStyleName decodes ODF's escapes in a style name: "_20_" is a space,
// "_XX_" (two hex digits) that byte.
func odtStyleName(s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '_' && i+3 < len(s) && s[i+3] == '_' {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				sb.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

// style returns what the paragraph style name makes of its paragraphs:
// an automatic style is its parent with its own outline level; a common
// style is judged by its names and inherits code, quote and heading levels
// (not Title) from its parent. A style no part defines is judged by its
// name.
func (r *odtReader) style(name string) odtStyleInfo {
	return r.styleIn(name, true)
}

func (r *odtReader) styleIn(name string, auto bool) odtStyleInfo {
	var s *odtStyle
	if auto {
		s = r.auto[name]
	}
	isAuto := s != nil
	if s == nil {
		s = r.common[name]
	}
	if s == nil {
		s = &odtStyle{name: name}
		r.common[name] = s
	}
	if s.resolved {
		return s.info
	}
	if s.resolving {
		return odtStyleInfo{} // a parent loop
	}
	s.resolving = true
	var parent odtStyleInfo
	if s.parent != "" && (s.parent != name || isAuto) {
		parent = r.styleIn(s.parent, false)
	}
	var info odtStyleInfo
	if isAuto {
		info = parent
	} else {
		info = odtStyleInfo{code: parent.code, quote: parent.quote}
		if !parent.title {
			info.level = parent.level
		}
	}
	for _, n := range []string{odtStyleName(s.name), s.display} {
		n = strings.ToLower(strings.Join(strings.Fields(n), ""))
		if n == "" {
			continue
		}
		info.code = info.code || strings.Contains(n, "code") || strings.Contains(n, "preformatted") || n == "sourcetext" || n == "macrotext"
		info.quote = info.quote || strings.Contains(n, "quot")
		if n == "title" {
			info.title, info.level = true, 1
		} else if lv, ok := strings.CutPrefix(n, "heading"); ok && odtLevel(lv) > 0 && !info.title {
			info.level = odtLevel(lv)
		}
	}
	if s.outline > 0 && !info.title {
		info.level = s.outline
	}
	s.info, s.resolved, s.resolving = info, true, false
	return info
}

// document reads content.xml: its automatic styles and its body, up to
// the end of the body.
func (r *odtReader) document() error {
	for {
		t, err := r.d.Token()
		if errors.Is(err, io.EOF) {
			if !r.body {
				return r.zp.partError(odtContent, "no text body (office:body holds no office:text)")
			}
			return nil
		}
		if err != nil {
			return err
		}
		e, ok := t.(xml.StartElement)
		if !ok {
			continue
		}
		switch {
		case odtIs(e.Name, odfOffice, "automatic-styles"):
			err = readODTStyles(r.d, r.auto)
		case odtIs(e.Name, odfOffice, "body"):
			return r.officeBody()
		}
		if err != nil {
			return err
		}
	}
}

// officeBody reads an office:body whose start was just read: its
// office:text; a body of another kind (office:spreadsheet…) is refused.
func (r *odtReader) officeBody() error {
	err := eachChild(r.d, func(t xml.StartElement) error {
		switch {
		case odtIs(t.Name, odfOffice, "text"):
			r.body = true
			return r.content(0, 0, r.addPara, func(tb *odtTable) { r.addItem(odtItem{table: tb}) })
		case t.Name.Space == odfOffice && !r.body:
			return r.zp.partError(odtContent, "office:%s is not a text document", t.Name.Local)
		}
		return skipElement(r.d)
	})
	if err == nil && !r.body {
		return r.zp.partError(odtContent, "no text body (office:body holds no office:text)")
	}
	return err
}

// odtDropped reports whether the block-level element n is not read:
// tables of contents and indexes, tracked changes (the deleted text),
// declarations, forms and frames.
func odtDropped(n xml.Name) bool {
	if n.Space != odfText {
		return true
	}
	switch n.Local {
	case "table-of-content", "alphabetical-index", "illustration-index", "table-index", "object-index", "user-index", "bibliography",
		"tracked-changes", "soft-page-break":
		return true
	}
	return false
}

// content reads block-level content (office:text, a section, a list, a
// cell) up to the end of the element just started, handing its paragraphs
// (in the list list, 0 for none) and tables on.
func (r *odtReader) content(depth, list int, para func(*odtPara), table func(*odtTable)) error {
	return eachChild(r.d, func(e xml.StartElement) error { return r.contentOf(e, depth, list, para, table) })
}

// contentOf reads the element e, just started, as one element of block
// content (see content).
func (r *odtReader) contentOf(e xml.StartElement, depth, list int, para func(*odtPara), table func(*odtTable)) error {
	switch {
	case depth >= document.MaxNesting:
		return skipElement(r.d)
	case odtIs(e.Name, odfTable, "table"):
		tb, err := r.table(depth + 1)
		if err == nil {
			table(tb)
		}
		return err
	case odtDropped(e.Name):
		return skipElement(r.d)
	}
	switch e.Name.Local {
	case "p", "h":
		p, err := r.paragraph(e, list)
		if err == nil {
			para(p)
		}
		return err
	case "list", "list-item", "list-header", "numbered-paragraph":
		if list == 0 {
			r.lists++
			list = r.lists
		}
		return r.content(depth+1, list, para, table)
	case "section":
		return r.content(depth+1, list, para, table)
	}
	return skipElement(r.d)
}

// paragraph reads a text:p or text:h, e, whose start was just read.
func (r *odtReader) paragraph(e xml.StartElement, list int) (*odtPara, error) {
	r.paras++
	p := &odtPara{line: r.paras, style: attr(e, "style-name"), heading: e.Name.Local == "h", list: list, space: -1, ws: true}
	if p.heading {
		p.outline = odtLevel(attr(e, "outline-level"))
	}
	if err := r.inline(p, 0); err != nil {
		return nil, err
	}
	if p.space == p.text.Len() {
		p.text.Truncate(p.space - 1) // trailing white space is not text
	}
	return p, nil
}

// odtInlineDropped reports whether the inline element n holds no text of
// its paragraph: notes, comments, change marks, hidden text, ruby
// annotations, the cached text of a list or heading number, frames and drawings (any element outside the text
// namespace).
func odtInlineDropped(n xml.Name) bool {
	if n.Space != odfText {
		return true
	}
	switch n.Local {
	case "note", "ruby-text", "hidden-text", "change", "change-start", "change-end", "soft-page-break", "number":
		return true
	}
	return false
}

// inline reads a paragraph's content up to the end of the element just
// started.
func (r *odtReader) inline(p *odtPara, depth int) error {
	for {
		t, err := r.d.Token()
		if err != nil {
			return err
		}
		switch t := t.(type) {
		case xml.EndElement:
			return nil
		case xml.CharData:
			p.write(t)
		case xml.StartElement:
			switch {
			case depth >= document.MaxNesting || odtInlineDropped(t.Name):
				err = skipElement(r.d)
			case t.Name.Local == "s":
				n := 1
				if c, err := strconv.Atoi(strings.TrimSpace(attr(t, "c"))); err == nil && c > 1 {
					n = min(c, 1000)
				}
				for range n {
					p.text.WriteByte(' ')
				}
				p.ws = false
				err = skipElement(r.d)
			case t.Name.Local == "tab":
				p.text.WriteByte('\t')
				p.ws = false
				err = skipElement(r.d)
			case t.Name.Local == "line-break":
				p.text.WriteByte('\n')
				p.ws = true
				err = skipElement(r.d)
			default:
				// Spans, links, fields, bookmarks, meta: their text is
				// the paragraph's.
				err = r.inline(p, depth+1)
			}
			if err != nil {
				return err
			}
		}
	}
}

// write adds character data to the paragraph by ODF's white space rules:
// a run of spaces, tabs and newlines is one space, none at the start.
func (p *odtPara) write(data []byte) {
	if p.text.Len() >= maxPartBytes {
		return
	}
	for _, c := range data {
		switch c {
		case ' ', '\t', '\r', '\n':
			if !p.ws {
				p.text.WriteByte(' ')
				p.ws = true
				p.space = p.text.Len()
			}
		default:
			p.text.WriteByte(c)
			p.ws = false
		}
	}
}

// table reads a table:table whose start was just read.
func (r *odtReader) table(depth int) (*odtTable, error) {
	tb := &odtTable{}
	return tb, r.rows(tb, depth, false)
}

// rows reads the rows of a table, or of a group of its rows (header rows
// when header), up to the end of the element just started.
func (r *odtReader) rows(tb *odtTable, depth int, header bool) error {
	return eachChild(r.d, func(e xml.StartElement) error {
		switch {
		case depth >= document.MaxNesting || e.Name.Space != odfTable:
			return skipElement(r.d)
		case e.Name.Local == "table-row":
			row, err := r.row(depth + 1)
			if err == nil {
				row.header = header
				tb.rows = append(tb.rows, row)
			}
			return err
		case e.Name.Local == "table-header-rows":
			return r.rows(tb, depth+1, true)
		case e.Name.Local == "table-rows" || e.Name.Local == "table-row-group":
			return r.rows(tb, depth+1, header)
		}
		// Columns, a title, a description.
		return skipElement(r.d)
	})
}

// maxCells bounds the cells of a row that repeated cells add.
const maxCells = 64

// row reads a table:table-row whose start was just read: each cell's
// text, a covered cell an empty one, a repeated cell repeated.
func (r *odtReader) row(depth int) (odtRow, error) {
	row := odtRow{line: r.paras + 1}
	err := eachChild(r.d, func(e xml.StartElement) error {
		if depth >= document.MaxNesting || e.Name.Space != odfTable || (e.Name.Local != "table-cell" && e.Name.Local != "covered-table-cell") {
			return skipElement(r.d)
		}
		text := ""
		var err error
		if e.Name.Local == "table-cell" {
			text, err = r.cell(depth + 1)
		} else {
			err = skipElement(r.d)
		}
		if err != nil {
			return err
		}
		n := 1
		if c, err := strconv.Atoi(strings.TrimSpace(attr(e, "number-columns-repeated"))); err == nil && c > 1 {
			n = c
		}
		for i := 0; i < n && (i == 0 || len(row.cells) < maxCells); i++ {
			row.cells = append(row.cells, text)
		}
		return nil
	})
	return row, err
}

// cell reads a table:table-cell whose start was just read: its text
// (paragraphs joined by a space, nested tables' rows by "; ").
func (r *odtReader) cell(depth int) (string, error) {
	var parts []string
	err := r.content(depth, 0, func(p *odtPara) {
		if s := document.Collapse(p.text.String()); s != "" {
			parts = append(parts, s)
		}
	}, func(tb *odtTable) {
		var rows [][]string
		for _, row := range tb.rows {
			rows = append(rows, row.cells)
		}
		if s := cellTableText(rows); s != "" {
			parts = append(parts, s)
		}
	})
	return strings.Join(parts, " "), err
}

// paraInfo returns what a paragraph is: its style's info, a text:h a
// heading of its outline level (else its style's, else 1).
func (r *odtReader) paraInfo(p *odtPara) odtStyleInfo {
	info := r.style(p.style)
	if p.heading && !info.title {
		switch {
		case p.outline > 0:
			info.level = p.outline
		case info.level == 0:
			info.level = 1
		}
	}
	return info
}

// emit turns the paragraphs and tables read into blocks (emitOffice).
func (r *odtReader) emit() {
	var blocks []officeBlock
	for _, it := range r.items {
		if tb := it.table; tb != nil {
			blocks = append(blocks, officeBlock{table: odtOfficeTable(tb)})
			continue
		}
		p := it.para
		info := r.paraInfo(p)
		blocks = append(blocks, officeBlock{text: p.text.String(), line: p.line, level: info.level,
			title: info.title, code: info.code, quote: info.quote, list: p.list})
	}
	emitOffice(r.b, blocks)
}

// odtOfficeTable returns a table's rows, with its header when it has
// header rows (joined column by column) and another row.
func odtOfficeTable(tb *odtTable) *officeTable {
	out := &officeTable{}
	var rows []odtRow
	for _, row := range tb.rows {
		if !row.header {
			rows = append(rows, row)
		}
	}
	if len(rows) > 0 && len(rows) < len(tb.rows) {
		for _, row := range tb.rows {
			if !row.header {
				continue
			}
			for i, c := range row.cells {
				if i == len(out.header) {
					out.header = append(out.header, "")
				}
				if c = document.Collapse(c); c != "" {
					out.header[i] = strings.TrimSpace(out.header[i] + " " + c)
				}
			}
		}
	} else {
		rows = tb.rows
	}
	for _, row := range rows {
		out.rows, out.lines = append(out.rows, row.cells), append(out.lines, row.line)
	}
	return out
}
