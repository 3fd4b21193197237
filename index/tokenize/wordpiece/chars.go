package wordpiece

import "unicode"

// Character classes of BERT's BasicTokenizer, as the Hugging Face
// BertNormalizer and BertPreTokenizer define them. ASCII is classified by
// the table below; every other rune by the functions after it.

// ASCII character classes.
const (
	asciiWord    = iota // letters, digits: part of a word
	asciiSpace          // ' ', \t, \n, \r: ends a word
	asciiControl        // other C0 controls and DEL: dropped
	asciiPunct          // 33-47, 58-64, 91-96, 123-126: a token of its own
)

// asciiClass is the class of each ASCII byte.
var asciiClass = func() (t [128]uint8) {
	for c := 0; c < 128; c++ {
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			t[c] = asciiSpace
		case c < 0x20 || c == 0x7f:
			t[c] = asciiControl
		case c >= 33 && c <= 47, c >= 58 && c <= 64, c >= 91 && c <= 96, c >= 123 && c <= 126:
			t[c] = asciiPunct
		default:
			t[c] = asciiWord
		}
	}
	return t
}()

// assigned is every Unicode category except C (Other). A rune outside it is
// a control, format, private-use or surrogate code point, or one Unicode
// (in the version Go's unicode package carries) has not assigned.
var assigned = []*unicode.RangeTable{unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z}

// dropped reports whether the BERT clean-text step deletes the non-ASCII
// rune r: U+FFFD (also what Go yields for invalid UTF-8) and every rune of
// Unicode category C* (Cc, Cf, Co, Cs, Cn), as Python's
// unicodedata.category(r).startswith("C") and Rust's char::is_other do.
func dropped(r rune) bool {
	return r == unicode.ReplacementChar || !unicode.In(r, assigned...)
}

// isSpace reports whether the non-ASCII rune r separates words: the Unicode
// White_Space runes that are not also controls (U+0085 is a control and is
// dropped instead). These are the Zs runes plus U+2028 and U+2029.
func isSpace(r rune) bool {
	return r != 0x85 && unicode.IsSpace(r)
}

// isPunct reports whether r is BERT punctuation: the ASCII symbols of
// [asciiClass] or any rune of Unicode category P*.
func isPunct(r rune) bool {
	if r < 0x80 {
		return asciiClass[r] == asciiPunct
	}
	return unicode.IsPunct(r)
}

// isCJK reports whether r is a CJK ideograph as BERT defines it (the CJK
// Unified Ideographs blocks and extensions A-E plus the compatibility
// ideographs). BERT puts white space around each, so each is a word.
//
// The ranges are those of Google's tokenization.py and of transformers'
// BertTokenizer; Hugging Face's Rust BertNormalizer starts the fifth range at
// U+2B920 instead of U+2B820, a difference only for the 256 extension-E
// ideographs in between.
func isCJK(r rune) bool {
	switch {
	case r < 0x3400:
		return false
	case r <= 0x4dbf:
		return true
	case r >= 0x4e00 && r <= 0x9fff:
		return true
	case r >= 0xf900 && r <= 0xfaff:
		return true
	case r >= 0x20000 && r <= 0x2a6df:
		return true
	case r >= 0x2a700 && r <= 0x2ceaf:
		return true
	case r >= 0x2f800 && r <= 0x2fa1f:
		return true
	}
	return false
}
