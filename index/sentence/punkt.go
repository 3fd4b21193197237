package sentence

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file is a from-scratch Go implementation of the Punkt sentence
// boundary algorithm (Kiss & Strunk 2006) as NLTK's PunktSentenceTokenizer
// runs it at tokenization time:
//
//  1. Candidate boundaries are '.', '?' and '!' followed either by one of
//     Punkt's non-word characters or by white space and a further token.
//  2. For each candidate (only the last one in a run of candidates inside one
//     white-space-delimited word), the context "previous word + end char +
//     following token" is split into Punkt word tokens, which are annotated
//     in two passes (type-based, then token-based with the orthographic,
//     frequent-sentence-starter, initial and number heuristics). A boundary
//     is made when a token other than the context's last one is a break.
//  3. Closing quotes and brackets that open the next sentence and are
//     followed by white space (or "--", or the end) are moved back onto the
//     previous sentence.
//
// The heuristics consult four parameter sets (abbreviation types,
// collocations, frequent sentence starters, orthographic contexts); with all
// of them empty this is exactly NLTK's untrained PunktSentenceTokenizer().

// Orthographic context flags (where a word type was seen with which case).
const (
	orthoBegUC = 1 << 1 // upper case, sentence-initial
	orthoMidUC = 1 << 2 // upper case, sentence-internal
	orthoUnkUC = 1 << 3 // upper case, unknown position
	orthoBegLC = 1 << 4 // lower case, sentence-initial
	orthoMidLC = 1 << 5 // lower case, sentence-internal
	orthoUnkLC = 1 << 6 // lower case, unknown position

	orthoUC = orthoBegUC | orthoMidUC | orthoUnkUC
	orthoLC = orthoBegLC | orthoMidLC | orthoUnkLC
)

const numberType = "##number##"

// params are the Punkt model parameters. Keys are lower-case word types
// without the final period ("dr", "u.s", "e.g"); numbers are "##number##".
type params struct {
	abbrevs      map[string]bool
	collocations map[[2]string]bool
	starters     map[string]bool
	ortho        map[string]uint8
}

func (p *params) empty() bool {
	return len(p.abbrevs) == 0 && len(p.collocations) == 0 && len(p.starters) == 0 && len(p.ortho) == 0
}

// tok is one Punkt word token: the byte range [s, e) of the text, with its
// first-pass annotation.
type tok struct {
	s, e      int
	sentbreak bool
	abbr      bool
	ellipsis  bool
}

// ortho heuristic results.
const (
	orthoUnknown = iota
	orthoStarter
	orthoNotStarter
)

// splitter carries the parameters; it is immutable and safe for concurrent
// use.
type splitter struct {
	p     params
	plain bool // all parameters empty: skip type computations
}

// breakAt is where the sentence after a boundary starts.
func (b boundary) breakAt() int {
	if b.next >= 0 {
		return b.next
	}
	return b.end + 1
}

// candidates finds Punkt's candidate boundaries: the offsets of '.', '?' and
// '!', in order, using a memchr-style search for each of the three.
type candidates struct {
	text          string
	dot, qm, excl int // next offset of each character at or after pos, or len(text)
}

func newCandidates(text string) candidates {
	c := candidates{text: text}
	c.dot = c.find('.', 0)
	c.qm = c.find('?', 0)
	c.excl = c.find('!', 0)
	return c
}

func (c *candidates) find(b byte, from int) int {
	if i := strings.IndexByte(c.text[from:], b); i >= 0 {
		return from + i
	}
	return len(c.text)
}

// next returns the next candidate offset (len(text) when there is none).
func (c *candidates) next() int {
	i := c.dot
	if c.qm < i {
		i = c.qm
	}
	if c.excl < i {
		i = c.excl
	}
	if i == len(c.text) {
		return i
	}
	switch c.text[i] {
	case '.':
		c.dot = c.find('.', i+1)
	case '?':
		c.qm = c.find('?', i+1)
	default:
		c.excl = c.find('!', i+1)
	}
	return i
}

// boundary is a candidate boundary: the end character at end, the context
// text[wordStart:after] and the start of the next token (-1 when the end
// character is followed by punctuation rather than white space).
type boundary struct {
	end, after, next, wordStart int
}

func (sp *splitter) split(text string, out []Span) []Span {
	// Raw slices are collected into out and realigned in place.
	raw := out[:0]
	lastBreak := 0

	// A candidate is only examined once the next one is known, since a
	// later candidate inside the same word supersedes it (NLTK's overlap
	// rule).
	havePrev := false
	var prev boundary
	prevWordStop := 0
	n := len(text)
	cands := newCandidates(text)
	for {
		i := cands.next()
		if i >= n-1 {
			break
		}
		b := boundary{end: i, next: -1}
		if isNonWord(text[i+1]) {
			b.after = i + 2
		} else {
			k := i + 1
			for k < n {
				c := text[k]
				if c == ' ' {
					k++
					continue
				}
				r, w := decode(text, k)
				if !IsSpace(r) {
					break
				}
				k += w
			}
			if k == i+1 || k >= n {
				continue
			}
			m := k
			for m < n {
				c := text[m]
				if c > ' ' && c < utf8.RuneSelf {
					m++
					continue
				}
				r, w := decode(text, m)
				if IsSpace(r) {
					break
				}
				m += w
			}
			b.after, b.next = m, k
		}
		// The previous word: from after the last ASCII white space between
		// the previous candidate and this one (NLTK treats a white space at
		// the very first position as none found).
		b.wordStart = prev.wordStart
		for j := i - 1; j > prevWordStop; j-- {
			if isASCIISpace(text[j]) {
				b.wordStart = j + 1
				break
			}
		}
		if havePrev && prevWordStop <= b.wordStart && sp.isBreak(text, prev) {
			raw = append(raw, Span{lastBreak, prev.end + 1})
			lastBreak = prev.breakAt()
		}
		havePrev = true
		prev, prevWordStop = b, i
	}
	if havePrev && sp.isBreak(text, prev) {
		raw = append(raw, Span{lastBreak, prev.end + 1})
		lastBreak = prev.breakAt()
	}
	end := n
	for end > lastBreak {
		r, w := utf8.DecodeLastRuneInString(text[:end])
		if !IsSpace(r) {
			break
		}
		end -= w
	}
	raw = append(raw, Span{lastBreak, end})

	// Realign closing punctuation and drop empty slices, writing the result
	// over raw (the write index never passes the read index).
	res := raw[:0]
	realign := 0
	for k := 0; k < len(raw); k++ {
		s1 := raw[k]
		s1.Start += realign
		if k+1 == len(raw) {
			if s1.Start < s1.End {
				res = append(res, s1)
			}
			break
		}
		s2 := raw[k+1]
		if closers, total := matchRealign(text[s2.Start:s2.End]); total > 0 {
			res = append(res, Span{s1.Start, s2.Start + closers})
			realign = total
		} else {
			realign = 0
			if s1.Start < s1.End {
				res = append(res, s1)
			}
		}
	}
	// Punkt's first slice starts at offset 0; spans never hold white space
	// at either end.
	w := 0
	for _, sp := range res {
		sp = trim(text, sp)
		if sp.Start < sp.End {
			res[w] = sp
			w++
		}
	}
	return res[:w]
}

func trim(text string, sp Span) Span {
	for sp.Start < sp.End {
		r, w := decode(text, sp.Start)
		if !IsSpace(r) {
			break
		}
		sp.Start += w
	}
	for sp.End > sp.Start {
		r, w := utf8.DecodeLastRuneInString(text[sp.Start:sp.End])
		if !IsSpace(r) {
			break
		}
		sp.End -= w
	}
	return sp
}

// matchRealign matches Punkt's realignment pattern ["')\]}]+?(?:\s+|(?=--)|$)
// at the start of s. It returns the number of closing characters and the
// length of the whole match (closers plus white space), or 0, 0.
func matchRealign(s string) (closers, total int) {
	k := 0
	for k < len(s) && isCloser(s[k]) {
		k++
	}
	if k == 0 {
		return 0, 0
	}
	if k == len(s) {
		return k, k
	}
	if r, _ := decode(s, k); IsSpace(r) {
		m := k
		for m < len(s) {
			r, w := decode(s, m)
			if !IsSpace(r) {
				break
			}
			m += w
		}
		return k, m
	}
	if k+1 < len(s) && s[k] == '-' && s[k+1] == '-' {
		return k, k
	}
	return 0, 0
}

// isBreak decides whether candidate b is a sentence boundary.
func (sp *splitter) isBreak(text string, b boundary) bool {
	if !sp.plain && quotedDots(text, b.wordStart, b.end) {
		return false
	}
	// Fast path for the most common case: a period after a word of two or
	// more ASCII letters and digits, at least one of them a letter. The
	// context's first token is then that word with its period, which is
	// neither an initial nor a number, and another token follows; so it is a
	// break unless the word is an abbreviation (or collocations apply).
	if text[b.end] == '.' && b.end-b.wordStart >= 2 && len(sp.p.collocations) == 0 {
		letter := false
		j := b.wordStart
		for ; j < b.end; j++ {
			c := text[j]
			if (c|0x20) >= 'a' && (c|0x20) <= 'z' {
				letter = true
			} else if c < '0' || c > '9' {
				break
			}
		}
		if j == b.end && letter && (sp.plain || !sp.isASCIIAbbrev(text[b.wordStart:b.end])) {
			return true
		}
	}
	return sp.containsBreak(text, b.wordStart, b.after)
}

// quotedDots reports whether the end mark at text[end] is part of a quoted
// name or pattern made of dots (English only): documentation quotes the
// file names "." and "..", and patterns like ".*" or ".?", in double,
// single or TeX quotes (two backquotes, two apostrophes: man2html's way)
// — the word holds nothing but opening quotes and ".", "?" or "*" before
// the mark, and a closing quote after it (past more of them).
func quotedDots(text string, wordStart, end int) bool {
	const marks = ".?*"
	pre := strings.TrimRight(text[wordStart:end], marks)
	if pre == "" || strings.Trim(pre, "`'\"“‘") != "" || !strings.Contains(text[wordStart:end+1], ".") {
		return false
	}
	post := strings.TrimLeft(text[end+1:], marks)
	return strings.HasPrefix(post, "'") || strings.HasPrefix(post, "\"") || strings.HasPrefix(post, "”") || strings.HasPrefix(post, "’")
}

// containsBreak reports whether the context text[lo:hi] holds a sentence
// break on a token other than its last (NLTK's text_contains_sentbreak).
func (sp *splitter) containsBreak(text string, lo, hi int) bool {
	var prev tok
	have := false
	for lo < hi {
		// Punkt tokenizes line by line.
		le := lo
		for le < hi && text[le] != '\n' {
			le++
		}
		p := lo
		for p < le {
			t, ok, np := nextToken(text, p, le)
			p = np
			if !ok {
				continue
			}
			sp.firstPass(text, &t)
			if have && sp.secondPass(text, &prev, &t) {
				return true
			}
			prev, have = t, true
		}
		lo = le + 1
	}
	return false
}

// nextToken scans one Punkt word token in text[p:end] (end is the end of the
// line or context). ok is false when p is white space, which is skipped.
func nextToken(text string, p, end int) (t tok, ok bool, np int) {
	r, w := decode(text, p)
	if IsSpace(r) {
		return tok{}, false, p + w
	}
	if n := multiChar(text, p, end); n > 0 {
		return tok{s: p, e: p + n}, true, p + n
	}
	if isWordStart(r) {
		q := p + w
		for !wordEnd(text, q, end) {
			_, w2 := decode(text, q)
			q += w2
		}
		return tok{s: p, e: q}, true, q
	}
	return tok{s: p, e: p + w}, true, p + w
}

// wordEnd reports whether a word token ends before offset q: white space, the
// end, a non-word character, multi-character punctuation, or a comma at the
// end of a word.
func wordEnd(text string, q, end int) bool {
	if q >= end {
		return true
	}
	c := text[q]
	if isNonWord(c) {
		return true
	}
	if c < utf8.RuneSelf {
		if c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f) {
			return true
		}
	} else if r, _ := decode(text, q); IsSpace(r) {
		return true
	}
	if multiChar(text, q, end) > 0 {
		return true
	}
	if c == ',' {
		q++
		if q >= end || isNonWord(text[q]) || multiChar(text, q, end) > 0 {
			return true
		}
		r, _ := decode(text, q)
		return IsSpace(r)
	}
	return false
}

// multiChar matches Punkt's multi-character punctuation at p:
// -{2,} | \.{2,} | (?:\.\s){2,}\. ; it returns the match length or 0.
func multiChar(text string, p, end int) int {
	if p+1 >= end {
		return 0
	}
	c := text[p]
	if c == '-' && text[p+1] == '-' {
		k := p + 2
		for k < end && text[k] == '-' {
			k++
		}
		return k - p
	}
	if c != '.' {
		return 0
	}
	if text[p+1] == '.' {
		k := p + 2
		for k < end && text[k] == '.' {
			k++
		}
		return k - p
	}
	// (?:\.\s){2,}\. with greedy repetition and backtracking.
	k, reps, lastRep := p, 0, p
	for k+1 < end && text[k] == '.' {
		r, w := decode(text, k+1)
		if !IsSpace(r) {
			break
		}
		lastRep = k
		reps++
		k += 1 + w
	}
	if reps >= 2 && k < end && text[k] == '.' {
		return k + 1 - p
	}
	if reps >= 3 {
		return lastRep + 1 - p
	}
	return 0
}

// firstPass is Punkt's type-based annotation of one token.
func (sp *splitter) firstPass(text string, t *tok) {
	s := text[t.s:t.e]
	switch {
	case s == "?" || s == "!":
		t.sentbreak = sp.plain || !markInSentence(text, t.s, t.e)
	case s == ".":
		t.sentbreak = true
	case isEllipsis(s):
		t.ellipsis = true
	case strings.HasSuffix(s, ".") && !strings.HasSuffix(s, ".."):
		if !sp.plain && sp.isAbbrev(s[:len(s)-1]) {
			t.abbr = true
		} else {
			t.sentbreak = true
		}
	}
}

// markInSentence reports whether the '?' or '!' at text[s:e] is inside a
// sentence, not at its end (English only): a lower-case word follows it,
// and either it stands alone between spaces (an operator or a glob: "the
// word ! precedes", "the pattern ? matches") or a closing bracket follows it
// at once ("(by definition!) those").
func markInSentence(text string, s, e int) bool {
	alone := s > 0 && IsSpace(rune(text[s-1]))
	bracket := e < len(text) && (text[e] == ')' || text[e] == ']')
	if bracket {
		e++
	}
	if !alone && !bracket || e >= len(text) || !IsSpace(rune(text[e])) {
		return false
	}
	for e < len(text) && IsSpace(rune(text[e])) {
		e++
	}
	r, _ := utf8.DecodeRuneInString(text[e:])
	return unicode.IsLower(r)
}

func isEllipsis(s string) bool {
	if len(s) < 2 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '.' {
			return false
		}
	}
	return true
}

// isASCIIAbbrev is isAbbrev for a word of ASCII letters and digits, without
// allocating.
func (sp *splitter) isASCIIAbbrev(w string) bool {
	if len(sp.p.abbrevs) == 0 {
		return false
	}
	var buf [32]byte
	if len(w) > len(buf) {
		return sp.isAbbrev(w)
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return sp.p.abbrevs[string(buf[:len(w)])]
}

func (sp *splitter) isAbbrev(w string) bool {
	if len(sp.p.abbrevs) == 0 {
		return false
	}
	lw := lower(w)
	if sp.p.abbrevs[lw] {
		return true
	}
	if i := strings.LastIndexByte(lw, '-'); i >= 0 {
		return sp.p.abbrevs[lw[i+1:]]
	}
	return false
}

// secondPass applies Punkt's token-based heuristics to t1 given the token t2
// that follows it, and reports whether t1 ends a sentence.
func (sp *splitter) secondPass(text string, t1, t2 *tok) bool {
	s1 := text[t1.s:t1.e]
	if s1[len(s1)-1] != '.' {
		return t1.sentbreak
	}
	initial := isInitial(s1)
	number := isNumberType(s1)
	if sp.plain {
		// No abbreviations, collocations, starters or orthographic data:
		// only the initial and number rules can change the first pass.
		if !initial && !number {
			return t1.sentbreak
		}
		r, _ := decode(text, t2.s)
		o := sp.orthoHeuristic(text, t2, 0)
		if o == orthoNotStarter {
			return false
		}
		if o == orthoUnknown && initial && isUpper(r) {
			return false
		}
		return t1.sentbreak
	}

	typ := typeNoPeriod(s1)
	nextTyp := typeNoSentPeriod(text[t2.s:t2.e], t2.sentbreak)
	ctx := sp.p.ortho[nextTyp]
	if sp.p.collocations[[2]string{typ, nextTyp}] {
		return false
	}
	r, _ := decode(text, t2.s)
	if (t1.abbr || t1.ellipsis) && !initial {
		if sp.orthoHeuristic(text, t2, ctx) == orthoStarter {
			return true
		}
		if isUpper(r) && sp.p.starters[nextTyp] {
			return true
		}
	}
	if initial || typ == numberType {
		o := sp.orthoHeuristic(text, t2, ctx)
		if o == orthoNotStarter {
			return false
		}
		if o == orthoUnknown && initial && isUpper(r) && ctx&orthoLC == 0 {
			return false
		}
	}
	return t1.sentbreak
}

// orthoHeuristic decides from t's case and its orthographic context whether
// t starts a sentence.
func (sp *splitter) orthoHeuristic(text string, t *tok, ctx uint8) int {
	s := text[t.s:t.e]
	if len(s) == 1 {
		switch s[0] {
		case ';', ':', ',', '.', '!', '?':
			return orthoNotStarter
		}
	}
	r, _ := decode(s, 0)
	if isUpper(r) && ctx&orthoLC != 0 && ctx&orthoMidUC == 0 {
		return orthoStarter
	}
	if isLower(r) && (ctx&orthoUC != 0 || ctx&orthoBegLC == 0) {
		return orthoNotStarter
	}
	return orthoUnknown
}

// isInitial: one [^\W\d] character followed by a period.
func isInitial(s string) bool {
	if len(s) < 2 || s[len(s)-1] != '.' {
		return false
	}
	r, w := decode(s, 0)
	return w == len(s)-1 && isAlphaNoDigit(r)
}

// isNumeric matches Punkt's number pattern ^-?[\.,]?\d[\d,\.-]*\.?$ .
func isNumeric(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i < len(s) && (s[i] == '.' || s[i] == ',') {
		i++
	}
	if i >= len(s) {
		return false
	}
	r, w := decode(s, i)
	if !isDigit(r) {
		return false
	}
	i += w
	// [\d,\.-]* then an optional '.': the optional period is absorbed by the
	// class, so the rest must consist of digits , . - only.
	for i < len(s) {
		r, w := decode(s, i)
		if !(isDigit(r) || r == ',' || r == '.' || r == '-') {
			return false
		}
		i += w
	}
	return true
}

// isNumberType reports whether a period-final token's type without its
// period is "##number##".
func isNumberType(s string) bool { return isNumeric(s) }

// tokType is Punkt's type of a token: lower case, numbers as "##number##".
func tokType(s string) string {
	if isNumeric(s) {
		return numberType
	}
	return lower(s)
}

func typeNoPeriod(s string) string {
	t := tokType(s)
	if len(t) > 1 && t[len(t)-1] == '.' {
		return t[:len(t)-1]
	}
	return t
}

func typeNoSentPeriod(s string, sentbreak bool) string {
	if sentbreak {
		return typeNoPeriod(s)
	}
	return tokType(s)
}

// lower lower-cases s, without allocating when it is already lower case
// ASCII.
func lower(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || (c >= 'A' && c <= 'Z') {
			return strings.ToLower(s)
		}
	}
	return s
}
