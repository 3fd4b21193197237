package sentencepiece

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

//go:generate go run gen_unicode.go

// separator replaces every space, and starts every non-empty input, as in the
// reference's processInput.
const separator = '\u2581' // ▁

// appendSymbols appends to dst the symbols the reference tokenizes for text:
// the code points of "▁" + NFKC(text) with each U+0020 replaced by "▁", or
// nothing when NFKC(text) is empty. Only U+0020 is replaced, after
// normalisation: tabs and newlines stay (and are unknown), while characters
// that NFKC maps to U+0020 (no-break space, ideographic space, ...) become
// separators.
//
// JavaScript iterates a string by code point (for...of), which is exactly Go's
// range over a valid UTF-8 string. Invalid UTF-8 cannot reach a JavaScript
// string: a host decoding bytes replaces each bad sequence with U+FFFD, so
// appendSymbols does the same. How many U+FFFD one bad run becomes does not
// matter: U+FFFD is only the reserved unknown piece, so it always tokenizes as
// an unknown symbol, and adjacent unknowns merge into one id 0. (A lone
// surrogate, which a JavaScript string can hold, tokenizes the same way.)
func appendSymbols(dst []rune, text string) []rune {
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	text = nfkc(text)
	if text == "" {
		return dst
	}
	dst = append(dst, separator)
	for _, r := range text {
		if r == ' ' {
			r = separator
		}
		dst = append(dst, r)
	}
	return dst
}

// nfkc returns the NFKC normal form of the valid UTF-8 string s as
// JavaScript's String.prototype.normalize("NFKC") computes it in Node.js 20
// (ICU 78, Unicode 17.0).
//
// golang.org/x/text's norm.NFKC agrees with it except in two ways, so nfkc
// uses it unless the text meets one of them:
//
//   - norm follows the Unicode Stream-Safe Text Format: after 30 non-starters
//     in a row it inserts U+034F COMBINING GRAPHEME JOINER and stops
//     reordering across it. ICU does neither.
//   - Before Go 1.27, norm's tables are Unicode 15.0, so characters assigned
//     in 16.0 and 17.0 have no decomposition, combining class or composition.
//     The tables in unicode_supplement_table.go supply them.
//
// Such text goes through nfkcFull, a plain implementation of the Unicode
// normalisation algorithm on top of norm's per-character data.
func nfkc(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s // every ASCII string is in NFKC
	}
	if needsFull(s) {
		return nfkcFull(s)
	}
	return norm.NFKC.String(s)
}

// maxNonStarters is the length of the run of non-starters after which
// norm inserts a combining grapheme joiner.
const maxNonStarters = 30

// needsFull reports whether norm.NFKC might differ from ICU on s: whether s
// holds a character of the Unicode supplement, or a run of non-starters that
// could reach norm's stream-safe limit. The run is counted as norm counts it
// (leading non-starters of each character's decomposition add up, and a
// character whose decomposition starts with a starter that does not combine
// backwards restarts the count from its trailing non-starters), with every
// count bounded from above by the decomposition's length, so any input norm
// would split is caught.
func needsFull(s string) bool {
	run := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			run = 0
			i++
			continue
		}
		p := norm.NFKD.PropertiesString(s[i:])
		size := p.Size()
		if size == 0 { // cannot happen on valid UTF-8; be safe
			return true
		}
		if supplementActive {
			r, _ := utf8.DecodeRuneInString(s[i:])
			if inSupplement(r) {
				return true
			}
		}
		i += size
		n := 1
		if d := p.Decomposition(); d != nil {
			n = utf8.RuneCount(d)
		}
		if !p.BoundaryBefore() {
			// A non-starter, or a starter that combines with what precedes
			// it (Hangul vowels, some Brahmic vowel signs), which norm
			// counts as a non-starter too.
			if run += n; run > maxNonStarters-2 {
				return true
			}
			continue
		}
		run = 0
		if p.TrailCCC() != 0 {
			run = n
		}
	}
	return false
}

// class is a code point with its canonical combining class.
type class struct {
	r rune
	c uint8
}

// nfkcFull computes NFKC by the book: full compatibility decomposition,
// canonical ordering of every run of non-starters (of any length), then
// canonical composition. Characters come from norm's tables, and from the
// supplement for those norm does not know.
func nfkcFull(s string) string {
	seq := make([]class, 0, len(s))
	for _, r := range s {
		if supplementActive {
			if d, ok := supplementDecomp[r]; ok {
				for _, q := range d {
					seq = append(seq, class{q, combiningClass(q)})
				}
				continue
			}
		}
		if r < utf8.RuneSelf {
			seq = append(seq, class{r, 0})
			continue
		}
		p := norm.NFKD.PropertiesString(string(r))
		if p.Decomposition() == nil && !isHangulSyllable(r) {
			seq = append(seq, class{r, combiningClass(r)})
			continue
		}
		for _, q := range norm.NFKD.String(string(r)) {
			seq = append(seq, class{q, combiningClass(q)})
		}
	}

	// Canonical ordering: a stable sort of each run of non-starters.
	for i := 0; i < len(seq); {
		if seq[i].c == 0 {
			i++
			continue
		}
		j := i + 1
		for j < len(seq) && seq[j].c != 0 {
			j++
		}
		if j-i > 1 {
			slices.SortStableFunc(seq[i:j], func(a, b class) int { return int(a.c) - int(b.c) })
		}
		i = j
	}

	// Canonical composition. last is the class of the last character kept
	// since the current starter, or -1 when none was: a character is blocked
	// from the starter when one kept between them has a class of 0 or not
	// below its own.
	out := seq[:0]
	starter, last := -1, -1
	for _, x := range seq {
		if starter >= 0 && (last == -1 || last < int(x.c)) {
			if p, ok := composePair(out[starter].r, x.r); ok {
				out[starter].r = p
				continue
			}
		}
		if x.c == 0 {
			starter, last = len(out), -1
		} else {
			last = int(x.c)
		}
		out = append(out, x)
	}

	var b strings.Builder
	b.Grow(len(s))
	for _, x := range out {
		b.WriteRune(x.r)
	}
	return b.String()
}

// combiningClass returns the canonical combining class of r.
func combiningClass(r rune) uint8 {
	if r < utf8.RuneSelf {
		return 0
	}
	if supplementActive {
		if c, ok := supplementCCC[r]; ok {
			return c
		}
	}
	return norm.NFD.PropertiesString(string(r)).CCC()
}

// composePair returns the primary composite of the starter l followed by r,
// if there is one.
func composePair(l, r rune) (rune, bool) {
	if supplementActive {
		if p, ok := supplementCompose[[2]rune{l, r}]; ok {
			return p, true
		}
	}
	if r < utf8.RuneSelf && l < utf8.RuneSelf {
		return 0, false // no two ASCII characters compose
	}
	if norm.NFC.PropertiesString(string(r)).BoundaryBefore() {
		return 0, false // r never combines with what precedes it
	}
	// l is the result of composing a decomposed sequence, so NFC(l r) is a
	// single character exactly when the pair composes.
	c := norm.NFC.String(string(l) + string(r))
	if p, size := utf8.DecodeRuneInString(c); size == len(c) {
		return p, true
	}
	return 0, false
}

func isHangulSyllable(r rune) bool { return r >= 0xAC00 && r <= 0xD7A3 }

// supplementActive reports whether norm's tables predate the characters of
// the supplement. Since Go 1.27, x/text ships Unicode 17.0 tables itself.
var supplementActive = norm.Version == "15.0.0"

// supplementSet marks the characters of the supplement that norm does not
// know: any text that norm.NFKC could normalise differently from ICU holds
// one, since a composition new in Unicode 16.0 or 17.0 involves a new
// character.
var supplementSet = func() []uint64 {
	var chars []rune
	for r := range supplementCCC {
		chars = append(chars, r)
	}
	for r := range supplementDecomp {
		chars = append(chars, r)
	}
	for pair, r := range supplementCompose {
		chars = append(chars, pair[0], pair[1], r)
	}
	var set []uint64
	for _, r := range chars {
		if r < 0 || assignedInNorm(r) {
			continue
		}
		for int(r/64) >= len(set) {
			set = append(set, 0)
		}
		set[r/64] |= 1 << (r % 64)
	}
	return set
}()

// assignedInNorm reports whether r is assigned in the Unicode version of the
// standard library's unicode package, which is the version of norm's tables
// whenever the supplement is active.
func assignedInNorm(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z,
		unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs)
}

func inSupplement(r rune) bool {
	i := int(r / 64)
	return r >= 0 && i < len(supplementSet) && supplementSet[i]&(1<<(r%64)) != 0
}
