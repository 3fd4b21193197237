package wordpiece

// The reference path: github.com/sugarme/tokenizer v0.3.0 loading the same
// embedded tokenizer.json, with its broken pieces worked around. It exists
// only to check the fast path (differential test, fuzz test, benchmark); see
// doc.go for what is broken in sugarme and why production does not use it.

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/normalizer"
	"github.com/sugarme/tokenizer/pretrained"
)

// refNormalizer replaces sugarme's BertNormalizer, which with this file
// (1) never strips accents ("strip_accents": null is read as false, and its
// RemoveAccents does not apply NFD first), (2) turns white space into ' '
// only next to a removed control character and knows no Unicode spaces,
// (3) keeps private-use and unassigned runes, and (4) lowercases with
// strings.ToLower without updating its alignments, so a rune whose
// lowercase has another UTF-8 length ("Ⱥ") panics later. It is built from
// sugarme's own NormalizedString primitives; its character classes are
// written independently of chars.go, straight from the specification.
type refNormalizer struct{}

func refControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	// Category C*: Cc, Cf, Co, Cs, and unassigned (Cn).
	if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs) {
		return true
	}
	for _, t := range unicode.Categories {
		if unicode.Is(t, r) {
			return false
		}
	}
	return true
}

func refWhitespace(r rune) bool {
	// Python: " \t\n\r" or category Zs; its str.split() also splits on
	// U+2028 and U+2029 (Rust's char::is_whitespace agrees).
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || unicode.Is(unicode.Zs, r) || r == 0x2028 || r == 0x2029
}

// mapRunes is the per-rune map sugarme's NormalizedString.Map should be (its
// Map ignores the function it is given).
func mapRunes(n *normalizer.NormalizedString, f func(rune) rune) *normalizer.NormalizedString {
	var cm []normalizer.ChangeMap
	for _, r := range n.GetNormalized() {
		cm = append(cm, normalizer.ChangeMap{RuneVal: string(f(r)), Changes: 0})
	}
	return n.Transform(cm, 0)
}

func (refNormalizer) Normalize(n *normalizer.NormalizedString) (*normalizer.NormalizedString, error) {
	n = n.Filter(func(r rune) bool { return r != 0 && r != 0xfffd && !refControl(r) })
	n = mapRunes(n, func(r rune) rune {
		if refWhitespace(r) {
			return ' '
		}
		return r
	})
	// sugarme's own CJK spacing is correct; use it alone.
	n, err := normalizer.NewBertNormalizer(false, false, true, false).Normalize(n)
	if err != nil {
		return nil, err
	}
	n = n.NFD()
	n = n.RemoveAccents() // drops Mn
	n = mapRunes(n, unicode.ToLower)
	return n, nil
}

// refTokenizer is sugarme configured as the brief requires: padding and
// truncation off, no special tokens added, corrected normaliser.
type refTokenizer struct {
	tk       *tokenizer.Tokenizer
	specials []string
}

var loadRef = sync.OnceValues(func() (*refTokenizer, error) {
	data, err := assets.ReadFile(assetPath)
	if err != nil {
		return nil, ErrNoVocabulary
	}
	tk, err := pretrained.FromReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	tk.WithPadding(nil)
	tk.WithTruncation(nil)
	tk.WithNormalizer(refNormalizer{})
	return &refTokenizer{tk: tk, specials: []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}}, nil
})

// tokenize runs sugarme. sugarme's added-token matcher sorts its matches by
// token id after sorting them by position, so with two different special
// tokens in one text it drops the earlier one ("[MASK] [UNK]" gives "[",
// "mask", "]", "[UNK]"); the harness therefore cuts the text at special
// tokens itself and hands sugarme the pieces. sugarme's panics are turned
// into errors.
func (r *refTokenizer) tokenize(text string) (toks []string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("sugarme panicked: %v", p)
		}
	}()
	for text != "" {
		at, which := len(text), ""
		for _, sp := range r.specials {
			if i := strings.Index(text, sp); i >= 0 && i < at {
				at, which = i, sp
			}
		}
		if at > 0 {
			t, err := r.tk.Tokenize(text[:at])
			if err != nil {
				return nil, err
			}
			toks = append(toks, t...)
		}
		if which != "" {
			toks = append(toks, which)
		}
		text = text[min(len(text), at+len(which)):]
	}
	return toks, nil
}

// refOrSkip returns the reference tokenizer or skips the test.
func refOrSkip(tb testing.TB) *refTokenizer {
	tb.Helper()
	r, err := loadRef()
	if err == ErrNoVocabulary {
		tb.Skip("assets/tokenizer.json absent: run `make` (or copy it from the module cache) to test against sugarme")
	}
	if err != nil {
		tb.Fatal(err)
	}
	return r
}
