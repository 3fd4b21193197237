package roff

import (
	"bytes"
	"context"
	"strings"
	"unicode"

	"github.com/reqa/reqa/ingest/document"
)

// Parse reads a Unix manual page in roff: man(7) pages (.TH) and, for
// the most part, mdoc(7) ones (.Dd/.Dt/.Sh; see mdocRequest). The title
// (.TH's or .Dt's first argument) is a level-1 heading and the document's
// title, .SH sections are level 2 and .SS subsections level 3. Text lines
// are filled into paragraphs (.PP, .LP, .P, .sp and blank lines end one);
// .TP and .IP tags are definitions ("-e: Exit immediately…", the term's
// length in Block.Term; a .TP whose description is empty, and .TQ, add a
// term to the next), .IP bullets and numbers are list items, and the
// blocks of an .RS block under a tag carry the tag in Block.Parents (the
// options of bash's set builtin under set). DocBook's shape for
// definitions, ".PP" then one line then ".RS", is read as a definition
// too. .nf/.fi, .EX/.EE, .SY/.YS synopses and every block of a SYNOPSIS
// section are code; tbl tables (.TS/.TE) are table rows with their header
// when the first rows are bold or ruled off, else paragraphs of
// "cell; cell". Font and inline macros become their text (.BR and kin
// without spaces), escapes and named glyphs are written out, strings
// (.ds) expanded, .UR/.MT links keep their text (their address when they
// have none), and macros the page defines (.de) are run. Conditions
// (.if, .ie/.el) are decided as nroff on groff decides them (n true, t
// false, \n(.g 1, registers set by .nr); a \{…\} body is read or skipped
// whole by its condition. Layout requests (.br, .in, .ne, .ft…), unknown
// macros with their arguments, comments, .ig blocks and eqn/pic
// pictures are dropped. A line that is not UTF-8 is read as Latin-1, and a
// file without a title macro is read all the same.
func Parse(name string, data []byte) (*document.Document, error) {
	return ParseContext(context.Background(), name, data)
}

// ParseContext is [Parse], stopping with ctx's error (wrapped) once ctx is
// done, between lines.
func ParseContext(ctx context.Context, name string, data []byte) (d *document.Document, err error) {
	defer document.Recover(name, &err)
	r := &manReader{
		b:         document.NewBuilderContext(ctx, name, document.Man),
		strs:      map[string]string{"lq": "“", "rq": "”", "R": "®", "Tm": "™"},
		regs:      map[string]int{},
		macros:    map[string][]string{},
		budget:    maxMacroBytes,
		strBudget: maxStrings,
		linkAt:    -1,
		levels:    []manLevel{{}},
	}
	for _, l := range roffLines(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))) {
		r.b.Check()
		r.line(l.text, l.n, 0)
	}
	r.finish()
	return r.b.Doc, nil
}

// Bounds on what a page's own macros and strings may do, so that no page
// can make the reader run long: how deep macro calls nest, how many bytes
// of macro lines they run and of strings they write out in all, and how
// long one string grows; and on how long a term grows from the tags
// stacked on one description (past it, a tag starts a new item).
const (
	maxMacroDepth = 16
	maxMacroLines = 100000
	maxMacroBytes = 16 << 20
	maxStrings    = 16 << 20
	maxString     = 16 << 10
	maxTerm       = 1024
)

// manItem is a tagged paragraph (.TP, .IP with a tag, mdoc's .It): a
// definition or a list item, and the blocks of its description.
type manItem struct {
	kind  document.Kind // Definition or ListItem; "" when no item is open
	term  string        // the term, until a block carries it
	name  string        // the first term: what blocks nested under the item name
	line  int           // where the term is
	group int
	// wantTerm: the next text is (more of) the term (.TP, .TQ).
	wantTerm bool
	// used: a block carried the term or named it as its parent.
	used bool
	// indented: a paragraph taken for a term because an indented block
	// follows (DocBook): the item ends with that block.
	indented bool
}

// manLevel is a level of indentation: the page itself, an .RS block or an
// mdoc list. The item open at a level holds the levels above it.
type manLevel struct {
	item manItem
	// group and groupKind: the list that items opened at this level join
	// (consecutive tags are one definition list).
	group     int
	groupKind document.Kind
	list      string   // mdoc: the list's type ("tag", "bullet", "column"); "" for .RS
	rows      int      // mdoc column lists: rows read
	head      []string // and their header (a first row in bold), if any
}

type manReader struct {
	b *document.Builder
	n int // the line being read

	strs      map[string]string   // strings (.ds)
	regs      map[string]int      // number registers (.nr)
	macros    map[string][]string // macros the page defines (.de)
	budget    int                 // bytes of macro lines left to run
	strBudget int                 // bytes of strings left to write out
	ie        []bool              // results of .ie, for .el

	// Constructs that take the lines that follow.
	until   string   // .de, .ig, .EQ, .PS: the macro ending them ("." for "..")
	def     string   // .de: the macro being defined ("" when skipping)
	defAdd  bool     // .am: appending to it
	defBody []string // its lines so far
	braces  int      // false conditional blocks still open
	tbl     *manTable

	mdoc     bool        // an mdoc(7) page
	mdocName string      // mdoc: the page's name (.Nm)
	xo       *mdocWriter // mdoc: an .It term spread over lines (Xo…Xc)
	xoLine   int         // and the line it starts on
	smOff    bool        // mdoc: spacing is off (.Sm off)

	heading     int // a heading macro without text: its level, until the next text
	headingLine int
	synopsis    bool // in a SYNOPSIS section: its blocks are code
	syn         bool // between .SY and .YS

	para      strings.Builder // the paragraph being filled
	paraLine  int
	paraLines int  // its output lines (text lines not continued by \c)
	afterPP   bool // it started right after .PP, .LP or .P
	glue      bool // the last text ended with \c: the next joins it without a space

	nofill   bool // .nf or .EX: lines are code
	code     []string
	codeCur  strings.Builder
	codeLine int

	linkAt int // .UR/.MT: where the link's text starts in para, -1 outside a link
	link   string

	levels   []manLevel
	overflow int // .RS and .Bl beyond maxNesting, not pushed

	blocks     int // blocks emitted
	bulletAt   int // r.blocks after the last "•" paragraph read as a list item
	bulletGrp  int
	bulletLvls int
}

// line reads one input line; depth counts the macro calls and conditional
// bodies it comes from.
func (r *manReader) line(s string, n, depth int) {
	r.n = n
	switch {
	case r.until != "":
		if (strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'")) && len(s) > 1 {
			if name, _ := requestName(s[1:]); name == r.until {
				r.endDefinition()
				return
			}
		}
		if r.def != "" && len(r.defBody) < maxMacroLines {
			// Copy mode: an escaped backslash is kept as one.
			r.defBody = append(r.defBody, strings.ReplaceAll(s, `\\`, `\`))
		}
		return
	case r.braces > 0:
		r.braces += braceDepth(s)
		return
	case r.tbl != nil:
		r.tableLine(s)
		return
	}
	if depth > document.MaxNesting {
		return
	}
	if s != "" && (s[0] == '.' || s[0] == '\'') {
		r.request(s[1:], depth)
		return
	}
	if strings.TrimSpace(s) == "" {
		// A blank line ends the paragraph (in code, it is a line of it).
		if r.nofill {
			r.text("", false)
		} else {
			r.endPara()
		}
		return
	}
	if r.mdoc && r.xo != nil {
		t, _ := r.expand(s)
		r.xo.word(t)
		return
	}
	t, glue := r.expand(s)
	r.text(t, glue)
}

// endDefinition ends the lines a .de, .ig, .EQ or .PS took.
func (r *manReader) endDefinition() {
	if r.def != "" {
		if r.defAdd {
			r.macros[r.def] = append(r.macros[r.def], r.defBody...)
		} else {
			r.macros[r.def] = r.defBody
		}
	}
	r.until, r.def, r.defBody = "", "", nil
}

// manBuiltin are the macros the reader knows (a page's "d" conditions
// test them: ".if !d TQ .de TQ …" defines nothing).
var manBuiltin = map[string]bool{
	"TH": true, "SH": true, "SS": true, "PP": true, "LP": true, "P": true, "HP": true,
	"TP": true, "TQ": true, "IP": true, "RS": true, "RE": true, "B": true, "I": true,
	"SM": true, "SB": true, "BR": true, "BI": true, "IB": true, "IR": true, "RB": true,
	"RI": true, "UR": true, "UE": true, "MT": true, "ME": true, "SY": true, "OP": true,
	"YS": true, "EX": true, "EE": true, "MR": true, "PD": true, "AT": true, "UC": true,
	"DT": true,
}

// request runs a control line (s without its control character).
func (r *manReader) request(s string, depth int) {
	name, rest := requestName(s)
	switch name {
	case "":
		return
	case "if", "ie", "el":
		r.conditional(name, rest, depth)
		return
	case "de", "de1", "dei", "dei1", "am", "am1", "ami", "ami1", "ig", "EQ", "PS":
		a := roffArgs(rest)
		switch {
		case name == "ig":
			r.until = "."
			if len(a) > 0 {
				r.until = a[0]
			}
		case name == "EQ":
			r.until = "EN"
		case name == "PS":
			r.until = "PE"
		case len(a) > 0:
			r.def, r.defAdd, r.defBody, r.until = a[0], strings.HasPrefix(name, "am"), nil, "."
			if len(a) > 1 {
				r.until = a[1]
			}
		}
		return
	case "ds", "ds1", "as", "as1":
		key, v := rest, ""
		if i := strings.IndexAny(rest, " \t"); i >= 0 {
			key, v = rest[:i], strings.TrimPrefix(strings.TrimLeft(rest[i:], " \t"), `"`)
		}
		if strings.HasPrefix(name, "as") {
			if len(r.strs[key])+len(v) > maxString {
				return
			}
			v = r.strs[key] + v
		}
		if key != "" && len(v) <= maxString {
			r.strs[key] = v
		}
		return
	case "nr":
		a := roffArgs(rest)
		if len(a) >= 2 {
			if v, ok := r.eval(a[1]); ok && v > -1e9 && v < 1e9 {
				r.regs[a[0]] = int(v)
			}
		}
		return
	case "rr":
		delete(r.regs, rest)
		return
	case "rm":
		for _, a := range roffArgs(rest) {
			delete(r.strs, a)
			delete(r.macros, a)
		}
		return
	case "TS":
		r.endPara()
		r.tbl = &manTable{line: r.n, format: true, first: true, tab: "\t", headRows: -1}
		return
	}
	args := roffArgs(rest)
	if r.manRequest(name, args) {
		return
	}
	if (r.mdoc || mdocStart[name] && !r.titled()) && r.mdocRequest(name, rest, args) {
		return
	}
	if body, ok := r.macros[name]; ok && depth < maxMacroDepth {
		n := r.n
		for _, l := range body {
			if r.budget <= 0 {
				break
			}
			l, _ = roffComment(macroArgs(l, args))
			r.budget -= len(l) + 1
			r.line(l, n, depth+1)
		}
		r.n = n
	}
	// Anything else is layout (.br .in .ne .ad .na .hy .nh .ft .ps .ll
	// .so .PD .IX…) or unknown: dropped with its arguments.
}

// titled reports whether the page has its man(7) title (so that mdoc's
// macros are not taken for its own).
func (r *manReader) titled() bool { return r.b.Doc.Title != "" && !r.mdoc }

// conditional runs .if, .ie and .el: the body (the rest of the line, or
// a \{ … \} block) is read when the condition holds and skipped whole when
// not; a condition the reader cannot decide is false.
func (r *manReader) conditional(name, rest string, depth int) {
	var result bool
	body := rest
	if name == "el" {
		if n := len(r.ie); n > 0 {
			result = !r.ie[n-1]
			r.ie = r.ie[:n-1]
		}
	} else {
		var ok bool
		result, body, ok = r.condition(rest)
		result = result && ok
		if name == "ie" && len(r.ie) < document.MaxNesting {
			r.ie = append(r.ie, result)
		}
	}
	body = strings.TrimLeft(body, " \t")
	if b, ok := strings.CutPrefix(body, `\{`); ok {
		body = b
		if !result {
			r.braces = max(0, 1+braceDepth(body))
			return
		}
	}
	if !result {
		return
	}
	if body = strings.TrimLeft(body, " \t"); body != "" {
		r.line(body, r.n, depth+1)
	}
}

// macroArgs returns a line of a page's macro with its arguments put in
// (\$1…\$9, \$(NN, \$[N], \$* and \$@ all of them, \$# their number).
func macroArgs(l string, args []string) string {
	if !strings.Contains(l, `\$`) {
		return l
	}
	var sb strings.Builder
	for i := 0; i < len(l); i++ {
		if l[i] != '\\' || i+1 >= len(l) {
			sb.WriteByte(l[i])
			continue
		}
		if l[i+1] != '$' {
			sb.WriteString(l[i : i+2])
			i++
			continue
		}
		name, next := roffName(l, i+2)
		i = next - 1
		switch name {
		case "*", "@":
			sb.WriteString(strings.Join(args, " "))
		case "#":
			sb.WriteString(string(rune('0' + min(len(args), 9))))
		default:
			n := 0
			for _, c := range name {
				if c < '0' || c > '9' {
					n = -1
					break
				}
				n = n*10 + int(c-'0')
			}
			if n >= 1 && n <= len(args) {
				sb.WriteString(args[n-1])
			}
		}
	}
	return sb.String()
}

// manRequest runs a man(7) macro or a request that changes what is read;
// it reports whether it knew name.
func (r *manReader) manRequest(name string, args []string) bool {
	switch name {
	case "TH":
		r.endAll()
		if len(args) > 0 {
			r.setHeading(1, r.join(args[:1], ""), r.n)
		}
	case "SH", "SS":
		level := 2
		if name == "SS" {
			level = 3
		}
		r.section(level, args)
	case "PP", "LP", "P", "HP":
		r.endCode()
		r.endPara()
		r.closeItem()
		r.afterPP = true
	case "TP", "TQ":
		r.endCode()
		r.endPara()
		r.tag(name == "TQ")
	case "IP":
		r.endCode()
		if len(args) == 0 && r.paraTerm() {
			break // help2man: ".HP", the term, ".IP", the description
		}
		r.endPara()
		tag := ""
		if len(args) > 0 {
			tag = document.Collapse(r.join(args[:1], ""))
		}
		switch {
		case tag == "":
			// More of the item's description (or an indented paragraph).
		case bulletTag(tag):
			r.openItem(document.ListItem, "", r.n)
		default:
			r.termItem(tag, r.n)
		}
	case "RS":
		r.indent()
	case "RE":
		r.endPara()
		r.pop()
	case "sp":
		if r.nofill {
			r.text("", false)
		} else {
			r.endPara()
			r.afterPP = true // asciidoctor's definitions: ".sp", the term, ".RS"
		}
	case "br":
		if !r.nofill {
			r.glue = false
		}
	case "nf", "EX":
		r.startCode()
	case "fi", "EE":
		r.endCode()
	case "B", "I", "SM", "SB":
		if len(args) > 0 {
			r.text(r.expandArgs(args, " "))
		}
	case "BR", "BI", "IB", "IR", "RB", "RI":
		if len(args) > 0 {
			r.text(r.expandArgs(args, ""))
		}
	case "MR":
		if len(args) > 0 {
			t := r.join(args[:1], "")
			if len(args) > 1 {
				t += "(" + r.join(args[1:2], "") + ")"
			}
			if len(args) > 2 {
				t += r.join(args[2:], "")
			}
			r.text(t, false)
		}
	case "UR", "MT":
		r.link, r.linkAt = "", r.para.Len()
		if len(args) > 0 {
			r.link = r.join(args[:1], "")
		}
	case "UE", "ME":
		if r.linkAt >= 0 && r.linkAt == r.para.Len() && r.link != "" {
			r.text(r.link, false)
		}
		r.linkAt = -1
		if len(args) > 0 {
			r.glue = true
			r.text(r.join(args, ""), false)
		}
	case "SY":
		r.endPara()
		r.syn = true
		r.text(r.expandArgs(args, " "))
	case "OP":
		if len(args) > 0 {
			r.text("["+r.join(args, " ")+"]", false)
		}
	case "YS":
		r.endPara()
		r.syn = false
	default:
		return false
	}
	return true
}

// join expands args and joins them with sep.
func (r *manReader) join(args []string, sep string) string {
	t, _ := r.expandArgs(args, sep)
	return t
}

// expandArgs expands args and joins them with sep; glue reports a \c at
// the end of the last one.
func (r *manReader) expandArgs(args []string, sep string) (string, bool) {
	var sb strings.Builder
	glue := false
	for i, a := range args {
		if i > 0 {
			sb.WriteString(sep)
		}
		glue = r.expandTo(&sb, a, 0)
	}
	return sb.String(), glue
}

// bulletTag reports whether an .IP tag marks a list item rather than a
// term: a bullet or dash, or a number ("1.", "2)", "(3)").
func bulletTag(t string) bool {
	switch t {
	case "•", "·", "-", "–", "—", "*", "+", "o", "○", "■", "□", "▪":
		return true
	}
	t = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(t, "("), ")"), ".")
	if t == "" || len(t) > 3 {
		return false
	}
	for _, c := range t {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// text adds output text read on the current line; glue says it ended with
// \c (what follows joins it without a space).
func (r *manReader) text(t string, glue bool) {
	switch {
	case r.heading > 0:
		if r.para.Len() > 0 && !r.glue {
			r.para.WriteByte(' ')
		}
		r.para.WriteString(t)
		r.glue = glue
		if !glue {
			text := r.para.String()
			r.para.Reset()
			level := r.heading
			r.heading = 0
			r.setHeading(level, text, r.headingLine)
		}
	case r.nofill:
		if r.code == nil && r.codeCur.Len() == 0 {
			r.codeLine = r.n
		}
		r.codeCur.WriteString(t)
		if !glue {
			r.code = append(r.code, strings.TrimRight(r.codeCur.String(), " \t"))
			r.codeCur.Reset()
		}
	default:
		if it := &r.level().item; it.wantTerm {
			if it.term == "" {
				it.line = r.n
			} else if !r.glue {
				it.term += " "
			}
			it.term += t
			r.glue = glue
			if !glue || len(it.term) > maxTerm {
				it.wantTerm = false
				it.term = document.Collapse(it.term)
				if it.name == "" {
					it.name = it.term
				}
			}
			return
		}
		if strings.TrimSpace(t) == "" && r.para.Len() == 0 {
			r.glue = glue
			return
		}
		if r.para.Len() == 0 {
			r.paraLine, r.paraLines = r.n, 0
		} else if !r.glue {
			r.para.WriteByte(' ')
		}
		if !r.glue {
			r.paraLines++
		}
		r.para.WriteString(t)
		r.glue = glue
	}
}

// level returns the innermost level.
func (r *manReader) level() *manLevel { return &r.levels[len(r.levels)-1] }

// tag opens a .TP item, whose term is the next text. A .TQ, or a .TP
// right after a term with no description yet, adds a term to the item.
func (r *manReader) tag(more bool) {
	it := &r.level().item
	if it.kind == document.Definition && len(it.term) < maxTerm && (more || !it.used && it.term != "" && !it.wantTerm) {
		if it.term != "" && !it.wantTerm {
			it.term += ","
		}
		it.wantTerm = true
		return
	}
	r.openItem(document.Definition, "", r.n)
	r.level().item.wantTerm = true
}

// termItem opens a definition with term at line; an item whose term has
// no description yet takes it as one more term (pod2man stacks the tags
// of one description so).
func (r *manReader) termItem(term string, line int) {
	if it := &r.level().item; it.kind == document.Definition && !it.used && it.term != "" && !it.wantTerm && term != "" && len(it.term) < maxTerm {
		it.term += ", " + term
		return
	}
	r.openItem(document.Definition, term, line)
}

// openItem closes the item open at the current level and opens one of
// kind with term (Definition) at line; consecutive items of a kind share
// a group.
func (r *manReader) openItem(kind document.Kind, term string, line int) {
	r.closeItem()
	lvl := r.level()
	if lvl.group == 0 || lvl.groupKind != kind {
		lvl.group, lvl.groupKind = r.b.NewGroup(), kind
	}
	lvl.item = manItem{kind: kind, term: term, name: term, line: line, group: lvl.group}
}

// closeItem closes the item open at the current level. A term that no
// block carried nor named as parent (a tag with nothing under it) is kept
// as a paragraph.
func (r *manReader) closeItem() {
	it := &r.level().item
	if it.kind == document.Definition && !it.used && it.term != "" {
		r.emit(document.Paragraph, it.term, 0, r.parents(false), it.line, 0)
	}
	*it = manItem{}
}

// indent runs .RS: the paragraph before it ends, and the blocks of the
// new level belong to the item open, if any. DocBook writes a definition
// as ".PP", the term on one line, then ".RS" (asciidoctor ".sp" for
// ".PP"; help2man ".HP" and ".IP"): such a paragraph is taken for a term.
func (r *manReader) indent() {
	if r.paraTerm() {
		r.level().item.indented = true
	} else {
		r.endPara()
	}
	r.push("")
}

// paraTerm turns the paragraph being filled into the term of a
// definition, and reports whether it did, when it may be one (what comes
// next is indented under it): one line right after a paragraph macro, not
// a sentence, with no item open.
func (r *manReader) paraTerm() bool {
	term := document.Collapse(r.para.String())
	if r.level().item.kind != "" || !r.afterPP || r.paraLines != 1 || r.glue || r.syn || !termLike(term) {
		return false
	}
	line := r.paraLine
	r.para.Reset()
	r.afterPP = false
	r.openItem(document.Definition, term, line)
	return true
}

// termLike reports whether a paragraph may be a DocBook term: short, not
// a sentence (no final period, colon or semicolon, but for an ellipsis).
func termLike(t string) bool {
	if t == "" || len(t) > 160 {
		return false
	}
	if strings.HasSuffix(t, "...") || strings.HasSuffix(t, "…") {
		return true
	}
	switch t[len(t)-1] {
	case '.', ':', ';', ',', '!', '?':
		return false
	}
	return true
}

// push opens a level (.RS, mdoc's .Bl).
func (r *manReader) push(list string) {
	if len(r.levels) >= document.MaxNesting {
		r.overflow++
		return
	}
	r.levels = append(r.levels, manLevel{list: list})
}

// pop closes the innermost level (.RE, mdoc's .El): the item open there is
// closed; the one below goes on.
func (r *manReader) pop() {
	if r.overflow > 0 {
		r.overflow--
		return
	}
	if len(r.levels) <= 1 {
		r.closeItem()
		return
	}
	r.closeItem()
	r.levels = r.levels[:len(r.levels)-1]
	if r.level().item.indented {
		r.closeItem()
	}
}

// parents returns the terms of the definitions whose descriptions hold
// the current level, outermost first, marking them used; own leaves out
// the innermost, for a block that is its own description's.
func (r *manReader) parents(own bool) []string {
	var ps []string
	last := len(r.levels) - 1
	for i := 0; i < last; i++ {
		it := &r.levels[i].item
		if it.kind != document.Definition || it.name == "" || own && i == last-1 {
			continue
		}
		it.used = true
		ps = append(ps, it.name)
	}
	return ps
}

// endPara ends the paragraph being filled: it becomes a block of the kind
// its level gives it.
func (r *manReader) endPara() {
	text, line := r.para.String(), r.paraLine
	r.para.Reset()
	r.glue, r.afterPP, r.linkAt = false, false, -1
	if strings.IndexFunc(text, func(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) }) < 0 {
		return // blank, or a rule drawn in text ("---")
	}
	lvl := r.level()
	switch {
	case lvl.item.kind != "":
		r.itemBlock(&lvl.item, text, line, false)
	case len(r.levels) > 1 && r.levels[len(r.levels)-2].item.kind != "":
		// Text of an .RS block under an item: more of its description.
		r.itemBlock(&r.levels[len(r.levels)-2].item, text, line, true)
	default:
		if b, ok := strings.CutPrefix(document.Collapse(text), "• "); ok {
			// A bullet written out (DocBook's for nroff): a list item; the
			// bullets that follow each other are one list.
			if r.bulletAt != r.blocks || r.bulletLvls != len(r.levels) {
				r.bulletGrp = r.b.NewGroup()
			}
			r.emit(document.ListItem, b, 0, r.parents(false), line, r.bulletGrp)
			r.bulletAt, r.bulletLvls = r.blocks, len(r.levels)
			return
		}
		r.emit(document.Paragraph, text, 0, r.parents(false), line, 0)
		lvl.group = 0
	}
}

// itemBlock emits text as a block of item it, the first with its term;
// nested is for text of a level above the item.
func (r *manReader) itemBlock(it *manItem, text string, line int, nested bool) {
	term := 0
	if it.kind == document.Definition && it.term != "" {
		text = it.term + ": " + document.Collapse(text)
		term, line = len(it.term), it.line
		it.term = ""
	}
	it.used = true
	r.emit(it.kind, text, term, r.parents(nested && it.kind == document.Definition), line, it.group)
}

// emit adds a block; in a SYNOPSIS section or a .SY synopsis it is code.
func (r *manReader) emit(kind document.Kind, text string, term int, parents []string, line, group int) {
	text = strings.ToValidUTF8(text, "\uFFFD")
	if kind != document.Code && (r.synopsis || r.syn) {
		kind, text, term, group = document.Code, document.Collapse(text), 0, 0
	}
	r.b.TermBlock(kind, text, term, parents, line, 0, group)
	r.blocks++
}

// startCode starts no-fill text (.nf, .EX): its lines are a code block.
func (r *manReader) startCode() {
	r.endPara()
	r.nofill = true
}

// endCode ends no-fill text and emits its lines as a code block.
func (r *manReader) endCode() {
	if !r.nofill {
		return
	}
	if r.codeCur.Len() > 0 {
		r.code = append(r.code, r.codeCur.String())
		r.codeCur.Reset()
	}
	r.nofill = false
	text := strings.Join(r.code, "\n")
	r.code = nil
	if strings.TrimSpace(text) != "" {
		r.b.TermBlock(document.Code, strings.ToValidUTF8(text, "\uFFFD"), 0, nil, r.codeLine, 0, 0)
		r.blocks++
	}
}

// endAll ends everything open: paragraph, code, items and levels.
func (r *manReader) endAll() {
	r.endCode()
	r.endPara()
	r.syn, r.xo = false, nil
	for len(r.levels) > 1 {
		r.pop()
	}
	r.overflow = 0
	r.closeItem()
	*r.level() = manLevel{}
}

// section starts a section at level with the heading args, or with the
// next text when there are none.
func (r *manReader) section(level int, args []string) {
	r.endAll()
	if text := r.join(args, " "); strings.TrimSpace(text) != "" {
		r.setHeading(level, text, r.n)
		return
	}
	r.heading, r.headingLine = level, r.n
}

// setHeading adds a heading; a SYNOPSIS section's blocks are code.
func (r *manReader) setHeading(level int, text string, line int) {
	text = document.Collapse(strings.ToValidUTF8(text, "\uFFFD"))
	switch {
	case level <= 2:
		r.synopsis = level == 2 && strings.EqualFold(text, "SYNOPSIS")
	}
	r.b.Heading(level, text, "", line, 0)
}

// finish ends what the page left open.
func (r *manReader) finish() {
	if r.tbl != nil {
		r.endTable()
	}
	if r.heading > 0 && r.para.Len() > 0 {
		r.text("", false)
	}
	r.endAll()
}

// manTable is a tbl(1) table being read (.TS … .TE).
type manTable struct {
	line     int
	format   bool // reading the options and format lines
	first    bool // no format line read yet
	options  bool // the options line was read
	tab      string
	boldHead bool // the first format row sets its columns in bold
	headRows int  // rows above the first rule or .TH, -1 before one
	rows     []tblRow
	block    *strings.Builder // a T{ … T} cell being read
	pending  []string         // the cells of its row before it
	rowLine  int
}

type tblRow struct {
	cells []string
	line  int
	bold  bool // every cell is set in bold
}

// tableLine reads a line of a table: options ("tab(:);"), format lines (up
// to one ending in "."), then data rows of cells separated by the tab
// character, with T{ … T} cells over several lines; rules ("_", "=") after
// the first rows mark them as the header.
func (r *manReader) tableLine(s string) {
	t := r.tbl
	if t.block != nil {
		if rest, ok := strings.CutPrefix(s, "T}"); ok {
			t.pending = append(t.pending, document.Collapse(t.block.String()))
			t.block = nil
			if i := strings.Index(rest, t.tab); i >= 0 {
				r.tableCells(strings.Split(rest[i+len(t.tab):], t.tab))
			} else {
				r.tableCells(nil)
			}
			return
		}
		if s != "" && (s[0] == '.' || s[0] == '\'') {
			name, rest := requestName(s[1:])
			switch name {
			case "B", "I", "SM", "SB", "BR", "BI", "IB", "IR", "RB", "RI":
				sep := ""
				if len(name) == 1 || name == "SM" || name == "SB" {
					sep = " "
				}
				t.block.WriteString(" " + r.join(roffArgs(rest), sep))
			}
			return
		}
		x, _ := r.expand(s)
		t.block.WriteString(" " + x)
		return
	}
	if s != "" && (s[0] == '.' || s[0] == '\'') {
		switch name, _ := requestName(s[1:]); name {
		case "TE":
			r.endTable()
		case "T&":
			t.format = true
		case "TH":
			if t.headRows < 0 {
				t.headRows = len(t.rows)
			}
		case "SH", "SS":
			r.endTable()
			r.line(s, r.n, 0)
		}
		return
	}
	if t.format {
		l := strings.TrimSpace(s)
		if t.first && !t.options && strings.HasSuffix(l, ";") {
			lower := strings.ToLower(l)
			if i := strings.Index(lower, "tab("); i >= 0 && i+5 < len(l) && l[i+5] == ')' {
				t.tab = l[i+4 : i+5]
			}
			t.options = true
			return
		}
		if t.first {
			row, _, _ := strings.Cut(l, ",")
			t.boldHead = tblBoldFormat(row)
			t.first = false
		}
		if strings.HasSuffix(l, ".") {
			t.format = false
		}
		return
	}
	switch strings.TrimSpace(s) {
	case "_", "=", `\_`:
		if t.headRows < 0 && len(t.rows) > 0 && len(t.rows) <= 2 {
			t.headRows = len(t.rows)
		}
		return
	case "":
		return
	}
	t.rowLine = r.n
	r.tableCells(strings.Split(s, t.tab))
}

// tableCells adds the raw cells of a row (after those pending from a
// T{ cell); a last cell "T{" starts a text block that lines to come fill.
func (r *manReader) tableCells(raw []string) {
	t := r.tbl
	bold := len(t.pending) == 0
	for i, c := range raw {
		if strings.TrimSpace(c) == "T{" && i == len(raw)-1 {
			t.block = &strings.Builder{}
			return
		}
		c = strings.TrimSpace(c)
		bold = bold && (c == "" || strings.HasPrefix(c, `\fB`) || strings.HasPrefix(c, `\f(CB`) || strings.HasPrefix(c, `\f[B]`))
		switch c {
		case `\^`, `\_`, `\=`, "_", "=":
			c = ""
		}
		x, _ := r.expand(c)
		t.pending = append(t.pending, document.Collapse(x))
	}
	if len(t.rows) < 1<<16 {
		t.rows = append(t.rows, tblRow{cells: t.pending, line: t.rowLine, bold: bold})
	}
	t.pending = nil
}

// tblBoldFormat reports whether a format row sets every column but spans
// in bold ("lb lb", "cB cB", "lfB l fB").
func tblBoldFormat(row string) bool {
	cols, bold := 0, 0
	cur := false
	in := false
	for i := 0; i < len(row); i++ {
		c := row[i]
		switch {
		case strings.IndexByte("lrcnaLRCNA", c) >= 0:
			if in && cur {
				bold++
			}
			cols++
			in, cur = true, false
		case strings.IndexByte("s^_-=S", c) >= 0:
			if in && cur {
				bold++
			}
			in = false
		case c == 'b' || c == 'B':
			cur = true
		case c == 'f' || c == 'F':
			name, next := roffName(row, i+1)
			cur = cur || strings.Contains(name, "B")
			i = next - 1
		case c == '(':
			if end := strings.IndexByte(row[i:], ')'); end >= 0 {
				i += end
			}
		}
	}
	if in && cur {
		bold++
	}
	return cols > 0 && bold == cols
}

// endTable emits a table's rows: "Header: cell; …" table rows when its
// first rows are a header (ruled off, ended by .TH, or bold), else a
// paragraph "cell; cell" per row.
func (r *manReader) endTable() {
	t := r.tbl
	if t.block != nil {
		t.pending = append(t.pending, document.Collapse(t.block.String()))
		t.block = nil
		r.tableCells(nil)
	}
	r.tbl = nil
	rows := t.rows
	var header []string
	switch {
	case t.headRows > 0 && t.headRows < len(rows):
		for _, row := range rows[:t.headRows] {
			for i, c := range row.cells {
				if i >= len(header) {
					header = append(header, "")
				}
				header[i] = strings.TrimSpace(header[i] + " " + c)
			}
		}
		rows = rows[t.headRows:]
	case len(rows) > 1 && (t.boldHead || rows[0].bold):
		header, rows = rows[0].cells, rows[1:]
	}
	parents := r.parents(false)
	if it := r.level().item; it.kind == document.Definition && it.name != "" {
		parents = append(parents, it.name)
	}
	group := r.b.NewGroup()
	for _, row := range rows {
		if header != nil {
			r.emit(document.TableRow, document.RowText(header, row.cells), 0, parents, row.line, group)
			continue
		}
		var cells []string
		for _, c := range row.cells {
			if c != "" {
				cells = append(cells, c)
			}
		}
		r.emit(document.Paragraph, strings.Join(cells, "; "), 0, parents, row.line, group)
	}
}
