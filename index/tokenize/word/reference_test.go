package word

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file is a second, deliberately plain port of NLTK 3.5's
// NLTKWordTokenizer: every rule RE2 can express is Go's regexp with its
// replacement, a direct transcription of destructive.py; the rules that need
// lookahead or a Unicode \b are a regexp anchored at each start position plus
// explicit checks, scanned the way Python's re.sub scans. The differential
// tests compare its output string with the hand-written scanners', byte for
// byte, before the final split.
//
// Python's str classes are spelled out, because RE2's \w, \s, \d and \b are
// ASCII-only.
const (
	refW = `\p{L}\p{N}_`
	refS = `\t\n\v\f\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}`
)

type refRule struct {
	re   *regexp.Regexp
	repl string
}

func rr(pattern, repl string) refRule {
	pattern = strings.NewReplacer(`{W}`, refW, `{S}`, refS).Replace(pattern)
	return refRule{regexp.MustCompile(pattern), repl}
}

var (
	refStartingQuotes = []refRule{
		rr("([«“‘„]|[`]+)", " ${1} "),
		rr(`^"`, "``"),
		rr("(``)", " ${1} "),
		rr(`([ (\[{<])("|'{2})`, "${1} `` "),
		// (?i)(\')(?!re|ve|ll|m|t|s|d)(\w)\b: refOpeningSingleQuote
	}
	refPunctuation = []refRule{
		// Go's $ without (?m) is the end of the text; Python's $ also
		// matches before a final newline, which \s* swallows anyway.
		rr(`([^.])(\.)([\]\)}>"'»”’ ]*)[{S}]*$`, "${1} ${2} ${3} "),
		rr(`([:,])([^\p{Nd}])`, " ${1} ${2}"),
		rr(`([:,])(\n?)$`, " ${1} ${2}"),
		rr(`\.{2,}`, " ${0} "),
		rr(`[;@#$%&]`, " ${0} "),
		rr(`([^.])(\.)([\]\)}>"']*)[{S}]*$`, "${1} ${2}${3} "),
		rr(`[?!]`, " ${0} "),
		rr(`([^'])' `, "${1} ' "),
		rr(`[*]`, " ${0} "),
	}
	refParens       = rr(`[\]\[\(\)\{\}\<\>]`, " ${0} ")
	refDoubleDashes = rr(`--`, " -- ")
	refEndingQuotes = []refRule{
		rr(`([»”’])`, " ${1} "),
		rr(`"`, " '' "),
		rr(`([^{S}])('')`, "${1} ${2} "),
		rr(`([^' ])('[sS]|'[mM]|'[dD]|') `, "${1} ${2} "),
		rr(`([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) `, "${1} ${2} "),
	}

	refWordRe    = regexp.MustCompile(`^[` + refW + `]`)
	refSingleQ   = regexp.MustCompile(`^(')([` + refW + `])`)
	refCliticLA  = regexp.MustCompile(`^(?i:re|ve|ll|m|t|s|d)`) // Go folds s with ſ, as Python does
	refMacIntyre = []*regexp.Regexp{
		// Python's IGNORECASE also folds i with İ and ı, which Go's does not.
		regexp.MustCompile(`^(?i:(can)(not))`),
		regexp.MustCompile(`^(?i:(d)('ye))`),
		regexp.MustCompile(`^(?i:(g[iİı]m)(me))`),
		regexp.MustCompile(`^(?i:(gon)(na))`),
		regexp.MustCompile(`^(?i:(got)(ta))`),
		regexp.MustCompile(`^(?i:(lem)(me))`),
		regexp.MustCompile(`^(?i:(mor)('n))`),
		regexp.MustCompile(`^(?i:(wan)(na))[` + refS + `]`),
	}
	refMacIntyre3 = []*regexp.Regexp{
		regexp.MustCompile(`^ (?i:('t)([iİı]s))`),
		regexp.MustCompile(`^ (?i:('t)(was))`),
	}
)

func refIsWordAt(s string, i int) bool {
	return i >= 0 && i < len(s) && refWordRe.MatchString(s[i:])
}

// refIsWordBefore reports whether the rune ending at byte i is a word rune.
func refIsWordBefore(s string, i int) bool {
	if i <= 0 {
		return false
	}
	_, size := utf8.DecodeLastRuneInString(s[:i])
	return refIsWordAt(s, i-size)
}

// refScan is Python's re.sub for a pattern anchored at each start position:
// at byte i, re (which starts with ^) is matched against s[i:]; ok may veto
// the match by looking at the whole text. On a match the replacement is
// written and the scan resumes after it, otherwise one rune is copied.
func refScan(s string, re *regexp.Regexp, ok func(s string, start, end int, loc []int) bool, repl string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if loc := re.FindStringSubmatchIndex(s[i:]); loc != nil && ok(s, i, i+loc[1], loc) {
			b.Write(re.ExpandString(nil, repl, s[i:], loc))
			i += loc[1]
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		b.WriteString(s[i : i+size])
		i += size
	}
	return b.String()
}

func refOpeningSingleQuote(s string) string {
	return refScan(s, refSingleQ, func(s string, start, end int, _ []int) bool {
		return !refIsWordAt(s, end) && !refCliticLA.MatchString(s[start+1:])
	}, "${1} ${2}")
}

func refContractions(s string) string {
	bounded := func(s string, start, end int, _ []int) bool {
		return !refIsWordBefore(s, start) && !refIsWordAt(s, end)
	}
	for k, re := range refMacIntyre {
		ok := bounded
		if k == len(refMacIntyre)-1 { // wanna: \b(wan)(na)\s
			ok = func(s string, start, end int, _ []int) bool { return !refIsWordBefore(s, start) }
		}
		s = refScan(s, re, ok, " ${1} ${2} ")
	}
	for _, re := range refMacIntyre3 {
		s = refScan(s, re, func(s string, start, end int, _ []int) bool {
			return !refIsWordAt(s, end)
		}, " ${1} ${2} ")
	}
	return s
}

// refTreebank is NLTKWordTokenizer.tokenize up to, not including, the final
// text.split().
func refTreebank(s string) string {
	for _, r := range refStartingQuotes {
		s = r.re.ReplaceAllString(s, r.repl)
	}
	s = refOpeningSingleQuote(s)
	for _, r := range refPunctuation {
		s = r.re.ReplaceAllString(s, r.repl)
	}
	s = refParens.re.ReplaceAllString(s, refParens.repl)
	s = refDoubleDashes.re.ReplaceAllString(s, refDoubleDashes.repl)
	s = " " + s + " "
	for _, r := range refEndingQuotes {
		s = r.re.ReplaceAllString(s, r.repl)
	}
	return refContractions(s)
}

// refSplit is Python's str.split().
func refSplit(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || 0x1c <= r && r <= 0x1f
	})
}

func refTokenizeSentence(s string) []string { return refSplit(refTreebank(s)) }

// treebankString runs the production scanners and returns the text before the
// final split, for byte-exact comparison with refTreebank.
func treebankString(s string) string {
	st := new(state)
	st.cur = decode(nil, s)
	st.treebank()
	var b []byte
	for _, r := range st.cur {
		b = appendRune(b, r)
	}
	return string(b)
}
