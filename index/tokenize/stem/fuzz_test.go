package stem

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/reqa/reqa/index/tokenize/word"
)

// FuzzTokenize checks, on any input including invalid UTF-8, that nothing
// panics, that every word token's stem comes out in order, followed by the
// stems of its parts when it has inner punctuation, that tokens are
// non-empty and free of white space, that valid text gives valid tokens,
// that Stem never grows a token beyond its lower-cased form, and that Query
// adds at most one joined token per adjacent pair after Tokenize's tokens,
// each token weighted 1 or FormWeight.
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
		q, weights := Query(s)
		if len(weights) != len(q) {
			t.Fatalf("Query(%q): %d weights for %d tokens", s, len(weights), len(q))
		}
		for i, w := range weights {
			if w != 1 && w != FormWeight {
				t.Fatalf("Query(%q): token %q weighs %v", s, q[i], w)
			}
		}
		if len(q) < len(toks) || !slices.Equal(q[:len(toks)], toks) {
			t.Fatalf("Query(%q) = %q: does not start with Tokenize's %q", s, q, toks)
		}
		if n := len(word.Tokenize(s)); len(q)-len(toks) > max(n-1, 0) {
			t.Fatalf("Query(%q) = %q: %d joined words from %d words", s, q, len(q)-len(toks), n)
		}
		for _, j := range q[len(toks):] {
			if j == "" || strings.ContainsFunc(j, unicode.IsSpace) {
				t.Fatalf("Query(%q): joined token %q", s, j)
			}
		}
		k := 0
		for _, wt := range word.Tokenize(s) {
			if k >= len(toks) || toks[k] != Stem(wt) {
				t.Fatalf("Tokenize(%q) = %q: want Stem(%q) = %q at %d", s, toks, wt, Stem(wt), k)
			}
			k++
			if ps := Parts(wt); len(ps) > 1 || len(ps) == 1 && ps[0] != wt {
				for _, p := range ps {
					if k >= len(toks) || toks[k] != Stem(p) {
						t.Fatalf("Tokenize(%q) = %q: want part %q of %q at %d", s, toks, p, wt, k)
					}
					k++
				}
			}
		}
		if k != len(toks) {
			t.Fatalf("Tokenize(%q) = %q: %d tokens beyond the word tokens and their parts", s, toks, len(toks)-k)
		}
		for _, p := range Parts(s) {
			if p == "" {
				t.Fatalf("Parts(%q) holds an empty part", s)
			}
		}
		for i, tok := range toks {
			if tok == "" {
				t.Fatalf("empty token %d in %q", i, toks)
			}
			for _, r := range tok {
				if unicode.IsSpace(r) {
					t.Fatalf("token %q of %q holds white space %U", tok, s, r)
				}
			}
			if utf8.ValidString(s) && !utf8.ValidString(tok) {
				t.Fatalf("token %q of valid text %q is not valid UTF-8", tok, s)
			}
		}
		for _, wt := range word.Tokenize(s) {
			st := Stem(wt)
			if !utf8.ValidString(wt) {
				if len(st) != len(wt) {
					t.Fatalf("Stem(%q) = %q: invalid UTF-8 must keep its bytes", wt, st)
				}
				continue
			}
			if low := strings.ToLower(wt); len(st) > len(low) {
				t.Fatalf("Stem(%q) = %q grew beyond %q", wt, st, low)
			}
		}
	})
}
