package rst

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reqa/reqa/ingest/document"
)

// Inline markup in reStructuredText, removed as docutils recognises it: a
// start-string ("*", "**", "``", "`", ":role:`", "_`", "|", "[") must
// start the text or follow white space or one of - : / ' " < ( [ { (or
// other opening or dash-like punctuation), and be followed by a
// non-space; an end-string must follow a non-space and be followed by the
// end of the text, white space or one of - . , : ; ! ? \ / ' " ) ] } >
// (or other closing punctuation). So "*" and "_" inside words
// (snake_case, a*b, __init__) are text, and so is a start-string that no
// end-string closes. A backslash escapes the character after it (an
// escaped space vanishes), except in inline literals, which keep their
// text as written.

// rstUnit is a character of text after backslash escapes are read: esc
// says a backslash escaped it (it is never markup).
type rstUnit struct {
	r   rune
	esc bool
}

// End-strings the scanner looks for.
const (
	endLiteral     = iota // ``
	endStrong             // **
	endEmphasis           // *
	endInterpreted        // ` and an optional suffix: _, __ or :role:
	endTarget             // ` of an inline target (_`target`)
	endSubst              // | and an optional _ or __
	rstEnds
)

// rstScanner removes the inline markup of one text.
type rstScanner struct {
	r    *rstReader
	u    []rstUnit
	out  []byte
	subs bool // substitution references are replaced (not in a replacement's own text)
	// nested: the text is emphasis's, whose own emphasis is text.
	nested bool
	// none[k] >= 0: there is no end-string of kind k at or after none[k].
	// Whether a position ends a kind does not depend on where the markup
	// starts, so one failed search serves all later ones: the scan stays
	// linear however many start-strings are left open.
	none [rstEnds]int
}

// inline returns s, a paragraph's text, without inline markup.
func (r *rstReader) inline(s string) string {
	return r.inlineText(s, true, false)
}

// inlineText returns s without inline markup; subs says whether
// substitution references are replaced, nested whether s is the text of
// emphasis.
func (r *rstReader) inlineText(s string, subs, nested bool) string {
	if !strings.ContainsAny(s, "*`|_[:\\") {
		return s
	}
	p := &rstScanner{r: r, subs: subs, nested: nested, out: make([]byte, 0, len(s))}
	for k := range p.none {
		p.none[k] = -1
	}
	rs := []rune(s)
	p.u = make([]rstUnit, 0, len(rs))
	for i := 0; i < len(rs); i++ {
		if rs[i] == '\\' {
			if i+1 < len(rs) {
				p.u = append(p.u, rstUnit{rs[i+1], true})
				i++
			}
			continue
		}
		p.u = append(p.u, rstUnit{rs[i], false})
	}
	for i := 0; i < len(p.u); {
		c := p.u[i]
		if c.esc {
			if !unicode.IsSpace(c.r) {
				p.put(c.r)
			}
			i++
			continue
		}
		if next := p.markup(i); next > i {
			i = next
			continue
		}
		p.put(c.r)
		i++
	}
	return string(p.out)
}

func (p *rstScanner) put(c rune) { p.out = utf8.AppendRune(p.out, c) }

// at reports whether the unit at k is the unescaped character c.
func (p *rstScanner) at(k int, c rune) bool {
	return k >= 0 && k < len(p.u) && p.u[k].r == c && !p.u[k].esc
}

// rstOpeners pairs the characters that may come before a start-string
// with the closing ones that may not follow it ("(*)" is not emphasis).
var rstOpeners = map[rune]rune{'\'': '\'', '"': '"', '<': '>', '(': ')', '[': ']', '{': '}', '‘': '’', '“': '”', '«': '»'}

// startOK reports whether the n units at i are a start-string: at the
// start or after white space or opening punctuation, and followed by a
// non-space (that is not the closing mate of what comes before).
func (p *rstScanner) startOK(i, n int) bool {
	if i+n >= len(p.u) || unicode.IsSpace(p.u[i+n].r) {
		return false
	}
	if i == 0 {
		return true
	}
	prev := p.u[i-1].r
	if closer, ok := rstOpeners[prev]; ok && p.u[i+n].r == closer {
		return false
	}
	return unicode.IsSpace(prev) || strings.ContainsRune(`-:/'"<([{`, prev) ||
		prev >= 0x80 && unicode.In(prev, unicode.Ps, unicode.Pi, unicode.Pf, unicode.Pd, unicode.Po)
}

// endOK reports whether an end-string may end before unit k: at the end,
// before white space, an escaped character or closing punctuation.
func (p *rstScanner) endOK(k int) bool {
	if k >= len(p.u) || p.u[k].esc {
		return true
	}
	c := p.u[k].r
	return unicode.IsSpace(c) || strings.ContainsRune(`-.,:;!?\/'")]}>`, c) ||
		c >= 0x80 && unicode.In(c, unicode.Pd, unicode.Po, unicode.Pe, unicode.Pf, unicode.Pi)
}

// endAt returns the index after the end-string of kind that starts at j
// (its suffix included), or -1.
func (p *rstScanner) endAt(kind, j int) int {
	u := p.u
	if j <= 0 || j >= len(u) || unicode.IsSpace(u[j-1].r) {
		return -1
	}
	switch kind {
	case endLiteral:
		// Backslashes are text in a literal: an escaped backquote ends it.
		if u[j].r == '`' && p.at(j+1, '`') && p.endOK(j+2) {
			return j + 2
		}
	case endStrong:
		if p.at(j, '*') && p.at(j+1, '*') && p.endOK(j+2) {
			return j + 2
		}
	case endEmphasis:
		if p.at(j, '*') && p.endOK(j+1) {
			return j + 1
		}
	case endInterpreted, endSubst:
		mark := '`'
		if kind == endSubst {
			mark = '|'
		}
		if !p.at(j, mark) {
			return -1
		}
		k := j + 1
		switch {
		case p.at(k, '_'):
			k++
			if p.at(k, '_') {
				k++
			}
		case kind == endInterpreted && p.at(k, ':'):
			if e := p.roleName(k); e > k {
				k = e
			}
		}
		if p.endOK(k) {
			return k
		}
		if k > j+1 && p.endOK(j+1) {
			return j + 1
		}
	case endTarget:
		if p.at(j, '`') && p.endOK(j+1) {
			return j + 1
		}
	}
	return -1
}

// find returns the first position at or after from where an end-string
// of kind starts, or -1.
func (p *rstScanner) find(kind, from int) int {
	limit := len(p.u)
	if n := p.none[kind]; n >= 0 {
		if from >= n {
			return -1
		}
		limit = n
	}
	for j := from; j < limit; j++ {
		if p.endAt(kind, j) >= 0 {
			return j
		}
	}
	p.none[kind] = from
	return -1
}

// roleName returns the index after a role name between colons starting
// at the colon at k (":func:", ":py:meth:"), or k: letters and digits with
// single - _ + : . between them.
func (p *rstScanner) roleName(k int) int {
	j := k + 1
	if !p.alnum(j) {
		return k
	}
	for j < len(p.u) && j-k < 64 {
		switch {
		case p.alnum(j):
			j++
		case strings.ContainsRune("-_+:.", p.u[j].r) && !p.u[j].esc && p.alnum(j+1):
			j++
		case p.at(j, ':'):
			return j + 1
		default:
			return k
		}
	}
	return k
}

func (p *rstScanner) alnum(k int) bool {
	return k >= 0 && k < len(p.u) && !p.u[k].esc && (unicode.IsLetter(p.u[k].r) || unicode.IsDigit(p.u[k].r))
}

// text returns the units from..to as a string, escaped spaces dropped.
func (p *rstScanner) text(from, to int) string {
	var sb strings.Builder
	for _, c := range p.u[from:to] {
		if !(c.esc && unicode.IsSpace(c.r)) {
			sb.WriteRune(c.r)
		}
	}
	return sb.String()
}

// raw returns the units from..to as written, backslashes put back.
func (p *rstScanner) raw(from, to int) string {
	var sb strings.Builder
	for _, c := range p.u[from:to] {
		if c.esc {
			sb.WriteByte('\\')
		}
		sb.WriteRune(c.r)
	}
	return sb.String()
}

// skip writes the n units at i as text and returns the index after them.
func (p *rstScanner) skip(i, n int) int {
	for _, c := range p.u[i : i+n] {
		p.put(c.r)
	}
	return i + n
}

// markup reads the inline markup starting at unit i, writing its text,
// and returns the index after it; it returns i when none starts there.
func (p *rstScanner) markup(i int) int {
	switch p.u[i].r {
	case '`':
		if p.at(i+1, '`') {
			// An inline literal, or two backquotes of text.
			if p.startOK(i, 2) {
				if j := p.find(endLiteral, i+3); j >= 0 {
					p.out = append(p.out, p.raw(i+2, j)...)
					if p.u[j].esc {
						p.out = append(p.out, '\\') // "``C:\``"
					}
					return j + 2
				}
			}
			return p.skip(i, 2)
		}
		return p.interpreted(i, i, "")
	case '*':
		if p.at(i+1, '*') {
			if p.startOK(i, 2) {
				if j := p.find(endStrong, i+3); j >= 0 {
					p.emphasis(i+2, j)
					return j + 2
				}
			}
			return p.skip(i, 2)
		}
		if p.startOK(i, 1) {
			if j := p.find(endEmphasis, i+2); j >= 0 {
				p.emphasis(i+1, j)
				return j + 1
			}
		}
	case ':':
		// A role before interpreted text: ":role:`text`".
		if e := p.roleName(i); e > i && p.at(e, '`') && p.startOK(i, 1) {
			return p.interpreted(i, e, p.text(i+1, e-1))
		}
	case '_':
		if p.at(i+1, '`') && p.startOK(i, 2) {
			// An inline target: its text.
			if j := p.find(endTarget, i+3); j >= 0 {
				p.out = append(p.out, p.text(i+2, j)...)
				return j + 1
			}
		}
		return p.reference(i)
	case '|':
		if p.startOK(i, 1) {
			if j := p.find(endSubst, i+2); j >= 0 {
				next := p.endAt(endSubst, j)
				p.out = append(p.out, p.r.substitute(p.text(i+1, j), p.subs)...)
				return next
			}
		}
	case '[':
		return p.footnoteRef(i)
	}
	return i
}

// emphasis writes the text of emphasis or strong emphasis (the units
// from..to). docutils leaves markup nested in it as text (a literal in
// strong emphasis shows its backquotes); it is removed here, one level
// deep.
func (p *rstScanner) emphasis(from, to int) {
	if p.nested {
		p.out = append(p.out, p.text(from, to)...)
		return
	}
	p.out = append(p.out, p.r.inlineText(p.raw(from, to), p.subs, true)...)
}

// interpreted reads interpreted text whose start-string starts at i and
// whose backquote is at b, with role (from a prefix, else from a suffix;
// a suffix "_" or "__" makes it a hyperlink reference).
func (p *rstScanner) interpreted(i, b int, role string) int {
	if !p.startOK(i, b-i+1) {
		return i
	}
	j := p.find(endInterpreted, b+2)
	if j < 0 {
		return i
	}
	next := p.endAt(endInterpreted, j)
	text := p.text(b+1, j)
	switch {
	case next > j+1 && p.at(j+1, '_'):
		p.out = append(p.out, rstRefText(text)...)
	case next > j+1 && role == "":
		role = p.text(j+2, next-1)
		fallthrough
	default:
		p.out = append(p.out, rstRole(role, text, p.raw(b+1, j))...)
	}
	return next
}

// reference drops the "_" or "__" that ends a simple reference name
// ("see frob_"); the name is text already written. It returns i when the
// underscore at i ends none.
func (p *rstScanner) reference(i int) int {
	k := i + 1
	if p.at(k, '_') {
		k++
	}
	if !p.endOK(k) || !p.alnum(i-1) {
		return i
	}
	// The name: runs of letters and digits joined by single - . _ + :.
	j := i - 1
	for {
		for p.alnum(j - 1) {
			j--
		}
		if j >= 2 && strings.ContainsRune("-._+:", p.u[j-1].r) && !p.u[j-1].esc && p.alnum(j-2) {
			j -= 2
			continue
		}
		break
	}
	if j > 0 && !p.prefixOK(j) {
		return i
	}
	return k
}

// prefixOK reports whether what comes before unit j may come before a
// start-string.
func (p *rstScanner) prefixOK(j int) bool {
	prev := p.u[j-1].r
	return unicode.IsSpace(prev) || strings.ContainsRune(`-:/'"<([{`, prev) ||
		prev >= 0x80 && unicode.In(prev, unicode.Ps, unicode.Pi, unicode.Pf, unicode.Pd, unicode.Po)
}

// footnoteRef drops a footnote or citation reference ("[1]_", "[#]_",
// "[#note]_", "[*]_", "[Cit2002]_") with the spaces before it.
func (p *rstScanner) footnoteRef(i int) int {
	if !p.startOK(i, 1) {
		return i
	}
	k := i + 1
	for k < len(p.u) && k-i < 100 && !p.u[k].esc && p.u[k].r != ']' && p.u[k].r != '[' && !unicode.IsSpace(p.u[k].r) {
		k++
	}
	if !p.at(k, ']') || k == i+1 || !p.at(k+1, '_') || !p.endOK(k+2) {
		return i
	}
	for len(p.out) > 0 && p.out[len(p.out)-1] == ' ' {
		p.out = p.out[:len(p.out)-1]
	}
	return k + 2
}

// substitute returns the text of the substitution name: its definition's
// text without inline markup, or the name itself when it has none (a
// definition in another file, Sphinx's |version|), when subs is false, or
// when substitutions have written out all they may.
func (r *rstReader) substitute(name string, subs bool) string {
	name = document.Collapse(name)
	if !subs {
		return name
	}
	raw, ok := r.subs[name]
	if !ok {
		raw, ok = r.subsLower[strings.ToLower(name)]
	}
	if !ok || r.subBudget < len(raw) {
		return name
	}
	r.subBudget -= len(raw)
	done, ok := r.subsDone[name]
	if !ok {
		done = r.inlineText(raw, false, false)
		r.subsDone[name] = done
	}
	return done
}

// rstEmbedded splits "title <target>" (a reference's or a role's text)
// into its title and target.
func rstEmbedded(text string) (title, target string, ok bool) {
	if !strings.HasSuffix(text, ">") {
		return "", "", false
	}
	k := strings.LastIndexByte(text, '<')
	if k < 0 || k > 0 && text[k-1] != ' ' && text[k-1] != '\n' {
		return "", "", false
	}
	return strings.TrimSpace(text[:k]), text[k+1 : len(text)-1], true
}

// rstRefText returns the text of a hyperlink reference ("`text <url>`_"):
// its title, else its target (a reference name without its "_").
func rstRefText(text string) string {
	if title, target, ok := rstEmbedded(text); ok {
		if title != "" {
			return title
		}
		return strings.TrimSuffix(target, "_")
	}
	return text
}

// rstRole returns the text that interpreted text with role shows: the
// text itself for most roles ("abbr", "kbd", "code"…; "math" with its
// backslashes, raw), "PEP 8" and "RFC 2822" for pep and rfc, samp's and
// file's text without the braces, guilabel's and menuselection's without
// their accelerator "&" (menuselection's "-->" as "‣"), nothing for raw
// roles; cross-references (":ref:", ":func:", ":doc:"… and unknown roles)
// show their title ("Title <label>" reads "Title") or their target, "~"
// keeping the last component of a dotted name and "!" dropped.
func rstRole(role, text, raw string) string {
	role = strings.ToLower(role)
	base := role
	if k := strings.LastIndexByte(role, ':'); k >= 0 {
		base = role[k+1:]
	}
	switch base {
	case "math":
		return raw
	case "abbr", "kbd", "code", "literal", "emphasis", "strong", "sub", "sup", "subscript",
		"superscript", "title-reference", "title", "t", "command", "program", "regexp",
		"mimetype", "makevar", "newsgroup", "dfn", "manpage":
		return text
	case "samp", "file":
		return strings.NewReplacer("{", "", "}", "").Replace(text)
	case "guilabel", "menuselection":
		text = strings.ReplaceAll(strings.ReplaceAll(text, "&&", "\x00"), "&", "")
		text = strings.ReplaceAll(text, "\x00", "&")
		return strings.ReplaceAll(text, "-->", "‣")
	case "pep", "rfc":
		if title, _, ok := rstEmbedded(text); ok && title != "" {
			return title
		}
		n, _, _ := strings.Cut(text, "#")
		return strings.ToUpper(base) + " " + strings.TrimSpace(n)
	}
	if strings.HasPrefix(base, "raw") {
		return ""
	}
	if rstPyRoles[base] && (base == role || strings.HasPrefix(role, "py:")) {
		// An intersphinx inventory ("py2:types.ClassType") is not shown.
		if k := strings.IndexByte(text, ':'); k > 0 && k+1 < len(text) && text[k+1] != ':' && !strings.ContainsAny(text[:k], " .<~!") {
			text = text[k+1:]
		}
	}
	return rstXref(text)
}

// rstPyRoles are the roles of Python objects, whose targets may name an
// intersphinx inventory.
var rstPyRoles = map[string]bool{"func": true, "meth": true, "class": true, "mod": true, "attr": true,
	"exc": true, "data": true, "obj": true, "const": true}

// rstXref returns the text a cross-reference shows.
func rstXref(text string) string {
	if title, target, ok := rstEmbedded(text); ok {
		if title != "" {
			return title
		}
		text = target
	}
	text = strings.TrimPrefix(text, "!")
	if t, ok := strings.CutPrefix(text, "~"); ok && t != "" && strings.IndexFunc(t, func(c rune) bool {
		return !(unicode.IsLetter(c) || unicode.IsDigit(c) || strings.ContainsRune("_.:()", c))
	}) < 0 {
		if k := strings.LastIndexAny(strings.TrimSuffix(t, "()"), ".:"); k >= 0 {
			t = t[k+1:]
		}
		return t
	}
	if len(text) > 1 && text[0] == '.' && (unicode.IsLetter(rune(text[1])) || text[1] == '_') {
		return text[1:]
	}
	return text
}

// substitutions reads the substitution definitions of the document before
// its text, since a reference may come before its definition: replace
// (its text, continued on the lines under it) and unicode (the characters
// it names); images and anything else read as nothing.
func (r *rstReader) substitutions(lines []rstLine) {
	for i := 0; i < len(lines); i++ {
		t := strings.TrimLeft(lines[i].s, " ")
		if !strings.HasPrefix(t, ".. |") {
			continue
		}
		ind := len(lines[i].s) - len(t)
		rest := t[4:]
		k := strings.Index(rest, "| ")
		if k <= 0 {
			continue
		}
		name := document.Collapse(rest[:k])
		dname, col, ok := rstDirectiveMarker(strings.TrimLeft(rest[k+2:], " "))
		if !ok {
			continue
		}
		parts := []string{strings.TrimLeft(rest[k+2:], " ")[col:]}
		for i+1 < len(lines) && lines[i+1].s != "" && rstIndent(lines[i+1].s) > ind {
			i++
			if p := strings.TrimSpace(lines[i].s); !strings.HasPrefix(p, ":") {
				parts = append(parts, p)
			}
		}
		text := ""
		switch strings.ToLower(dname) {
		case "replace":
			text = document.Collapse(strings.Join(parts, " "))
		case "unicode":
			text = rstUnicode(strings.Join(parts, " "))
		}
		if len(text) > maxRSTReplace {
			text = text[:maxRSTReplace]
		}
		if _, dup := r.subs[name]; !dup {
			r.subs[name] = text
		}
		if _, dup := r.subsLower[strings.ToLower(name)]; !dup {
			r.subsLower[strings.ToLower(name)] = text
		}
	}
}

// rstUnicode returns the text of a unicode directive's argument: character
// codes ("0xA9", "U+00A9", "&#xA9;", "169") as characters, other words as
// they are, up to a comment ("..").
func rstUnicode(s string) string {
	var sb strings.Builder
	for _, w := range strings.Fields(s) {
		if w == ".." {
			break
		}
		l := strings.ToLower(w)
		code, base := l, 10
		switch {
		case strings.HasPrefix(l, "0x"), strings.HasPrefix(l, "u+"), strings.HasPrefix(l, `\x`), strings.HasPrefix(l, `\u`):
			code, base = l[2:], 16
		case strings.HasPrefix(l, "x"), strings.HasPrefix(l, "u"):
			code, base = l[1:], 16
		case strings.HasPrefix(l, "&#x") && strings.HasSuffix(l, ";"):
			code, base = l[3:len(l)-1], 16
		case strings.HasPrefix(l, "&#") && strings.HasSuffix(l, ";"):
			code = l[2 : len(l)-1]
		}
		if v, err := strconv.ParseUint(code, base, 32); err == nil && utf8.ValidRune(rune(v)) {
			sb.WriteRune(rune(v))
		} else {
			sb.WriteString(w)
		}
	}
	return sb.String()
}
