package office

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/reqa/reqa/ingest/document"
)

// ParseDOCX reads a Word document (Office Open XML, .docx): the main part
// (word/document.xml, or the part the package's relationships name) is read
// with encoding/xml, its paragraph styles resolved through word/styles.xml.
//
// Kept: a paragraph's text from its runs (w:t, with xml:space honoured; a
// tab reads as a tab, a line break inside a paragraph as a line break
// (white space but in code), a non-breaking hyphen as "-"), inside
// hyperlinks, content controls, simple fields and tracked insertions; a
// field's displayed result (its instructions are dropped). Headings are the
// paragraphs in a style named "Title" or "heading 1"–"heading 9" (Word
// writes these names whatever the language of its interface), or with an
// outline level (the paragraph's own w:outlineLvl, else its style's), a
// style based on a heading style being a heading of its level. A Title
// paragraph is a level-1 heading, and in a document with one the heading
// levels are one below it. List items are paragraphs with numbering
// (w:numPr, the paragraph's or its style's) or in a "List…" style, but for
// those whose numbering is turned off (w:numId 0); the items that follow
// each other make one list (Block.Group), whatever their levels (w:ilvl),
// as nested Markdown lists do. Quotes are paragraphs in a
// style whose name holds "quot" ("Quote", "Intense Quote", LibreOffice's
// "Quotations"); code is the paragraphs in a style whose name holds "code"
// or "preformatted" ("HTML Preformatted") or is LibreOffice's "Source Text"
// or Word's "Macro Text", those that follow each other one code block with
// their lines. A table's rows are table rows
// "Header: cell; …" when its first row is a header (marked as a repeated
// header row, or the table's look applies first-row formatting) and it has
// another, else "cell; …"; a cell's paragraphs are joined, and a table
// nested in a cell is read as the cell's text, its rows joined with "; ".
// The title is docProps/core.xml's dc:title, else the first Title or
// level-1 heading.
//
// DOCX has no lines: a block's Line is the 1-based number of the paragraph
// it starts at, counting the body's paragraphs in order, those in table
// cells included.
//
// Dropped: tracked deletions and moves away (w:del, w:moveFrom), hidden
// text (w:vanish), tables of contents (paragraphs in the "TOC N", "TOC
// Heading" and "Table of Figures" styles), drawings and text boxes, equations, symbols (w:sym),
// soft hyphens, section properties, and the parts that are not the main
// document: headers, footers, footnotes, endnotes and comments.
//
// Bad input (not a zip, no main document, a part that is not well-formed
// XML) is an *Error naming the file and the part: "report.docx:
// word/document.xml: line 3: xml: …". Parts are decompressed within the
// bounds ParseEPUB keeps: a zip bomb is refused.
func ParseDOCX(name string, data []byte) (*document.Document, error) {
	return ParseDOCXContext(context.Background(), name, data)
}

// ParseDOCXContext is [ParseDOCX], stopping with ctx's error (wrapped) once ctx is
// done, between the tokens of its XML.
func ParseDOCXContext(ctx context.Context, name string, data []byte) (d *document.Document, err error) {
	defer stopOn(ctx, name, &err)
	defer document.Recover(name, &err)
	zp, err := openZipContext(ctx, name, data)
	if err != nil {
		return nil, err
	}
	main := "word/document.xml"
	if p, err := docxRelTarget(zp, "_rels/.rels", "", "officeDocument"); err != nil {
		return nil, err
	} else if p != "" {
		main = p
	}
	r := &docxReader{zp: zp, styles: map[string]*docxStyle{}}
	stylesPart := path.Join(path.Dir(main), "styles.xml")
	if p, err := docxRelTarget(zp, path.Join(path.Dir(main), "_rels", path.Base(main)+".rels"), path.Dir(main), "styles"); err != nil {
		return nil, err
	} else if p != "" {
		stylesPart = p
	}
	if zp.has(stylesPart) {
		if err := r.readStyles(stylesPart); err != nil {
			return nil, err
		}
	}
	title, err := dcTitle(zp, "docProps/core.xml")
	if err != nil {
		return nil, err
	}
	src, err := zp.part(main)
	if err != nil {
		return nil, err
	}
	r.d = zp.xmlDecoder(src, true)
	if err := r.document(); err != nil {
		return nil, zp.partError(main, "%s", xmlError(err))
	}
	if r.full {
		return nil, zp.partError(main, "more than %d paragraphs and tables: not read", document.MaxBlocks)
	}
	r.b = document.NewBuilderContext(ctx, name, document.DOCX)
	r.b.Doc.Title = title
	r.emit()
	return r.b.Doc, nil
}

// docxRelTarget returns the target of the first relationship in the
// relationships part rels whose type ends in "/"+kind, resolved against
// dir; "" when there is none (or no such part).
func docxRelTarget(zp *zipParts, rels, dir, kind string) (string, error) {
	if !zp.has(rels) {
		return "", nil
	}
	var target string
	err := eachPartStart(zp, rels, func(_ *xmlDecoder, e xml.StartElement) (bool, error) {
		if e.Name.Local != "Relationship" || !strings.HasSuffix(attr(e, "Type"), "/"+kind) || strings.EqualFold(attr(e, "TargetMode"), "External") {
			return false, nil
		}
		t := attr(e, "Target")
		switch {
		case t == "":
			return false, nil
		case strings.HasPrefix(t, "/"):
			target = path.Clean(strings.TrimPrefix(t, "/"))
		default:
			target = path.Join(dir, t)
		}
		return true, nil
	})
	return target, err
}

// WordprocessingML's namespaces: transitional and strict.
const (
	wNamespace       = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	wStrictNamespace = "http://purl.oclc.org/ooxml/wordprocessingml/main"
	mcNamespace      = "http://schemas.openxmlformats.org/markup-compatibility/2006"
)

// docxStyle is a paragraph style of styles.xml.
type docxStyle struct {
	name, basedOn string
	outline       int  // w:outlineLvl + 1, 0 without one
	numbered      int  // 1: w:numPr with a list, -1: w:numId 0, 0: none
	resolved      bool // info below is set
	resolving     bool
	info          docxStyleInfo
}

// docxStyleInfo is what a paragraph style makes of its paragraphs.
type docxStyleInfo struct {
	level             int  // heading level, 0 for none
	title             bool // the Title style
	toc               bool // a table of contents' style
	code, quote, list bool
	numbered          int // as docxStyle.numbered, inherited
}

// docxPara is a paragraph read.
type docxPara struct {
	line     int
	style    string
	outline  int // w:outlineLvl + 1, 0 without one
	numbered int // as docxStyle.numbered
	text     strings.Builder
}

// docxRow is a table row read: its cells' texts.
type docxRow struct {
	cells  []string
	header bool // a repeated header row (w:tblHeader)
	line   int
}

type docxTable struct {
	rows     []docxRow
	firstRow bool // the table's look applies first-row formatting
}

type docxItem struct {
	para  *docxPara
	table *docxTable
}

type docxReader struct {
	zp     *zipParts
	d      *xmlDecoder
	b      *document.Builder
	styles map[string]*docxStyle // paragraph styles by id
	paras  int                   // paragraphs read
	items  []docxItem
	blank  bool // the last item kept is an empty paragraph (see addPara)
	full   bool // more than document.MaxBlocks items: the rest are not kept
}

// isW reports whether n is in WordprocessingML's namespace.
func isW(n xml.Name) bool { return n.Space == wNamespace || n.Space == wStrictNamespace }

// wBool reads a WordprocessingML on/off attribute: absent is on.
func wBool(e xml.StartElement) bool {
	for _, a := range e.Attr {
		if a.Name.Local == "val" {
			switch strings.ToLower(a.Value) {
			case "0", "false", "off", "none":
				return false
			}
		}
	}
	return true
}

// readStyles reads the paragraph styles of the part p.
func (r *docxReader) readStyles(p string) error {
	data, err := r.zp.part(p)
	if err != nil {
		return err
	}
	d := r.zp.xmlDecoder(data, true)
	var cur *docxStyle
	for {
		t, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return r.zp.partError(p, "%s", xmlError(err))
		}
		switch t := t.(type) {
		case xml.StartElement:
			if !isW(t.Name) {
				continue
			}
			switch t.Name.Local {
			case "style":
				cur = nil
				if typ := attr(t, "type"); typ == "paragraph" || typ == "" {
					id := attr(t, "styleId")
					if _, dup := r.styles[id]; !dup {
						cur = &docxStyle{}
						r.styles[id] = cur
					}
				}
			case "name":
				if cur != nil {
					cur.name = attr(t, "val")
				}
			case "basedOn":
				if cur != nil {
					cur.basedOn = attr(t, "val")
				}
			case "outlineLvl":
				if cur != nil {
					cur.outline = outlineLevel(attr(t, "val"))
				}
			case "numId":
				if cur != nil {
					cur.numbered = 1
					if strings.TrimSpace(attr(t, "val")) == "0" {
						cur.numbered = -1
					}
				}
			}
		case xml.EndElement:
			if isW(t.Name) && t.Name.Local == "style" {
				cur = nil
			}
		}
	}
}

// outlineLevel returns an outline level's heading level: "0"–"8" are 1–9;
// "9" (body text) and anything else 0.
func outlineLevel(v string) int {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 || n > 8 {
		return 0
	}
	return n + 1
}

// style returns what the paragraph style id makes of its paragraphs. A
// style styles.xml does not define is judged by its id ("Heading1",
// "Title", "ListBullet").
func (r *docxReader) style(id string) docxStyleInfo {
	s, ok := r.styles[id]
	if !ok {
		s = &docxStyle{name: id}
		r.styles[id] = s
	}
	if s.resolved {
		return s.info
	}
	if s.resolving {
		return docxStyleInfo{} // a basedOn loop
	}
	s.resolving = true
	var parent docxStyleInfo
	if s.basedOn != "" && s.basedOn != id {
		parent = r.style(s.basedOn)
	}
	name := strings.ToLower(strings.Join(strings.Fields(s.name), ""))
	info := docxStyleInfo{
		code:     parent.code || strings.Contains(name, "code") || strings.Contains(name, "preformatted") || name == "sourcetext" || name == "macrotext",
		quote:    parent.quote || strings.Contains(name, "quot"),
		list:     parent.list || strings.HasPrefix(name, "list"),
		numbered: s.numbered,
	}
	if info.numbered == 0 {
		info.numbered = parent.numbered
	}
	if info.numbered < 0 {
		info.list = false // numbering turned off: not a list
	}
	switch {
	case name == "title":
		info.title, info.level = true, 1
	case name == "tocheading" || name == "tableoffigures" || strings.HasPrefix(name, "toc") && len(name) == 4 && name[3] >= '1' && name[3] <= '9':
		info.toc = true
	case strings.HasPrefix(name, "heading") && len(name) == 8 && name[7] >= '1' && name[7] <= '9':
		info.level = int(name[7] - '0')
	case s.outline > 0:
		info.level = s.outline
	case parent.level > 0 && !parent.title:
		info.level = parent.level
	}
	s.info, s.resolved, s.resolving = info, true, false
	return info
}

// document reads the main part up to the end of its body.
func (r *docxReader) document() error {
	for {
		t, err := r.d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if e, ok := t.(xml.StartElement); ok && isW(e.Name) && e.Name.Local == "body" {
			return r.content(0, r.addPara, func(t *docxTable) { r.addItem(docxItem{table: t}) })
		}
	}
}

// addPara keeps a paragraph of the body. A table-of-contents paragraph is
// dropped (emit would drop it), and of a run of empty paragraphs that are
// neither code nor a title only the first is kept: emitOffice reads one as
// the end of a code block and nothing else, so one stands for the run.
// What is kept thus grows with the text, not with the elements (16 MiB of
// <w:p/> took 1.2 GB).
func (r *docxReader) addPara(p *docxPara) {
	info := r.paraInfo(p)
	if info.toc {
		return
	}
	blank := strings.TrimSpace(p.text.String()) == "" && !info.title && !(info.code && info.level == 0)
	if blank && r.blank {
		return
	}
	r.addItem(docxItem{para: p})
	r.blank = blank
}

// addItem keeps a paragraph or table of the body, at most
// document.MaxBlocks of them (full says there were more).
func (r *docxReader) addItem(it docxItem) {
	r.blank = false
	if len(r.items) >= document.MaxBlocks {
		r.full = true
		return
	}
	r.items = append(r.items, it)
}

// content reads block-level content (a body, a cell, a content control)
// up to the end of the element just started, handing its paragraphs and
// tables on.
func (r *docxReader) content(depth int, para func(*docxPara), table func(*docxTable)) error {
	return eachChild(r.d, func(e xml.StartElement) error { return r.contentOf(e, depth, para, table) })
}

// docxContainer reports whether the element n holds content read as if it
// stood in its place: content controls, custom XML, tracked insertions and
// moves to, smart tags, hyperlinks, simple fields and the first choice of
// alternate content.
func docxContainer(n xml.Name) bool {
	if n.Space == mcNamespace {
		return n.Local == "AlternateContent" || n.Local == "Choice"
	}
	if !isW(n) {
		return false
	}
	switch n.Local {
	case "sdt", "sdtContent", "customXml", "ins", "moveTo", "smartTag", "hyperlink", "fldSimple", "dir", "bdo":
		return true
	}
	return false
}

// paragraph reads a w:p whose start was just read.
func (r *docxReader) paragraph() (*docxPara, error) {
	r.paras++
	p := &docxPara{line: r.paras}
	return p, r.inline(p, 0)
}

// inline reads a paragraph's content up to the end of the element just
// started.
func (r *docxReader) inline(p *docxPara, depth int) error {
	return eachChild(r.d, func(e xml.StartElement) error {
		switch {
		case depth >= document.MaxNesting:
			return skipElement(r.d)
		case isW(e.Name) && e.Name.Local == "pPr":
			return r.paraProps(p)
		case isW(e.Name) && e.Name.Local == "r":
			return r.run(p)
		case docxContainer(e.Name):
			return r.inline(p, depth+1)
		}
		return skipElement(r.d)
	})
}

// paraProps reads a paragraph's properties: its style, numbering and
// outline level (the change history of w:pPrChange aside).
func (r *docxReader) paraProps(p *docxPara) error {
	skip := 0 // the depth of an element whose content is ignored; 0: none
	return eachStart(r.d, func(t xml.StartElement, depth int) {
		if skip > 0 && depth > skip {
			return
		}
		skip = 0
		if !isW(t.Name) {
			return
		}
		switch t.Name.Local {
		case "pPrChange", "rPr", "sectPr", "tabs":
			skip = depth
		case "pStyle":
			p.style = attr(t, "val")
		case "outlineLvl":
			p.outline = outlineLevel(attr(t, "val"))
		case "numId":
			p.numbered = 1
			if strings.TrimSpace(attr(t, "val")) == "0" {
				p.numbered = -1
			}
		}
	})
}

// run reads a w:r whose start was just read into p's text.
func (r *docxReader) run(p *docxPara) error {
	hidden := false
	return eachChild(r.d, func(t xml.StartElement) error {
		if !isW(t.Name) {
			return skipElement(r.d)
		}
		switch t.Name.Local {
		case "rPr":
			var err error
			hidden, err = runHidden(r.d)
			return err
		case "t":
			s, err := rawText(r.d)
			if err == nil && !hidden {
				if attr(t, "space") != "preserve" {
					s = strings.Trim(s, " \t\r\n")
				}
				p.text.WriteString(s)
			}
			return err
		}
		if !hidden {
			switch t.Name.Local {
			case "tab", "ptab":
				p.text.WriteByte('\t')
			case "br", "cr":
				p.text.WriteByte('\n')
			case "noBreakHyphen":
				p.text.WriteByte('-')
			}
		}
		// delText, instrText, sym, drawings, objects and references hold
		// no text of the paragraph.
		return skipElement(r.d)
	})
}

// runHidden reads a run's properties and reports whether they hide it
// (w:vanish).
func runHidden(d *xmlDecoder) (bool, error) {
	hidden := false
	err := eachStart(d, func(e xml.StartElement, depth int) {
		if depth == 1 && isW(e.Name) && e.Name.Local == "vanish" {
			hidden = wBool(e)
		}
	})
	return hidden, err
}

// table reads a w:tbl whose start was just read.
func (r *docxReader) table(depth int) (*docxTable, error) {
	tb := &docxTable{}
	err := eachChild(r.d, func(e xml.StartElement) error {
		var err error
		switch {
		case depth >= document.MaxNesting:
			return skipElement(r.d)
		case isW(e.Name) && e.Name.Local == "tblPr":
			tb.firstRow, err = tableLook(r.d)
		case isW(e.Name) && e.Name.Local == "tr":
			var row docxRow
			if row, err = r.row(depth + 1); err == nil {
				tb.rows = append(tb.rows, row)
			}
		case docxContainer(e.Name):
			// Rows in a content control: read as the table's.
			var inner *docxTable
			if inner, err = r.table(depth + 1); err == nil {
				tb.rows = append(tb.rows, inner.rows...)
			}
		default:
			err = skipElement(r.d)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return tb, nil
}

// tableLook reads a table's properties and reports whether its look
// applies first-row (header) formatting.
func tableLook(d *xmlDecoder) (bool, error) {
	first := false
	err := eachStart(d, func(e xml.StartElement, _ int) {
		if isW(e.Name) && e.Name.Local == "tblLook" {
			if v := attr(e, "firstRow"); v != "" {
				first = v == "1" || v == "true" || v == "on"
			} else if v, err := strconv.ParseUint(attr(e, "val"), 16, 32); err == nil {
				first = v&0x20 != 0
			}
		}
	})
	return first, err
}

// row reads a w:tr whose start was just read: each cell's paragraphs
// joined, a cell spanning n grid columns followed by n-1 empty ones.
func (r *docxReader) row(depth int) (docxRow, error) {
	row := docxRow{line: r.paras + 1}
	err := eachChild(r.d, func(e xml.StartElement) error {
		var err error
		switch {
		case depth >= document.MaxNesting:
			return skipElement(r.d)
		case isW(e.Name) && e.Name.Local == "trPr":
			row.header, err = rowHeader(r.d)
		case isW(e.Name) && e.Name.Local == "tc":
			var text string
			var span int
			if text, span, err = r.cell(depth + 1); err == nil {
				row.cells = append(row.cells, text)
				for i := 1; i < span && len(row.cells) < 64; i++ {
					row.cells = append(row.cells, "")
				}
			}
		case docxContainer(e.Name):
			var inner docxRow
			if inner, err = r.row(depth + 1); err == nil {
				row.cells = append(row.cells, inner.cells...)
			}
		default:
			err = skipElement(r.d)
		}
		return err
	})
	return row, err
}

// rowHeader reads a row's properties and reports whether it is a header
// row repeated on every page (w:tblHeader).
func rowHeader(d *xmlDecoder) (bool, error) {
	header := false
	err := eachStart(d, func(e xml.StartElement, _ int) {
		if isW(e.Name) && e.Name.Local == "tblHeader" {
			header = wBool(e)
		}
	})
	return header, err
}

// cell reads a w:tc whose start was just read: its text (paragraphs joined
// by a space, nested tables' rows by "; ") and how many grid columns it
// spans.
func (r *docxReader) cell(depth int) (string, int, error) {
	var parts []string
	span := 1
	err := eachChild(r.d, func(e xml.StartElement) error {
		if isW(e.Name) && e.Name.Local == "tcPr" {
			var err error
			span, err = cellSpan(r.d)
			return err
		}
		// The cell's content, read as a body's is.
		return r.contentOf(e, depth, func(p *docxPara) {
			if s := document.Collapse(p.text.String()); s != "" {
				parts = append(parts, s)
			}
		}, func(tb *docxTable) {
			var rows [][]string
			for _, row := range tb.rows {
				rows = append(rows, row.cells)
			}
			if s := cellTableText(rows); s != "" {
				parts = append(parts, s)
			}
		})
	})
	if err != nil {
		return "", 0, err
	}
	return strings.Join(parts, " "), span, nil
}

// contentOf reads the element e, just started, as one element of block
// content (see content).
func (r *docxReader) contentOf(e xml.StartElement, depth int, para func(*docxPara), table func(*docxTable)) error {
	switch {
	case depth >= document.MaxNesting:
		return skipElement(r.d)
	case isW(e.Name) && e.Name.Local == "p":
		p, err := r.paragraph()
		if err == nil {
			para(p)
		}
		return err
	case isW(e.Name) && e.Name.Local == "tbl":
		tb, err := r.table(depth + 1)
		if err == nil {
			table(tb)
		}
		return err
	case docxContainer(e.Name):
		return r.content(depth+1, para, table)
	}
	return skipElement(r.d)
}

// cellSpan reads a cell's properties and returns how many grid columns it
// spans (w:gridSpan).
func cellSpan(d *xmlDecoder) (int, error) {
	span := 1
	err := eachStart(d, func(e xml.StartElement, _ int) {
		if isW(e.Name) && e.Name.Local == "gridSpan" {
			if n, err := strconv.Atoi(attr(e, "val")); err == nil && n > 1 {
				span = min(n, 64)
			}
		}
	})
	return span, err
}

// emit turns the paragraphs and tables read into blocks (emitOffice);
// table-of-contents paragraphs are dropped.
func (r *docxReader) emit() {
	var blocks []officeBlock
	for _, it := range r.items {
		if tb := it.table; tb != nil {
			blocks = append(blocks, officeBlock{table: r.officeTable(tb)})
			continue
		}
		info := r.paraInfo(it.para)
		if info.toc {
			continue
		}
		list := 0
		if info.list {
			list = 1 // consecutive list paragraphs are one list
		}
		blocks = append(blocks, officeBlock{text: it.para.text.String(), line: it.para.line, level: info.level,
			title: info.title, code: info.code, quote: info.quote, list: list})
	}
	emitOffice(r.b, blocks)
}

// paraInfo returns what a paragraph is: its style's info with its own
// outline level and numbering applied.
func (r *docxReader) paraInfo(p *docxPara) docxStyleInfo {
	info := r.style(p.style)
	if p.outline > 0 && !info.title {
		info.level = p.outline
	}
	numbered := p.numbered
	if numbered == 0 {
		numbered = info.numbered
	}
	if numbered != 0 {
		info.list = numbered > 0
	}
	return info
}

// officeTable returns a table's rows, with its header when its first row
// is one (a repeated header row, or the table's look formats the first
// row) and another row follows.
func (r *docxReader) officeTable(tb *docxTable) *officeTable {
	rows := tb.rows
	out := &officeTable{}
	if len(rows) >= 2 && (rows[0].header || tb.firstRow) {
		out.header = make([]string, len(rows[0].cells))
		for i, c := range rows[0].cells {
			out.header[i] = document.Collapse(c)
		}
		rows = rows[1:]
	}
	for _, row := range rows {
		out.rows, out.lines = append(out.rows, row.cells), append(out.lines, row.line)
	}
	return out
}
