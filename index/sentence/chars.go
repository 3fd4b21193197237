package sentence

import (
	"unicode"
	"unicode/utf8"
)

// Character classes. Punkt is defined with Python regular expressions over
// Unicode strings; these helpers reproduce the classes it uses (\s, \d,
// [^\W\d], str.isupper, str.islower) on UTF-8 bytes. Invalid UTF-8 bytes
// decode as utf8.RuneError of width 1 and behave like a symbol: not space,
// not a letter, not a digit, no case.

// decode returns the rune at byte offset i of s and its width (1 for an
// invalid byte).
func decode(s string, i int) (rune, int) {
	c := s[i]
	if c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// IsSpace reports whether r is white space in the sense of Python's
// str.isspace (and the \s class of Python's re), which is what Punkt uses.
// Spans never start or end with such a rune.
func IsSpace(r rune) bool {
	if r < utf8.RuneSelf {
		// \t \n \v \f \r, the information separators \x1c-\x1f, and space.
		return r == ' ' || (r >= '\t' && r <= '\r') || (r >= 0x1c && r <= 0x1f)
	}
	switch r {
	case 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// isAlphaNoDigit reports whether r is in Python's [^\W\d]: a word character
// that is not a decimal digit (letters, other numerals such as '²', '_').
func isAlphaNoDigit(r rune) bool {
	if r < utf8.RuneSelf {
		return (r|0x20) >= 'a' && (r|0x20) <= 'z' || r == '_'
	}
	if r == utf8.RuneError {
		return false
	}
	return unicode.IsLetter(r) || (unicode.IsNumber(r) && !unicode.IsDigit(r))
}

// isDigit reports whether r is in Python's \d (Unicode decimal digits).
func isDigit(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= '0' && r <= '9'
	}
	return unicode.IsDigit(r)
}

// isUpper approximates Python's str.isupper on one character.
func isUpper(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'A' && r <= 'Z'
	}
	return unicode.IsUpper(r) || unicode.Is(unicode.Other_Uppercase, r)
}

// isLower approximates Python's str.islower on one character.
func isLower(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z'
	}
	return unicode.IsLower(r) || unicode.Is(unicode.Other_Lowercase, r)
}

// isNonWord reports whether byte c is one of Punkt's "characters that cannot
// appear within words": ) " ; } ] * : @ ' ( { [ ? !
func isNonWord(c byte) bool {
	switch c {
	case ')', '"', ';', '}', ']', '*', ':', '@', '\'', '(', '{', '[', '?', '!':
		return true
	}
	return false
}

// isWordStart reports whether rune r may start a Punkt word token (Punkt's
// [^\(\"\`{\[:;&\#\*@\)}\]\-,]).
func isWordStart(r rune) bool {
	switch r {
	case '(', '"', '`', '{', '[', ':', ';', '&', '#', '*', '@', ')', '}', ']', '-', ',':
		return false
	}
	return true
}

// isCloser reports whether byte c is punctuation that Punkt moves back onto
// the previous sentence when it follows a boundary: " ' ) ] }
func isCloser(c byte) bool {
	return c == '"' || c == '\'' || c == ')' || c == ']' || c == '}'
}

// isASCIISpace is Python's string.whitespace, which Punkt uses (instead of
// \s) to find the start of the word before a candidate boundary.
func isASCIISpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}
