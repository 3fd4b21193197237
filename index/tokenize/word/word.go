package word

import (
	"sync"

	"github.com/reqa/reqa/index/sentence"
)

// Tokenize returns NLTK word_tokenize tokens of text: it splits text into
// sentences with [sentence.English] and applies [TokenizeSentence] to each, in
// order. Tokens are never empty and never contain white space; the text is
// not lower-cased or otherwise normalized. Bytes that are not valid UTF-8 are
// kept as they are, inside tokens. Tokenize returns nil when text has no
// tokens. It is safe for concurrent use.
//
// The returned tokens share one backing string, so keeping any of them keeps
// all of the text's tokens in memory.
func Tokenize(text string) []string {
	st := getState()
	defer putState(st)
	for _, sp := range sentence.English.Split(text) {
		start, end := sp.Start, sp.End
		// The splitter is trusted but never allowed to make us panic.
		if start < 0 {
			start = 0
		}
		if end > len(text) {
			end = len(text)
		}
		if start >= end {
			continue
		}
		st.tokenize(text[start:end])
	}
	return st.strings()
}

// TokenizeSentence returns the tokens of one sentence under NLTK 3.5's
// NLTKWordTokenizer.tokenize, the Treebank-style rules alone, without
// sentence splitting. It is safe for concurrent use and, like [Tokenize],
// returns tokens that share one backing string, or nil when there are none.
func TokenizeSentence(s string) []string {
	st := getState()
	defer putState(st)
	st.tokenize(s)
	return st.strings()
}

// state is the scratch space of one Tokenize call.
type state struct {
	cur, spare []rune // the text being rewritten and the other buffer
	out        []byte // the bytes of every token so far, back to back
	ends       []int  // ends[i] is the end of token i in out
}

var statePool = sync.Pool{New: func() any { return new(state) }}

func getState() *state { return statePool.Get().(*state) }

// maxPooled bounds the buffers a pooled state may keep (in elements), so one
// huge input does not pin its memory forever.
const maxPooled = 1 << 20

func putState(st *state) {
	if cap(st.cur) > maxPooled || cap(st.spare) > maxPooled || cap(st.out) > 4*maxPooled || cap(st.ends) > maxPooled {
		return
	}
	st.out = st.out[:0]
	st.ends = st.ends[:0]
	statePool.Put(st)
}

// tokenize runs the NLTKWordTokenizer rules over s and appends its tokens.
func (st *state) tokenize(s string) {
	st.cur = decode(st.cur[:0], s)
	st.treebank()
	st.split()
}

// strings returns the tokens gathered so far.
func (st *state) strings() []string {
	if len(st.ends) == 0 {
		return nil
	}
	all := string(st.out)
	toks := make([]string, len(st.ends))
	start := 0
	for i, end := range st.ends {
		toks[i] = all[start:end]
		start = end
	}
	return toks
}

// split appends the white-space separated tokens of cur, like Python's
// str.split() with no arguments.
func (st *state) split() {
	inTok := false
	for _, r := range st.cur {
		if r < 128 && asciiClass[r]&clSpace == 0 {
			st.out = append(st.out, byte(r))
			inTok = true
			continue
		}
		if isSpace(r) {
			if inTok {
				st.ends = append(st.ends, len(st.out))
				inTok = false
			}
			continue
		}
		st.out = appendRune(st.out, r)
		inTok = true
	}
	if inTok {
		st.ends = append(st.ends, len(st.out))
	}
}

// apply runs one rule over cur.
func (st *state) apply(rule func(*editor)) {
	e := editor{src: st.cur, dst: st.spare[:0]}
	rule(&e)
	st.commit(&e)
}

// commit makes an editor's result the current text, if it edited anything.
func (st *state) commit(e *editor) {
	if !e.edited {
		return
	}
	e.dst = append(e.dst, e.src[e.last:]...)
	st.cur, st.spare = e.dst, st.cur
}

// present records which ASCII characters, and which of the non-ASCII quote
// marks, a text holds. A rule whose pattern needs a character the text lacks
// cannot match, so it is skipped. Rules only insert spaces, replace quote
// marks by backquotes or apostrophes, and drop white space, so after the
// flags of inserted characters are set the record stays a superset.
type present struct {
	ascii         [2]uint64
	openQ, closeQ bool // any of «“‘„, any of »”’
	dots          bool // two periods in a row
}

func (p *present) scan(t []rune) {
	*p = present{}
	prev := rune(0)
	for _, r := range t {
		switch {
		case r < 128:
			p.ascii[r>>6] |= 1 << (r & 63)
			if r == '.' && prev == '.' {
				p.dots = true
			}
		case r == '«' || r == '“' || r == '‘' || r == '„':
			p.openQ = true
		case r == '»' || r == '”' || r == '’':
			p.closeQ = true
		}
		prev = r
	}
}

func (p *present) has(c byte) bool { return p.ascii[c>>6]&(1<<(c&63)) != 0 }

func (p *present) set(c byte) { p.ascii[c>>6] |= 1 << (c & 63) }

func (p *present) any(cs string) bool {
	for i := 0; i < len(cs); i++ {
		if p.has(cs[i]) {
			return true
		}
	}
	return false
}

// macIntyreByFirst lists, for each ASCII character, the macIntyreRules whose
// literal can start with it. No literal starts with a letter that Python's
// IGNORECASE folds with a non-ASCII one (i, k or s).
var macIntyreByFirst = func() (idx [128][]int) {
	for k, c := range macIntyreRules {
		first := c.a[0]
		idx[first] = append(idx[first], k)
		if 'a' <= first && first <= 'z' {
			idx[first-'a'+'A'] = append(idx[first-'a'+'A'], k)
		}
	}
	return idx
}()

// treebank applies NLTKWordTokenizer.tokenize's substitutions to cur, in
// NLTK 3.5's order, leaving the text that Python would split on white space.
func (st *state) treebank() {
	var p present
	p.scan(st.cur)

	// STARTING_QUOTES
	if p.openQ || p.has('`') {
		st.apply(openQuotes)
	}
	if len(st.cur) > 0 && st.cur[0] == '"' {
		st.apply(leadingDoubleQuote)
		p.set('`')
	}
	if p.has('`') {
		st.apply(padBackticks)
	}
	if p.has('"') || p.has('\'') {
		st.apply(openingDoubleQuotes)
	}
	if p.has('\'') {
		st.apply(openingSingleQuote)
	}

	// PUNCTUATION
	if p.has('.') {
		st.apply(finalPeriodSpaced)
	}
	if p.has(':') || p.has(',') {
		st.apply(commaColon)
		st.apply(finalCommaColon)
	}
	// The rules before this one never put two periods side by side.
	if p.dots {
		st.apply(ellipsis)
	}
	if p.any(";@#$%&") {
		st.apply(symbols)
	}
	if p.has('.') {
		st.apply(finalPeriodPlain)
	}
	if p.has('?') || p.has('!') {
		st.apply(questionBang)
	}
	if p.has('\'') {
		st.apply(closingSingleQuote)
	}
	if p.has('*') {
		st.apply(asterisk)
	}

	// PARENS_BRACKETS, DOUBLE_DASHES
	if p.any("[](){}<>") {
		st.apply(brackets)
	}
	if p.has('-') {
		st.apply(doubleDashes)
	}

	// " " + text + " "
	e := st.spare[:0]
	e = append(e, ' ')
	e = append(e, st.cur...)
	e = append(e, ' ')
	st.cur, st.spare = e, st.cur

	// ENDING_QUOTES
	if p.closeQ {
		st.apply(closeQuotes)
	}
	if p.has('"') {
		st.apply(doubleQuotes)
		p.set('\'')
	}
	if p.has('\'') {
		st.apply(closingDoubleApostrophe)
		st.apply(possessive)
		st.apply(contraction)
	}

	// CONTRACTIONS2, CONTRACTIONS3. Rules here only insert spaces and turn
	// white space into spaces, so they cannot create a literal that was not
	// in the text already: find the rules that can match in one pass.
	var live [len(macIntyreRules)]bool
	anyLive := false
	t := st.cur
	for i, r := range t {
		if r >= 128 || len(macIntyreByFirst[r]) == 0 {
			continue
		}
		for _, k := range macIntyreByFirst[r] {
			if !live[k] && macIntyreRules[k].present(t, i) {
				live[k] = true
				anyLive = true
			}
		}
	}
	if !anyLive {
		return
	}
	for k := range macIntyreRules {
		if live[k] {
			e := editor{src: st.cur, dst: st.spare[:0]}
			macIntyreRules[k].apply(&e)
			st.commit(&e)
		}
	}
}
