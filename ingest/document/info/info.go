package info

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reqa/reqa/ingest/document"
	"golang.org/x/text/encoding/htmlindex"
)

// Parse reads a GNU Info file: a manual, or one part of a split one
// (NAME.info-1, NAME.info-2…; the main file of a split manual holds only
// tables and yields a document without blocks). Info is makeinfo's layout
// of a Texinfo manual, so the reader tells its constructs apart by their
// shapes: the column a line starts at relative to the text column around
// it (0 in a node, 5 in a table's description or a list item), and
// whether a line break is the fill's (the next line's first word would
// not have fit before the fill column, 72 unless the file's wrapped lines
// say otherwise).
//
// Kept: each node (after a \x1f separator and its "File: …, Node: …"
// header, which is not text) is a section headed by its underlined title
// (the Top node's is the document's title, level 1; '*' chapters 2, '='
// sections 3, '-' subsections 4, '.' subsubsections 5) or, without one,
// by its node name one level below its Up node; underlined headings
// inside a node are headings below it. Paragraphs are their lines joined. A
// @table item, term lines at the text column right above a description
// indented under them, is a definition ("-a, --all: Do not ignore…",
// several terms joined with ", ", the quotes makeinfo puts around @code
// and @samp terms stripped; a table nested in the description carries
// the term in Block.Parents); a @deffn's " -- Category: name args" lines
// are definitions too, the category left out of the term. @itemize and
// @enumerate items (a bullet or number 1–3 columns in) are list items.
// Text indented 4 columns or more is a quote when filled prose
// (@quotation: lines flush, every break the fill's, mostly words, none
// like code) and code otherwise (@example, @display, @lisp…, which
// makeinfo indents by 5 and never fills); text at the text column is
// prose but when its breaks are not the fill's and a line looks like code
// ("$ " or "# " prompts, braces, a line ending in ";", "\\" or "|",
// columns aligned by runs of spaces) or it is three short lines or more,
// none filled (@verbatim and @format are not indented). Code blocks that
// follow each other are one. A @multitable is table rows "Header: cell;
// …" when a rule of dashes sets off its header, else a paragraph "cell;
// cell" per row. Cross references read as text ("*Note Node::" → "See
// Node", "*note Label: Node." → "see Label.", "(*note Node::)" → "(see
// Node)", over line breaks too); *strong* and _emph_ markers are dropped
// where they are clearly markup; quotes (‘code’) are kept in text.
// Footnotes are paragraphs without their "(1)" markers, and the markers
// that follow text ("sorted.(1)") are taken out of it.
//
// Dropped: the preamble before the first node (makeinfo's "This is…"
// line, the copying text, INFO-DIR-SECTION and the dir entries), tag
// tables, indirect tables and local variables, menus (navigation, the
// detailed node listing too; text after a menu is kept), index nodes, and
// image markers.
//
// The text is UTF-8; a file that is not is read in the coding its local
// variables name ("coding: iso-latin-1"), else a line that is not UTF-8
// is read as Latin-1. CRLF line ends are read.
func Parse(name string, data []byte) (*document.Document, error) {
	return ParseContext(context.Background(), name, data)
}

// ParseContext is [Parse], stopping with ctx's error (wrapped) once ctx is
// done, between lines.
func ParseContext(ctx context.Context, name string, data []byte) (d *document.Document, err error) {
	defer document.Recover(name, &err)
	r := &infoReader{b: document.NewBuilderContext(ctx, name, document.Info), levels: map[string]int{}}
	lines := infoLines(infoDecode(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	r.fill = fillColumn(lines)
	var nodes []infoNode
	i := 0
	for i < len(lines) && !lines[i].sep {
		i++ // the preamble
	}
	for i < len(lines) {
		j := i + 1
		for j < len(lines) && !lines[j].sep {
			j++
		}
		if n, ok := infoPart(lines[i], lines[i+1:j]); ok {
			nodes = append(nodes, n)
		}
		i = j
	}
	// Footnotes makeinfo put in nodes of their own ("Node-Footnotes"):
	// their markers are taken out of the node they belong to.
	r.separate = map[string][]string{}
	for _, n := range nodes {
		if owner, ok := strings.CutSuffix(n.name, "-Footnotes"); ok {
			for _, l := range n.body {
				if num, ok := footnoteNumber(l.text); ok {
					r.separate[owner] = append(r.separate[owner], num)
				}
			}
		}
	}
	for _, n := range nodes {
		r.node(n)
	}
	return r.b.Doc, nil
}

// maxInfoTerm bounds how long a term grows from the lines stacked on one
// item, as in the roff reader.
const maxInfoTerm = 1024

// infoLine is a line of an Info file.
type infoLine struct {
	raw    string // the line without control characters (tabs kept)
	text   string // tabs expanded, leading and trailing white space cut
	indent int    // the column text starts at
	end    int    // the column after its last character
	n      int    // 1-based line number
	spaces bool   // white space only but not empty: a @multitable row's end
	sep    bool   // a node separator (\x1f)
	index  bool   // holds makeinfo's index marker: the node is an index
}

// infoDecode returns data as text: UTF-8 as it is; else decoded from the
// coding its local variables name ("coding: iso-latin-1"), or line by
// line, a line that is not UTF-8 read as Latin-1. (A file in an 8-bit
// coding that is valid UTF-8 is all ASCII, or nearly never met.)
func infoDecode(data []byte) string {
	if utf8.Valid(data) {
		return string(data)
	}
	if c := infoCoding(data); c != "" {
		if e, err := htmlindex.Get(c); err == nil {
			if out, err := e.NewDecoder().Bytes(data); err == nil {
				return string(out)
			}
		}
	}
	var sb strings.Builder
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n') + 1
		if i == 0 {
			i = len(data)
		}
		sb.WriteString(document.DecodeLatin1(data[:i]))
		data = data[i:]
	}
	return sb.String()
}

// infoCoding returns the coding named by the last "Local Variables:"
// block ("coding: iso-latin-1"), in a form htmlindex knows, or "".
func infoCoding(data []byte) string {
	tail := data[max(0, len(data)-4096):]
	s := string(tail)
	i := strings.LastIndex(s, "Local Variables:")
	if i < 0 {
		return ""
	}
	j := strings.Index(s[i:], "coding:")
	if j < 0 {
		return ""
	}
	c := strings.TrimSpace(s[i+j+len("coding:"):])
	if k := strings.IndexAny(c, " \t\r\n"); k >= 0 {
		c = c[:k]
	}
	c = strings.ToLower(c)
	for _, eol := range []string{"-unix", "-dos", "-mac"} {
		c = strings.TrimSuffix(c, eol) // Emacs names the line ends too
	}
	switch c {
	case "iso-latin-1":
		return "iso-8859-1"
	case "iso-latin-2":
		return "iso-8859-2"
	case "iso-latin-9":
		return "iso-8859-15"
	}
	return c
}

// infoLines splits text into lines: \r before \n cut, tabs expanded,
// control characters dropped (DEL kept: it quotes node names), and
// makeinfo's markers (\x00\x08[index\x00\x08], images), which may span
// lines, taken out.
func infoLines(s string) []infoLine {
	var out []infoLine
	inMarker := false
	for n := 1; ; n++ {
		line, rest, more := strings.Cut(s, "\n")
		s = rest
		line = strings.TrimSuffix(line, "\r")
		l := infoLine{n: n, sep: strings.HasPrefix(line, "\x1f")}
		if !l.sep {
			var sb strings.Builder
			for k := 0; k < len(line); {
				if inMarker {
					e := strings.Index(line[k:], "\x00\x08]")
					if e < 0 {
						break
					}
					k += e + 3
					inMarker = false
					continue
				}
				if strings.HasPrefix(line[k:], "\x00\x08[") {
					l.index = l.index || strings.HasPrefix(line[k+3:], "index")
					inMarker = true
					k += 3
					continue
				}
				c, size := utf8.DecodeRuneInString(line[k:])
				k += size
				if c == '\t' || c == '\x7f' || !unicode.IsControl(c) {
					sb.WriteRune(c)
				}
			}
			l.raw = sb.String()
			expanded := expandTabs(l.raw)
			l.text = strings.TrimSpace(expanded)
			l.spaces = l.text == "" && expanded != ""
			l.indent = len(expanded) - len(strings.TrimLeft(expanded, " "))
			l.end = l.indent + textWidth(l.text)
		} else {
			inMarker = false
			l.raw = strings.TrimLeft(line, "\x1f\f")
		}
		out = append(out, l)
		if !more {
			return out
		}
	}
}

// expandTabs replaces tabs with spaces to the next multiple of 8 columns.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var sb strings.Builder
	col := 0
	for _, c := range s {
		if c == '\t' {
			for n := 8 - col%8; n > 0; n-- {
				sb.WriteByte(' ')
			}
			col += 8 - col%8
			continue
		}
		sb.WriteRune(c)
		col += runeWidth(c)
	}
	return sb.String()
}

// textWidth returns the columns s takes on a terminal.
func textWidth(s string) int {
	w := 0
	for _, c := range s {
		w += runeWidth(c)
	}
	return w
}

// runeWidth returns the columns c takes: 0 for a combining mark, 2 for an
// East Asian wide character, else 1.
func runeWidth(c rune) int {
	switch {
	case unicode.In(c, unicode.Mn, unicode.Me):
		return 0
	case c >= 0x1100 && c <= 0x115f, c >= 0x2e80 && c <= 0xa4cf && c != 0x303f,
		c >= 0xac00 && c <= 0xd7a3, c >= 0xf900 && c <= 0xfaff, c >= 0xfe30 && c <= 0xfe4f,
		c >= 0xff00 && c <= 0xff60, c >= 0xffe0 && c <= 0xffe6, c >= 0x20000 && c <= 0x3fffd:
		return 2
	}
	return 1
}

// fillColumn estimates the column makeinfo filled text to (72 unless the
// manual was made with another --fill-column): the 95th percentile of
// where lines of words end that a line at the margin follows (lines a
// paragraph wraps), long lines of code left out.
func fillColumn(lines []infoLine) int {
	var ends []int
	for k, l := range lines[:max(0, len(lines)-1)] {
		next := lines[k+1]
		if !l.sep && l.indent <= 3 && l.end <= 120 && strings.Count(l.text, " ") >= 5 && !strings.HasPrefix(l.text, "* ") &&
			!next.sep && next.text != "" && next.indent == 0 {
			ends = append(ends, l.end)
		}
	}
	if len(ends) < 20 {
		return 72
	}
	slices.Sort(ends)
	return max(ends[len(ends)*95/100], 40)
}

type infoReader struct {
	b         *document.Builder
	fill      int            // the fill column
	levels    map[string]int // the heading level of each node read
	nodeLevel int            // the level of the node being read

	notes     map[string]bool     // the footnote numbers of the node being read
	separate  map[string][]string // the footnote numbers of "Node-Footnotes" nodes, by node
	footnotes bool                // reading the node's footnotes

	code     []infoLine // code lines waiting to be one block
	codeLast int        // the line the last of them is on
}

// infoNode is a node: its header's fields, where the header is, and the
// lines that follow it.
type infoNode struct {
	name, up, file string
	at             int
	body           []infoLine
}

// infoPart reads what follows a separator: a node, or a table (tag table,
// indirect table, local variables), which is not one.
func infoPart(sep infoLine, body []infoLine) (infoNode, bool) {
	header, at := sep.raw, sep.n
	for k := 0; k < 2 && strings.TrimSpace(header) == "" && len(body) > 0; k++ {
		header, at, body = body[0].raw, body[0].n, body[1:]
	}
	name := infoField(header, "Node")
	if name == "" {
		return infoNode{}, false
	}
	return infoNode{name: name, up: infoField(header, "Up"), file: infoField(header, "File"), at: at, body: body}, true
}

// infoField returns the value of the field key ("Node", "Up") of a node
// header ("File: x.info,  Node: Top,  Next: Intro,  Up: (dir)"): up to a
// comma or tab, or between DEL characters when quoted so.
func infoField(h, key string) string {
	for i := 0; i < len(h); {
		j := strings.Index(h[i:], key+":")
		if j < 0 {
			return ""
		}
		j += i
		i = j + len(key) + 1
		if j > 0 && strings.IndexByte(" \t,", h[j-1]) < 0 {
			continue
		}
		v := strings.TrimLeft(h[i:], " ")
		if q, ok := strings.CutPrefix(v, "\x7f"); ok {
			v, _, _ = strings.Cut(q, "\x7f")
		} else if k := strings.IndexAny(v, ",\t"); k >= 0 {
			v = v[:k]
		}
		return strings.TrimSpace(v)
	}
	return ""
}

// node reads a node: its title, or its name, is a heading; index nodes
// are dropped whole.
func (r *infoReader) node(n infoNode) {
	name, up, file, at, body := n.name, n.up, n.file, n.at, n.body
	if infoIndex(body) {
		return
	}
	r.notes, r.footnotes = map[string]bool{}, strings.HasSuffix(name, "-Footnotes")
	for _, num := range r.separate[name] {
		r.notes[num] = true
	}
	inNotes := false
	for _, l := range body {
		if l.text == footnoteRule {
			inNotes = true
		} else if n, ok := footnoteNumber(l.text); inNotes && ok {
			r.notes[n] = true
		}
	}
	k := 0
	for k < len(body) && body[k].text == "" {
		k++
	}
	top := strings.EqualFold(name, "Top")
	if k+1 < len(body) && infoUnderline(body[k], body[k+1]) != 0 {
		level := infoLevel(infoUnderline(body[k], body[k+1]))
		if top {
			level = 1
		}
		r.levels[name] = level
		r.b.Heading(level, stripDEL(body[k].text), "", body[k].n, 0)
		k += 2
	} else {
		level, text := 2, name
		if l, ok := r.levels[up]; ok {
			level = min(l+1, 6)
		}
		if top {
			// An untitled Top node: the manual's name is the title.
			level, text = 1, strings.TrimSuffix(strings.TrimSuffix(file, ".info"), ".inf")
			if text == "" {
				text = name
			}
		}
		r.levels[name] = level
		r.b.Heading(level, stripDEL(text), "", at, 0)
	}
	r.nodeLevel = r.levels[name]
	r.region(body[k:], 0, &infoBox{kind: document.Paragraph}, 0)
	r.flushCode()
}

// footnoteRule is the line that starts a node's footnotes.
const footnoteRule = "---------- Footnotes ----------"

// footnoteNumber returns N when a line starts a footnote, "(N) text".
func footnoteNumber(s string) (string, bool) {
	n, ok := infoNoteMark(s)
	if !ok || len(s) > len(n)+2 && s[len(n)+2] != ' ' {
		return "", false
	}
	return n, true
}

// infoNoteMark returns N when s starts with a footnote marker, "(N)".
func infoNoteMark(s string) (string, bool) {
	rest, ok := strings.CutPrefix(s, "(")
	if !ok {
		return "", false
	}
	n := 0
	for n < len(rest) && n < 4 && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 || !strings.HasPrefix(rest[n:], ")") {
		return "", false
	}
	return rest[:n], true
}

// infoIndex reports whether a node is an index: makeinfo marks one
// ("\x00\x08[index\x00\x08]"); older ones are menus whose entries end
// with "(line N)".
func infoIndex(body []infoLine) bool {
	entries, lined := 0, 0
	for _, l := range body {
		if l.index {
			return true
		}
		if l.indent == 0 && strings.HasPrefix(l.text, "* ") && !strings.HasPrefix(l.text, "* Menu:") {
			entries++
			if strings.HasSuffix(l.text, ")") && strings.Contains(l.text, "(line ") {
				lined++
			}
		}
	}
	return lined > 0 && lined*2 >= entries
}

// infoUnderline returns the character that underlines title when under
// is its underline (a line of one of "*=-." as wide as the title, both at
// the margin), else 0.
func infoUnderline(title, under infoLine) byte {
	if title.indent != 0 || under.indent != 0 || title.text == "" || under.text == "" || title.sep || under.sep {
		return 0
	}
	c := under.text[0]
	if strings.IndexByte("*=-.", c) < 0 || strings.Trim(under.text, string(c)) != "" {
		return 0
	}
	if w := len(under.text); w != textWidth(title.text) && w != utf8.RuneCountInString(title.text) {
		return 0
	}
	if strings.IndexFunc(title.text, func(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) }) < 0 {
		return 0
	}
	return c
}

// infoLevel returns the heading level an underline character gives:
// chapters ('*') 2, below the manual's title, down to subsubsections.
func infoLevel(c byte) int {
	return 2 + strings.IndexByte("*=-.", c)
}

// infoBox is what a region of lines belongs to: the node itself, a
// definition's description or a list item.
type infoBox struct {
	kind     document.Kind // the kind of the box's own paragraphs
	term     string        // a definition's term, until a block takes it
	termLine int
	group    int      // the list or definition list the box is an item of; 0 for none
	own      []string // Block.Parents of the box's own paragraphs
	parents  []string // Block.Parents of what is nested deeper (own and the term)
}

// infoRun is the list or definition list a region is reading, so that
// its items share a group.
type infoRun struct {
	kind  document.Kind
	group int
}

// next returns the group of an item of kind: the run's, or a new one.
func (run *infoRun) next(r *infoReader, kind document.Kind) int {
	if run.kind != kind {
		run.kind, run.group = kind, r.b.NewGroup()
	}
	return run.group
}

// region reads lines whose text column is col, the blocks of box. Where a
// line starts relative to col tells what it is: text at col is paragraphs
// or a table's terms (a term line is followed by its description 5
// columns in), " -- " one column in a @deffn line, a bullet or number 1–3
// columns in a list item, and anything 4 columns in or more an example or
// a quotation.
func (r *infoReader) region(ls []infoLine, col int, box *infoBox, depth int) {
	top := depth == 0
	chunkEnd, hasSpaces := infoChunks(ls)
	var run infoRun
	for i := 0; i < len(ls); {
		r.b.Check()
		l := ls[i]
		if l.text == "" {
			i++
			continue
		}
		rel := l.indent - col
		nested := depth < document.MaxNesting
		switch {
		case top && i+1 < len(ls) && infoUnderline(l, ls[i+1]) != 0:
			// A heading inside a node (@subheading, @chapheading) is
			// below the node's own.
			r.flushCode()
			level := max(infoLevel(infoUnderline(l, ls[i+1])), min(r.nodeLevel+1, 6))
			r.b.Heading(level, stripDEL(l.text), "", l.n, 0)
			run = infoRun{}
			i += 2
		case top && rel == 0 && strings.HasPrefix(l.text, "* Menu:"):
			r.flushCode()
			run = infoRun{}
			i = r.skipMenu(ls, i+1)
		case top && l.text == footnoteRule:
			r.flushCode()
			run = infoRun{}
			r.footnotes = true
			i++
		case rel <= 3 && tableAt(ls, i, col, chunkEnd[i], hasSpaces[i]) > i:
			i = r.table(ls, i, chunkEnd[i], box)
			run = infoRun{}
		case rel >= 4:
			i = r.indented(ls, i, col, box)
			run = infoRun{}
		case nested && rel == 1 && strings.HasPrefix(l.text, "-- "):
			i = r.deffn(ls, i, col, box, &run, depth)
		case nested && rel >= 1 && infoMarker(l.text) > 0:
			i = r.item(ls, i, col, box, &run, depth)
		case nested && rel == 0 && r.termLines(ls, i, col) > 0:
			i = r.tableItem(ls, i, col, box, &run, depth)
		default:
			i = r.paragraph(ls, i, col, box, top)
			run = infoRun{}
		}
	}
	r.endBox(box)
}

// infoChunks returns, for each line, where its chunk (the lines up to the
// next empty line) ends and whether the chunk holds a line of spaces, so
// that looking at a chunk costs nothing however often it is done.
func infoChunks(ls []infoLine) (end []int, spaces []bool) {
	end, spaces = make([]int, len(ls)), make([]bool, len(ls))
	e, sp := len(ls), false
	for i := len(ls) - 1; i >= 0; i-- {
		if ls[i].text == "" && !ls[i].spaces {
			e, sp = i, false
		}
		sp = sp || ls[i].spaces
		end[i], spaces[i] = e, sp
	}
	return end, spaces
}

// skipMenu skips a menu from line i: chunks holding entries ("* Name::",
// "* Label: Node.") with their indented descriptions, and the comments
// between them (the detailed node listing's part titles). It returns the
// line after the menu: the footnotes, text that follows the menu, or the
// node's end.
func (r *infoReader) skipMenu(ls []infoLine, i int) int {
	entry := func(l infoLine) bool { return l.indent == 0 && strings.HasPrefix(l.text, "* ") }
	for i < len(ls) {
		for i < len(ls) && ls[i].text == "" {
			i++
		}
		j, menu := i, false
		for j < len(ls) && ls[j].text != "" {
			if ls[j].text == footnoteRule {
				return j
			}
			menu = menu || entry(ls[j]) || strings.Contains(ls[j].text, "The Detailed Node Listing")
			j++
		}
		if !menu {
			// A comment if entries (or nothing) follow, else text after the
			// menu.
			n := j
			for n < len(ls) && ls[n].text == "" {
				n++
			}
			if j-i > 1 || n < len(ls) && !entry(ls[n]) {
				return i
			}
		}
		i = j
	}
	return i
}

// paragraph reads a paragraph from line i: lines up to an empty line or
// the start of something else (a line indented 4 more, a list item, a
// @deffn line, a menu or a heading). Filled text is prose; text whose
// lines are not filled and look like code (@verbatim is not indented) is
// code.
func (r *infoReader) paragraph(ls []infoLine, i, col int, box *infoBox, top bool) int {
	j := i + 1
	for ; j < len(ls); j++ {
		m := ls[j]
		rel := m.indent - col
		if m.text == "" || rel >= 4 || rel >= 1 && infoMarker(m.text) > 0 || rel == 1 && strings.HasPrefix(m.text, "-- ") {
			break
		}
		if top && (strings.HasPrefix(m.text, "* Menu:") && rel == 0 || m.text == footnoteRule || j+1 < len(ls) && infoUnderline(m, ls[j+1]) != 0) {
			break
		}
		if rel == 0 && quotedTerm(m.text) && r.termLines(ls, j, col) > 0 {
			break // a table right after its introduction ("styles are:")
		}
	}
	chunk := ls[i:j]
	if r.codeShaped(chunk) {
		r.addCode(chunk, box)
		return j
	}
	parts := make([]string, len(chunk))
	for k, l := range chunk {
		parts[k] = l.text
	}
	text := strings.Join(parts, " ")
	if r.footnotes {
		if n, ok := footnoteNumber(text); ok {
			text = text[len(n)+2:]
		}
	}
	r.ownPara(box, text, chunk[0].n)
	return j
}

// ownPara emits a paragraph of the box itself: the first of a definition
// carries its term.
func (r *infoReader) ownPara(box *infoBox, text string, line int) {
	text = r.clean(text)
	if text == "" {
		return
	}
	kind, group := box.kind, box.group
	if box.term != "" {
		term := box.term
		box.term = ""
		r.emit(document.Definition, term+": "+text, len(term), box.own, box.termLine, group)
		return
	}
	r.emit(kind, text, 0, box.own, line, group)
}

// endBox ends a box: a term no block took is kept as a paragraph.
func (r *infoReader) endBox(box *infoBox) {
	if box.term != "" {
		term := box.term
		box.term = ""
		r.emit(document.Paragraph, term, 0, box.own, box.termLine, box.group)
	}
}

// nestedParents returns the parents of a block nested in box (a list, a
// quote, a table): they name the box's term, which no block need carry
// any more.
func (r *infoReader) nestedParents(box *infoBox) []string {
	box.term = ""
	return box.parents
}

// emit adds a block (text already cleaned), after the code waiting.
func (r *infoReader) emit(kind document.Kind, text string, term int, parents []string, line, group int) {
	r.flushCode()
	r.b.TermBlock(kind, text, term, parents, line, 0, group)
}

// codeShaped reports whether text at the margin is code (makeinfo fills
// prose; @verbatim and @format do not): a lone line that clearly looks
// like code, a line that looks like code where a line break is not the
// fill's, or three short lines or more none of which is filled.
func (r *infoReader) codeShaped(chunk []infoLine) bool {
	if len(chunk) == 1 {
		return document.CodeLine(chunk[0].text, false)
	}
	signals, unfilled, short := 0, 0, 0
	for k, l := range chunk {
		filled := k+1 < len(chunk) && r.filled(l, chunk[k+1])
		if k+1 < len(chunk) && !filled {
			unfilled++
		}
		if k+1 < len(chunk) && l.end < r.fill*2/3 {
			short++
		}
		if document.CodeLine(l.text, true) && !filled {
			signals++ // a filled line ending in ";" is prose
		}
	}
	if signals > 0 && unfilled > 0 {
		return true
	}
	return len(chunk) >= 3 && unfilled == len(chunk)-1 && short == len(chunk)-1
}

// filled reports whether the break between lines a and b is a fill's:
// b's first word would not have fit on a.
func (r *infoReader) filled(a, b infoLine) bool {
	w, _, _ := strings.Cut(b.text, " ")
	return a.end+1+textWidth(w) > r.fill-2
}

// indented reads lines indented 4 columns or more from line i: chunks
// between empty lines that are filled prose are quotes (@quotation),
// others code (@example, @display, @lisp…); code chunks that follow each
// other are one block.
func (r *infoReader) indented(ls []infoLine, i, col int, box *infoBox) int {
	j, end := i, i
	for ; j < len(ls); j++ {
		if ls[j].text == "" {
			continue
		}
		if ls[j].indent-col < 4 {
			break
		}
		end = j + 1
	}
	// Chunks between empty lines; a lone line among code is code too
	// (an example's output that reads as a sentence).
	var chunks [][]infoLine
	code := false
	for k := i; k < end; {
		e := k
		for e < end && ls[e].text != "" {
			e++
		}
		chunks = append(chunks, ls[k:e])
		code = code || !r.quoteShaped(ls[k:e])
		for k = e; k < end && ls[k].text == ""; k++ {
		}
	}
	group := 0
	for _, chunk := range chunks {
		if r.quoteShaped(chunk) && !(code && len(chunk) == 1) {
			if group == 0 {
				group = r.b.NewGroup()
			}
			parts := make([]string, len(chunk))
			for x, l := range chunk {
				parts[x] = l.text
			}
			if text := r.clean(strings.Join(parts, " ")); text != "" {
				r.emit(document.Quote, text, 0, r.nestedParents(box), chunk[0].n, group)
			}
		} else {
			group = 0
			r.addCode(chunk, box)
		}
	}
	return end
}

// quoteShaped reports whether an indented chunk is filled prose: its
// lines flush (but the first), none like code, every break the fill's,
// words mostly words of letters; a lone line must read as a sentence.
func (r *infoReader) quoteShaped(chunk []infoLine) bool {
	words, letters := 0, 0
	for k, l := range chunk {
		for _, w := range strings.Fields(l.text) {
			words++
			if w = strings.TrimRight(strings.TrimLeft(w, "(‘“\"'"), ".,;:!?)’”\"'"); w != "" && strings.IndexFunc(w, func(c rune) bool { return !unicode.IsLetter(c) && c != '-' && c != '’' && c != '\'' }) < 0 {
				letters++
			}
		}
		if document.CodeLine(l.text, false) || k > 1 && l.indent != chunk[1].indent || k == 1 && chunk[0].indent < l.indent {
			return false
		}
		if k+1 < len(chunk) && !r.filled(l, chunk[k+1]) {
			return false
		}
	}
	if letters*2 < words {
		return false
	}
	if len(chunk) > 1 {
		return true
	}
	t := chunk[0].text
	first, _ := utf8.DecodeRuneInString(strings.TrimLeft(t, "‘“\"'("))
	last := strings.TrimRight(t, "’”\"')")
	return unicode.IsUpper(first) && strings.Count(t, " ") >= 2 && strings.ContainsAny(last[max(0, len(last)-1):], ".!?:")
}

// addCode adds lines to the code block waiting; an empty line is kept
// between lines that were apart. A definition's term that no block took
// yet is kept as a paragraph before it.
func (r *infoReader) addCode(chunk []infoLine, box *infoBox) {
	if box.term != "" {
		r.endBox(box)
	}
	if len(r.code) > 0 && chunk[0].n > r.codeLast+1 {
		r.code = append(r.code, infoLine{})
	}
	r.code = append(r.code, chunk...)
	r.codeLast = chunk[len(chunk)-1].n
}

// flushCode emits the code waiting as one block, its lines indented as
// they were relative to the least indented.
func (r *infoReader) flushCode() {
	if len(r.code) == 0 {
		return
	}
	least := -1
	for _, l := range r.code {
		if l.text != "" && (least < 0 || l.indent < least) {
			least = l.indent
		}
	}
	var sb strings.Builder
	for k, l := range r.code {
		if k > 0 {
			sb.WriteByte('\n')
		}
		if l.text != "" {
			sb.WriteString(strings.Repeat(" ", l.indent-least))
			sb.WriteString(stripDEL(l.text))
		}
	}
	line := r.code[0].n
	r.code = r.code[:0]
	r.b.TermBlock(document.Code, sb.String(), 0, nil, line, 0, 0)
}

// infoMarker returns the length of a list item's marker at the start of
// s (a bullet, or a number or letter and a period) when a space or the
// line's end follows it, else 0.
func infoMarker(s string) int {
	for _, b := range []string{"•", "*", "-", "+", "◦", "‣", "∙", "·", "–", "—"} {
		if strings.HasPrefix(s, b) && (len(s) == len(b) || s[len(b)] == ' ') {
			return len(b)
		}
	}
	n := 0
	for n < len(s) && n < 3 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n == 0 && len(s) > 0 && (s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		n = 1
	}
	if n > 0 && n < len(s) && s[n] == '.' && (len(s) == n+1 || s[n+1] == ' ') {
		return n + 1
	}
	return 0
}

// item reads a list item from line i: its marker's line and the lines
// indented to (or one short of) the column its text starts at.
func (r *infoReader) item(ls []infoLine, i, col int, box *infoBox, run *infoRun, depth int) int {
	l := ls[i]
	m := infoMarker(l.text)
	rest := l.text[m:]
	text := strings.TrimLeft(rest, " ")
	textCol := l.indent + textWidth(l.text[:m]) + max(1, len(rest)-len(text))
	end := i + 1
	for j := i + 1; j < len(ls); j++ {
		if ls[j].text == "" {
			continue
		}
		if ls[j].indent < textCol-1 {
			break
		}
		end = j + 1
	}
	first := l
	first.text, first.indent = text, textCol
	body := append([]infoLine{first}, ls[i+1:end]...)
	inner := &infoBox{kind: document.ListItem, group: run.next(r, document.ListItem)}
	inner.own = r.nestedParents(box)
	inner.parents = inner.own
	r.region(body, textCol, inner, depth+1)
	return end
}

// termLines returns how many lines from line i are a @table item's term
// lines (@item and @itemx, at the text column, right above a description
// indented 4 columns or more), or 0. Lines that are filled are a
// paragraph followed by an example (unless every line is quoted, as
// makeinfo quotes @code terms), as is a line that looks like code. A
// last line that ends as a sentence does ("For example:") is a term only
// above a description of filled prose, and so are lines that an empty
// line (an empty line after @item in the source) sets apart from it.
func (r *infoReader) termLines(ls []infoLine, i, col int) int {
	j, quoted := i, true
	for j < len(ls) && j-i < 16 && ls[j].text != "" && ls[j].indent == col && len(ls[j].text) <= maxInfoTerm {
		quoted = quoted && quotedTerm(ls[j].text)
		j++
	}
	if j == i {
		return 0
	}
	d := j
	gap := d+1 < len(ls) && ls[d].text == "" && !ls[d].spaces && ls[d+1].text != "" && ls[d+1].indent-col >= 4
	if gap {
		d++
	}
	if d >= len(ls) || ls[d].text == "" || ls[d].indent-col < 4 {
		return 0
	}
	for k := i; k < j; k++ {
		if !quoted && k+1 < j && r.filled(ls[k], ls[k+1]) || document.CodeLine(ls[k].text, false) {
			return 0
		}
		if t := ls[k].text; k+1 < j && !quotedTerm(t) && strings.ContainsAny(t[len(t)-1:], ".:;!?") {
			return 0 // an introduction ("Styles are:") above a table
		}
	}
	last := ls[j-1].text
	sentence := strings.ContainsAny(last[len(last)-1:], ".:;,!?")
	if gap || sentence {
		e := d
		for e < len(ls) && ls[e].text != "" && ls[e].indent-col >= 4 {
			e++
		}
		if gap && sentence || !r.quoteShaped(ls[d:e]) {
			return 0
		}
	}
	return j - i
}

// quotedTerm reports whether s is quoted whole, as makeinfo quotes
// @code and @samp ("‘-b FILE’", "'-b FILE'", "`-b FILE'").
func quotedTerm(s string) bool {
	for _, q := range [][2]string{{"‘", "’"}, {"'", "'"}, {"`", "'"}} {
		if len(s) > len(q[0])+len(q[1]) && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) {
			return true
		}
	}
	return false
}

// tableItem reads a @table item from line i: its term lines, and the
// description indented under them as the definition's blocks.
func (r *infoReader) tableItem(ls []infoLine, i, col int, box *infoBox, run *infoRun, depth int) int {
	k := r.termLines(ls, i, col)
	var terms []string
	for _, l := range ls[i : i+k] {
		terms = append(terms, infoTerm(l.text))
	}
	return r.describe(ls, i+k, col, terms, ls[i].n, box, run, depth)
}

// deffn reads a @deffn (@defun, @deftypefn…) from line i: its " -- "
// lines (each with the lines indented 8 or more under it that it wraps
// to), whose terms leave out the category ("Function: "), and the
// description indented under them.
func (r *infoReader) deffn(ls []infoLine, i, col int, box *infoBox, run *infoRun, depth int) int {
	var terms []string
	j := i
	for j < len(ls) && ls[j].indent-col == 1 && strings.HasPrefix(ls[j].text, "-- ") {
		t := ls[j].text[3:]
		for j++; j < len(ls) && ls[j].text != "" && ls[j].indent-col >= 8; j++ {
			t += " " + ls[j].text
		}
		if c := strings.Index(t, ": "); c >= 0 && c < 64 {
			t = t[c+2:]
		}
		terms = append(terms, stripDEL(document.Collapse(t)))
	}
	return r.describe(ls, j, col, terms, ls[i].n, box, run, depth)
}

// describe reads a definition's description from line i (lines empty or
// indented 4 columns or more) as a box whose first paragraph carries the
// terms, and returns the line after it.
func (r *infoReader) describe(ls []infoLine, i, col int, terms []string, line int, box *infoBox, run *infoRun, depth int) int {
	end := i
	for j := i; j < len(ls); j++ {
		if ls[j].text == "" {
			continue
		}
		if ls[j].indent-col < 4 {
			break
		}
		end = j + 1
	}
	term := document.Collapse(strings.Join(terms, ", "))
	if len(term) > maxInfoTerm {
		term = term[:maxInfoTerm]
		for !utf8.ValidString(term) {
			term = term[:len(term)-1]
		}
	}
	inner := &infoBox{kind: document.Definition, term: term, termLine: line, group: run.next(r, document.Definition)}
	inner.own = r.nestedParents(box)
	inner.parents = append(slices.Clip(inner.own), term)
	r.region(ls[i:end], col+5, inner, depth+1)
	return end
}

// infoTerm returns a table term as text: the quotes makeinfo puts around
// @code, @samp and @option terms ("‘-a’", "'-a'", "`-a'") stripped.
func infoTerm(s string) string {
	s = stripDEL(document.Collapse(emphasis(s)))
	s = stripQuotes(s, "‘", "’", false)
	s = stripQuotes(s, "`", "'", false)
	return stripQuotes(s, "'", "'", true)
}

// stripQuotes drops the quotes of every quoted part of s: an opening
// quote (at a word's start when atWord) and the next closing quote that
// text comes before and no letter or digit follows (‘don’t’ stays
// whole). Parts without a closing quote keep their quote.
func stripQuotes(s, open, close string, atWord bool) string {
	var sb strings.Builder
	for {
		i := strings.Index(s, open)
		if i < 0 {
			break
		}
		if atWord && i > 0 && s[i-1] != ' ' && s[i-1] != '(' {
			sb.WriteString(s[:i+len(open)])
			s = s[i+len(open):]
			continue
		}
		rest := s[i+len(open):]
		j := -1
		for off := 0; off < len(rest); {
			k := strings.Index(rest[off:], close)
			if k < 0 {
				break
			}
			k += off
			next, _ := utf8.DecodeRuneInString(rest[k+len(close):])
			if k > 0 && rest[k-1] != ' ' && !unicode.IsLetter(next) && !unicode.IsDigit(next) {
				j = k
				break
			}
			off = k + len(close)
		}
		if j < 0 {
			break
		}
		sb.WriteString(s[:i])
		sb.WriteString(rest[:j])
		s = rest[j+len(close):]
	}
	sb.WriteString(s)
	return sb.String()
}

// tableAt returns where a @multitable that starts at line i ends, or i
// when none does: header lines set off by a rule of dashes, or a chunk
// (from its start) at the text column that holds a line of spaces
// (makeinfo pads a row's cells with them) and splits into columns.
func tableAt(ls []infoLine, i, col, chunkEnd int, spaces bool) int {
	if h := tableRule(ls, i, chunkEnd); h > 0 {
		return chunkEnd
	}
	start := i == 0 || ls[i-1].text == "" && !ls[i-1].spaces
	if !spaces || !start || ls[i].indent != col || chunkEnd-i < 2 {
		return i
	}
	if cols := tableColumns(ls[i:chunkEnd]); len(cols) < 2 {
		return i
	}
	return chunkEnd
}

// tableRule returns the line of the rule under a table's header at line
// i (after at most 3 header lines and 2 lines of spaces), or 0.
func tableRule(ls []infoLine, i, chunkEnd int) int {
	j := i + 1
	for j < chunkEnd && j-i < 3 && !ls[j].spaces && !isRule(ls[j].text) {
		j++
	}
	for k := 0; j < chunkEnd && k < 2 && ls[j].spaces; k++ {
		j++
	}
	if j+1 < chunkEnd && isRule(ls[j].text) && infoUnderline(ls[j-1], ls[j]) == 0 {
		return j
	}
	return 0
}

// isRule reports whether s is a rule of ten dashes or more.
func isRule(s string) bool {
	return len(s) >= 10 && strings.Trim(s, "-") == ""
}

// tableColumns returns where the columns of a table's lines start: a
// column after one where every line has a space, and the one before too,
// at which some line has text.
func tableColumns(ls []infoLine) []int {
	var blocked, text []bool
	first := -1
	for _, l := range ls {
		if l.text == "" || isRule(l.text) {
			continue
		}
		if first < 0 || l.indent < first {
			first = l.indent
		}
		rs := []rune(l.text)
		for len(blocked) < l.indent+len(rs)+2 {
			blocked, text = append(blocked, false), append(text, false)
		}
		for k, c := range rs {
			if c != ' ' {
				p := l.indent + k
				text[p] = true
				blocked[p+1], blocked[p+2] = true, true
			}
		}
	}
	var cols []int
	if first < 0 {
		return nil
	}
	cols = append(cols, first)
	for p := first + 1; p < len(text); p++ {
		if text[p] && !blocked[p] {
			cols = append(cols, p)
		}
	}
	return cols
}

// headerColumns returns where the columns of a table start by its
// header: where a header cell starts (at the line's start or after two
// spaces). A column's cells can fill it to the next column's start, and
// an @example in a cell is indented within it, so the rows cannot tell.
func headerColumns(header []infoLine) []int {
	starts := map[int]bool{}
	for _, l := range header {
		if l.text == "" {
			continue
		}
		starts[l.indent] = true
		rs := []rune(l.text)
		for k := 2; k < len(rs); k++ {
			if rs[k] != ' ' && rs[k-1] == ' ' && rs[k-2] == ' ' {
				starts[l.indent+k] = true
			}
		}
	}
	cols := make([]int, 0, len(starts))
	for c := range starts {
		cols = append(cols, c)
	}
	slices.Sort(cols)
	return cols
}

// table reads a @multitable from line i to end: with a header, table rows
// "Header: cell; …"; without, a paragraph "cell; cell" per row. A row is
// the lines between lines of spaces when there are such lines, else one
// line.
func (r *infoReader) table(ls []infoLine, i, end int, box *infoBox) int {
	rows := ls[i:end]
	var header []infoLine
	if h := tableRule(ls, i, end); h > 0 {
		header, rows = ls[i:h], ls[h+1:end]
	}
	cols := tableColumns(ls[i:end])
	if header != nil {
		cols = headerColumns(header)
	}
	cells := func(group []infoLine) []string {
		out := make([]string, len(cols))
		for _, l := range group {
			rs := []rune(strings.Repeat(" ", l.indent) + l.text)
			for c, start := range cols {
				if c == 0 {
					start = 0 // text left of the first header cell
				}
				stop := len(rs)
				if c+1 < len(cols) {
					stop = min(stop, cols[c+1])
				}
				if start < stop {
					out[c] += " " + string(rs[start:stop])
				}
			}
		}
		for c := range out {
			out[c] = r.clean(out[c])
		}
		return out
	}
	var head []string
	if header != nil {
		head = cells(header)
	}
	byLine := true
	for _, l := range rows {
		byLine = byLine && !l.spaces
	}
	parents := r.nestedParents(box)
	group := r.b.NewGroup()
	emitRow := func(g []infoLine) {
		if len(g) == 0 {
			return
		}
		cs := cells(g)
		if head != nil {
			r.emit(document.TableRow, document.RowText(head, cs), 0, parents, g[0].n, group)
			return
		}
		var sb strings.Builder
		for _, c := range cs {
			if c == "" {
				continue
			}
			if sb.Len() > 0 && !strings.HasSuffix(sb.String(), ":") {
				sb.WriteByte(';')
			}
			if sb.Len() > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(c)
		}
		r.emit(document.Paragraph, sb.String(), 0, parents, g[0].n, group)
	}
	start := 0
	for k, l := range rows {
		switch {
		case l.spaces:
			emitRow(rows[start:k])
			start = k + 1
		case byLine:
			emitRow(rows[k : k+1])
			start = k + 1
		}
	}
	emitRow(rows[start:])
	return end
}

// clean returns prose as text: cross references written out, footnote
// markers of the node's footnotes dropped, emphasis markers dropped, DEL
// quotes dropped, white space collapsed.
func (r *infoReader) clean(s string) string {
	s = infoRefs(document.Collapse(s))
	if len(r.notes) > 0 {
		s = dropNoteMarks(s, r.notes)
	}
	return document.Collapse(stripDEL(emphasis(s)))
}

// stripDEL drops the DEL characters that quote node names.
func stripDEL(s string) string {
	return strings.ReplaceAll(s, "\x7f", "")
}

// infoRefs writes out cross references: "*Note Node::" as "See Node",
// "*note Label: (manual)Node." as "see Label." (the period kept unless a
// parenthesis closes the reference: "(*note Foo::)" is "(see Foo)"); a
// reference to another manual's Top node by the manual's name.
func infoRefs(s string) string {
	var sb strings.Builder
	for {
		i := indexNote(s)
		if i < 0 {
			break
		}
		see := "see"
		if s[i+1] == 'N' {
			see = "See"
		}
		label, rest, ok := infoRef(strings.TrimLeft(s[i+5:], " "))
		if ok && footnoteAnchor(label) {
			// "(*note Node-Footnote-1::)": the marker before it says it.
			pre := strings.TrimRight(s[:i], " ")
			if strings.HasSuffix(pre, "(") && strings.HasPrefix(rest, ")") {
				pre, rest = strings.TrimRight(pre[:len(pre)-1], " "), rest[1:]
			}
			sb.WriteString(pre)
			s = rest
			continue
		}
		sb.WriteString(s[:i])
		// "see *note Foo::" (@ref after the author's "see") needs no
		// second "see".
		out := sb.String()
		if pre := strings.ToLower(out[max(0, len(out)-5):]); pre == " see " || pre == "see " && len(out) == 4 {
			see = ""
		}
		if !ok {
			sb.WriteString(see)
			s = s[i+5:]
			continue
		}
		sb.WriteString(see)
		if label != "" {
			if see != "" {
				sb.WriteByte(' ')
			}
			sb.WriteString(label)
		}
		s = rest
	}
	sb.WriteString(s)
	return sb.String()
}

// footnoteAnchor reports whether a reference is to a footnote
// ("RSA-Footnote-1").
func footnoteAnchor(label string) bool {
	i := strings.LastIndex(label, "-Footnote-")
	return i > 0 && strings.Trim(label[i+len("-Footnote-"):], "0123456789") == "" && len(label) > i+len("-Footnote-")
}

// indexNote returns where the next "*note " or "*Note " is in s, or -1.
func indexNote(s string) int {
	for off := 0; off < len(s); {
		i := strings.Index(s[off:], "*")
		if i < 0 {
			return -1
		}
		i += off
		if len(s) > i+5 && (s[i+1:i+5] == "note" || s[i+1:i+5] == "Note") && (s[i+5] == ' ' || s[i+5] == '\n') {
			return i
		}
		off = i + 1
	}
	return -1
}

// infoRef reads a reference after "*note ": "Node::" or "Label: Node"
// ended by a period or comma; it returns what to write and the rest of s
// (from the period or comma kept).
func infoRef(s string) (label, rest string, ok bool) {
	label, rest, ok = refName(s, ":")
	if !ok {
		return "", s, false
	}
	if r, two := strings.CutPrefix(rest, ":"); two {
		return refLabel(label), r, true
	}
	rest = strings.TrimLeft(rest, " ")
	if strings.HasPrefix(rest, "(") {
		if k := strings.IndexByte(rest[:min(len(rest), 100)], ')'); k >= 0 {
			rest = rest[k+1:]
		}
	}
	if q, quoted := strings.CutPrefix(rest, "\x7f"); quoted {
		k := strings.IndexByte(q[:min(len(q), 300)], '\x7f')
		if k < 0 {
			return "", s, false
		}
		rest = q[k+1:]
	} else {
		end := -1
		for k := 0; k <= len(rest) && k < 300; k++ {
			if k == len(rest) || (rest[k] == '.' || rest[k] == ',') && (k+1 == len(rest) || rest[k+1] == ' ' || rest[k+1] == ')') {
				end = k
				break
			}
		}
		if end < 0 {
			return "", s, false
		}
		rest = rest[end:]
	}
	if strings.HasPrefix(rest, ".)") {
		rest = rest[1:] // the period only ends the reference
	}
	return document.Collapse(stripDEL(label)), rest, true
}

// refName reads a node name or label up to stop (quoted with DEL, or not
// holding stop), at most 300 bytes.
func refName(s, stop string) (name, rest string, ok bool) {
	if q, quoted := strings.CutPrefix(s, "\x7f"); quoted {
		k := strings.IndexByte(q[:min(len(q), 300)], '\x7f')
		if k < 0 || !strings.HasPrefix(q[k+1:], stop) {
			return "", s, false
		}
		return q[:k], q[k+1+len(stop):], true
	}
	k := strings.Index(s[:min(len(s), 300)], stop)
	if k < 0 || indexNote(s[:k]) >= 0 {
		return "", s, false
	}
	return s[:k], s[k+len(stop):], true
}

// refLabel returns what a "Node::" reference reads as: the node, or the
// manual's name for "(manual)" and "(manual)Top".
func refLabel(n string) string {
	n = document.Collapse(stripDEL(n))
	if strings.HasPrefix(n, "(") {
		if k := strings.IndexByte(n, ')'); k > 0 {
			manual, node := n[1:k], strings.TrimSpace(n[k+1:])
			if node == "" || node == "Top" {
				return manual
			}
			return node
		}
	}
	return n
}

// dropNoteMarks drops the markers "(N)" of the node's footnotes that
// follow text directly ("sorted.(1)  If").
func dropNoteMarks(s string, notes map[string]bool) string {
	var sb strings.Builder
	for {
		i := strings.IndexByte(s, '(')
		if i < 0 {
			break
		}
		n, ok := infoNoteMark(s[i:])
		if ok && i > 0 && s[i-1] != ' ' && notes[n] {
			sb.WriteString(s[:i])
			s = s[i+len(n)+2:]
			continue
		}
		sb.WriteString(s[:i+1])
		s = s[i+1:]
	}
	sb.WriteString(s)
	return sb.String()
}

// emphasis drops the markers makeinfo writes for @strong (*bold*) and
// @emph (_word_) where they are clearly markup: the opening one starts a
// word and a letter or digit follows it, the closing one ends a word
// (no letter, digit or marker follows) within 100 bytes, and no such
// marker is between them.
func emphasis(s string) string {
	if !strings.ContainsAny(s, "*_") {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c != '*' && c != '_') || !opensMarkup(s, i) {
			sb.WriteByte(c)
			continue
		}
		j := strings.IndexByte(s[i+1:min(len(s), i+102)], c)
		if j < 0 {
			sb.WriteByte(c)
			continue
		}
		j += i + 1
		if !closesMarkup(s, j) || (c == '_' && strings.ContainsRune(s[i+1:j], '*')) {
			sb.WriteByte(c)
			continue
		}
		sb.WriteString(s[i+1 : j])
		i = j
	}
	return sb.String()
}

// opensMarkup reports whether the marker at i starts a word: at the
// start, or after a space or an opening parenthesis, bracket or double
// quote (not a code quote: "‘*.c*’" is a pattern), with a letter or digit
// after it.
func opensMarkup(s string, i int) bool {
	if i > 0 {
		p, _ := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.IsSpace(p) && !strings.ContainsRune("([“", p) {
			return false
		}
	}
	n, _ := utf8.DecodeRuneInString(s[i+1:])
	return unicode.IsLetter(n) || unicode.IsDigit(n)
}

// closesMarkup reports whether the marker at j ends a word: text before
// it, and no letter, digit or marker after it.
func closesMarkup(s string, j int) bool {
	p, _ := utf8.DecodeLastRuneInString(s[:j])
	if unicode.IsSpace(p) {
		return false
	}
	if j+1 == len(s) {
		return true
	}
	n, _ := utf8.DecodeRuneInString(s[j+1:])
	return !unicode.IsLetter(n) && !unicode.IsDigit(n) && n != '_' && n != '*'
}
