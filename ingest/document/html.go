package document

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// ParseHTML reads an HTML page: h1–h6 start sections (an id attribute is
// the slug), p/div-like elements, list items, table rows (with the header
// row's cells as labels), blockquotes and dt/dd definitions are blocks, pre
// is code, inline markup becomes its text and entities are decoded. head,
// script, style, template, nav, noscript, svg, math and form controls are
// skipped, and so is any element marked hidden, with the role navigation,
// search or banner, or with a class or id that documentation generators
// give to navigation, tables of contents and skip links ("nav-panel",
// "toc", "sphinxsidebar", "breadcrumb", Sphinx's "indextable"…), and a page
// footer (footer, role contentinfo, class or id "footer"); <title> is the
// document's title; a permalink in a heading (a link reading "#", "¶",
// "§" or "🔗") is dropped. A page not in UTF-8 is decoded
// by its BOM or <meta charset> (windows-1252 when it names none).
func ParseHTML(name string, data []byte) (*Document, error) {
	return ParseHTMLContext(context.Background(), name, data)
}

// ParseHTMLContext is [ParseHTML], stopping with ctx's error (wrapped) once
// ctx is done, between tokens.
func ParseHTMLContext(ctx context.Context, name string, data []byte) (d *Document, err error) {
	defer Recover(name, &err)
	data = HTMLToUTF8(data)
	b := NewBuilderContext(ctx, name, HTML)
	if err := ReadHTML(b, name, blankCGIHeader(BlankBOM(data)), 1, true); err != nil {
		return nil, err
	}
	return b.Doc, nil
}

// htmlUTF8 returns an HTML page in UTF-8: a page that is not valid UTF-8
// is decoded by its BOM or <meta charset> (windows-1252 when it names
// none).
func HTMLToUTF8(data []byte) []byte {
	if !utf8.Valid(data) {
		if e, _, _ := charset.DetermineEncoding(data, "text/html"); e != nil {
			if u, err := e.NewDecoder().Bytes(data); err == nil {
				return u
			}
		}
	}
	return data
}

// blankCGIHeader blanks a CGI response header that precedes the markup
// (man2html writes "Content-type: text/html" and a blank line before the
// doctype): header lines "Name: value" up to an empty line, followed by
// "<". Line breaks are kept, so line numbers stay those of the file.
func blankCGIHeader(data []byte) []byte {
	end := bytes.Index(data, []byte("\n\n"))
	if crlf := bytes.Index(data, []byte("\r\n\r\n")); crlf >= 0 && (end < 0 || crlf < end) {
		end = crlf
	}
	if end <= 0 || end > 4096 {
		return data
	}
	for _, line := range bytes.Split(bytes.TrimRight(data[:end], "\r"), []byte("\n")) {
		k, _, ok := bytes.Cut(bytes.TrimRight(line, "\r"), []byte(":"))
		if !ok || len(k) == 0 || bytes.IndexFunc(k, func(r rune) bool {
			return !(r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		}) >= 0 {
			return data
		}
	}
	if rest := bytes.TrimLeft(data[end:], " \t\r\n"); len(rest) == 0 || rest[0] != '<' {
		return data
	}
	out := append([]byte(nil), data...)
	for i := 0; i < end; i++ {
		if out[i] != '\n' && out[i] != '\r' {
			out[i] = ' '
		}
	}
	return out
}

// elements whose content is not text of the page.
var htmlSkipped = map[atom.Atom]bool{
	atom.Head: true, atom.Script: true, atom.Style: true, atom.Template: true, atom.Nav: true,
	atom.Noscript: true, atom.Svg: true, atom.Math: true, atom.Button: true, atom.Select: true,
	atom.Textarea: true, atom.Iframe: true, atom.Object: true, atom.Canvas: true, atom.Audio: true,
	atom.Video: true, atom.Datalist: true, atom.Noframes: true,
}

// htmlChromeClass lists class and id words that documentation generators
// (Sphinx, Texinfo, DocBook, gtk-doc, Doxygen, Node.js's and others) give to
// navigation, tables of contents and skip links, besides the words starting
// with "nav" (navbar, nav-panel, navheader, navfooter, nav-tree…) or ending
// with "toc" (toc, gtoc).
var htmlChromeClass = map[string]bool{
	"side-nav": true, "sidebar": true, "sphinxsidebar": true, "breadcrumb": true, "breadcrumbs": true,
	"skip-to-content": true, "skip-link": true, "headerlink": true,
	// Page footers (Sphinx's div.footer, AsciiDoc's div#footer).
	"footer": true,
	// The labels of Sphinx's and MkDocs' admonitions ("Note", "See also",
	// "Warning": a word, not a sentence; the admonition's text is kept).
	"admonition-title": true,
	// Sphinx's general and module indexes (tables of links to entries) and
	// its toctrees (the lists of links to other pages that contents and
	// index pages are made of).
	"indextable": true, "genindex-jumpbox": true, "modindex-jumpbox": true, "toctree-wrapper": true,
}

// block-level elements: their start and end end the text before them.
var htmlBlock = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true,
	atom.Header: true, atom.Footer: true, atom.Aside: true, atom.Figure: true, atom.Figcaption: true,
	atom.Address: true, atom.Details: true, atom.Summary: true, atom.Center: true, atom.Form: true,
	atom.Fieldset: true, atom.Legend: true, atom.Body: true, atom.Html: true, atom.Hr: true,
	atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Li: true, atom.Dt: true, atom.Dd: true,
	atom.Blockquote: true, atom.Menu: true, atom.Dir: true, atom.Caption: true, atom.Hgroup: true,
	atom.Table: true, atom.Thead: true, atom.Tbody: true, atom.Tfoot: true, atom.Tr: true,
	atom.Td: true, atom.Th: true, atom.Pre: true, atom.Listing: true, atom.Xmp: true, atom.Plaintext: true,
}

var htmlHeading = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

type htmlOpen struct {
	a     atom.Atom
	group int
	term  string // a dd's: the term it describes
}

type htmlTable struct {
	header   []string
	row      []string
	rowLine  int
	rowAllTH bool
	firstTH  bool // the row's first cell is a th
	cell     *strings.Builder
	inCell   bool
	rows     int
	group    int
}

type htmlReader struct {
	b    *Builder
	name string
	line int // line of the token being read

	stack []htmlOpen
	skip  atom.Atom // element being skipped, 0 if none
	skipN int       // its nesting

	buf     strings.Builder
	bufLine int
	// bufText is whether buf holds more than white space: kept as text
	// comes, since trimming buf for every token would be quadratic.
	bufText bool

	heading   int // level of the open heading, 0 if none
	headingID string
	headLine  int
	linkAt    int // where the heading's open link's text starts in buf, -1 if none

	pre     int // nesting of open pre elements
	preBuf  strings.Builder
	preLine int

	term   string // last dt's text
	inTerm bool

	tables []*htmlTable
}

// readHTML reads HTML into b; line is the line data starts on. In a
// fragment (Markdown's HTML blocks) the head is not looked for.
func ReadHTML(b *Builder, name string, data []byte, line int, page bool) error {
	r := &htmlReader{b: b, name: name, line: line, linkAt: -1}
	z := html.NewTokenizer(bytes.NewReader(data))
	for {
		b.Check()
		tt := z.Next()
		// Raw is the tokenizer's buffer, which Text and TagAttr unescape in
		// place: count its lines and keep a copy first.
		raw := string(z.Raw())
		nl := strings.Count(raw, "\n")
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); !errors.Is(err, io.EOF) {
				return &Error{Name: name, Line: r.line, Msg: "html: " + err.Error()}
			}
			r.flush()
			r.endPre()
			for len(r.tables) > 0 {
				r.endTable()
			}
			return nil
		case html.TextToken:
			r.text(string(z.Text()), raw)
		case html.StartTagToken, html.SelfClosingTagToken:
			tn, hasAttr := z.TagName()
			a := atom.Lookup(tn)
			id, chrome := "", false
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				switch string(k) {
				case "role":
					// Site chrome of documentation generators (Sphinx's
					// sidebars, search boxes) is marked by its role.
					r := strings.ToLower(string(v))
					chrome = chrome || r == "navigation" || r == "search" || r == "banner" || r == "contentinfo"
				case "class", "id":
					if string(k) == "id" {
						id = string(v)
					}
					for _, w := range strings.Fields(strings.ToLower(string(v))) {
						chrome = chrome || htmlChromeClass[w] || strings.HasPrefix(w, "nav") || strings.HasSuffix(w, "toc")
					}
				case "hidden":
					chrome = true
				case "aria-hidden":
					chrome = chrome || strings.EqualFold(string(v), "true")
				}
			}
			// A page's footer (copyright, "Last updated", "Found a bug?")
			// repeats on every page and answers nothing.
			chrome = chrome || a == atom.Footer
			if chrome && a != 0 && !htmlVoid[a] && tt != html.SelfClosingTagToken && r.skip == 0 {
				r.flush()
				r.skip, r.skipN = a, 1
				break
			}
			if a == atom.Title && page {
				tt := z.Next()
				nl += bytes.Count(z.Raw(), []byte{'\n'}) // before Text unescapes it
				if tt == html.TextToken && b.Doc.Title == "" {
					b.Doc.Title = Collapse(string(z.Text()))
				}
				break
			}
			r.start(a, id, tt == html.SelfClosingTagToken)
		case html.EndTagToken:
			tn, _ := z.TagName()
			r.end(atom.Lookup(tn))
		}
		r.line += nl
	}
}

func (r *htmlReader) text(t, raw string) {
	if r.skip != 0 {
		return
	}
	if r.pre > 0 {
		if r.preBuf.Len() == 0 {
			r.preLine = r.line
		}
		r.preBuf.WriteString(t)
		return
	}
	if r.heading > 0 {
		r.writeBuf(t)
		return
	}
	if tb := r.table(); tb != nil && tb.inCell {
		tb.cell.WriteString(t)
		return
	}
	if !r.bufText {
		trimmed := strings.TrimLeft(t, " \t\r\n\f")
		if trimmed == "" {
			r.buf.WriteString(t)
			return
		}
		lead := raw[:max(0, len(raw)-len(strings.TrimLeft(raw, " \t\r\n\f")))]
		r.bufLine = r.line + strings.Count(lead, "\n")
	}
	r.writeBuf(t)
}

// writeBuf adds text t to buf.
func (r *htmlReader) writeBuf(t string) {
	r.buf.WriteString(t)
	r.bufText = r.bufText || strings.TrimSpace(t) != ""
}

// takeBuf returns buf's text and empties it.
func (r *htmlReader) takeBuf() string {
	s := r.buf.String()
	r.buf.Reset()
	r.bufText = false
	return s
}

func (r *htmlReader) table() *htmlTable {
	if len(r.tables) == 0 {
		return nil
	}
	return r.tables[len(r.tables)-1]
}

// void elements never get an end tag.
var htmlVoid = map[atom.Atom]bool{
	atom.Area: true, atom.Base: true, atom.Br: true, atom.Col: true, atom.Embed: true, atom.Hr: true,
	atom.Img: true, atom.Input: true, atom.Link: true, atom.Meta: true, atom.Source: true,
	atom.Track: true, atom.Wbr: true, atom.Param: true, atom.Keygen: true,
}

func (r *htmlReader) start(a atom.Atom, id string, selfClosing bool) {
	if r.skip != 0 {
		if a == r.skip && !selfClosing {
			r.skipN++
		}
		if r.skip == atom.Head && a == atom.Body {
			r.skip, r.skipN = 0, 0
		}
		return
	}
	if htmlSkipped[a] && !selfClosing {
		r.skip, r.skipN = a, 1
		return
	}
	if a == atom.Br || a == atom.Wbr {
		switch {
		case r.pre > 0:
			r.preBuf.WriteByte('\n')
		case r.heading > 0:
			r.buf.WriteByte(' ')
		case r.table() != nil && r.table().inCell:
			r.table().cell.WriteByte(' ')
		default:
			r.buf.WriteByte(' ')
		}
		return
	}
	if lvl, ok := htmlHeading[a]; ok && r.pre == 0 {
		if tb := r.table(); tb != nil && tb.inCell {
			return // a heading in a cell is cell text
		}
		r.flush()
		r.heading, r.headingID, r.headLine = lvl, id, r.line
		return
	}
	if a == atom.A && r.heading > 0 {
		r.linkAt = r.buf.Len()
	}
	if !htmlBlock[a] {
		return // inline markup: its text is the page's text
	}
	if r.pre > 0 {
		if a == atom.Pre || a == atom.Listing || a == atom.Xmp {
			r.pre++
		}
		return
	}
	if r.heading > 0 {
		r.endHeading()
	}
	switch a {
	case atom.Table:
		r.flush()
		if len(r.tables) < MaxNesting {
			r.tables = append(r.tables, &htmlTable{group: r.b.NewGroup()})
		}
		return
	case atom.Tr:
		if tb := r.table(); tb != nil {
			r.endRow(tb)
			tb.rowLine, tb.rowAllTH = r.line, true
			return
		}
	case atom.Td, atom.Th:
		if tb := r.table(); tb != nil {
			r.endCell(tb)
			if tb.row == nil && tb.rowLine == 0 {
				tb.rowLine, tb.rowAllTH = r.line, true
			}
			if a == atom.Td {
				tb.rowAllTH = false
			}
			if len(tb.row) == 0 {
				tb.firstTH = a == atom.Th
			}
			tb.cell, tb.inCell = &strings.Builder{}, true
			return
		}
	case atom.Pre, atom.Listing, atom.Xmp, atom.Plaintext:
		r.flush()
		r.pre, r.preLine = 1, r.line
		r.preBuf.Reset()
		return
	case atom.Thead, atom.Tbody, atom.Tfoot, atom.Caption:
		if tb := r.table(); tb != nil && a != atom.Caption {
			return
		}
	}
	if tb := r.table(); tb != nil && tb.inCell {
		tb.cell.WriteByte(' ')
		return
	}
	r.flush()
	if selfClosing || htmlVoid[a] {
		return
	}
	// Implicitly closed elements: a new li closes the open li of the same
	// list, dt/dd close each other, p closes p.
	switch a {
	case atom.Li:
		r.popTo(atom.Li, atom.Ul, atom.Ol, atom.Menu)
	case atom.Dt, atom.Dd:
		r.popTo(atom.Dt, atom.Dl)
		r.popTo(atom.Dd, atom.Dl)
	case atom.P:
		r.popTo(atom.P, atom.Div, atom.Li, atom.Dd, atom.Blockquote, atom.Td, atom.Th)
	}
	r.inTerm = a == atom.Dt
	if len(r.stack) >= MaxNesting*4 {
		return
	}
	g := 0
	switch a {
	case atom.Ul, atom.Ol, atom.Menu, atom.Dl, atom.Blockquote:
		g = r.b.NewGroup()
	}
	o := htmlOpen{a: a, group: g}
	if a == atom.Dd {
		o.term = r.term
	}
	r.stack = append(r.stack, o)
}

// popTo pops the open element a if it is open above the nearest of stop.
func (r *htmlReader) popTo(a atom.Atom, stop ...atom.Atom) {
	for i := len(r.stack) - 1; i >= 0; i-- {
		e := r.stack[i].a
		if e == a {
			r.stack = r.stack[:i]
			return
		}
		for _, s := range stop {
			if e == s {
				return
			}
		}
	}
}

func (r *htmlReader) end(a atom.Atom) {
	if r.skip != 0 {
		if a == r.skip {
			if r.skipN--; r.skipN == 0 {
				r.skip = 0
			}
		}
		return
	}
	if _, ok := htmlHeading[a]; ok && r.heading > 0 {
		r.endHeading()
		return
	}
	if a == atom.A && r.heading > 0 && r.linkAt >= 0 && r.linkAt <= r.buf.Len() {
		// A permalink in a heading ("#", "¶", "§", "🔗") is not its text.
		if t := strings.TrimSpace(r.buf.String()[r.linkAt:]); t == "#" || t == "¶" || t == "§" || t == "🔗" {
			head := r.takeBuf()[:r.linkAt]
			r.writeBuf(head)
		}
		r.linkAt = -1
	}
	if r.pre > 0 {
		if a == atom.Pre || a == atom.Listing || a == atom.Xmp {
			if r.pre--; r.pre == 0 {
				r.endPre()
			}
		}
		return
	}
	if !htmlBlock[a] {
		return
	}
	if tb := r.table(); tb != nil {
		switch a {
		case atom.Table:
			r.endTable()
			return
		case atom.Tr:
			r.endRow(tb)
			return
		case atom.Td, atom.Th:
			r.endCell(tb)
			return
		case atom.Thead, atom.Tbody, atom.Tfoot:
			return
		}
		if tb.inCell {
			tb.cell.WriteByte(' ')
			return
		}
	}
	if a == atom.Dt && r.inTerm {
		r.term = Collapse(r.takeBuf())
		r.inTerm = false
	}
	r.flush()
	for i := len(r.stack) - 1; i >= 0; i-- {
		if r.stack[i].a == a {
			r.stack = r.stack[:i]
			break
		}
	}
}

func (r *htmlReader) endHeading() {
	text := r.takeBuf()
	r.b.Heading(r.heading, text, r.headingID, r.headLine, 0)
	r.heading, r.headingID = 0, ""
}

func (r *htmlReader) endPre() {
	if r.preBuf.Len() > 0 {
		r.b.Block(Code, r.preBuf.String(), r.preLine, 0, 0)
	}
	r.preBuf.Reset()
	r.pre = 0
}

func (r *htmlReader) endCell(tb *htmlTable) {
	if !tb.inCell {
		return
	}
	tb.row = append(tb.row, Collapse(tb.cell.String()))
	tb.cell, tb.inCell = nil, false
}

func (r *htmlReader) endRow(tb *htmlTable) {
	r.endCell(tb)
	if len(tb.row) > 0 {
		if tb.rows == 0 && tb.rowAllTH && tb.header == nil {
			tb.header = tb.row
		} else if tb.header == nil && tb.firstTH && len(tb.row) > 1 && tb.row[0] != "" {
			// A row header: "Key: value; value".
			r.b.Block(TableRow, tb.row[0]+": "+RowText(nil, tb.row[1:]), tb.rowLine, 0, tb.group)
		} else {
			r.b.Block(TableRow, RowText(tb.header, tb.row), tb.rowLine, 0, tb.group)
		}
		tb.rows++
	}
	tb.row, tb.rowLine = nil, 0
}

func (r *htmlReader) endTable() {
	tb := r.table()
	r.endRow(tb)
	r.tables = r.tables[:len(r.tables)-1]
	if tb.rows == 1 && tb.header != nil {
		// A one-row table of th cells: its cells are its text.
		r.b.Block(TableRow, RowText(nil, tb.header), tb.rowLine, 0, tb.group)
	}
}

// flush ends the text read so far as a block of the kind the open elements
// give it.
func (r *htmlReader) flush() {
	if r.heading > 0 {
		r.endHeading()
		return
	}
	text := r.takeBuf()
	if strings.TrimSpace(text) == "" {
		return
	}
	if r.inTerm {
		r.term = Collapse(text)
		return
	}
	kind, group, term := Paragraph, 0, 0
	for i := len(r.stack) - 1; i >= 0 && kind == Paragraph; i-- {
		switch r.stack[i].a {
		case atom.Li:
			kind = ListItem
			for j := i - 1; j >= 0; j-- {
				if g := r.stack[j].group; g != 0 {
					group = g
					break
				}
			}
		case atom.Dd:
			kind = Definition
			for j := i - 1; j >= 0; j-- {
				if r.stack[j].a == atom.Dl {
					group = r.stack[j].group
					break
				}
			}
			if r.term != "" {
				text = r.term + ": " + Collapse(text)
				term = len(r.term)
				r.term = "" // the first block of the definition carries its term
			}
		case atom.Blockquote:
			kind, group = Quote, r.stack[i].group
		}
	}
	r.b.TermBlock(kind, text, term, r.parents(kind), r.bufLine, 0, group)
}

// parents returns the terms of the definitions whose descriptions hold the
// block being flushed, outermost first: a definition list, list or quote
// nested in a definition belongs under its term (bash(1)'s options of set
// under "set [--abefhkmnptuvxBCEHPT] …"). A definition's own term is not
// among them.
func (r *htmlReader) parents(kind Kind) []string {
	var terms []string
	own := kind == Definition
	for i := len(r.stack) - 1; i >= 0; i-- {
		if r.stack[i].a != atom.Dd {
			continue
		}
		if own {
			own = false
			continue
		}
		if t := r.stack[i].term; t != "" {
			terms = append(terms, t)
		}
	}
	slices.Reverse(terms)
	return terms
}
