package roff

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reqa/reqa/ingest/document"
	"golang.org/x/text/unicode/norm"
)

// This file holds the roff(7) layer under the man(7) and mdoc(7) readers:
// input lines, escape sequences, named glyphs, strings, macro arguments,
// conditions and numeric expressions.

// roffLine is an input line after comments are cut and continued lines
// joined; n is the 1-based line it starts on.
type roffLine struct {
	text string
	n    int
}

// roffLines splits data into input lines: a trailing "\r" is dropped, a
// line that is not UTF-8 is read as Latin-1, a \" comment is cut to the end
// of its line, and a line ending in an unescaped backslash, or holding a \#
// comment, is joined with the next one (as troff reads them).
func roffLines(data []byte) []roffLine {
	var out []roffLine
	var cur strings.Builder
	start, joining := 0, false
	for i, raw := range bytes.Split(data, []byte("\n")) {
		s := document.DecodeLatin1(bytes.TrimSuffix(raw, []byte("\r")))
		s, cont := roffComment(s)
		if !joining {
			start = i + 1
		}
		cur.WriteString(s)
		if joining = cont; joining {
			continue
		}
		out = append(out, roffLine{cur.String(), start})
		cur.Reset()
	}
	if joining {
		out = append(out, roffLine{cur.String(), start})
	}
	return out
}

// roffComment cuts a comment (\" to the end of the line, \# likewise)
// from s and reports whether the line goes on on the next one (a \#
// comment or a trailing unescaped backslash).
func roffComment(s string) (string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		if i+1 == len(s) {
			return s[:i], true
		}
		switch s[i+1] {
		case '"':
			return s[:i], false
		case '#':
			return s[:i], true
		}
		i++
	}
	return s, false
}

// roffName reads the name an escape takes at s[i:] (\*x, \*(xx, \*[name],
// and the same for \f, \n, \(…): one character, two after "(", or up to
// "]" after "[". It returns the name and where the text goes on.
func roffName(s string, i int) (string, int) {
	if i >= len(s) {
		return "", i
	}
	switch s[i] {
	case '(':
		j := i + 1
		for n := 0; n < 2 && j < len(s); n++ {
			_, w := utf8.DecodeRuneInString(s[j:])
			j += w
		}
		return s[i+1 : j], j
	case '[':
		end := strings.IndexByte(s[i+1:], ']')
		if end < 0 {
			return s[i+1:], len(s)
		}
		name := s[i+1 : i+1+end]
		// \*[name arg…]: the arguments are not part of the name.
		if sp := strings.IndexByte(name, ' '); sp >= 0 {
			name = name[:sp]
		}
		return name, i + 2 + end
	}
	_, w := utf8.DecodeRuneInString(s[i:])
	return s[i : i+w], i + w
}

// roffDelimited reads a delimited argument at s[i:] (\h'…', \w"…"): the
// text up to the next occurrence of the first character, and where the
// text goes on (the end of s when the delimiter is not closed).
func roffDelimited(s string, i int) (string, int) {
	if i >= len(s) {
		return "", i
	}
	d, w := utf8.DecodeRuneInString(s[i:])
	rest := s[i+w:]
	end := strings.IndexRune(rest, d)
	if end < 0 {
		return rest, len(s)
	}
	return rest[:end], i + w + end + utf8.RuneLen(d)
}

// roffSize skips the argument of a \s size change at s[i:]: \sN, \s±N,
// \s(NN, \s±(NN, \s[N], \s'N', and the two-digit \s10–\s39 of old troff.
func roffSize(s string, i int) int {
	sign := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
		sign = true
	}
	if i >= len(s) {
		return i
	}
	switch c := s[i]; {
	case c == '(' || c == '[':
		_, i = roffName(s, i)
	case c == '\'':
		_, i = roffDelimited(s, i)
	case c >= '0' && c <= '9':
		i++
		if !sign && c >= '1' && c <= '3' && i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	return i
}

// maxExpansion bounds the text one expansion makes from defined strings,
// so that strings defined in terms of each other cannot blow up.
const maxExpansion = 64 << 10

// expand renders roff text: escapes are interpreted (fonts, sizes,
// motions, colours and number registers dropped; glyphs, strings and
// special characters written out). It reports whether the text ends with
// \c, which joins it to the next line's text without a space.
func (r *manReader) expand(s string) (string, bool) {
	var sb strings.Builder
	join := r.expandTo(&sb, s, 0)
	return sb.String(), join
}

// expandTo writes the rendering of s to sb; depth counts the strings being
// interpolated.
func (r *manReader) expandTo(sb *strings.Builder, s string, depth int) (join bool) {
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			sb.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			break
		}
		e := s[i+1]
		i += 2
		switch e {
		case 'f', 'F', 'm', 'M', 'Y', 'V', 'g', 'k', 'O', '$':
			// Font, family, colours, device control, environment
			// variables, register formats, marks, suppression and macro
			// arguments outside a macro: nothing to read.
			_, i = roffName(s, i)
		case 'n':
			if i < len(s) && (s[i] == '+' || s[i] == '-') {
				i++
			}
			_, i = roffName(s, i)
		case 's':
			i = roffSize(s, i)
		case '*':
			var name string
			name, i = roffName(s, i)
			if v, ok := r.strs[name]; ok && depth < 8 && sb.Len() < maxExpansion && r.strBudget > 0 {
				before := sb.Len()
				if r.expandTo(sb, v, depth+1) {
					join = true
				}
				r.strBudget -= sb.Len() - before
			}
		case '(', '[':
			var name string
			name, i = roffName(s, i-1)
			sb.WriteString(roffGlyph(name))
		case 'C':
			var name string
			name, i = roffDelimited(s, i)
			sb.WriteString(roffGlyph(name))
		case 'N':
			var num string
			num, i = roffDelimited(s, i)
			if n, err := strconv.Atoi(num); err == nil && n > 0 && n <= utf8.MaxRune {
				sb.WriteRune(rune(n))
			}
		case 'h', 'v', 'w', 'l', 'L', 'D', 'X', 'b', 'o', 'x', 'R', 'A', 'B', 'S', 'Z', 'H', 'T', 'U':
			// Motions, widths, lines, drawing, overstrikes and tests: a
			// horizontal motion reads as a space, the rest as nothing.
			_, i = roffDelimited(s, i)
			if e == 'h' {
				sb.WriteByte(' ')
			}
		case '-':
			sb.WriteByte('-')
		case 'e', 'E', '\\':
			sb.WriteByte('\\')
		case ' ', '~', '0', 't', '_':
			if e == '_' {
				sb.WriteByte('_')
			} else {
				sb.WriteByte(' ')
			}
		case '.':
			sb.WriteByte('.')
		case '\'':
			sb.WriteByte('\'')
		case '`':
			sb.WriteByte('`')
		case 'c':
			join = true
		case '"', '#', '!', '?':
			// A comment (or transparent output) to the end of the line.
			return join
		case '&', '|', '^', '%', ':', ')', '/', ',', 'p', 'r', 'u', 'd', 'a', 'z', '{', '}', 'j', 'I', '\n':
			// Zero-width characters, thin spaces, hyphenation points,
			// breaks, half-line motions and the braces of conditional
			// blocks.
		default:
			// An unknown escape prints its character.
			ch, w := utf8.DecodeRuneInString(s[i-1:])
			sb.WriteRune(ch)
			i += w - 1
		}
	}
	return join
}

// roffGlyphs are the special characters of groff_char(7) that man pages
// use, by name.
var roffGlyphs = map[string]string{
	"lq": "“", "rq": "”", "oq": "‘", "cq": "’", "dq": "\"", "aq": "'", "\"": "\"",
	"em": "—", "en": "–", "hy": "-", "mi": "-", "bu": "•", "co": "©", "rg": "®", "tm": "™",
	"pl": "+", "mu": "×", "di": "÷", "<=": "≤", ">=": "≥", "!=": "≠", "->": "→", "<-": "←",
	"<>": "↔", "=>": "⇒", "ua": "↑", "da": "↓", "ti": "~", "ha": "^", "rs": "\\", "sl": "/",
	"ba": "|", "br": "|", "ga": "`", "aa": "´", "ul": "_", "dg": "†", "dd": "‡", "bv": "|",
	"lB": "[", "rB": "]", "lC": "{", "rC": "}", "la": "⟨", "ra": "⟩", "Fo": "«", "Fc": "»",
	"fo": "‹", "fc": "›", "Bq": "„", "bq": "‚", "de": "°", "sc": "§", "ps": "¶", "+-": "±",
	"**": "*", "eq": "=", "==": "≡", "~=": "≅", "~~": "≈", "ap": "~", "or": "|", "no": "¬",
	"if": "∞", "pt": "∝", "sq": "□", "ci": "○", "OK": "✓", "sh": "#", "at": "@", "Do": "$",
	"Eu": "€", "eu": "€", "Po": "£", "Ye": "¥", "Cs": "¤", "ct": "¢", "fm": "′", "sd": "″",
	"ff": "ff", "fi": "fi", "fl": "fl", "Fi": "ffi", "Fl": "ffl", "12": "½", "14": "¼",
	"34": "¾", "S1": "¹", "S2": "²", "S3": "³", "AE": "Æ", "ae": "æ", "OE": "Œ", "oe": "œ",
	"/o": "ø", "/O": "Ø", "ss": "ß", "-D": "Đ", "Sd": "ð", "TP": "Þ", "Tp": "þ", ".i": "ı",
	"r!": "¡", "r?": "¿", "lh": "☜", "rh": "☞", "es": "∅", "mo": "∈", "nm": "∉", "sb": "⊂",
	"sp": "⊃", "ca": "∩", "cu": "∪", "pd": "∂", "gr": "∇", "is": "∫", "sr": "√", "pp": "⊥",
	"tf": "∴", "lz": "◊", "ho": "˛", "a-": "¯", "a.": "˙", "a^": "^", "ab": "˘", "ac": "¸",
	"ad": "¨", "ah": "ˇ", "ao": "˚", "a~": "~", "rn": "‾", "vt": "|", "ru": "_", "bs": "\\",
	"*a": "α", "*b": "β", "*g": "γ", "*d": "δ", "*e": "ε", "*z": "ζ", "*y": "η", "*h": "θ",
	"*i": "ι", "*k": "κ", "*l": "λ", "*m": "μ", "*n": "ν", "*c": "ξ", "*o": "ο", "*p": "π",
	"*r": "ρ", "*s": "σ", "ts": "ς", "*t": "τ", "*u": "υ", "*f": "φ", "*x": "χ", "*q": "ψ",
	"*w": "ω", "*A": "Α", "*B": "Β", "*G": "Γ", "*D": "Δ", "*E": "Ε", "*Z": "Ζ", "*Y": "Η",
	"*H": "Θ", "*I": "Ι", "*K": "Κ", "*L": "Λ", "*M": "Μ", "*N": "Ν", "*C": "Ξ", "*O": "Ο",
	"*P": "Π", "*R": "Ρ", "*S": "Σ", "*T": "Τ", "*U": "Υ", "*F": "Φ", "*X": "Χ", "*Q": "Ψ",
	"*W": "Ω",
}

// roffAccents are the combining marks of groff's composite glyph names
// (\(:a for ä, \('e for é…).
var roffAccents = map[byte]rune{
	':': '\u0308', '\'': '\u0301', '`': '\u0300', '^': '\u0302', '~': '\u0303', ',': '\u0327',
	'o': '\u030a', 'v': '\u030c',
}

// roffGlyph returns the text of a named special character: groff_char(7)
// names, composites of an accent and a letter, \[uXXXX] (with "_" between
// the code points of a combining sequence) and \[charN]; "" for a name it
// does not know.
func roffGlyph(name string) string {
	if g, ok := roffGlyphs[name]; ok {
		return g
	}
	if len(name) == 2 {
		if m, ok := roffAccents[name[0]]; ok && (name[1] >= 'a' && name[1] <= 'z' || name[1] >= 'A' && name[1] <= 'Z') {
			return norm.NFC.String(string(rune(name[1])) + string(m))
		}
	}
	if len(name) > 1 && name[0] == 'u' {
		var sb strings.Builder
		for _, h := range strings.Split(name[1:], "_") {
			n, err := strconv.ParseUint(h, 16, 32)
			if err != nil || n == 0 || n > utf8.MaxRune {
				return ""
			}
			sb.WriteRune(rune(n))
		}
		return norm.NFC.String(sb.String())
	}
	if n, ok := strings.CutPrefix(name, "char"); ok {
		if c, err := strconv.Atoi(n); err == nil && c > 0 && c < 256 {
			return string(rune(c))
		}
	}
	return ""
}

// roffArgs splits the arguments of a macro call: separated by spaces, a
// double-quoted argument may hold spaces and writes a quote as "".
// Escapes are kept for expand (an escaped space does not separate).
func roffArgs(s string) []string {
	var args []string
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			break
		}
		var sb strings.Builder
		quoted := s[i] == '"'
		if quoted {
			i++
		}
		for i < len(s) {
			c := s[i]
			if c == '\\' && i+1 < len(s) {
				j := i + 2
				if s[i+1] == '[' {
					if end := strings.IndexByte(s[j:], ']'); end >= 0 {
						j += end + 1
					}
				}
				sb.WriteString(s[i:j])
				i = j
				continue
			}
			if quoted && c == '"' {
				if i+1 < len(s) && s[i+1] == '"' {
					sb.WriteByte('"')
					i += 2
					continue
				}
				i++
				break
			}
			if !quoted && (c == ' ' || c == '\t') {
				break
			}
			sb.WriteByte(c)
			i++
		}
		args = append(args, sb.String())
	}
	return args
}

// requestName splits a control line (without its control character) into
// the request or macro name and the rest: the name ends at a space, a tab
// or an escape (".el\{" is "el" and "\{").
func requestName(s string) (name, rest string) {
	s = strings.TrimLeft(s, " \t")
	i := strings.IndexAny(s, " \t\\")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimLeft(s[i:], " \t")
}

// braceDepth returns how many conditional blocks s opens (\{) less those
// it closes (\}).
func braceDepth(s string) int {
	d := 0
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		switch s[i+1] {
		case '{':
			d++
		case '}':
			d--
		}
		i++
	}
	return d
}

// condition evaluates the condition at the start of s (what .if and .ie
// test) as nroff on groff would: n is true; t, v, o and e are false; d, r
// and c test macros, strings, registers and glyphs; 'a'b' compares
// strings; anything else is a numeric expression, true when positive
// (registers groff defines read as it does — \n(.g is 1 —, those the page
// set with .nr as set, others as 0). It returns the result and the rest of
// the line (the body), and ok false for a condition it cannot decide,
// which counts as false.
func (r *manReader) condition(s string) (result bool, body string, ok bool) {
	s = strings.TrimLeft(s, " \t")
	neg := false
	for strings.HasPrefix(s, "!") {
		neg = !neg
		s = s[1:]
	}
	if s == "" {
		return false, "", false
	}
	word := func(s string) (string, string) {
		s = strings.TrimLeft(s, " \t")
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			return s, ""
		}
		return s[:i], s[i:]
	}
	end := func(s string) bool { return s == "" || s[0] == ' ' || s[0] == '\t' || s[0] == '\\' }
	ok = true
	switch c := s[0]; {
	case (c == 'n' || c == 't' || c == 'v' || c == 'o' || c == 'e') && end(s[1:]):
		result, body = c == 'n', s[1:]
	case (c == 'd' || c == 'r' || c == 'c' || c == 'm' || c == 'F' || c == 'S') && end(s[1:]):
		var name string
		name, body = word(s[1:])
		switch c {
		case 'd':
			_, isStr := r.strs[name]
			_, isMacro := r.macros[name]
			result = isStr || isMacro || manBuiltin[name]
		case 'r':
			_, result = r.regs[name]
			result = result || name == ".g"
		default:
			result = true
		}
	case c == '\'' || c == '"' || c == '|' || c == '/' || c == '#' || c == '@':
		// 'a'b': the strings between three delimiters.
		parts := strings.SplitN(s[1:], string(c), 3)
		if len(parts) < 3 {
			return false, "", false
		}
		a, _ := r.expand(parts[0])
		b, _ := r.expand(parts[1])
		result, body = a == b, parts[2]
	default:
		var expr string
		expr, body = numericExpr(s)
		var v float64
		v, ok = r.eval(expr)
		result = v > 0
	}
	return result != neg, strings.TrimLeft(body, " \t"), ok
}

// numericExpr splits s into the numeric expression at its start (up to a
// space outside parentheses) and the rest.
func numericExpr(s string) (string, string) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ' ', '\t':
			if depth <= 0 {
				return s[:i], s[i:]
			}
		case '\\':
			// An escape and its name (\n(.g): its parenthesis is no group.
			if i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == '*' || s[i+1] == 'w') {
				j := i + 2
				if s[i+1] == 'n' && j < len(s) && (s[j] == '+' || s[j] == '-') {
					j++
				}
				if s[i+1] == 'w' {
					_, j = roffDelimited(s, j)
				} else {
					_, j = roffName(s, j)
				}
				i = j - 1
				continue
			}
			i++
		}
	}
	return s, ""
}

// eval evaluates a troff numeric expression: numbers (scaling units
// ignored), registers (\nx, \n(xx, \n[xx]), parentheses and the operators
// + - * / % < > <= >= = == != & : <? >?, strictly left to right as troff
// does. ok is false for anything else.
func (r *manReader) eval(s string) (v float64, ok bool) {
	p := exprParser{r: r, s: s}
	v = p.expr(0)
	return v, !p.bad && p.i == len(p.s)
}

type exprParser struct {
	r   *manReader
	s   string
	i   int
	bad bool
}

func (p *exprParser) expr(depth int) float64 {
	if depth > 32 {
		p.bad = true
		return 0
	}
	v := p.term(depth)
	for p.i < len(p.s) && !p.bad {
		op := p.op()
		if op == "" {
			break
		}
		w := p.term(depth)
		switch op {
		case "+":
			v += w
		case "-":
			v -= w
		case "*":
			v *= w
		case "/", "%":
			if w == 0 {
				p.bad = true
				return 0
			}
			if op == "/" {
				v = float64(int64(v / w))
			} else {
				v = float64(int64(v) % max(int64(w), 1))
			}
		case "<":
			v = truth(v < w)
		case ">":
			v = truth(v > w)
		case "<=":
			v = truth(v <= w)
		case ">=":
			v = truth(v >= w)
		case "=", "==":
			v = truth(v == w)
		case "!=":
			v = truth(v != w)
		case "&":
			v = truth(v > 0 && w > 0)
		case ":":
			v = truth(v > 0 || w > 0)
		case "<?":
			v = min(v, w)
		case ">?":
			v = max(v, w)
		}
	}
	return v
}

func truth(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// op reads an operator, or returns "" at anything else.
func (p *exprParser) op() string {
	for _, o := range []string{"<=", ">=", "==", "!=", "<?", ">?", "+", "-", "*", "/", "%", "<", ">", "=", "&", ":"} {
		if strings.HasPrefix(p.s[p.i:], o) {
			p.i += len(o)
			return o
		}
	}
	return ""
}

// term reads a number, a register, a parenthesised expression or a signed
// term.
func (p *exprParser) term(depth int) float64 {
	if p.i >= len(p.s) {
		p.bad = true
		return 0
	}
	switch c := p.s[p.i]; {
	case c == '-' || c == '+':
		p.i++
		v := p.term(depth + 1)
		if c == '-' {
			v = -v
		}
		return v
	case c == '(':
		p.i++
		v := p.expr(depth + 1)
		if p.i >= len(p.s) || p.s[p.i] != ')' {
			p.bad = true
			return 0
		}
		p.i++
		return v
	case c == '\\' && p.i+1 < len(p.s) && p.s[p.i+1] == 'n':
		name, next := roffName(p.s, p.i+2)
		p.i = next
		if name == ".g" {
			return 1
		}
		return float64(p.r.regs[name])
	case c >= '0' && c <= '9' || c == '.':
		j := p.i
		for j < len(p.s) && (p.s[j] >= '0' && p.s[j] <= '9' || p.s[j] == '.') {
			j++
		}
		v, err := strconv.ParseFloat(p.s[p.i:j], 64)
		if err != nil {
			p.bad = true
		}
		p.i = j
		if p.i < len(p.s) && strings.IndexByte("icpPmnvMsfuz", p.s[p.i]) >= 0 {
			p.i++ // a scaling unit
		}
		return v
	}
	p.bad = true
	return 0
}
