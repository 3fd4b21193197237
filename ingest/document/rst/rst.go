package rst

import (
	"bytes"
	"context"
	"encoding/csv"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reqa/reqa/ingest/document"
	"golang.org/x/text/width"
)

// Parse reads reStructuredText as docutils parses it (there is no
// well-kept Go parser): section titles (an underline, or an overline and
// an underline, of any punctuation character) start sections, their levels
// given by the order in which each adornment style first appears; the one
// top-level title of a document is its title. Paragraphs, bullet and
// enumerated list items, block quotes and line blocks are blocks;
// definition lists, field lists (":param x: text" reads "param x: text")
// and option lists ("-a, --all: Show all.") are definitions, whose term a
// definition list, field list or list nested in their description carries
// in Block.Parents; simple and grid tables, csv-table and list-table are
// table rows with their header. Literal blocks (after "::", which reads
// ":" or goes), doctest blocks and code-block, code, sourcecode, math and
// similar directives are code. Admonitions (note, warning, seealso…) are
// read as the blocks of their body, without their label; versionadded,
// versionchanged and deprecated start their first paragraph with "Added
// in version X", "Changed in version X" and "Deprecated since version X";
// figure captions, topic and sidebar titles and table titles are
// paragraphs; only, container, ifconfig and the like are read as their
// body. Sphinx object descriptions (function, class, method, option,
// envvar, any domain:directive…) are definitions whose term is the
// signature, and the blocks nested in them carry it; autodoc's (autoclass,
// autofunction…) too when text is written under them (their docstring is
// not in the file). Glossaries are definition lists. image, toctree,
// contents, include, literalinclude, raw, index, meta, autosummary,
// highlight, rubric, todo and the generic admonition's title are dropped,
// and so are the arguments and options of every directive; an unknown
// directive's body is read when it reads as text, else dropped. Sphinx's
// file-wide metadata (:orphan:, :tocdepth:…) and fields with an empty body
// are dropped. Comments, hyperlink targets and
// substitution definitions are dropped, footnotes and citations kept as
// paragraphs without their label. Inline markup is removed as docutils
// recognises it (emphasis, literals, interpreted text and roles, with
// Sphinx's "title <target>" and "~" conventions; references, footnote
// references, substitutions, escapes; see rstScanner). Tabs expand to
// every 8th column; CRLF line ends and a UTF-8 BOM are read, and bytes that
// are not UTF-8 are replaced, as the Markdown reader replaces them.
func Parse(name string, data []byte) (*document.Document, error) {
	return ParseContext(context.Background(), name, data)
}

// ParseContext is [Parse], stopping with ctx's error (wrapped) once ctx is
// done, between blocks.
func ParseContext(ctx context.Context, name string, data []byte) (d *document.Document, err error) {
	defer document.Recover(name, &err)
	r := &rstReader{b: document.NewBuilderContext(ctx, name, document.RST), subs: map[string]string{}, subsLower: map[string]string{},
		subsDone: map[string]string{}, subBudget: maxRSTSubstitution}
	lines := rstSplit(data)
	r.substitutions(lines)
	r.blocks(lines, &rstCtx{kind: document.Paragraph, sections: true})
	if r.tops != 1 {
		// Several top-level sections: none of them is the document's title.
		r.b.Doc.Title = ""
	}
	return r.b.Doc, nil
}

// Bounds that keep the reader linear on any input: how many columns a
// table is split into (more are read as part of the last), and how many
// bytes substitutions may write out in all (past it, a reference reads as
// its name) and each one.
const (
	maxRSTColumns      = 100
	maxRSTSubstitution = 4 << 20
	maxRSTReplace      = 4 << 10
)

// rstLine is a line of input: tabs expanded, trailing spaces dropped, and
// the indentation of the blocks that hold it removed; n is its 1-based line
// number.
type rstLine struct {
	s string
	n int
}

// rstStyle is a section title's adornment: its character, and whether it
// has an overline.
type rstStyle struct {
	ch   byte
	over bool
}

// rstItem is a definition whose body is being read: a definition list's,
// field list's or option list's item, or a Sphinx object description.
type rstItem struct {
	term    string // collapsed
	line    int
	carried bool // a block carried the term ("term: text")
	named   bool // a block named it among its parents
	keep    bool // with nothing under it, the term is kept as a paragraph
}

// rstLead is text that starts the next paragraph of a body (the label of
// versionadded and its kin).
type rstLead struct {
	text string
	used bool
}

// rstCtx says how the blocks of a body are read: their kind and group,
// the definition whose body it is (its first block carries the term) and
// those around it (Block.Parents), and whether section titles start
// sections here (at the document's level, not in a list or a quote).
type rstCtx struct {
	kind     document.Kind
	group    int
	item     *rstItem
	outer    []*rstItem
	lead     *rstLead
	sections bool
	depth    int
}

// nested returns the context of a list, quote, table or definition held
// in c's body: its blocks name c's definition, if any, among their
// parents.
func (c *rstCtx) nested(kind document.Kind, group int) *rstCtx {
	outer := c.outer
	if c.item != nil {
		outer = append(outer[:len(outer):len(outer)], c.item)
	}
	return &rstCtx{kind: kind, group: group, outer: outer, depth: c.depth + 1}
}

// inner returns c one level deeper, for a body read as c's own blocks (an
// admonition's, a footnote's); sections never start in one.
func (c *rstCtx) inner() *rstCtx {
	d := *c
	d.depth++
	d.sections = false
	return &d
}

type rstReader struct {
	b      *document.Builder
	styles []rstStyle // section title styles, in order of first appearance
	tops   int        // titles of the first style

	subs      map[string]string // substitution definitions by name: their raw text
	subsLower map[string]string // and by lower-case name
	subsDone  map[string]string // their text without inline markup, once read
	subBudget int               // bytes substitutions may still write out
}

// rstSplit returns the lines of data: a BOM skipped, CRLF read as LF, bytes
// that are not UTF-8 replaced, tabs expanded to every 8th column, form feeds
// and vertical tabs read as spaces, trailing spaces dropped.
func rstSplit(data []byte) []rstLine {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	raw := strings.Split(string(data), "\n")
	lines := make([]rstLine, len(raw))
	for i, l := range raw {
		l = strings.TrimSuffix(l, "\r")
		if !utf8.ValidString(l) {
			l = strings.ToValidUTF8(l, "\uFFFD")
		}
		if strings.ContainsAny(l, "\t\v\f\r") {
			l = rstExpandTabs(l)
		}
		lines[i] = rstLine{strings.TrimRight(l, " "), i + 1}
	}
	return lines
}

// rstExpandTabs expands the tabs of l to every 8th column (counting
// characters, as docutils does) and turns other control white space into
// spaces.
func rstExpandTabs(l string) string {
	var sb strings.Builder
	col := 0
	for _, c := range l {
		switch c {
		case '\t':
			n := 8 - col%8
			sb.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		case '\v', '\f', '\r':
			c = ' '
		}
		sb.WriteRune(c)
		col++
	}
	return sb.String()
}

// rstKind is what a line starts.
type rstKind int

const (
	rstBlank     rstKind = iota
	rstIndented          // an indented block: a block quote
	rstBullet            // "- item"
	rstEnum              // "1. item", "(a) item", "#. item"
	rstField             // ":name: body"
	rstOption            // "-a, --all  description"
	rstDoctest           // ">>> code"
	rstLineBlock         // "| line"
	rstGrid              // "+----+----+"
	rstSimple            // "====  ===="
	rstExplicit          // ".. directive::", comments, targets, footnotes
	rstAnonymous         // "__ url"
	rstAdorn             // a line of one punctuation character
	rstText              // anything else: a paragraph, title or term
)

// classify says what line i of lines starts, testing the constructs in
// docutils' order.
func classify(lines []rstLine, i int) rstKind {
	s := lines[i].s
	switch {
	case s == "":
		return rstBlank
	case s[0] == ' ':
		return rstIndented
	}
	if _, _, ok := rstBulletMarker(s); ok {
		return rstBullet
	}
	if e, ok := rstEnumerator(s); ok && rstEnumItem(lines, i, e) {
		return rstEnum
	}
	if _, _, ok := rstFieldMarker(s); ok {
		return rstField
	}
	if _, col, ok := rstOptionMarker(s); ok && (col < len(s) || i+1 < len(lines) && lines[i+1].s != "" && lines[i+1].s[0] == ' ') {
		return rstOption
	}
	switch {
	case s == ">>>" || strings.HasPrefix(s, ">>> "):
		return rstDoctest
	case s == "|" || strings.HasPrefix(s, "| "):
		return rstLineBlock
	case rstGridBorder(s):
		return rstGrid
	case rstSimpleBorder(s) && strings.Contains(s, " "):
		return rstSimple
	case s == ".." || strings.HasPrefix(s, ".. "):
		return rstExplicit
	case s == "__" || strings.HasPrefix(s, "__ "):
		return rstAnonymous
	}
	if _, ok := rstAdornment(s); ok {
		return rstAdorn
	}
	return rstText
}

// blocks reads lines, a body whose indentation is removed, in c.
func (r *rstReader) blocks(lines []rstLine, c *rstCtx) {
	if c.depth >= document.MaxNesting {
		r.flat(lines, c)
		return
	}
	simpleFailed := len(lines) // a simple table from here on finds no bottom border
	for i := 0; i < len(lines); {
		r.b.Check()
		switch classify(lines, i) {
		case rstBlank:
			i++
		case rstIndented:
			i = r.quote(lines, i, c)
		case rstBullet, rstEnum:
			i = r.list(lines, i, c)
		case rstField:
			i = r.fieldList(lines, i, c)
		case rstOption:
			i = r.optionList(lines, i, c)
		case rstDoctest:
			j := i
			for j < len(lines) && lines[j].s != "" {
				j++
			}
			r.code(lines[i:j])
			i = j
		case rstLineBlock:
			i = r.lineBlock(lines, i, c)
		case rstGrid:
			i = r.gridTable(lines, i, c)
		case rstSimple:
			if i > simpleFailed {
				i++ // a border without its table: dropped
				continue
			}
			next, ok := r.simpleTable(lines, i, c)
			if !ok {
				simpleFailed = i
				next = i + 1
			}
			i = next
		case rstExplicit:
			i = r.explicit(lines, i, c)
		case rstAnonymous:
			_, i = rstFirstKnown(lines, i, 2)
		case rstAdorn:
			i = r.adornment(lines, i, c)
		default:
			i = r.text(lines, i, c)
		}
	}
}

// flat reads lines nested deeper than the reader follows as one block of
// c's kind.
func (r *rstReader) flat(lines []rstLine, c *rstCtx) {
	var parts []string
	line := 0
	for _, l := range lines {
		if t := strings.TrimSpace(l.s); t != "" {
			if line == 0 {
				line = l.n
			}
			parts = append(parts, t)
		}
	}
	r.para(c, r.inline(strings.Join(parts, " ")), line)
}

// para adds a block of c's kind whose text (free of inline markup) starts
// at line: the first block of a definition's body carries its term, a
// lead (versionadded's label) starts it, and the definitions around the
// body are its parents.
func (r *rstReader) para(c *rstCtx, text string, line int) {
	text = document.Collapse(text)
	if text == "" {
		return
	}
	if c.lead != nil && !c.lead.used {
		c.lead.used = true
		text = c.lead.text + ": " + text
	}
	term := 0
	if it := c.item; it != nil && !it.carried {
		it.carried = true
		text = it.term + ": " + text
		term, line = len(it.term), it.line
	}
	r.b.TermBlock(c.kind, text, term, r.parents(c), line, 0, c.group)
}

// parents returns the terms of the definitions around c, marking them
// named.
func (r *rstReader) parents(c *rstCtx) []string {
	var ps []string
	for _, o := range c.outer {
		o.named = true
		ps = append(ps, o.term)
	}
	return ps
}

// closeItem ends the body of c's definition: a term that no block carried
// nor named (an object description with nothing under it) is kept as a
// paragraph when it may be.
func (r *rstReader) closeItem(c *rstCtx) {
	it := c.item
	if it == nil || it.carried || it.named || !it.keep {
		return
	}
	r.b.TermBlock(document.Paragraph, it.term, 0, r.parents(c), it.line, 0, 0)
}

// code adds lines as a code block, starting at its first non-blank line.
func (r *rstReader) code(lines []rstLine) {
	for len(lines) > 0 && strings.TrimSpace(lines[0].s) == "" {
		lines = lines[1:]
	}
	if len(lines) == 0 {
		return
	}
	var sb strings.Builder
	for i, l := range lines {
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(l.s)
	}
	r.b.Block(document.Code, sb.String(), lines[0].n, 0, 0)
}

// rstIndent returns the number of spaces s starts with.
func rstIndent(s string) int {
	return len(s) - len(strings.TrimLeft(s, " "))
}

// rstIndentedEnd returns the end of the indented block starting at line i:
// lines that are blank or start with a space, without the blank lines at
// its end.
func rstIndentedEnd(lines []rstLine, i int) int {
	end := i
	for j := i; j < len(lines); j++ {
		s := lines[j].s
		if s == "" {
			continue
		}
		if s[0] != ' ' {
			break
		}
		end = j + 1
	}
	return end
}

// rstDedent returns lines without the indentation they all share.
func rstDedent(lines []rstLine) []rstLine {
	ind := -1
	for _, l := range lines {
		if l.s != "" {
			if n := rstIndent(l.s); ind < 0 || n < ind {
				ind = n
			}
		}
	}
	out := make([]rstLine, len(lines))
	for i, l := range lines {
		if l.s != "" {
			l.s = l.s[ind:]
		}
		out[i] = l
	}
	return out
}

// rstFirstKnown returns the body of a construct whose text starts at byte
// col of line i (a field, an option, a directive, a comment): the rest of
// that line, then the indented lines that follow, blank lines among them,
// without the indentation they share (docutils' "first known indented"
// block); and the index of the line after it.
func rstFirstKnown(lines []rstLine, i, col int) ([]rstLine, int) {
	s := lines[i].s
	first := rstLine{strings.TrimLeft(s[min(col, len(s)):], " "), lines[i].n}
	end := rstIndentedEnd(lines, i+1)
	return append([]rstLine{first}, rstDedent(lines[i+1:end])...), end
}

// rstKnown returns the body of a list item whose text starts at byte col
// (column width) of line i: the rest of that line, then the lines that
// follow indented by at least width, blank lines among them, without that
// indentation; and the index of the line after it. A marker alone on its
// line takes the indentation of the lines under it.
func rstKnown(lines []rstLine, i, col, width int) ([]rstLine, int) {
	s := lines[i].s
	if strings.TrimSpace(s[min(col, len(s)):]) == "" {
		return rstFirstKnown(lines, i, col)
	}
	body := []rstLine{{s[col:], lines[i].n}}
	end := i + 1
	for j := i + 1; j < len(lines); j++ {
		t := lines[j].s
		if t == "" {
			continue
		}
		if rstIndent(t) < width {
			break
		}
		end = j + 1
	}
	for _, l := range lines[i+1 : end] {
		if l.s != "" {
			l.s = l.s[width:]
		}
		body = append(body, l)
	}
	return body, end
}

// skipBlank returns the index of the first non-blank line at or after i.
func skipBlank(lines []rstLine, i int) int {
	for i < len(lines) && lines[i].s == "" {
		i++
	}
	return i
}

// quote reads the indented block at line i: a block quote, whose last
// paragraph may be an attribution ("-- Author", read without its dash).
func (r *rstReader) quote(lines []rstLine, i int, c *rstCtx) int {
	end := rstIndentedEnd(lines, i)
	body := rstDedent(lines[i:end])
	qc := c.nested(document.Quote, r.b.NewGroup())
	attr := len(body)
	for k := len(body) - 1; k > 0; k-- {
		if body[k].s == "" {
			if t := body[k+1].s; strings.HasPrefix(t, "-- ") || strings.HasPrefix(t, "--- ") || strings.HasPrefix(t, "— ") || strings.HasPrefix(t, "― ") {
				attr = k + 1
			}
			break
		}
	}
	r.blocks(body[:attr], qc)
	if attr < len(body) {
		var parts []string
		for _, l := range body[attr:] {
			parts = append(parts, strings.TrimSpace(l.s))
		}
		t := strings.TrimLeft(strings.Join(parts, " "), "-—― ")
		r.para(qc, r.inline(t), body[attr].n)
	}
	return end
}

// rstBulletMarker returns the byte column and the marker of a bullet list
// item ("- ", "* ", "+ ", "• "…, or the marker alone).
func rstBulletMarker(s string) (col int, marker rune, ok bool) {
	m, size := utf8.DecodeRuneInString(s)
	switch m {
	case '-', '*', '+', '•', '‣', '⁃':
	default:
		return 0, 0, false
	}
	if size < len(s) && s[size] != ' ' {
		return 0, 0, false
	}
	return size + rstIndent(s[size:]), m, true
}

// rstEnumMarker is an enumerated list item's marker: its format ("." "1)" or
// "(1)"), its sequence ("1" arabic, "a" and "A" letters or roman numerals,
// "#" automatic) and the byte column of its text.
type rstEnumMarker struct {
	format, seq string
	col         int
}

// rstEnumerator parses an enumerated list item's marker.
func rstEnumerator(s string) (rstEnumMarker, bool) {
	var e rstEnumMarker
	j := 0
	paren := s[0] == '('
	if paren {
		j++
	}
	start := j
	for j < len(s) && j-start < 12 && (s[j] >= '0' && s[j] <= '9' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] == '#') {
		j++
	}
	tok := s[start:j]
	switch {
	case tok == "#":
		e.seq = "#"
	case tok == "":
		return e, false
	case strings.Trim(tok, "0123456789") == "":
		e.seq = "1"
	case len(tok) == 1 && tok[0] >= 'a' && tok[0] <= 'z' || strings.Trim(tok, "ivxlcdm") == "":
		e.seq = "a"
	case len(tok) == 1 && tok[0] >= 'A' && tok[0] <= 'Z' || strings.Trim(tok, "IVXLCDM") == "":
		e.seq = "A"
	default:
		return e, false
	}
	if j >= len(s) {
		return e, false
	}
	switch {
	case paren && s[j] == ')':
		e.format = "()"
	case !paren && (s[j] == '.' || s[j] == ')'):
		e.format = s[j : j+1]
	default:
		return e, false
	}
	j++
	if j < len(s) && s[j] != ' ' {
		return e, false
	}
	e.col = j + rstIndent(s[j:])
	return e, true
}

// rstEnumItem reports whether the enumerator e on line i starts a list item
// rather than a paragraph ("A. Einstein was…"): the next line must be
// blank, indented or another item of the same kind.
func rstEnumItem(lines []rstLine, i int, e rstEnumMarker) bool {
	if i+1 >= len(lines) {
		return true
	}
	next := lines[i+1].s
	if next == "" || next[0] == ' ' {
		return true
	}
	f, ok := rstEnumerator(next)
	return ok && f.format == e.format && (f.seq == e.seq || f.seq == "#" || e.seq == "#")
}

// list reads a bullet or enumerated list: the items that follow each other
// with the same marker (or enumeration) are one list and one group.
func (r *rstReader) list(lines []rstLine, i int, c *rstCtx) int {
	lc := c.nested(document.ListItem, r.b.NewGroup())
	_, marker, bullet := rstBulletMarker(lines[i].s)
	first, _ := rstEnumerator(lines[i].s)
	for i < len(lines) {
		s := lines[i].s
		var col int
		if bullet {
			k, m, ok := rstBulletMarker(s)
			if !ok || m != marker {
				break
			}
			col = k
		} else {
			e, ok := rstEnumerator(s)
			if !ok || e.format != first.format || e.seq != first.seq && e.seq != "#" && first.seq != "#" || !rstEnumItem(lines, i, e) {
				break
			}
			col = e.col
		}
		body, end := rstKnown(lines, i, col, utf8.RuneCountInString(s[:col]))
		r.blocks(body, lc)
		i = skipBlank(lines, end)
		if i < len(lines) && classify(lines, i) != rstBullet && classify(lines, i) != rstEnum {
			return end
		}
	}
	return i
}

// rstFieldMarker parses a field list item's marker (":name: "): the field
// name and the byte column of its body. A colon in the name must not be
// followed by a space or a backquote (":ref:`x`" is a role).
func rstFieldMarker(s string) (name string, col int, ok bool) {
	if len(s) < 3 || s[0] != ':' || s[1] == ' ' || s[1] == ':' {
		return "", 0, false
	}
	for j := 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case ':':
			if j+1 == len(s) || s[j+1] == ' ' {
				if s[j-1] == ' ' {
					return "", 0, false
				}
				return s[1:j], j + 1, true
			}
			if s[j+1] == '`' {
				return "", 0, false
			}
		}
	}
	return "", 0, false
}

// rstSphinxMeta are the fields of Sphinx's file-wide metadata, which it
// does not show.
var rstSphinxMeta = map[string]bool{"orphan": true, "tocdepth": true, "nocomments": true, "nosearch": true}

// fieldList reads a field list: definitions whose term is the field name
// ("param x: The x."). Fields with an empty body, and Sphinx's metadata at
// the document's level, are dropped.
func (r *rstReader) fieldList(lines []rstLine, i int, c *rstCtx) int {
	g := r.b.NewGroup()
	for i < len(lines) {
		name, col, ok := rstFieldMarker(lines[i].s)
		if !ok {
			break
		}
		body, end := rstFirstKnown(lines, i, col)
		term := document.Collapse(r.inline(name))
		if term != "" && !(c.depth == 0 && rstSphinxMeta[strings.ToLower(term)]) {
			fc := c.nested(document.Definition, g)
			fc.item = &rstItem{term: term, line: lines[i].n}
			r.blocks(body, fc)
		}
		i = skipBlank(lines, end)
		if i < len(lines) && classify(lines, i) != rstField {
			return end
		}
	}
	return i
}

// rstOptionMarker parses an option list item's options ("-a, --all",
// "--file=FILE", "-o FILE", "/V"), and returns them and the byte column of
// the description that follows them after two spaces (len(s) when there is
// none on the line).
func rstOptionMarker(s string) (opts string, col int, ok bool) {
	j := 0
	alnum := func(k int) bool {
		return k < len(s) && (s[k] >= 'a' && s[k] <= 'z' || s[k] >= 'A' && s[k] <= 'Z' || s[k] >= '0' && s[k] <= '9')
	}
	for {
		switch {
		case strings.HasPrefix(s[j:], "--") && alnum(j+2):
			j += 3
			for alnum(j) || j < len(s) && (s[j] == '-' || s[j] == '_') {
				j++
			}
		case j < len(s) && (s[j] == '-' || s[j] == '+') && alnum(j+1):
			j += 2
		case j < len(s) && s[j] == '/' && alnum(j+1):
			j += 2
			for alnum(j) || j < len(s) && (s[j] == '-' || s[j] == '_') {
				j++
			}
		default:
			return "", 0, false
		}
		// An argument: " ARG", "=ARG" or "<arg name>".
		if j+1 < len(s) && (s[j] == '=' || s[j] == ' ') {
			k := j + 1
			switch {
			case s[k] == '<':
				if e := strings.IndexAny(s[k+1:], "<>"); e >= 0 && s[k+1+e] == '>' {
					j = k + e + 2
				}
			case s[k] >= 'a' && s[k] <= 'z' || s[k] >= 'A' && s[k] <= 'Z':
				k++
				for alnum(k) || k < len(s) && (s[k] == '-' || s[k] == '_') {
					k++
				}
				j = k
			}
		}
		if !strings.HasPrefix(s[j:], ", ") {
			break
		}
		j += 2
	}
	switch {
	case j == len(s):
		return s, j, true
	case strings.HasPrefix(s[j:], "  "):
		return s[:j], j + rstIndent(s[j:]), true
	}
	return "", 0, false
}

// optionList reads an option list: definitions whose term is the options.
func (r *rstReader) optionList(lines []rstLine, i int, c *rstCtx) int {
	g := r.b.NewGroup()
	for i < len(lines) {
		if classify(lines, i) != rstOption {
			break
		}
		opts, col, _ := rstOptionMarker(lines[i].s)
		body, end := rstFirstKnown(lines, i, col)
		oc := c.nested(document.Definition, g)
		oc.item = &rstItem{term: document.Collapse(opts), line: lines[i].n}
		r.blocks(body, oc)
		i = skipBlank(lines, end)
		if i < len(lines) && classify(lines, i) != rstOption {
			return end
		}
	}
	return i
}

// lineBlock reads a line block ("| line", continued by indented lines):
// one paragraph, its lines joined with spaces.
func (r *rstReader) lineBlock(lines []rstLine, i int, c *rstCtx) int {
	var parts []string
	j := i
	for ; j < len(lines); j++ {
		s := lines[j].s
		switch {
		case s == "|" || strings.HasPrefix(s, "| "):
			parts = append(parts, strings.TrimSpace(s[1:]))
		case s != "" && s[0] == ' ' && j > i:
			parts = append(parts, strings.TrimSpace(s))
		default:
			r.para(c, r.inline(strings.Join(parts, " ")), lines[i].n)
			return j
		}
	}
	r.para(c, r.inline(strings.Join(parts, " ")), lines[i].n)
	return j
}

// rstAdornment reports whether s is a line of one punctuation character
// (a section title's adornment or a transition) and returns it.
func rstAdornment(s string) (byte, bool) {
	if s == "" || !strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", rune(s[0])) {
		return 0, false
	}
	for i := 1; i < len(s); i++ {
		if s[i] != s[0] {
			return 0, false
		}
	}
	return s[0], true
}

// rstUnderline reports whether u underlines the title t: an adornment at
// least as long as the title, or at least four characters (docutils takes
// shorter ones for text).
func rstUnderline(u, t string) bool {
	if _, ok := rstAdornment(u); !ok {
		return false
	}
	return len(u) >= 4 || len(u) >= rstWidth(t)
}

// rstWidth returns the width of s in columns: East Asian wide and
// full-width characters take two.
func rstWidth(s string) int {
	n := 0
	for _, c := range s {
		n++
		if c >= 0x1100 {
			if k := width.LookupRune(c).Kind(); k == width.EastAsianWide || k == width.EastAsianFullwidth {
				n++
			}
		}
	}
	return n
}

// title adds a section title; where sections may not start (in a list, a
// quote, a directive), its text is a paragraph.
func (r *rstReader) title(c *rstCtx, text string, st rstStyle, line int) {
	text = r.inline(strings.TrimSpace(text))
	if !c.sections {
		r.para(c, text, line)
		return
	}
	level := document.StyleLevel(&r.styles, st)
	if level == 1 {
		r.tops++
	}
	r.b.Heading(level, text, "", line, 0)
}

// adornment reads a line of one punctuation character: the overline of a
// title, or a transition (dropped); a short one (under four characters)
// that is neither is text.
func (r *rstReader) adornment(lines []rstLine, i int, c *rstCtx) int {
	s := lines[i].s
	if i+2 < len(lines) && lines[i+1].s != "" {
		if ch, ok := rstAdornment(lines[i+2].s); ok && ch == s[0] {
			if _, adorned := rstAdornment(strings.TrimSpace(lines[i+1].s)); !adorned {
				r.title(c, lines[i+1].s, rstStyle{s[0], true}, lines[i+1].n)
				return i + 3
			}
		}
	}
	if len(s) < 4 {
		return r.paragraph(lines, i, c)
	}
	return i + 1
}

// text reads a line of text: a title's text when an underline follows,
// a definition list's term when an indented line does, else the start of
// a paragraph.
func (r *rstReader) text(lines []rstLine, i int, c *rstCtx) int {
	s := lines[i].s
	if i+1 < len(lines) {
		next := lines[i+1].s
		if rstUnderline(next, s) {
			r.title(c, s, rstStyle{next[0], false}, lines[i].n)
			return i + 2
		}
		if next != "" && next[0] == ' ' && !strings.HasSuffix(s, "::") {
			return r.definitionList(lines, i, c)
		}
	}
	return r.paragraph(lines, i, c)
}

// paragraph reads the paragraph starting at line i: lines up to a blank
// or indented one, or up to a title's text. A paragraph ending in "::"
// introduces a literal block: "Text::" reads "Text:", "Text ::" reads
// "Text", and "::" alone goes.
func (r *rstReader) paragraph(lines []rstLine, i int, c *rstCtx) int {
	j := i + 1
	for j < len(lines) {
		t := lines[j].s
		if t == "" || t[0] == ' ' || j+1 < len(lines) && rstUnderline(lines[j+1].s, t) && !rstIsAdornment(t) {
			break
		}
		j++
	}
	parts := make([]string, 0, j-i)
	for _, l := range lines[i:j] {
		parts = append(parts, strings.TrimSpace(l.s))
	}
	text := strings.Join(parts, " ")
	literal := strings.HasSuffix(text, "::") && !strings.HasSuffix(text, `\::`)
	if literal {
		text = strings.TrimSuffix(text, ":")
		if t := strings.TrimSuffix(text, ":"); t == "" || t[len(t)-1] == ' ' {
			text = t
		}
	}
	r.para(c, r.inline(text), lines[i].n)
	if literal {
		return r.literal(lines, j)
	}
	return j
}

// rstIsAdornment reports whether s is a line of one punctuation character.
func rstIsAdornment(s string) bool {
	_, ok := rstAdornment(s)
	return ok
}

// literal reads the literal block after a paragraph ending in "::" at
// line j: the indented block that follows, or a quoted one (lines starting
// with the same punctuation character), as code.
func (r *rstReader) literal(lines []rstLine, j int) int {
	k := skipBlank(lines, j)
	if k >= len(lines) {
		return k
	}
	s := lines[k].s
	if s[0] == ' ' {
		end := rstIndentedEnd(lines, k)
		r.code(rstDedent(lines[k:end]))
		return end
	}
	q := s[0]
	if !strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", rune(q)) || classify(lines, k) == rstExplicit || rstIsAdornment(s) {
		return j
	}
	end := k
	for end < len(lines) && lines[end].s != "" && lines[end].s[0] == q {
		end++
	}
	r.code(lines[k:end])
	return end
}

// definitionList reads a definition list: a term line, then its indented
// definition; the items that follow each other are one list. Classifiers
// ("term : classifier") are dropped.
func (r *rstReader) definitionList(lines []rstLine, i int, c *rstCtx) int {
	g := r.b.NewGroup()
	start := i
	for i+1 < len(lines) {
		s, next := lines[i].s, lines[i+1].s
		if classify(lines, i) != rstText || next == "" || next[0] != ' ' || strings.HasSuffix(s, "::") || rstUnderline(next, s) {
			if i == start {
				return r.paragraph(lines, i, c) // not a term after all
			}
			break
		}
		end := rstIndentedEnd(lines, i+1)
		dc := c.nested(document.Definition, g)
		dc.item = &rstItem{term: r.term(s), line: lines[i].n}
		if dc.item.term == "" {
			dc = c.nested(document.Quote, r.b.NewGroup())
		}
		r.blocks(rstDedent(lines[i+1:end]), dc)
		i = skipBlank(lines, end)
		if i >= len(lines) || classify(lines, i) != rstText {
			return end
		}
	}
	return i
}

// term returns a definition list's term without its classifiers, inline
// markup and a colon at its end ("Encryption:" reads "Encryption", as
// "term: definition" follows).
func (r *rstReader) term(s string) string {
	if k := strings.Index(s, " : "); k >= 0 {
		s = s[:k]
	}
	return strings.TrimSuffix(document.Collapse(r.inline(strings.TrimSpace(s))), ":")
}

// rstGridBorder reports whether s is a grid table's top border
// ("+----+----+").
func rstGridBorder(s string) bool {
	if len(s) < 3 || s[0] != '+' || s[1] != '-' || s[len(s)-1] != '+' {
		return false
	}
	return strings.Trim(s, "+-") == ""
}

// rstSimpleBorder reports whether s is a simple table's border
// ("=====  =====").
func rstSimpleBorder(s string) bool {
	return s != "" && s[0] == '=' && strings.Trim(s, "= ") == ""
}

// rstRunes returns a table line as runes, an East Asian wide character
// followed by a zero (docutils pads them so that columns line up).
func rstRunes(s string) []rune {
	out := make([]rune, 0, len(s))
	for _, c := range s {
		out = append(out, c)
		if c >= 0x1100 {
			if k := width.LookupRune(c).Kind(); k == width.EastAsianWide || k == width.EastAsianFullwidth {
				out = append(out, 0)
			}
		}
	}
	return out
}

// rstCell returns the text of rs[from:to] (clipped to rs) without the
// padding zeros.
func rstCell(rs []rune, from, to int) string {
	to = min(to, len(rs))
	if from >= to {
		return ""
	}
	var sb strings.Builder
	for _, c := range rs[from:to] {
		if c != 0 {
			sb.WriteRune(c)
		}
	}
	return strings.TrimRight(sb.String(), " ")
}

// simpleTable reads a simple table: a top border of "=" runs, header rows
// above a second border when there is one, then rows up to the bottom
// border (one followed by a blank line, or the third). A row whose first
// column is blank continues the one above; lines of "-" (column spans)
// are skipped. It reports false, reading nothing, when there is no bottom
// border.
func (r *rstReader) simpleTable(lines []rstLine, i int, c *rstCtx) (int, bool) {
	var borders []int
	end := -1
	for j := i + 1; j < len(lines); j++ {
		if !rstSimpleBorder(lines[j].s) {
			continue
		}
		borders = append(borders, j)
		if len(borders) == 2 || j+1 == len(lines) || lines[j+1].s == "" {
			end = j
			break
		}
	}
	if end < 0 {
		return 0, false
	}
	// Column starts: the "=" runs of the top border.
	var cols []int
	top := lines[i].s
	for k := 0; k < len(top) && len(cols) < maxRSTColumns; k++ {
		if top[k] == '=' && (k == 0 || top[k-1] == ' ') {
			cols = append(cols, k)
		}
	}
	var rows [][][]rstLine
	var rowLines []int
	headRows := 0
	for j := i + 1; j < end; j++ {
		s := lines[j].s
		if j == borders[0] {
			headRows = len(rows)
			continue
		}
		if s == "" || strings.Trim(s, "- ") == "" {
			continue
		}
		rs := rstRunes(s)
		if len(cols) > 1 && strings.TrimSpace(rstCell(rs, 0, cols[1])) == "" && len(rows) > 0 {
			// A continuation line.
		} else {
			rows = append(rows, nil)
			rowLines = append(rowLines, lines[j].n)
		}
		// Cells as far as the line goes (a row costs what its line does).
		row := rows[len(rows)-1]
		for k := 0; k < len(cols) && cols[k] < len(rs); k++ {
			to := len(rs)
			if k+1 < len(cols) {
				to = cols[k+1]
			}
			for len(row) <= k {
				row = append(row, nil)
			}
			row[k] = append(row[k], rstLine{rstCell(rs, cols[k], to), lines[j].n})
		}
		rows[len(rows)-1] = row
	}
	if len(borders) < 2 || borders[0] == end {
		headRows = 0
	}
	r.tableRows(c, r.cells(rows, c), rowLines, headRows)
	return end + 1, true
}

// cells returns the text of each cell of rows.
func (r *rstReader) cells(rows [][][]rstLine, c *rstCtx) [][]string {
	out := make([][]string, len(rows))
	for k, row := range rows {
		for _, cell := range row {
			out[k] = append(out[k], r.cellText(cell, c))
		}
	}
	return out
}

// cellText returns the text of a table cell, read as a body (a list in a
// cell reads as its items' text) with its blocks joined.
func (r *rstReader) cellText(lines []rstLine, c *rstCtx) string {
	if len(lines) == 0 {
		return ""
	}
	if len(lines) == 1 {
		t := strings.TrimSpace(lines[0].s)
		if strings.IndexFunc(t, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != ' ' }) < 0 {
			return t // plain words: nothing to read
		}
	}
	saved := r.b
	r.b = document.NewBuilder("", document.RST)
	r.blocks(rstDedent(lines), &rstCtx{kind: document.Paragraph, depth: c.depth + 1})
	var parts []string
	for _, s := range r.b.Doc.Sections {
		for _, b := range s.Blocks {
			parts = append(parts, document.Collapse(b.Text))
		}
	}
	r.b = saved
	return strings.Join(parts, " ")
}

// tableRows adds a table's rows in c: the first headRows rows, joined per
// column, are the header labelling the cells of the others; a table of
// header rows alone reads as its header.
func (r *rstReader) tableRows(c *rstCtx, rows [][]string, lines []int, headRows int) {
	if len(rows) == 0 {
		return
	}
	headRows = min(max(headRows, 0), len(rows))
	var header []string
	for _, row := range rows[:headRows] {
		for k, cell := range row {
			if k >= len(header) {
				header = append(header, "")
			}
			header[k] = strings.TrimSpace(header[k] + " " + cell)
		}
	}
	tc := c.nested(document.TableRow, r.b.NewGroup())
	if headRows == len(rows) {
		r.para(tc, document.RowText(nil, header), lines[0])
		return
	}
	for k, row := range rows[headRows:] {
		r.para(tc, document.RowText(header, row), lines[headRows+k])
	}
}

// gridTable reads a grid table: the lines from its top border that start
// with "+" or "|". Column boundaries are where the border lines have "+";
// a row ends at a border line ("+---+", or a partial one under a cell
// spanning rows), a "=" border ends the header, and a cell spanning
// columns is read whole.
func (r *rstReader) gridTable(lines []rstLine, i int, c *rstCtx) int {
	end := i
	for end < len(lines) && lines[end].s != "" && (lines[end].s[0] == '+' || lines[end].s[0] == '|') {
		end++
	}
	// Boundaries: every "+" of a line that starts with one.
	seen := map[int]bool{}
	var bounds []int
	for _, l := range lines[i:end] {
		if l.s[0] != '+' {
			continue
		}
		for k, c := range rstRunes(l.s) {
			if c == '+' && !seen[k] && len(bounds) <= maxRSTColumns {
				seen[k] = true
				bounds = append(bounds, k)
			}
		}
	}
	sortInts(bounds)
	ncol := len(bounds) - 1
	if ncol < 1 {
		return end
	}
	var rows [][][]rstLine
	var rowLines []int
	var cur [][]rstLine // the row being read, as many cells as its lines reach
	open, curLine := false, 0
	headRows := 0
	endRow := func() {
		if open {
			rows = append(rows, cur)
			rowLines = append(rowLines, curLine)
		}
		cur, open = nil, false
	}
	add := func(col int, text string, n int) {
		if !open {
			open, curLine = true, n
		}
		for len(cur) <= col {
			cur = append(cur, nil)
		}
		cur[col] = append(cur[col], rstLine{text, n})
	}
	type span struct {
		col  int
		text string
	}
	for _, l := range lines[i+1 : end] {
		rs := rstRunes(l.s)
		// The line's cells: each runs to the next boundary present on it
		// ("|", or "+" on a border), so that a cell spanning columns is
		// read whole.
		var spans []span
		rule, head := false, false
		for k := 0; k < ncol && bounds[k] < len(rs); {
			next := k + 1
			for next < ncol && bounds[next] < len(rs) && rs[bounds[next]] != '|' && rs[bounds[next]] != '+' {
				next++
			}
			if next < ncol && bounds[next] >= len(rs) {
				next = ncol // the line ends inside this cell
			}
			seg := rstCell(rs, bounds[k]+1, bounds[next])
			switch {
			case seg != "" && strings.Trim(seg, "-") == "":
				rule = true
			case seg != "" && strings.Trim(seg, "=") == "":
				rule, head = true, true
			default:
				spans = append(spans, span{k, seg})
			}
			k = next
		}
		for _, sp := range spans {
			// On a border, only the text of a cell spanning rows (under a
			// partial border) is read.
			if !rule || strings.TrimSpace(sp.text) != "" {
				add(sp.col, sp.text, l.n)
			}
		}
		if rule {
			endRow()
			if head && headRows == 0 {
				headRows = len(rows)
			}
		}
	}
	endRow()
	r.tableRows(c, r.cells(rows, c), rowLines, headRows)
	return end
}

// sortInts sorts a (short) slice of ints in place.
func sortInts(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// rstFootnoteLabel parses a footnote's or citation's label ("[1]",
// "[#]", "[#note]", "[*]", "[Cit2002]") at the start of s and returns the
// byte index after it.
func rstFootnoteLabel(s string) (int, bool) {
	if len(s) < 3 || s[0] != '[' {
		return 0, false
	}
	k := strings.IndexByte(s, ']')
	if k < 2 || k > 100 || strings.ContainsAny(s[1:k], " [") || k+1 < len(s) && s[k+1] != ' ' {
		return 0, false
	}
	return k + 1, true
}

// rstDirectiveMarker parses "name:: arguments" (after ".. "): the
// directive's name (letters, digits and "-_+:." with "::" after it) and the
// byte index of the text after "::".
func rstDirectiveMarker(s string) (name string, col int, ok bool) {
	for j := 0; j < len(s); j++ {
		c := s[j]
		if c == ':' && j > 0 && j+1 < len(s) && s[j+1] == ':' && (j+2 == len(s) || s[j+2] == ' ') {
			return s[:j], j + 2, true
		}
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_+:.", c) >= 0) {
			return "", 0, false
		}
	}
	return "", 0, false
}

// explicit reads explicit markup (".. " and what follows, with the
// indented block under it): a directive, a footnote or citation (kept
// without its label), or a hyperlink target, substitution definition or
// comment (dropped). ".." alone followed by a blank line is an empty
// comment: the block after it is not its own.
func (r *rstReader) explicit(lines []rstLine, i int, c *rstCtx) int {
	s := lines[i].s
	rest := strings.TrimLeft(s[2:], " ")
	col := len(s) - len(rest)
	if rest == "" && (i+1 >= len(lines) || lines[i+1].s == "") {
		return i + 1
	}
	body, end := rstFirstKnown(lines, i, col)
	switch {
	case rest == "", rest[0] == '_', rest[0] == '|':
		return end
	case rest[0] == '[':
		if k, ok := rstFootnoteLabel(rest); ok {
			body[0].s = strings.TrimLeft(rest[k:], " ")
			r.blocks(body, c.inner())
		}
		return end
	}
	if name, k, ok := rstDirectiveMarker(rest); ok {
		body[0].s = strings.TrimLeft(rest[k:], " ")
		r.directive(strings.ToLower(name), body, lines[i].n, c)
	}
	return end
}

// rstDirective splits a directive's block (the text after "::", then the
// dedented lines under it) as docutils does: its first text block holds
// the arguments (when the directive takes any) and then the options
// (":name: value" lines); the content follows a blank line. A directive
// without arguments has its first text block as content.
func rstDirective(block []rstLine, hasArgs bool) (args []rstLine, opts map[string]string, content []rstLine) {
	if len(block) > 0 && block[0].s == "" {
		block = block[1:]
	}
	k := 0
	for k < len(block) && block[k].s != "" {
		k++
	}
	args = block[:k]
	if k < len(block) {
		content = block[k+1:]
	}
	opts = map[string]string{}
	for o, l := range args {
		if _, _, ok := rstFieldMarker(l.s); !ok {
			continue
		}
		last := ""
		for _, l := range args[o:] {
			if name, col, ok := rstFieldMarker(l.s); ok {
				last = strings.ToLower(name)
				opts[last] = strings.TrimSpace(l.s[col:])
			} else if last != "" {
				opts[last] += " " + strings.TrimSpace(l.s)
			}
		}
		args = args[:o]
		break
	}
	if !hasArgs && len(args) > 0 {
		content = append(args[:len(args):len(args)], block[k:]...)
		args = nil
	}
	return args, opts, content
}

// Directives by what the reader does with them.
var (
	// Read as the blocks of their body, their label dropped.
	rstAdmonitions = map[string]bool{
		"note": true, "warning": true, "tip": true, "important": true, "caution": true,
		"attention": true, "danger": true, "error": true, "hint": true, "seealso": true,
	}
	// Labels that start their first paragraph, with the version.
	rstVersions = map[string]string{
		"versionadded": "Added in version", "versionchanged": "Changed in version",
		"deprecated": "Deprecated since version", "versionremoved": "Removed in version",
	}
	// Code: their content (math's and productionlist's arguments too).
	rstCodeDirectives = map[string]bool{
		"code-block": true, "code": true, "sourcecode": true, "parsed-literal": true, "math": true,
		"productionlist": true, "testcode": true, "testoutput": true, "testsetup": true,
		"testcleanup": true, "doctest": true, "ipython": true, "jupyter-execute": true,
		"code-cell": true, "code-tab": true, "graphviz": true, "digraph": true, "graph": true,
		"mermaid": true, "plantuml": true, "uml": true, "prompt": true, "plot": true,
		"bokeh-plot": true, "exec": true, "runblock": true, "tikz": true,
	}
	// Dropped with their content.
	rstDropped = map[string]bool{
		"image": true, "toctree": true, "contents": true, "include": true, "literalinclude": true,
		"raw": true, "index": true, "meta": true, "tabularcolumns": true, "highlight": true,
		"sectnum": true, "section-numbering": true, "header": true, "footer": true,
		"target-notes": true, "title": true, "default-role": true, "role": true, "module": true,
		"currentmodule": true, "program": true, "sectionauthor": true, "moduleauthor": true,
		"codeauthor": true, "todo": true, "todolist": true, "rubric": true, "default-domain": true,
		"bibliography": true, "footbibliography": true, "program-output": true, "command-output": true,
		"video": true, "youtube": true,
	}
	// Domain directives that describe no object (py:module, cpp:namespace).
	rstDomainDropped = map[string]bool{
		"module": true, "currentmodule": true, "namespace": true, "namespace-push": true,
		"namespace-pop": true, "alias": true,
	}
	// Read as their body.
	rstTransparent = map[string]bool{
		"container": true, "rst-class": true, "cssclass": true, "only": true, "ifconfig": true,
		"compound": true, "hlist": true, "line-block": true, "impl-detail": true,
	}
	// Block quotes.
	rstQuotes = map[string]bool{"epigraph": true, "highlights": true, "pull-quote": true}
	// Sphinx object descriptions without a domain (with one, any name
	// but the dropped ones is).
	rstObjects = map[string]bool{
		"function": true, "method": true, "classmethod": true, "staticmethod": true, "class": true,
		"attribute": true, "property": true, "data": true, "exception": true, "decorator": true,
		"decoratormethod": true, "type": true, "var": true, "member": true, "macro": true,
		"struct": true, "union": true, "enum": true, "enum-class": true, "enum-struct": true,
		"enumerator": true, "concept": true, "option": true, "cmdoption": true, "envvar": true,
		"describe": true, "object": true, "confval": true, "event": true, "setting": true,
	}
)

// directive reads a directive named name (lower case) whose block (the
// text after "::", then the dedented lines under it) starts at line.
func (r *rstReader) directive(name string, block []rstLine, line int, c *rstCtx) {
	base := name
	if k := strings.LastIndexByte(name, ':'); k >= 0 {
		base = name[k+1:]
	}
	switch {
	case rstAdmonitions[name]:
		_, _, content := rstDirective(block, false)
		r.blocks(content, c.inner())
	case name == "admonition":
		_, _, content := rstDirective(block, true)
		r.blocks(content, c.inner())
	case rstVersions[name] != "" || name == "deprecated-removed":
		r.version(name, block, c)
	case rstCodeDirectives[name]:
		args, _, content := rstDirective(block, name != "math" && name != "parsed-literal")
		if len(content) == 0 && name == "productionlist" {
			content = args
		}
		r.code(content)
	case strings.HasPrefix(base, "auto") && base != "autosummary" && base != "autoprogram":
		// autodoc: the docstring is not here, but text written under the
		// directive is shown after it.
		r.object(block, line, false, c)
	case rstDropped[name] || base != name && rstDomainDropped[base] || strings.HasPrefix(base, "auto"):
	case rstTransparent[name]:
		_, _, content := rstDirective(block, len(block) > 0 && block[0].s != "")
		ic := c.inner()
		ic.sections = c.sections && name != "hlist"
		r.blocks(content, ic)
	case rstQuotes[name]:
		_, _, content := rstDirective(block, false)
		r.blocks(content, c.nested(document.Quote, r.b.NewGroup()))
	case name == "figure" || name == "table":
		// The figure's caption and legend, the table.
		args, _, content := rstDirective(block, true)
		if name == "table" {
			r.para(c, r.inline(rstJoin(args)), rstFirstLine(args, line))
		}
		r.blocks(content, c.inner())
	case name == "topic" || name == "sidebar" || name == "centered":
		args, _, content := rstDirective(block, true)
		r.para(c, r.inline(rstJoin(args)), rstFirstLine(args, line))
		r.blocks(content, c.inner())
	case name == "csv-table":
		args, opts, content := rstDirective(block, true)
		r.para(c, r.inline(rstJoin(args)), rstFirstLine(args, line))
		r.csvTable(content, opts, c)
	case name == "list-table":
		args, opts, content := rstDirective(block, true)
		r.para(c, r.inline(rstJoin(args)), rstFirstLine(args, line))
		r.listTable(content, opts, c)
	case name == "glossary":
		_, _, content := rstDirective(block, false)
		r.glossary(content, c)
	case rstObjects[name] || base != name:
		r.object(block, line, true, c)
	default:
		// Unknown: text on the marker line is taken for arguments.
		_, _, content := rstDirective(block, len(block) > 0 && block[0].s != "")
		if rstProse(content) {
			r.blocks(content, c.inner())
		}
	}
}

// rstJoin joins the text of lines with spaces.
func rstJoin(lines []rstLine) string {
	parts := make([]string, 0, len(lines))
	for _, l := range lines {
		parts = append(parts, strings.TrimSpace(l.s))
	}
	return strings.Join(parts, " ")
}

// rstFirstLine returns the line lines start on, or def when there are
// none.
func rstFirstLine(lines []rstLine, def int) int {
	if len(lines) > 0 {
		return lines[0].n
	}
	return def
}

// version reads versionadded, versionchanged, deprecated and
// versionremoved (and CPython's deprecated-removed): their label and
// version ("Added in version 2.1") start their text, the argument's or the
// body's first paragraph; alone, the label is a paragraph.
func (r *rstReader) version(name string, block []rstLine, c *rstCtx) {
	args, _, content := rstDirective(block, true)
	words := strings.Fields(rstJoin(args))
	if len(words) == 0 {
		r.blocks(content, c.inner())
		return
	}
	label := rstVersions[name] + " " + words[0]
	rest := words[1:]
	if name == "deprecated-removed" {
		label = "Deprecated since version " + words[0]
		if len(rest) > 0 {
			label += ", removed in version " + rest[0]
			rest = rest[1:]
		}
	}
	line := args[0].n
	ic := c.inner()
	if len(rest) > 0 {
		ic.lead = &rstLead{text: label}
		r.para(ic, r.inline(strings.Join(rest, " ")), line)
		ic.lead = nil
	} else if k := skipBlank(content, 0); k < len(content) && classify(content, k) == rstText {
		ic.lead = &rstLead{text: label}
	} else {
		r.para(ic, label+".", line)
	}
	r.blocks(content, ic)
}

// object reads a Sphinx object description (".. function:: sig"): a
// definition whose term is the signature (several are joined with ", ")
// and whose description is the body; what is nested in the body carries
// the signature among its parents. Options (":noindex:") are dropped. keep
// says whether a signature with nothing under it is kept as a paragraph
// (not for autodoc's, whose description is in the code).
func (r *rstReader) object(block []rstLine, line int, keep bool, c *rstCtx) {
	args, _, content := rstDirective(block, true)
	var sigs []string
	for _, a := range args {
		if t := rstSignature(a.s); t != "" {
			sigs = append(sigs, t)
		}
	}
	if len(sigs) == 0 {
		r.blocks(content, c.inner())
		return
	}
	oc := c.nested(document.Definition, r.b.NewGroup())
	oc.item = &rstItem{term: strings.Join(sigs, ", "), line: line, keep: keep}
	r.blocks(content, oc)
	r.closeItem(oc)
}

// rstSignature returns an object's signature with its backslash escapes
// resolved and its white space collapsed.
func rstSignature(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		sb.WriteByte(s[i])
	}
	return document.Collapse(sb.String())
}

// rstProse reports whether an unknown directive's content reads as text
// (prose, lists, nested directives) rather than code or data: few
// programming symbols, few lines ending as code lines do. Nested explicit
// markup and literal blocks are left out (they are read for what they
// are); content made of them alone reads.
func rstProse(lines []rstLine) bool {
	letters, symbols, nonBlank, codeLines := 0, 0, 0, 0
	skip := false
	for _, l := range lines {
		t := strings.TrimSpace(l.s)
		if t == "" || skip && l.s[0] == ' ' {
			continue
		}
		skip = strings.HasPrefix(l.s, "..") || strings.HasSuffix(t, "::")
		if strings.HasPrefix(l.s, "..") {
			continue
		}
		nonBlank++
		switch t[len(t)-1] {
		case ';', '{', '}', '(', '[', '=':
			codeLines++
		}
		if strings.HasPrefix(t, ">>>") || strings.HasPrefix(t, "$ ") {
			codeLines++
		}
		for _, c := range t {
			switch {
			case unicode.IsLetter(c) || c == ' ':
				letters++
			case strings.ContainsRune("{}[]();=<>$#@&|\\^~", c):
				symbols++
			}
		}
	}
	return nonBlank == 0 || letters > 0 && symbols*12 < letters && codeLines*4 < nonBlank
}

// glossary reads a Sphinx glossary: a definition list whose items may
// have several terms, one a line (joined with ", ").
func (r *rstReader) glossary(lines []rstLine, c *rstCtx) {
	g := r.b.NewGroup()
	for i := 0; i < len(lines); {
		if lines[i].s == "" {
			i++
			continue
		}
		if lines[i].s[0] == ' ' || classify(lines, i) != rstText {
			// Not a term: read as it is.
			end := i + 1
			for end < len(lines) && lines[end].s != "" {
				end++
			}
			if lines[i].s[0] == ' ' {
				end = rstIndentedEnd(lines, i)
			}
			r.blocks(rstDedent(lines[i:end]), c.inner())
			i = end
			continue
		}
		var terms []string
		line := lines[i].n
		for i < len(lines) && lines[i].s != "" && lines[i].s[0] != ' ' {
			if t := r.term(lines[i].s); t != "" {
				terms = append(terms, t)
			}
			i++
		}
		end := rstIndentedEnd(lines, i)
		gc := c.nested(document.Definition, g)
		gc.item = &rstItem{term: strings.Join(terms, ", "), line: line, keep: true}
		if len(terms) == 0 {
			gc.item = nil
		}
		r.blocks(rstDedent(lines[i:end]), gc)
		r.closeItem(gc)
		i = max(end, i)
	}
}

// csvTable reads a csv-table's content (its :file: or :url: is not read)
// with its :header:, :header-rows: and :delim: options.
func (r *rstReader) csvTable(content []rstLine, opts map[string]string, c *rstCtx) {
	delim := ','
	switch d := opts["delim"]; d {
	case "":
	case "tab":
		delim = '\t'
	case "space":
		delim = ' '
	default:
		delim, _ = utf8.DecodeRuneInString(d)
	}
	read := func(text string) ([][]string, []int) {
		cr := csv.NewReader(strings.NewReader(text))
		cr.Comma, cr.LazyQuotes, cr.TrimLeadingSpace, cr.FieldsPerRecord = delim, true, true, -1
		var rows [][]string
		var lines []int
		for {
			rec, err := cr.Read()
			if err != nil {
				break
			}
			n, _ := cr.FieldPos(0)
			row := make([]string, len(rec))
			for k, cell := range rec {
				row[k] = document.Collapse(r.inline(document.Collapse(cell)))
			}
			rows, lines = append(rows, row), append(lines, n)
		}
		return rows, lines
	}
	var text strings.Builder
	for _, l := range content {
		text.WriteString(l.s)
		text.WriteByte('\n')
	}
	rows, at := read(text.String())
	for k, n := range at {
		at[k] = 0
		if n >= 1 && n <= len(content) {
			at[k] = content[n-1].n
		}
	}
	headRows, _ := strconv.Atoi(opts["header-rows"])
	if h, _ := read(opts["header"]); len(h) > 0 && len(rows) > 0 {
		rows, at = append(h, rows...), append(make([]int, len(h)), at...)
		headRows = len(h)
	}
	r.tableRows(c, rows, at, headRows)
}

// listTable reads a list-table: a bullet list of rows, each a bullet list
// of cells, with its :header-rows: option.
func (r *rstReader) listTable(content []rstLine, opts map[string]string, c *rstCtx) {
	var rows [][]string
	var at []int
	for _, row := range rstItems(content) {
		var cells []string
		for _, cell := range rstItems(row) {
			cells = append(cells, r.cellText(cell, c))
		}
		rows, at = append(rows, cells), append(at, row[0].n)
	}
	headRows, _ := strconv.Atoi(opts["header-rows"])
	r.tableRows(c, rows, at, headRows)
}

// rstItems returns the bodies of the bullet list items in lines, each
// starting with its marker's line.
func rstItems(lines []rstLine) [][]rstLine {
	var items [][]rstLine
	for i := 0; i < len(lines); {
		col, _, ok := rstBulletMarker(lines[i].s)
		if !ok {
			i++
			continue
		}
		body, end := rstKnown(lines, i, col, utf8.RuneCountInString(lines[i].s[:col]))
		items = append(items, body)
		i = max(end, i+1)
	}
	return items
}
