package word

import (
	"reflect"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/reqa/reqa/index/sentence"
)

// FuzzTokenize checks, on any input including invalid UTF-8, that nothing
// panics, that tokens are non-empty and free of white space (Go's and
// Python's), that the scanners agree byte for byte with the plain regexp
// port, and that Tokenize is TokenizeSentence over the splitter's sentences.
func FuzzTokenize(f *testing.F) {
	for _, tc := range sentenceCases {
		f.Add(tc.in)
	}
	for _, s := range fixtureTexts(f) {
		f.Add(s)
	}
	f.Add("\xff\xfe'\x80s \xc3")
	f.Add("\xed\xa0\x80'x \"\xe2\x80")
	f.Fuzz(func(t *testing.T, s string) {
		toks := Tokenize(s)
		sent := TokenizeSentence(s)
		for _, list := range [][]string{toks, sent} {
			for _, tok := range list {
				if tok == "" {
					t.Fatalf("empty token in %q", list)
				}
				for _, r := range tok {
					if unicode.IsSpace(r) || isSpace(r) {
						t.Fatalf("token %q of %q holds white space %U", tok, s, r)
					}
				}
			}
		}
		if utf8.ValidString(s) {
			// Invalid bytes are kept; valid text must come out valid.
			for _, tok := range sent {
				if !utf8.ValidString(tok) {
					t.Fatalf("token %q of valid text %q is not valid UTF-8", tok, s)
				}
			}
		}
		if got, want := treebankString(s), refTreebank(s); got != want {
			t.Fatalf("scanners and regexp port disagree on %q\nscanners: %q\nregexp:   %q", s, got, want)
		}
		var want []string
		for _, sp := range sentence.English.Split(s) {
			if sp.Start < 0 || sp.End > len(s) || sp.Start >= sp.End {
				continue
			}
			want = append(want, TokenizeSentence(s[sp.Start:sp.End])...)
		}
		if !reflect.DeepEqual(toks, want) {
			t.Fatalf("Tokenize(%q) = %q, per-sentence = %q", s, toks, want)
		}
	})
}
