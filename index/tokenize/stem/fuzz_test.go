package stem

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/reqa/reqa/index/tokenize/word"
)

// FuzzTokenize checks, on any input including invalid UTF-8, that nothing
// panics, that there is one non-empty token free of white space per word
// token, that valid text gives valid tokens, and that Stem never grows a
// token beyond its lower-cased form.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{
		"How do I configure the Configuration?",
		"It's installing packages.",
		"\xff\xfe'\x80s \xc3",
		"yyyy'''sss y's Y ÿ İstanbul ΣΑΣ",
		"generalizations relational conditional sensibilities",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks := Tokenize(s)
		w := word.Tokenize(s)
		if len(toks) != len(w) {
			t.Fatalf("Tokenize(%q): %d tokens, word has %d", s, len(toks), len(w))
		}
		for i, tok := range toks {
			if tok == "" {
				t.Fatalf("empty token %d in %q (word token %q)", i, toks, w[i])
			}
			for _, r := range tok {
				if unicode.IsSpace(r) {
					t.Fatalf("token %q of %q holds white space %U", tok, s, r)
				}
			}
			if !utf8.ValidString(w[i]) {
				if len(tok) != len(w[i]) {
					t.Fatalf("Stem(%q) = %q: invalid UTF-8 must keep its bytes", w[i], tok)
				}
				continue
			}
			if !utf8.ValidString(tok) {
				t.Fatalf("token %q of valid word token %q is not valid UTF-8", tok, w[i])
			}
			if low := strings.ToLower(w[i]); len(tok) > len(low) {
				t.Fatalf("Stem(%q) = %q grew beyond %q", w[i], tok, low)
			}
		}
	})
}
