package asciidoc

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// adocBuiltin are Asciidoctor's character replacement attributes.
var adocBuiltin = map[string]string{
	"nbsp": " ", "sp": " ", "empty": "", "blank": "", "zwsp": "", "wj": "", "amp": "&", "lt": "<", "gt": ">",
	"plus": "+", "startsb": "[", "endsb": "]", "vbar": "|", "caret": "^", "asterisk": "*", "tilde": "~",
	"backslash": "\\", "backtick": "`", "two-colons": "::", "two-semicolons": ";;", "quot": `"`, "apos": "'",
	"deg": "°", "cpp": "C++", "pp": "++", "brvbar": "¦", "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”",
	"cxx": "C++",
}

var (
	adocAttrRefRe  = regexp.MustCompile(`\\?\{([A-Za-z0-9_][A-Za-z0-9_-]*)\}`)
	adocPassRe     = regexp.MustCompile(`\+\+\+(.+?)\+\+\+|pass:[a-z,]*\[((?:\\\]|[^\]])*)\]`)
	adocMonoRe     = regexp.MustCompile("``(\\S(?:.*?\\S)?)``|`\\+(.+?)\\+`")
	adocFootnoteRe = regexp.MustCompile(`footnote(?:ref)?:[\w-]*\[(?:\\\]|[^\]])*\]`)
	adocImageRe    = regexp.MustCompile(`image:[^\s\[\]]*\[(?:\\\]|[^\]])*\]`)
	adocIndexRe    = regexp.MustCompile(`\(\(\((.+?)\)\)\)|indexterm:\[(?:\\\]|[^\]])*\]`)
	adocIndex2Re   = regexp.MustCompile(`\(\((.+?)\)\)|indexterm2:\[((?:\\\]|[^\]])*)\]`)
	adocUIRe       = regexp.MustCompile(`(kbd|btn|stem|latexmath|asciimath):\[((?:\\\]|[^\]])*)\]`)
	adocMenuRe     = regexp.MustCompile(`menu:(\w[^\s\[\]]*)\[((?:\\\]|[^\]])*)\]`)
	adocXrefRe     = regexp.MustCompile(`<<([^\s<>,]+?)(?:,\s*([^>]*?))?>>|xref:([^\s\[\]]+)\[((?:\\\]|[^\]])*)\]`)
	adocLinkRe     = regexp.MustCompile(`(?:link:|mailto:)([^\s\[\]]+)\[((?:\\\]|[^\]])*)\]|((?:https?|ftp|irc)://[^\s\[\]<>]*[^\s.,;:!?\[\]<>)"'*_#\x60])(?:\[((?:\\\]|[^\]])*)\])?|<((?:https?|ftp)://[^\s<>]+)>`)
	adocInlineAnch = regexp.MustCompile(`\[\[[^\[\]\s]+\]\]|anchor:[\w-]+\[(?:\\\]|[^\]])*\]|\[#[\w-]+\]`)
	adocRoleRe     = regexp.MustCompile(`\[\.?[\w-]+(?:\.[\w-]+)*\](#|\*|_)`)
)

// adocPlaceholders holds text kept from further substitution while the
// inline markup around it is removed.
type adocPlaceholders []string

// keep returns a placeholder for s.
func (p *adocPlaceholders) keep(s string) string {
	*p = append(*p, s)
	return "\x00" + strconv.Itoa(len(*p)-1) + "\x01"
}

var adocPlaceholderRe = regexp.MustCompile("\x00([0-9]+)\x01")

// restore puts the kept text back.
func (p adocPlaceholders) restore(s string) string {
	return adocPlaceholderRe.ReplaceAllStringFunc(s, func(m string) string {
		n, err := strconv.Atoi(m[1 : len(m)-1])
		if err != nil || n >= len(p) {
			return ""
		}
		return p[n]
	})
}

// inline returns s without inline markup, in Asciidoctor's order:
// passthroughs and monospace first (their text is kept as written),
// escapes, attribute references, macros (links and cross references read
// as their text, or their target without one; images, footnotes and
// hidden index terms dropped; kbd, btn and menu as their text), then the
// constrained (word-bounded) and unconstrained quotes, and the (C), (R),
// (TM) and "--" replacements.
func (r *adocReader) inline(s string) string {
	if !strings.ContainsAny(s, "*_`#^~+{[(<:\\-") {
		return s
	}
	var p adocPlaceholders
	s = adocPassRe.ReplaceAllStringFunc(s, func(m string) string {
		sm := adocPassRe.FindStringSubmatch(m)
		return p.keep(sm[1] + strings.ReplaceAll(sm[2], `\]`, "]"))
	})
	s = adocMonoRe.ReplaceAllStringFunc(s, func(m string) string {
		sm := adocMonoRe.FindStringSubmatch(m)
		return p.keep(sm[1] + sm[2])
	})
	s = adocConstrainedFunc(s, '`', p.keep)
	s = adocConstrainedFunc(s, '+', p.keep)
	// Escapes: a backslash keeps the mark after it.
	if strings.Contains(s, `\`) {
		var sb strings.Builder
		for k := 0; k < len(s); k++ {
			if s[k] == '\\' && k+1 < len(s) && strings.IndexByte("*_`#^~+{[(<", s[k+1]) >= 0 {
				sb.WriteString(p.keep(s[k+1 : k+2]))
				k++
				continue
			}
			sb.WriteByte(s[k])
		}
		s = sb.String()
	}
	s = r.substAttrs(s, &p)
	s = adocFootnoteRe.ReplaceAllString(s, "")
	s = adocImageRe.ReplaceAllString(s, "")
	s = adocIndexRe.ReplaceAllString(s, "")
	s = adocIndex2Re.ReplaceAllString(s, "$1$2")
	s = adocUIRe.ReplaceAllStringFunc(s, func(m string) string {
		sm := adocUIRe.FindStringSubmatch(m)
		return p.keep(strings.ReplaceAll(sm[2], `\]`, "]"))
	})
	s = adocMenuRe.ReplaceAllStringFunc(s, func(m string) string {
		sm := adocMenuRe.FindStringSubmatch(m)
		parts := []string{sm[1]}
		for _, it := range strings.Split(sm[2], ">") {
			if it = strings.TrimSpace(it); it != "" {
				parts = append(parts, it)
			}
		}
		return p.keep(strings.Join(parts, " > "))
	})
	s = adocXrefRe.ReplaceAllStringFunc(s, func(m string) string {
		sm := adocXrefRe.FindStringSubmatch(m)
		id, text := sm[1]+sm[3], strings.TrimSpace(sm[2]+sm[4])
		if text != "" {
			return strings.ReplaceAll(text, `\]`, "]")
		}
		if _, frag, ok := strings.Cut(id, "#"); ok && frag != "" {
			id = frag
		}
		return p.keep(id)
	})
	s = adocLinkRe.ReplaceAllStringFunc(s, func(m string) string {
		sm := adocLinkRe.FindStringSubmatch(m)
		switch {
		case sm[5] != "":
			return p.keep(sm[5])
		case sm[3] != "" && !strings.Contains(m, "["):
			return p.keep(sm[3])
		}
		target, text := sm[1]+sm[3], adocLinkText(sm[2]+sm[4])
		if text == "" {
			if strings.HasPrefix(m, "mailto:") {
				target = strings.TrimPrefix(target, "mailto:")
			}
			return p.keep(target)
		}
		return text
	})
	s = adocInlineAnch.ReplaceAllString(s, "")
	s = adocRoleRe.ReplaceAllString(s, "$1")
	for _, m := range []string{"**", "__", "##"} {
		s = adocUnconstrained(s, m)
	}
	for _, m := range []byte{'*', '_', '#'} {
		s = adocConstrained(s, m)
	}
	s = adocSupSub(s, '^')
	s = adocSupSub(s, '~')
	s = strings.NewReplacer("(C)", "©", "(R)", "®", "(TM)", "™", " -- ", " — ").Replace(s)
	return p.restore(s)
}

// adocLinkText returns a link's text without its attributes (", window=_blank")
// and its "^" (open in a new window).
func adocLinkText(t string) string {
	t = strings.ReplaceAll(t, `\]`, "]")
	if strings.HasPrefix(t, `"`) {
		if e := strings.Index(t[1:], `"`); e >= 0 {
			return t[1 : e+1]
		}
	}
	if strings.Contains(t, "=") {
		if a, _, ok := strings.Cut(t, ","); ok {
			t = a
		}
	}
	return strings.TrimSuffix(strings.TrimSpace(t), "^")
}

// substAttrs replaces attribute references with their values (escaped
// ones, "\{name}", are kept without the backslash); unknown names are kept
// as written. In inline text (p not nil) the built-in character
// attributes are kept from further substitution.
func (r *adocReader) substAttrs(s string, p *adocPlaceholders) string {
	if !strings.Contains(s, "{") {
		return s
	}
	return adocAttrRefRe.ReplaceAllStringFunc(s, func(m string) string {
		if m[0] == '\\' {
			return m[1:]
		}
		name := strings.ToLower(m[1 : len(m)-1])
		if v, ok := r.attrs[name]; ok {
			if len(v) > r.budget {
				return m
			}
			r.budget -= len(v)
			return v
		}
		if v, ok := adocBuiltin[name]; ok {
			if p != nil {
				return p.keep(v)
			}
			return v
		}
		return m
	})
}

// adocWord reports whether c is a letter, digit or underscore.
func adocWord(c rune) bool { return c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c) }

// adocUnconstrained removes pairs of mark m ("**") around text that does
// not start or end with a space.
func adocUnconstrained(s, m string) string {
	if !strings.Contains(s, m) {
		return s
	}
	var sb strings.Builder
	for {
		i := strings.Index(s, m)
		if i < 0 {
			break
		}
		j := strings.Index(s[i+len(m):], m)
		if j <= 0 {
			break
		}
		inner := s[i+len(m) : i+len(m)+j]
		if inner[0] == ' ' || inner[len(inner)-1] == ' ' || strings.Contains(inner, m[:1]+m[:1]) {
			sb.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		sb.WriteString(s[:i])
		sb.WriteString(inner)
		s = s[i+len(m)+j+len(m):]
	}
	sb.WriteString(s)
	return sb.String()
}

// adocConstrained removes mark m around text at word boundaries: the mark
// before it not after a letter, digit, ';', ':' or '}', the text not
// starting or ending with a space, the mark after it not before a word
// character.
func adocConstrained(s string, m byte) string {
	return adocConstrainedFunc(s, m, func(inner string) string { return inner })
}

// adocConstrainedFunc is adocConstrained writing fn(text) for each text
// found.
func adocConstrainedFunc(s string, m byte, fn func(string) string) string {
	if strings.IndexByte(s, m) < 0 {
		return s
	}
	// Where a closing mark may be: after a non-space, before no word
	// character.
	var closes []int
	for k := 1; k < len(s); k++ {
		if s[k] != m || s[k-1] == ' ' {
			continue
		}
		if k+1 < len(s) {
			next, _ := utf8.DecodeRuneInString(s[k+1:])
			if adocWord(next) || next == rune(m) {
				continue
			}
		}
		closes = append(closes, k)
	}
	var sb strings.Builder
	last, c := 0, 0 // s[:last] is written; closes[c:] are after i
	for i := 0; i < len(s); i++ {
		if s[i] != m || i+1 >= len(s) || s[i+1] == ' ' || s[i+1] == m {
			continue
		}
		if i > 0 {
			prev, _ := utf8.DecodeLastRuneInString(s[:i])
			if adocWord(prev) || prev == ';' || prev == ':' || prev == '}' || prev == rune(m) {
				continue
			}
		}
		// The closing mark: the first after i+1 that ends the text.
		for c < len(closes) && closes[c] < i+2 {
			c++
		}
		j := -1
		if c < len(closes) {
			j = closes[c]
		}
		if j < 0 {
			continue
		}
		sb.WriteString(s[last:i])
		sb.WriteString(fn(s[i+1 : j]))
		last = j + 1
		i = j
	}
	sb.WriteString(s[last:])
	return sb.String()
}

// adocSupSub removes mark m ('^' or '~') around text without spaces.
func adocSupSub(s string, m byte) string {
	if strings.IndexByte(s, m) < 0 {
		return s
	}
	var sb strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != m {
			continue
		}
		j := i + 1
		for j < len(s) && s[j] != m && s[j] != ' ' && s[j] != '\n' {
			j++
		}
		if j >= len(s) || s[j] != m || j == i+1 {
			continue
		}
		sb.WriteString(s[last:i])
		sb.WriteString(s[i+1 : j])
		last = j + 1
		i = j
	}
	sb.WriteString(s[last:])
	return sb.String()
}
