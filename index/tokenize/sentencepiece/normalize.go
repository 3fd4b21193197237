package sentencepiece

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

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
// an unknown symbol, and adjacent unknowns merge into one id 0.
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

// nfkc returns the NFKC normal form of the valid UTF-8 string s, as
// JavaScript's String.prototype.normalize("NFKC") computes it.
func nfkc(s string) string {
	return norm.NFKC.String(s)
}
