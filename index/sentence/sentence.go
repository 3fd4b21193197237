package sentence

import "strings"

// Span is one sentence's byte range [Start, End) inside the text it was
// split from. Spans never include leading or trailing white space.
type Span struct {
	Start, End int
}

// Split returns the sentences of text in order.
//
// PLACEHOLDER: splits after '.', '!' or '?' followed by white space. The real
// Punkt-style splitter replaces this.
func Split(text string) []Span {
	var out []Span
	start := -1
	for i, r := range text {
		if start < 0 {
			if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
				continue
			}
			start = i
		}
		if (r == '.' || r == '!' || r == '?') && (i+1 == len(text) || strings.ContainsRune(" \n\t\r", rune(text[i+1]))) {
			out = append(out, Span{start, i + 1})
			start = -1
		}
	}
	if start >= 0 {
		end := len(strings.TrimRight(text, " \n\t\r"))
		if end > start {
			out = append(out, Span{start, end})
		}
	}
	return out
}
