package tokenize

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Norm names the normalisation [Get]'s tokenizers apply; an index records
// it in each BM25 field (store.FieldMeta.Norm) and is asked with it
// ([GetNorm]). "" names none: the text tokenized as it is, unknown tokens
// kept, as indexes written before normalisation were.
const Norm = "nfkc1"

// invisible reports whether Normalize deletes r: the soft hyphen U+00AD,
// the zero-width space, non-joiner and joiner U+200B–U+200D, the word
// joiner U+2060 and the zero-width no-break space (byte-order mark) U+FEFF.
// Written inside a word they hide it; NFKC keeps them.
func invisible(r rune) bool {
	switch r {
	case 0xad, 0x200b, 0x200c, 0x200d, 0x2060, 0xfeff:
		return true
	}
	return false
}

// Normalize returns text as the [Norm] tokenizers read it: soft hyphens
// and zero-width characters deleted, then NFKC (Unicode compatibility
// composition: "é" written as e + U+0301 becomes U+00E9, full-width "Ａ１"
// becomes "A1", the ligature "ﬁ" becomes "fi", a no-break space a space).
// Case is kept. Invalid UTF-8 becomes U+FFFD. Normalize is idempotent,
// accepts any string and returns ASCII text as it is, without copying.
//
// Only tokens are made from the result: stored text, and the byte offsets
// of sentences in their contexts, are never normalised.
func Normalize(text string) string {
	i := 0
	for i < len(text) && text[i] < utf8.RuneSelf {
		i++
	}
	if i == len(text) {
		return text
	}
	if rest := text[i:]; !utf8.ValidString(rest) || strings.ContainsFunc(rest, invisible) {
		text = text[:i] + strings.Map(func(r rune) rune {
			if invisible(r) {
				return -1
			}
			return r
		}, text[i:])
	}
	return norm.NFKC.String(text)
}
