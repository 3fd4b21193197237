package word

import (
	"unicode"
	"unicode/utf8"
)

// badBase is where invalid UTF-8 bytes live in the rune domain: byte b of an
// invalid sequence becomes rune badBase+b. Such runes are neither word,
// digit nor space characters (as U+FFFD would be in Python) and are written
// back as the original byte, so invalid input survives tokenization intact.
const badBase = utf8.MaxRune + 1

// asciiClass holds the Python class bits of the ASCII characters.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := 0; c < utf8.RuneSelf; c++ {
		r := rune(c)
		if r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			t[c] |= clWord
		}
		if '0' <= r && r <= '9' {
			t[c] |= clDigit
		}
		switch {
		case '\t' <= r && r <= '\r', 0x1c <= r && r <= 0x1f, r == ' ':
			t[c] |= clSpace
		}
	}
	return t
}()

const (
	clWord = 1 << iota
	clDigit
	clSpace
)

// isWord reports whether Python's re matches r with \w in a str pattern:
// letters (categories L*), numbers (N*) and the underscore. Python 3 defines
// \w as str.isalnum() plus '_', which is exactly L* ∪ N* ∪ {'_'}.
func isWord(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiClass[r]&clWord != 0
	}
	return r <= utf8.MaxRune && (unicode.IsLetter(r) || unicode.IsNumber(r))
}

// isDigit reports whether Python's re matches r with \d in a str pattern:
// the decimal digits, category Nd.
func isDigit(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiClass[r]&clDigit != 0
	}
	return r <= utf8.MaxRune && unicode.IsDigit(r)
}

// isSpace reports whether Python treats r as white space, both for \s in a
// str pattern and for str.split(): Go's unicode.IsSpace plus the four
// information separators U+001C..U+001F, which Python counts as white space.
func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiClass[r]&clSpace != 0
	}
	switch r {
	case 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
		return true
	}
	return 0x2000 <= r && r <= 0x200A
}

// foldEq reports whether r matches the lower-case ASCII letter or symbol c
// under Python's re.IGNORECASE for str patterns. Besides the ASCII case pair,
// Python folds 'i' with U+0130 and U+0131, 's' with U+017F (long s) and 'k'
// with U+212A (Kelvin sign).
func foldEq(r rune, c byte) bool {
	if r == rune(c) {
		return true
	}
	if c < 'a' || c > 'z' {
		return false
	}
	if r == rune(c-'a'+'A') {
		return true
	}
	switch c {
	case 'i':
		return r == 0x130 || r == 0x131
	case 's':
		return r == 0x17F
	case 'k':
		return r == 0x212A
	}
	return false
}

// hasFoldAt reports whether t[i:] starts with lit (lower-case ASCII) under
// Python's IGNORECASE matching.
func hasFoldAt(t []rune, i int, lit string) bool {
	if i < 0 || len(t)-i < len(lit) {
		return false
	}
	for k := 0; k < len(lit); k++ {
		if !foldEq(t[i+k], lit[k]) {
			return false
		}
	}
	return true
}

// decode appends the code points of s to dst, mapping each byte of an
// invalid UTF-8 sequence to badBase+byte.
func decode(dst []rune, s string) []rune {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, rune(c))
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, badBase+rune(c))
			i++
			continue
		}
		dst = append(dst, r)
		i += size
	}
	return dst
}

// appendRune is utf8.AppendRune that writes badBase runes back as their byte.
func appendRune(dst []byte, r rune) []byte {
	if r < utf8.RuneSelf {
		return append(dst, byte(r))
	}
	if r >= badBase {
		return append(dst, byte(r-badBase))
	}
	return utf8.AppendRune(dst, r)
}
