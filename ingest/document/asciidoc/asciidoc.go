package asciidoc

import (
	"bytes"
	"context"
	"encoding/csv"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reqa/reqa/ingest/document"
)

// Parse reads AsciiDoc as Asciidoctor parses it (there is no
// well-kept Go parser): the level-0 title ("= Title") is the document's
// title and the root of the heading paths, "==" to "======" (and
// Markdown's "#" headings) start sections, a block anchor ("[[id]]",
// "[#id]") before a heading is its slug. The header's author and revision
// lines are dropped; attribute entries (":name: value") are recorded
// wherever they are and their references ("{name}") replaced in the text
// after them, unknown ones kept as written. Paragraphs, list items
// (unordered, ordered, checklists; nesting by marker; a "+" continuation
// attaches the next block to the item, a paragraph joining its text) and
// quote blocks are blocks; description lists ("term:: text", ":::",
// "::::" and ";;" levels) are definitions, whose term a list nested under
// them carries in Block.Parents; tables ("|===", and CSV ",===" and DSV
// ":===") are table rows with their header (options="header", %header, or
// a first line of cells followed by a blank line). Listing, literal,
// source and fenced blocks and literal (indented) paragraphs are code;
// passthrough, comment and stem blocks and paragraphs are dropped;
// example, sidebar, open and admonition blocks are read as their blocks,
// and admonition paragraphs ("NOTE: text") without their label. Block
// titles, block attribute lines, comments, block macros (image::,
// toc::[]…), page and thematic breaks, include directives (never
// followed) and ifdef, ifndef, ifeval and endif lines are dropped (the
// content between conditionals is kept). Inline markup loses its marks as
// Asciidoctor's constrained and unconstrained rules find it; links, cross
// references and kbd, btn and menu macros read as their text, images,
// footnotes and hidden index terms go (see adocReader.inline). Setext
// (underlined) titles are not read: their lines are text. An unterminated
// delimited block runs to the end of the file, as in Asciidoctor. CRLF line
// ends and a UTF-8 BOM are read, bytes that are not UTF-8 replaced. The
// reader returns no error of its own: only a panic, which no input should
// cause, is turned into an *Error.
func Parse(name string, data []byte) (*document.Document, error) {
	return ParseContext(context.Background(), name, data)
}

// ParseContext is [Parse], stopping with ctx's error (wrapped) once ctx is
// done, between blocks.
func ParseContext(ctx context.Context, name string, data []byte) (d *document.Document, err error) {
	defer document.Recover(name, &err)
	r := &adocReader{b: document.NewBuilderContext(ctx, name, document.AsciiDoc), attrs: map[string]string{}, ids: map[string]bool{}, budget: maxAdocSubstitution}
	lines := adocSplit(data)
	r.blocks(lines, &adocCtx{kind: document.Paragraph, sections: true})
	return r.b.Doc, nil
}

// maxAdocSubstitution bounds the bytes attribute references may write out
// in all; past it, a reference is kept as written.
const maxAdocSubstitution = 4 << 20

// maxAdocColumns is how many columns a table is split into (more are read
// as part of the last), as in the reStructuredText reader.
const maxAdocColumns = 100

// adocLine is a line of input without its line end and trailing white
// space; n is its 1-based line number.
type adocLine struct {
	s string
	n int
}

// adocCtx says how the blocks of a body are read: their kind and group
// (0: a group each), the terms of the definitions around them, and whether
// section titles start sections here.
type adocCtx struct {
	kind     document.Kind
	group    int
	parents  []string
	sections bool
	depth    int
}

// inner returns c one level deeper, where sections never start.
func (c *adocCtx) inner() *adocCtx {
	d := *c
	d.depth++
	d.sections = false
	return &d
}

// adocAttrs are the block attributes, anchor and title waiting for the
// next block.
type adocAttrs struct {
	style   string // first positional attribute: source, quote, NOTE…
	id      string
	options string // options="…" and %option shorthands, comma separated
	cols    string
	sep     string
	set     bool
}

type adocReader struct {
	b      *document.Builder
	attrs  map[string]string // attribute entries so far
	ids    map[string]bool   // slugs given to sections
	budget int               // bytes attribute references may still write out
	pend   adocAttrs
	seen   bool // a block or heading was read (the header is over)
}

// adocSplit returns the lines of data: a BOM skipped, CRLF read as LF, bytes
// that are not UTF-8 replaced, NUL and other C0 controls but tab read as
// spaces, trailing white space dropped, and preprocessor directives
// (include, ifdef, ifndef, ifeval, endif lines) dropped.
func adocSplit(data []byte) []adocLine {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	raw := strings.Split(string(data), "\n")
	lines := make([]adocLine, 0, len(raw))
	for i, l := range raw {
		if !utf8.ValidString(l) {
			l = strings.ToValidUTF8(l, "\uFFFD")
		}
		l = strings.Map(func(c rune) rune {
			if c < 0x20 && c != '\t' {
				return ' '
			}
			return c
		}, l)
		l = strings.TrimRight(l, " \t")
		if adocPreprocRe.MatchString(l) {
			continue // a preprocessor directive: conditionals are taken as true, includes not followed
		}
		lines = append(lines, adocLine{l, i + 1})
	}
	return lines
}

var (
	adocHeadingRe  = regexp.MustCompile(`^(={1,6}|#{1,6})[ \t]+(\S.*?)(?:[ \t]+(?:=+|#+))?$`)
	adocAttrRe     = regexp.MustCompile(`^:(!?\w[\w-]*!?):(?:[ \t]+(.*))?$`)
	adocUListRe    = regexp.MustCompile(`^[ \t]*(-|\*{1,5}|•)[ \t]+(.*)$`)
	adocOListRe    = regexp.MustCompile(`^[ \t]*(\.{1,5}|\d+\.|[a-zA-Z]\.|[IVXivx]+\))[ \t]+(.*)$`)
	adocDListRe    = regexp.MustCompile(`^[ \t]*([^ \t/]|[^ \t/].*?[^ \t])(:{2,4}|;;)(?:[ \t]+(.*))?$`)
	adocAdmonRe    = regexp.MustCompile(`^(NOTE|TIP|IMPORTANT|WARNING|CAUTION):[ \t]+(.*)$`)
	adocMacroRe    = regexp.MustCompile(`^[a-zA-Z][\w-]*::\S*\[.*\]$`)
	adocPreprocRe  = regexp.MustCompile(`^(?:ifdef|ifndef|ifeval|endif|include)::.*\[.*\]$`)
	adocAnchorRe   = regexp.MustCompile(`^\[\[([^\[\],\s]+)(?:,[^\]]*)?\]\]$`)
	adocCellSpecRe = regexp.MustCompile(`^(?:(\d+)\*)?(?:(\d+)?(?:\.(\d+))?\+)?[<^>]?(?:\.[<^>])?[adehlmsv]?$`)
)

// adocDelimiter returns the delimiter a line is, or "".
func adocDelimiter(s string) string {
	switch {
	case s == "--":
		return s
	case strings.HasPrefix(s, "```"):
		return "```"
	case len(s) == 4 && (s[0] == '|' || s[0] == ',' || s[0] == ':' || s[0] == '!') && s[1:] == "===":
		return s
	case len(s) >= 4 && strings.Count(s, s[:1]) == len(s) && strings.Contains("-.=*_+/", s[:1]):
		return s
	}
	return ""
}

// blocks reads lines as a body of c.
func (r *adocReader) blocks(lines []adocLine, c *adocCtx) {
	if c.depth >= document.MaxNesting {
		var parts []string
		for _, l := range lines {
			parts = append(parts, l.s)
		}
		if len(lines) > 0 {
			r.para(c, r.inline(strings.Join(parts, " ")), lines[0].n)
		}
		return
	}
	for i := 0; i < len(lines); {
		r.b.Check()
		i = r.block(lines, i, c, true)
	}
}

// block reads the block starting at lines[i] (blank lines, attribute
// lines and dropped lines before it included) and returns the index after
// it. lists is false in a list item's continuation, whose list reads the
// items that follow.
func (r *adocReader) block(lines []adocLine, i int, c *adocCtx, lists bool) int {
	s := lines[i].s
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return i + 1
	case strings.HasPrefix(s, "//") && !strings.HasPrefix(s, "////"):
		return i + 1
	case adocAttrRe.MatchString(s):
		return r.attribute(lines, i)
	case adocAnchorRe.MatchString(s):
		r.pend.id = adocAnchorRe.FindStringSubmatch(s)[1]
		r.pend.set = true
		return i + 1
	case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") && !strings.HasPrefix(s, "[[") && len(s) > 2:
		r.blockAttrs(s[1 : len(s)-1])
		return i + 1
	case len(s) > 1 && s[0] == '.' && s[1] != '.' && s[1] != ' ' && s[1] != '\t':
		return i + 1 // a block title
	case s == "'''" || s == "<<<" || s == "---" || s == "***" || s == "- - -" || s == "* * *":
		r.pend = adocAttrs{}
		return i + 1
	case adocMacroRe.MatchString(s):
		r.pend = adocAttrs{}
		return i + 1
	}
	if d := adocDelimiter(s); d != "" {
		return r.delimited(lines, i, d, c)
	}
	if m := adocHeadingRe.FindStringSubmatch(s); m != nil && c.sections {
		return r.heading(lines, i, m)
	}
	r.seen = true
	at := r.pend
	r.pend = adocAttrs{}
	switch strings.ToLower(at.style) {
	case "source", "listing", "literal", "pass", "comment", "stem", "latexmath", "asciimath", "quote", "verse":
	default:
		switch {
		case adocUListRe.MatchString(s) || adocOListRe.MatchString(s) || adocDListRe.MatchString(s):
			if !lists {
				return i
			}
			return r.list(lines, i, c)
		case s[0] == ' ' || s[0] == '\t':
			j := i
			for j < len(lines) && lines[j].s != "" {
				j++
			}
			r.code(lines[i:j])
			return j
		}
	}
	// A paragraph: up to a blank line or a delimiter.
	j := i + 1
	for j < len(lines) && lines[j].s != "" && adocDelimiter(lines[j].s) == "" && !(lines[j].s == "+" && c.kind == document.ListItem) {
		j++
	}
	switch strings.ToLower(at.style) {
	case "source", "listing", "literal":
		r.code(lines[i:j])
		return j
	case "pass", "comment", "stem", "latexmath", "asciimath":
		return j
	case "quote", "verse":
		r.para(&adocCtx{kind: document.Quote, parents: c.parents}, r.joinText(lines[i:j]), lines[i].n)
		return j
	}
	text := r.joinText(lines[i:j])
	if m := adocAdmonRe.FindStringSubmatch(lines[i].s); m != nil {
		text = strings.TrimPrefix(text, m[1]+":")
	}
	r.para(c, text, lines[i].n)
	return j
}

// joinText returns the text of a paragraph's lines, inline markup removed
// and hard line breaks (" +") read as spaces.
func (r *adocReader) joinText(lines []adocLine) string {
	parts := make([]string, 0, len(lines))
	for _, l := range lines {
		if strings.HasPrefix(l.s, "//") && !strings.HasPrefix(l.s, "///") {
			continue
		}
		s := strings.TrimSpace(l.s)
		if s == "+" {
			continue
		}
		parts = append(parts, strings.TrimSuffix(s, " +"))
	}
	return r.inline(strings.Join(parts, "\n"))
}

// para adds a block of c's kind.
func (r *adocReader) para(c *adocCtx, text string, line int) {
	r.b.TermBlock(c.kind, text, 0, c.parents, line, 0, c.group)
}

// code adds lines as a code block, their common indentation removed.
func (r *adocReader) code(lines []adocLine) {
	if len(lines) == 0 {
		return
	}
	ind := -1
	for _, l := range lines {
		if strings.TrimSpace(l.s) == "" {
			continue
		}
		n := len(l.s) - len(strings.TrimLeft(l.s, " \t"))
		if ind < 0 || n < ind {
			ind = n
		}
	}
	parts := make([]string, len(lines))
	for k, l := range lines {
		if len(l.s) >= ind && ind > 0 {
			parts[k] = l.s[ind:]
		} else {
			parts[k] = l.s
		}
	}
	r.b.Block(document.Code, strings.Join(parts, "\n"), lines[0].n, 0, 0)
}

// attribute records an attribute entry (a value may go on over lines
// ending in " \") and returns the index after it.
func (r *adocReader) attribute(lines []adocLine, i int) int {
	m := adocAttrRe.FindStringSubmatch(lines[i].s)
	name, val := m[1], m[2]
	j := i + 1
	for strings.HasSuffix(val, " \\") && j < len(lines) {
		val = strings.TrimSuffix(val, "\\") + strings.TrimSpace(lines[j].s)
		j++
	}
	if strings.HasPrefix(name, "!") || strings.HasSuffix(name, "!") {
		delete(r.attrs, strings.ToLower(strings.Trim(name, "!")))
		return j
	}
	r.attrs[strings.ToLower(name)] = r.substAttrs(strings.TrimSpace(val), nil)
	return j
}

// blockAttrs records a block attribute line's contents: a style, an id
// ("#id"), roles, options ("%header", options="header"), cols and a
// separator.
func (r *adocReader) blockAttrs(s string) {
	r.pend.set = true
	for k, a := range adocSplitAttrs(s) {
		name, val, named := strings.Cut(a, "=")
		if named {
			val = strings.Trim(strings.TrimSpace(val), `"'`)
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "options", "opts":
				r.pend.options += "," + val
			case "cols":
				r.pend.cols = val
			case "separator":
				r.pend.sep = val
			case "id":
				r.pend.id = val
			}
			continue
		}
		if k > 0 {
			continue
		}
		// The first positional attribute: style#id.role%option.
		style := a
		if n := strings.IndexAny(style, "#.%"); n >= 0 {
			rest := style[n:]
			style = style[:n]
			for _, part := range regexp.MustCompile(`[#.%][^#.%]*`).FindAllString(rest, -1) {
				switch part[0] {
				case '#':
					r.pend.id = part[1:]
				case '%':
					r.pend.options += "," + part[1:]
				}
			}
		}
		r.pend.style = strings.TrimSpace(style)
	}
}

// adocSplitAttrs splits an attribute list at commas outside quotes.
func adocSplitAttrs(s string) []string {
	var out []string
	var q byte
	from := 0
	for k := 0; k < len(s); k++ {
		switch c := s[k]; {
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '"' || c == '\'':
			q = c
		case c == ',':
			out = append(out, strings.TrimSpace(s[from:k]))
			from = k + 1
		}
	}
	return append(out, strings.TrimSpace(s[from:]))
}

// heading starts a section; after the document title, the header's
// author and revision lines are dropped.
func (r *adocReader) heading(lines []adocLine, i int, m []string) int {
	level := len(m[1])
	text := document.Collapse(r.inline(m[2]))
	id := r.pend.id
	r.pend = adocAttrs{}
	if id == "" {
		id = document.Slug(text)
	}
	if id != "" {
		base := id
		for n := 1; r.ids[id]; n++ {
			id = base + "-" + strconv.Itoa(n)
		}
		r.ids[id] = true
	}
	first := !r.seen
	r.seen = true
	if text == "" {
		return i + 1
	}
	r.b.Heading(level, text, id, lines[i].n, 0)
	j := i + 1
	if first && level == 1 {
		for dropped := 0; j < len(lines) && lines[j].s != "" && dropped < 2; {
			ls := lines[j].s
			switch {
			case adocAttrRe.MatchString(ls):
				j = r.attribute(lines, j)
				continue
			case strings.HasPrefix(ls, "//"):
			case adocHeadingRe.MatchString(ls) || adocDelimiter(ls) != "" || strings.HasPrefix(ls, "["):
				return j
			default:
				dropped++ // the author and revision lines
			}
			j++
		}
	}
	return j
}

// delimited reads a delimited block opened by delim at lines[i]; without
// its closing line it runs to the end.
func (r *adocReader) delimited(lines []adocLine, i int, delim string, c *adocCtx) int {
	at := r.pend
	r.pend = adocAttrs{}
	r.seen = true
	end := len(lines)
	for j := i + 1; j < len(lines); j++ {
		if lines[j].s == delim || (delim == "```" && lines[j].s == "```") {
			end = j
			break
		}
	}
	next := min(end+1, len(lines))
	body := lines[i+1 : end]
	style := strings.ToLower(at.style)
	switch {
	case style == "pass" || style == "comment" || style == "stem" || style == "latexmath" || style == "asciimath":
		return next
	case delim[0] == '/' || delim[0] == '+':
		return next
	case delim == "```" || delim[0] == '-' && delim != "--" || delim[0] == '.' ||
		style == "source" || style == "listing" || style == "literal":
		r.code(body)
		return next
	case len(delim) == 4 && strings.IndexByte("|,:!", delim[0]) >= 0:
		r.table(body, delim[0], at, c)
		return next
	case delim[0] == '_' || style == "quote" || style == "verse":
		if style == "verse" {
			if len(body) > 0 {
				r.para(&adocCtx{kind: document.Quote, parents: c.parents}, r.joinText(body), body[0].n)
			}
			return next
		}
		qc := &adocCtx{kind: document.Quote, group: r.b.NewGroup(), parents: c.parents, depth: c.depth + 1}
		r.blocks(body, qc)
		return next
	}
	// Example, sidebar, open and admonition blocks: their blocks.
	r.blocks(body, c.inner())
	return next
}

// adocItem is a list item whose text is being read.
type adocItem struct {
	text    []string
	line    int
	term    string // a description list item's term
	kind    document.Kind
	group   int
	parents []string
	open    bool
	nested  bool // a nested list came under it
}

// adocLevel is a list level: its marker and group, and the term of its
// current item in a description list.
type adocLevel struct {
	marker string
	group  int
	term   string
}

// adocMarker returns the marker of a list item line, normalized ("1." for
// any number), its text and whether it is a description list's.
func adocMarker(s string) (marker, text string, dlist, ok bool) {
	if m := adocUListRe.FindStringSubmatch(s); m != nil {
		text = m[2]
		for _, box := range []string{"[ ] ", "[x] ", "[X] ", "[*] "} {
			text = strings.TrimPrefix(text, box)
		}
		return m[1], text, false, true
	}
	if m := adocOListRe.FindStringSubmatch(s); m != nil {
		mk := m[1]
		switch c := mk[0]; {
		case c >= '0' && c <= '9':
			mk = "1."
		case strings.HasSuffix(mk, ")"):
			mk = "i)"
		case c >= 'a' && c <= 'z' && len(mk) == 2:
			mk = "a."
		case c >= 'A' && c <= 'Z' && len(mk) == 2:
			mk = "A."
		}
		return mk, m[2], false, true
	}
	if m := adocDListRe.FindStringSubmatch(s); m != nil && !strings.HasPrefix(strings.TrimSpace(s), "//") {
		return m[2], m[1] + "\x00" + m[3], true, true
	}
	return "", "", false, false
}

// list reads a list (of any kind, nested by marker) from lines[i] and
// returns the index after it.
func (r *adocReader) list(lines []adocLine, i int, c *adocCtx) int {
	var stack []adocLevel
	var it adocItem
	flush := func() {
		if !it.open {
			return
		}
		it.open = false
		text := document.Collapse(r.inline(strings.Join(it.text, "\n")))
		if it.kind == document.Definition {
			switch {
			case text != "":
				r.b.TermBlock(document.Definition, it.term+": "+text, len(it.term), it.parents, it.line, 0, it.group)
			case !it.nested:
				r.b.TermBlock(document.Paragraph, it.term, 0, it.parents, it.line, 0, it.group)
			}
			return
		}
		r.b.TermBlock(it.kind, text, 0, it.parents, it.line, 0, it.group)
	}
	terms := func(k int) []string {
		var out []string
		out = append(out, c.parents...)
		for _, l := range stack[:k] {
			if l.term != "" {
				out = append(out, l.term)
			}
		}
		return out
	}
	for i < len(lines) {
		mk, text, dlist, ok := adocMarker(lines[i].s)
		if !ok {
			break
		}
		k := 0
		for k < len(stack) && stack[k].marker != mk {
			k++
		}
		if k == len(stack) && len(stack) > 0 && stack[len(stack)-1].term != "" {
			it.nested = true // a list under a term: the term is its parent
		}
		flush()
		if k == len(stack) {
			if len(stack) >= document.MaxNesting {
				k = len(stack) - 1
			} else {
				stack = append(stack, adocLevel{marker: mk, group: r.b.NewGroup()})
			}
		}
		stack = stack[:k+1]
		it = adocItem{line: lines[i].n, kind: document.ListItem, group: stack[k].group, parents: terms(k), open: true}
		if dlist {
			term, def, _ := strings.Cut(text, "\x00")
			it.kind = document.Definition
			it.term = document.Collapse(r.inline(term))
			stack[k].term = it.term
			text = def
		} else {
			stack[k].term = ""
		}
		it.text = []string{strings.TrimSuffix(text, " +")}
		i++
		// The item's text goes on to a blank line, a continuation, a
		// delimiter or another item.
		for i < len(lines) {
			s := lines[i].s
			if s == "" || s == "+" || adocDelimiter(strings.TrimSpace(s)) != "" {
				break
			}
			if _, _, _, ok := adocMarker(s); ok {
				break
			}
			if !strings.HasPrefix(s, "//") || strings.HasPrefix(s, "///") {
				it.text = append(it.text, strings.TrimSuffix(strings.TrimSpace(s), " +"))
			}
			i++
		}
		// Continuations, then blank lines before the next item.
		for i < len(lines) {
			s := lines[i].s
			if s == "+" {
				i++
				for i < len(lines) && (adocAttrRe.MatchString(lines[i].s) || adocAnchorRe.MatchString(lines[i].s)) {
					i = r.block(lines, i, c, false)
				}
				if i >= len(lines) {
					break
				}
				cs := lines[i].s
				if cs == "" {
					continue
				}
				if _, _, _, ok := adocMarker(cs); ok {
					break
				}
				plain := adocDelimiter(cs) == "" && !strings.HasPrefix(cs, "[") && !(cs[0] == '.' && len(cs) > 1 && cs[1] != ' ') &&
					!strings.HasPrefix(cs, "//") && !adocMacroRe.MatchString(cs)
				if plain && it.open {
					j := i
					for j < len(lines) && lines[j].s != "" && lines[j].s != "+" && adocDelimiter(lines[j].s) == "" {
						j++
					}
					for _, l := range lines[i:j] {
						it.text = append(it.text, strings.TrimSuffix(strings.TrimSpace(l.s), " +"))
					}
					i = j
					continue
				}
				flush()
				kind := document.ListItem
				if stack[len(stack)-1].term != "" {
					kind = document.Definition
				}
				ic := &adocCtx{kind: kind, group: stack[len(stack)-1].group, parents: terms(len(stack) - 1), depth: c.depth + 1}
				for {
					n := r.block(lines, i, ic, false)
					if n == i {
						break
					}
					i = n
					if !r.pend.set {
						break
					}
					if i >= len(lines) {
						break
					}
				}
				continue
			}
			if s != "" {
				break
			}
			j := i
			for j < len(lines) && lines[j].s == "" {
				j++
			}
			if j < len(lines) {
				if _, _, _, ok := adocMarker(lines[j].s); ok {
					i = j
					break
				}
				if ls := lines[j].s; it.open && it.kind == document.Definition && emptyText(it.text) &&
					adocDelimiter(strings.TrimSpace(ls)) == "" && !strings.HasPrefix(ls, "[") && !strings.HasPrefix(ls, "//") {
					// A term alone ("term::"), then blank lines: the
					// paragraph that follows, indented or not, is its
					// description (as Asciidoctor reads it), not a
					// literal paragraph.
					e := j
					for e < len(lines) && lines[e].s != "" && lines[e].s != "+" {
						e++
					}
					for _, l := range lines[j:e] {
						it.text = append(it.text, strings.TrimSuffix(strings.TrimSpace(l.s), " +"))
					}
					i = e
					continue
				}
				if ls := lines[j].s; ls[0] == ' ' || ls[0] == '\t' {
					flush()
					e := j
					for e < len(lines) && lines[e].s != "" {
						e++
					}
					r.code(lines[j:e])
					i = e
					continue
				}
			}
			flush()
			return i
		}
	}
	flush()
	return i
}

// emptyText reports whether an item's text lines hold nothing.
func emptyText(text []string) bool {
	for _, t := range text {
		if strings.TrimSpace(t) != "" {
			return false
		}
	}
	return true
}

// table reads a table's body: cells split at sep ('|', '!', ',' or ':'),
// in rows of the columns cols gives or the first line's cell count; the
// first row is the header with options="header" or when the first line is
// followed by a blank line (unless options="noheader").
func (r *adocReader) table(body []adocLine, sep byte, at adocAttrs, c *adocCtx) {
	if at.sep != "" {
		sep = at.sep[0]
	}
	type cell struct {
		text string
		line int
	}
	var cells []cell
	implicit := false
	first := -1 // the cells of the first line that has any
	firstAt := func(k int) {
		if first < 0 && len(cells) > 0 {
			first = len(cells)
			implicit = k+1 < len(body) && strings.TrimSpace(body[k+1].s) == ""
		}
	}
	if sep == ',' || sep == ':' {
		for k, l := range body {
			if strings.TrimSpace(l.s) == "" {
				continue
			}
			var fields []string
			if sep == ',' {
				cr := csv.NewReader(strings.NewReader(l.s))
				cr.LazyQuotes = true
				f, err := cr.Read()
				if err != nil {
					f = strings.Split(l.s, ",")
				}
				fields = f
			} else {
				fields = strings.Split(l.s, ":")
			}
			for _, f := range fields {
				cells = append(cells, cell{f, l.n})
			}
			firstAt(k)
		}
	} else {
		cur := -1 // the cell being read
		for k, l := range body {
			s := l.s
			if strings.TrimSpace(s) == "" {
				if cur >= 0 {
					cells[cur].text += "\n"
				}
				continue
			}
			var sb strings.Builder
			for k := 0; k < len(s); k++ {
				ch := s[k]
				if ch == '\\' && k+1 < len(s) && s[k+1] == sep {
					sb.WriteByte(sep)
					k++
					continue
				}
				if ch != sep {
					sb.WriteByte(ch)
					continue
				}
				// A cell starts: the spec before it (at the line's start
				// or after white space) is not text.
				prev := sb.String()
				n := strings.LastIndexAny(prev, " \t") + 1
				spec := prev[n:]
				repeat, span := 1, 1
				if m := adocCellSpecRe.FindStringSubmatch(spec); spec != "" && m != nil {
					if v, err := strconv.Atoi(m[1]); err == nil {
						repeat = min(max(v, 1), maxAdocColumns)
					}
					if v, err := strconv.Atoi(m[2]); err == nil && m[3] == "" && strings.Contains(spec, "+") {
						span = min(max(v, 1), maxAdocColumns)
					}
					prev = prev[:n]
				}
				if cur >= 0 {
					cells[cur].text += prev
				}
				sb.Reset()
				for range repeat {
					cells = append(cells, cell{line: l.n})
					for range span - 1 {
						cells = append(cells, cell{line: l.n})
					}
				}
				cur = len(cells) - span
			}
			if cur >= 0 {
				cells[cur].text += sb.String() + "\n"
			}
			firstAt(k)
		}
	}
	if len(cells) == 0 {
		return
	}
	cols := adocCols(at.cols)
	if cols == 0 {
		cols = first
	}
	if cols <= 0 {
		cols = len(cells)
	}
	cols = min(cols, maxAdocColumns)
	opts := "," + strings.ToLower(at.options) + ","
	header := strings.Contains(opts, ",header,") || (implicit && !strings.Contains(opts, ",noheader,") && cols == first)
	var rows [][]string
	var rowLines []int
	for k := 0; k < len(cells); k += cols {
		var row []string
		for _, ce := range cells[k:min(k+cols, len(cells))] {
			row = append(row, document.Collapse(r.inline(ce.text)))
		}
		rows = append(rows, row)
		rowLines = append(rowLines, cells[k].line)
	}
	tc := &adocCtx{kind: document.TableRow, group: r.b.NewGroup(), parents: c.parents}
	var head []string
	if header {
		head, rows, rowLines = rows[0], rows[1:], rowLines[1:]
		if len(rows) == 0 {
			r.para(tc, document.RowText(nil, head), cells[0].line)
			return
		}
	}
	for k, row := range rows {
		r.para(tc, document.RowText(head, row), rowLines[k])
	}
}

// adocCols returns the number of columns a cols attribute gives ("1,2,3",
// "3*", "2*,1"), 0 when none.
func adocCols(s string) int {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0
	}
	n := 0
	for _, p := range strings.Split(s, ",") {
		if a, _, ok := strings.Cut(p, "*"); ok {
			if v, err := strconv.Atoi(strings.TrimSpace(a)); err == nil && v > 0 {
				n += min(v, maxAdocColumns)
				continue
			}
		}
		n++
	}
	return n
}
