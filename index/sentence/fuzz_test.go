package sentence

import (
	"testing"
	"unicode/utf8"
)

// checkInvariants verifies that spans are non-empty, in bounds, ordered,
// non-overlapping, free of white space at both ends, and that every rune of
// text that is not white space lies inside a span.
func checkInvariants(t *testing.T, text string, spans []Span) {
	t.Helper()
	prevEnd := 0
	for i, s := range spans {
		if s.Start < prevEnd || s.Start >= s.End || s.End > len(text) {
			t.Fatalf("span %d %v: bad bounds or order (previous end %d, len %d) in %q", i, s, prevEnd, len(text), text)
		}
		if r, _ := utf8.DecodeRuneInString(text[s.Start:s.End]); IsSpace(r) {
			t.Fatalf("span %d %v starts with white space in %q", i, s, text)
		}
		if r, _ := utf8.DecodeLastRuneInString(text[s.Start:s.End]); IsSpace(r) {
			t.Fatalf("span %d %v ends with white space in %q", i, s, text)
		}
		prevEnd = s.End
	}
	k := 0
	for i, r := range text {
		if IsSpace(r) {
			continue
		}
		w := utf8.RuneLen(r)
		if r == utf8.RuneError {
			_, w = utf8.DecodeRuneInString(text[i:])
		}
		for k < len(spans) && spans[k].End <= i {
			k++
		}
		if k == len(spans) || spans[k].Start > i || spans[k].End < i+w {
			t.Fatalf("non-space rune %q at %d is outside every span %v of %q", r, i, spans, text)
		}
	}
}

func FuzzSplit(f *testing.F) {
	for _, tc := range commonCases {
		f.Add(tc.text)
	}
	for _, tc := range englishCases {
		f.Add(tc.text)
	}
	for _, s := range []string{
		`"Hi." "Bye." (Ok.) [x.] {y.}--z`, "a.  @[Vol.@_", ". . . . .", "..\n..\n", "U.S.. the ]-3.14 a.\"]-Mr.-",
		"\x1c.\x1d", "A.\u2028B.", "x?\u00a0\u3000y", "\xff.\xfe \xc3", "Ⓐ. ǅ. ß. ²."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkInvariants(t, text, Split(text))
		checkInvariants(t, text, English.Split(text))
	})
}
