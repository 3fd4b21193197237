package word

// This file holds one hand-written scanner per regular expression of NLTK
// 3.5's NLTKWordTokenizer. Each scanner reproduces Python's re.sub exactly:
// it tries start positions left to right, takes the match Python's
// backtracking engine would take there, writes the replacement, and resumes
// after the match (matches never overlap). Zero-width assertions (\b,
// lookahead, $) look at the real text, matched or not, as in Python.
//
// The regular expression each scanner implements is quoted above it, with
// its replacement. Scanners write only when they match, so a rule that does
// not apply costs one read of the text and no copy.

// editor rewrites src into dst lazily: dst receives the untouched stretches
// of src only when a replacement happens.
type editor struct {
	src    []rune
	dst    []rune
	last   int  // src[:last] is already accounted for in dst
	edited bool // whether any replacement was written
}

// copyTo appends src[last:i] to dst.
func (e *editor) copyTo(i int) {
	e.dst = append(e.dst, e.src[e.last:i]...)
	e.last = i
	e.edited = true
}

// put appends r to dst.
func (e *editor) put(r rune) { e.dst = append(e.dst, r) }

// skipTo drops src[last:j]: the matched text a replacement stands for.
func (e *editor) skipTo(j int) { e.last = j }

// pad surrounds src[i:j] with single spaces: the replacement " \g<0> ".
func (e *editor) pad(i, j int) {
	e.copyTo(i)
	e.put(' ')
	e.copyTo(j)
	e.put(' ')
}

// ---- STARTING_QUOTES ----

// openQuotes is ([«“‘„]|[`]+) → " \1 ".
func openQuotes(e *editor) {
	t := e.src
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '«', '“', '‘', '„':
			e.pad(i, i+1)
		case '`':
			j := i + 1
			for j < len(t) && t[j] == '`' {
				j++
			}
			e.pad(i, j)
			i = j - 1
		}
	}
}

// leadingDoubleQuote is the rule
//
//	^\" → "``"
func leadingDoubleQuote(e *editor) {
	if len(e.src) > 0 && e.src[0] == '"' {
		e.copyTo(0)
		e.put('`')
		e.put('`')
		e.skipTo(1)
	}
}

// padBackticks is the rule
//
//	(``) → " \1 "
func padBackticks(e *editor) {
	t := e.src
	for i := 0; i+1 < len(t); i++ {
		if t[i] == '`' && t[i+1] == '`' {
			e.pad(i, i+2)
			i++
		}
	}
}

// openingDoubleQuotes is the rule
//
//	([ \(\[{<])(\"|\'{2}) → "\1 `` "
func openingDoubleQuotes(e *editor) {
	t := e.src
	for i := 0; i+1 < len(t); i++ {
		switch t[i] {
		case ' ', '(', '[', '{', '<':
		default:
			continue
		}
		var end int
		switch {
		case t[i+1] == '"':
			end = i + 2
		case t[i+1] == '\'' && i+2 < len(t) && t[i+2] == '\'':
			end = i + 3
		default:
			continue
		}
		e.copyTo(i + 1)
		e.put(' ')
		e.put('`')
		e.put('`')
		e.put(' ')
		e.skipTo(end)
		i = end - 1
	}
}

// openingSingleQuote is (?i)(\')(?!re|ve|ll|m|t|s|d)(\w)\b → "\1 \2".
//
// The match is an apostrophe, one word character and a word boundary, so the
// character after that one is not a word character; the lookahead is checked
// in full even though its two-letter branches can then never fire.
func openingSingleQuote(e *editor) {
	t := e.src
	for i := 0; i+1 < len(t); i++ {
		if t[i] != '\'' || !isWord(t[i+1]) || i+2 < len(t) && isWord(t[i+2]) {
			continue
		}
		if clitic(t, i+1) {
			continue
		}
		e.copyTo(i + 1)
		e.put(' ')
		i++
	}
}

// clitic is the lookahead (?i)(?:re|ve|ll|m|t|s|d) at t[j:].
func clitic(t []rune, j int) bool {
	return hasFoldAt(t, j, "re") || hasFoldAt(t, j, "ve") || hasFoldAt(t, j, "ll") ||
		foldEq(t[j], 'm') || foldEq(t[j], 't') || foldEq(t[j], 's') || foldEq(t[j], 'd')
}

// ---- PUNCTUATION ----

// closers1 is the class of the first final-period rule: []})>"' » ” ’ and space.
func closers1(r rune) bool {
	switch r {
	case ']', ')', '}', '>', '"', '\'', '»', '”', '’', ' ':
		return true
	}
	return false
}

// closers2 is the class of the second final-period rule: []})>"'.
func closers2(r rune) bool {
	switch r {
	case ']', ')', '}', '>', '"', '\'':
		return true
	}
	return false
}

// finalPeriod implements both final-period rules:
//
//	([^\.])(\.)([\]\)}>"\'»”’ ]*)\s*$ → "\1 \2 \3 "   (spaced, closers1)
//	([^\.])(\.)([\]\)}>"\']*)\s*$     → "\1 \2\3 "    (closers2)
//
// Neither class nor \s holds a period, so the only possible \2 is the last
// period of the text. Python's $ also matches before a final newline, but \s*
// is greedy and the newline is white space, so the match always runs to the
// end; the greedy class run is \3 and the trailing white space is dropped.
// Backtracking cannot rescue a failed match: giving back class characters to
// \s* helps only if they are spaces, which the rest then must be anyway.
func finalPeriod(e *editor, closers func(rune) bool, spaced bool) {
	t := e.src
	p := len(t) - 1
	for p >= 0 && t[p] != '.' {
		p--
	}
	if p < 1 || t[p-1] == '.' {
		return
	}
	k := p + 1
	for k < len(t) && closers(t[k]) {
		k++
	}
	for m := k; m < len(t); m++ {
		if !isSpace(t[m]) {
			return
		}
	}
	e.copyTo(p)
	e.put(' ')
	e.put('.')
	if spaced {
		e.put(' ')
	}
	e.skipTo(p + 1)
	e.copyTo(k)
	e.put(' ')
	e.skipTo(len(t))
}

func finalPeriodSpaced(e *editor) { finalPeriod(e, closers1, true) }
func finalPeriodPlain(e *editor)  { finalPeriod(e, closers2, false) }

// commaColon is ([:,])([^\d]) → " \1 \2". The second character is consumed,
// so in ",," only the first comma gets padded by this rule.
func commaColon(e *editor) {
	t := e.src
	for i := 0; i+1 < len(t); i++ {
		if (t[i] == ':' || t[i] == ',') && !isDigit(t[i+1]) {
			e.copyTo(i)
			e.put(' ')
			e.copyTo(i + 1)
			e.put(' ')
			i++
		}
	}
}

// finalCommaColon is ([:,])$ → " \1 ", where $ is the end of the text or the
// position before a final newline.
func finalCommaColon(e *editor) {
	t := e.src
	n := len(t)
	i := -1
	switch {
	case n >= 1 && (t[n-1] == ':' || t[n-1] == ','):
		i = n - 1
	case n >= 2 && t[n-1] == '\n' && (t[n-2] == ':' || t[n-2] == ','):
		i = n - 2
	}
	if i >= 0 {
		e.pad(i, i+1)
	}
}

// ellipsis is \.{2,} → " \g<0> ".
func ellipsis(e *editor) {
	t := e.src
	for i := 0; i+1 < len(t); i++ {
		if t[i] == '.' && t[i+1] == '.' {
			j := i + 2
			for j < len(t) && t[j] == '.' {
				j++
			}
			e.pad(i, j)
			i = j - 1
		}
	}
}

// asciiSet is a set of ASCII characters.
type asciiSet [128]bool

func newASCIISet(chars string) *asciiSet {
	var s asciiSet
	for i := 0; i < len(chars); i++ {
		s[chars[i]] = true
	}
	return &s
}

var (
	symbolSet   = newASCIISet(";@#$%&")
	qbangSet    = newASCIISet("?!")
	asteriskSet = newASCIISet("*")
	bracketSet  = newASCIISet("][(){}<>")
)

// padASCII pads every character of set: [set] → " \g<0> ".
func padASCII(e *editor, set *asciiSet) {
	t := e.src
	for i, r := range t {
		if r < 128 && set[r] {
			e.pad(i, i+1)
		}
	}
}

func isCloseQuote(r rune) bool { return r == '»' || r == '”' || r == '’' }

// symbols is [;@#$%&] → " \g<0> ".
func symbols(e *editor) { padASCII(e, symbolSet) }

// questionBang is [?!] → " \g<0> ".
func questionBang(e *editor) { padASCII(e, qbangSet) }

// asterisk is [*] → " \g<0> ".
func asterisk(e *editor) { padASCII(e, asteriskSet) }

// closingSingleQuote is ([^'])' → "\1 ' ".
func closingSingleQuote(e *editor) {
	t := e.src
	for i := 0; i+2 < len(t); i++ {
		if t[i] != '\'' && t[i+1] == '\'' && t[i+2] == ' ' {
			e.copyTo(i + 1)
			e.put(' ')
			i += 2
		}
	}
}

// ---- PARENS_BRACKETS, DOUBLE_DASHES ----

// brackets is [\]\[\(\)\{\}\<\>] → " \g<0> ".
func brackets(e *editor) { padASCII(e, bracketSet) }

// doubleDashes is -- → " -- ".
func doubleDashes(e *editor) {
	t := e.src
	for i := 0; i+1 < len(t); i++ {
		if t[i] == '-' && t[i+1] == '-' {
			e.pad(i, i+2)
			i++
		}
	}
}

// ---- ENDING_QUOTES ----

// closeQuotes is ([»”’]) → " \1 ".
func closeQuotes(e *editor) {
	t := e.src
	for i, r := range t {
		if isCloseQuote(r) {
			e.pad(i, i+1)
		}
	}
}

// doubleQuotes is the rule
//
//	" → " '' "
func doubleQuotes(e *editor) {
	t := e.src
	for i, r := range t {
		if r == '"' {
			e.copyTo(i)
			e.put(' ')
			e.put('\'')
			e.put('\'')
			e.put(' ')
			e.skipTo(i + 1)
		}
	}
}

// closingDoubleApostrophe is (\S)(\'\') → "\1 \2 ".
func closingDoubleApostrophe(e *editor) {
	t := e.src
	for i := 0; i+2 < len(t); i++ {
		if !isSpace(t[i]) && t[i+1] == '\'' && t[i+2] == '\'' {
			e.copyTo(i + 1)
			e.put(' ')
			e.copyTo(i + 3)
			e.put(' ')
			i += 2
		}
	}
}

// possessive is ([^' ])('[sS]|'[mM]|'[dD]|') → "\1 \2 ". The trailing space
// is part of the match; the replacement's own final space stands for it.
func possessive(e *editor) {
	t := e.src
	for i := 0; i+2 < len(t); i++ {
		if t[i] == '\'' || t[i] == ' ' || t[i+1] != '\'' {
			continue
		}
		var end int // end of \2
		switch {
		case i+3 < len(t) && isSMD(t[i+2]) && t[i+3] == ' ':
			end = i + 3
		case t[i+2] == ' ':
			end = i + 2
		default:
			continue
		}
		e.copyTo(i + 1)
		e.put(' ')
		e.copyTo(end + 1) // \2 and the matched space
		i = end
	}
}

func isSMD(r rune) bool {
	switch r {
	case 's', 'S', 'm', 'M', 'd', 'D':
		return true
	}
	return false
}

// contraction is ([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) → "\1 \2 ".
func contraction(e *editor) {
	t := e.src
	for i := 0; i+4 < len(t); i++ {
		if t[i] == '\'' || t[i] == ' ' || t[i+4] != ' ' || !isContraction(t[i+1], t[i+2], t[i+3]) {
			continue
		}
		e.copyTo(i + 1)
		e.put(' ')
		e.copyTo(i + 5)
		i += 4
	}
}

func isContraction(a, b, c rune) bool {
	if a == '\'' {
		switch {
		case b == 'l' && c == 'l', b == 'L' && c == 'L',
			b == 'r' && c == 'e', b == 'R' && c == 'E',
			b == 'v' && c == 'e', b == 'V' && c == 'E':
			return true
		}
		return false
	}
	return a == 'n' && b == '\'' && c == 't' || a == 'N' && b == '\'' && c == 'T'
}

// ---- CONTRACTIONS2, CONTRACTIONS3 (Robert MacIntyre's list) ----

// macIntyre is one rule of CONTRACTIONS2 or CONTRACTIONS3, replaced by
// " \1 \2 ". All literals are lower-case ASCII matched under IGNORECASE.
type macIntyre struct {
	a, b string
	// lead: the rule starts with a literal space, " (a)(b)\b" (CONTRACTIONS3),
	// rather than with \b.
	lead bool
	// space: the rule ends with one \s character, which it consumes,
	// rather than with \b ("wanna").
	space bool
}

// macIntyreRules are CONTRACTIONS2 then CONTRACTIONS3, in NLTK 3.5's order.
var macIntyreRules = [...]macIntyre{
	{a: "can", b: "not"},
	{a: "d", b: "'ye"},
	{a: "gim", b: "me"},
	{a: "gon", b: "na"},
	{a: "got", b: "ta"},
	{a: "lem", b: "me"},
	{a: "mor", b: "'n"},
	{a: "wan", b: "na", space: true},
	{a: "'t", b: "is", lead: true},
	{a: "'t", b: "was", lead: true},
}

// present reports whether the rule's literal a+b occurs at t[i:].
func (c *macIntyre) present(t []rune, i int) bool {
	return hasFoldAt(t, i, c.a) && hasFoldAt(t, i+len(c.a), c.b)
}

// apply runs the rule over the text. Every literal starts and ends with a
// letter or, for CONTRACTIONS3, starts after a space, so \b before the
// literal means "no word character before it" and \b after it "no word
// character after it".
func (c *macIntyre) apply(e *editor) {
	t := e.src
	la, lb := len(c.a), len(c.b)
	for i := 0; i < len(t); i++ {
		s := i // start of \1
		if c.lead {
			if t[i] != ' ' {
				continue
			}
			s = i + 1
		} else if i > 0 && isWord(t[i-1]) {
			continue
		}
		if !c.present(t, s) {
			continue
		}
		end := s + la + lb // end of \2
		next := end        // where the match ends
		if c.space {
			if end >= len(t) || !isSpace(t[end]) {
				continue
			}
			next = end + 1
		} else if end < len(t) && isWord(t[end]) {
			continue
		}
		e.copyTo(i)
		e.put(' ')
		e.skipTo(s)
		e.copyTo(s + la)
		e.put(' ')
		e.copyTo(end)
		e.put(' ')
		e.skipTo(next)
		i = next - 1
	}
}
