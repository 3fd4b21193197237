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

	"github.com/reqa/reqa/internal/testenv"
	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/pretrained"
	"golang.org/x/text/unicode/norm"
)

// refNormalize is BERT's normalisation written as a plain chain of string
// transformations: clean, space out CJK, NFD, drop Mn, lowercase. The
// reference does it here, outside sugarme, and gives sugarme normalised
// text with no normaliser of its own, because sugarme v0.3.0 cannot do it:
// its BertNormalizer, with this file, (1) never strips accents
// ("strip_accents": null is read as false, and its RemoveAccents does not
// apply NFD first), (2) turns white space into ' ' only next to a removed
// control character and knows no Unicode spaces, (3) keeps private-use and
// unassigned runes, (4) lowercases with strings.ToLower without updating
// its alignments, so a rune whose lowercase has another UTF-8 length ("Ⱥ")
// panics later; and (5) the NormalizedString.Filter that every deletion
// goes through garbles the text around deleted multi-byte runes
// ("\ufeffHello world" gives hello world ##hell ##o world, "0\u036fé0"
// gives 0 ##e ##00). Nor can its CJK test be used: its range table is not
// sorted, so Go's unicode.Is, which assumes sorted ranges, misses CJK
// extension A (U+3400-U+4DBF, "䖇000" stays one [UNK] word). The character
// classes below are written independently of chars.go, straight from the
// specification.
func refNormalize(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == 0 || r == 0xfffd || refControl(r):
			return -1
		case refWhitespace(r):
			return ' '
		}
		return r
	}, s)
	var b strings.Builder
	for _, r := range s {
		if refCJK(r) {
			b.WriteString(" " + string(r) + " ")
		} else {
			b.WriteRune(r)
		}
	}
	s = norm.NFD.String(b.String())
	s = strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) {
			return -1
		}
		return r
	}, s)
	return strings.Map(unicode.ToLower, s)
}

func refControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	if r < 0x80 {
		return r < 0x20 || r == 0x7f
	}
	// Category C*: Cc, Cf, Co, Cs, and unassigned (Cn), that is, in no
	// category L*, M*, N*, P*, S* or Z*. (Go 1.26 has a Cn table; older Go
	// has none, hence the test by elimination.)
	for name, t := range unicode.Categories {
		if name[0] != 'C' && unicode.Is(t, r) {
			return false
		}
	}
	return true
}

func refCJK(r rune) bool {
	// Google's tokenization.py, _is_chinese_char.
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) || (r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) || (r >= 0x2B820 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0x2F800 && r <= 0x2FA1F)
}

func refWhitespace(r rune) bool {
	// Python: " \t\n\r" or category Zs; its str.split() also splits on
	// U+2028 and U+2029 (Rust's char::is_whitespace agrees).
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || unicode.Is(unicode.Zs, r) || r == 0x2028 || r == 0x2029
}

// refTokenizer is sugarme configured as reqa needs: padding and truncation
// off, no special tokens added, normalisation done by refNormalize. What
// sugarme contributes is its pre-tokenizer (white space and punctuation)
// and its WordPiece model.
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
	tk.WithNormalizer(nil) // refNormalize does its work
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
			t, err := r.tk.Tokenize(refNormalize(text[:at]))
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
		testenv.Skip(tb, "assets/tokenizer.json absent: run `make` (or copy it from the module cache) to test against sugarme")
	}
	if err != nil {
		tb.Fatal(err)
	}
	return r
}
