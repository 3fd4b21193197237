package tokenize

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/reqa/reqa/index/tokenize/wordpiece"
)

// TestNormalize checks Normalize on each way of writing a word that it
// must see through, and that it keeps what it must keep.
func TestNormalize(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"ASCII as it is", "The ferry leaves at 9.", "The ferry leaves at 9."},
		{"NFD composed", "Cafe\u0301", "Café"},
		{"NFC kept", "Café", "Café"},
		{"soft hyphen", "co\u00adoperative", "cooperative"},
		{"zero-width space", "tun\u200bnels", "tunnels"},
		{"zero-width non-joiner", "a\u200cb", "ab"},
		{"zero-width joiner", "net\u200dwork", "network"},
		{"word joiner", "word\u2060joiner", "wordjoiner"},
		{"byte-order mark", "\ufeffHello", "Hello"},
		{"full-width letters and digits", "\uff26\uff25\uff32\uff32\uff39 \uff19", "FERRY 9"},
		{"ligatures", "\ufb01rst \ufb02oor", "first floor"},
		{"no-break space", "10\u00a0km", "10 km"},
		{"superscript", "km\u00b2", "km2"},
		{"case kept", "ÉCOLE école", "ÉCOLE école"},
		{"mark after a deleted character", "e\u200b\u0301", "é"},
		{"CJK and symbols kept", "漢字 ☃", "漢字 ☃"},
		{"invalid UTF-8", "caf\xe9 \u00ad", "caf\ufffd "},
		{"empty", "", ""},
	} {
		if got := Normalize(tc.in); got != tc.want {
			t.Errorf("%s: Normalize(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

// TestGetNorm checks that Get's tokenizers normalise and drop "[UNK]",
// that GetNorm(name, "") gives the tokenizers as they were before
// normalisation (the tokens of old indexes), and that an unknown
// normalisation is ErrUnknownNorm.
func TestGetNorm(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		norm, raw  []string
		query      []string // Query's tokens, when not norm
	}{
		{name: "word", text: "Cafe\u0301 co\u00adop ＦＥＲＲＹ ﬁrst ☃",
			norm: []string{"Café", "coop", "FERRY", "first", "☃"},
			raw:  []string{"Cafe\u0301", "co\u00adop", "ＦＥＲＲＹ", "ﬁrst", "☃"}},
		{name: "wpm", text: "ＦＥＲＲＹ ﬁrst ☃ 漢字",
			norm: []string{"ferry", "first", "漢"},
			raw:  []string{"[UNK]", "ﬁ", "##rst", "[UNK]", "漢", "[UNK]"}},
		{name: "wpm", text: "☃ [UNK]",
			norm: nil,
			raw:  []string{"[UNK]", "[UNK]"}},
		{name: "stem", text: "Cafe\u0301s ＦＥＲＲＹ",
			norm:  []string{"café", "ferri"},
			raw:   []string{"cafe\u0301", "cafe", "s", "ｆｅｒｒｙ"}, // the NFD mark splits the word
			query: []string{"café", "ferri", "cafésferri"}},
	} {
		cur, err := Get(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		old, err := GetNorm(tc.name, "")
		if err != nil {
			t.Fatal(err)
		}
		if cur.Norm() != Norm || old.Norm() != "" || cur.Name() != tc.name || old.Name() != tc.name {
			t.Errorf("%s: Get: %s norm %q, GetNorm(\"\"): %s norm %q", tc.name, cur.Name(), cur.Norm(), old.Name(), old.Norm())
		}
		if got := cur.Tokenize(tc.text); !slices.Equal(got, tc.norm) {
			t.Errorf("%s: Tokenize(%q) = %q, want %q", tc.name, tc.text, got, tc.norm)
		}
		if got := old.Tokenize(tc.text); !slices.Equal(got, tc.raw) {
			t.Errorf("%s, no norm: Tokenize(%q) = %q, want %q", tc.name, tc.text, got, tc.raw)
		}
		q := tc.query
		if q == nil {
			q = tc.norm
		}
		if got, _ := cur.Query(tc.text); !slices.Equal(got, q) {
			t.Errorf("%s: Query(%q) = %q, want %q", tc.name, tc.text, got, q)
		}
	}
	_, err := GetNorm("wpm", "nfkc99")
	if !errors.Is(err, ErrUnknownNorm) {
		t.Errorf("GetNorm(wpm, nfkc99) = %v, want ErrUnknownNorm", err)
	}
	if _, err := GetNorm("porter", Norm); err == nil || errors.Is(err, ErrUnknownNorm) {
		t.Errorf("GetNorm(porter) = %v, want an unknown tokenizer", err)
	}
}

// TestQueryDropsUnknownWeights checks that dropping "[UNK]" from a
// weighted query keeps every other token's weight with it.
func TestQueryDropsUnknownWeights(t *testing.T) {
	n := normalized{weightedUnk{}}
	toks, weights := n.Query("a ☃ b ☃ c")
	if !slices.Equal(toks, []string{"a", "b", "c"}) || !slices.Equal(weights, []float64{1, 3, 5}) {
		t.Errorf("Query = %q %v, want [a b c] [1 3 5]", toks, weights)
	}
}

// weightedUnk is a tokenizer splitting on spaces, spelling ☃ "[UNK]" and
// weighing the i-th token i+1.
type weightedUnk struct{}

func (weightedUnk) Name() string    { return "test" }
func (weightedUnk) Norm() string    { return "" }
func (weightedUnk) unknown() string { return "[UNK]" }
func (weightedUnk) Tokenize(text string) []string {
	return strings.Fields(strings.ReplaceAll(text, "☃", "[UNK]"))
}
func (w weightedUnk) Query(text string) ([]string, []float64) {
	toks := w.Tokenize(text)
	weights := make([]float64, len(toks))
	for i := range weights {
		weights[i] = float64(i + 1)
	}
	return toks, weights
}

// FuzzNormalize checks, on any input, that Normalize never panics, is
// idempotent, returns valid NFKC text without the characters it deletes,
// and returns ASCII as it is; and that every tokenizer of Get reads text
// as it reads its normalisation, never yields its unknown token, and
// gives Query one weight per token.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"Cafe\u0301 co\u00adoperative net\u200dwork tun\u200bnels",
		"\uff26\uff25\uff32\uff32\uff39 \uff19 \ufb01rst \ufb02oor km\u00b2",
		"☃ 漢字 [UNK] [CLS]",
		"e\u200b\u0301 \xe2\x80\u200b\x8b",
		"\xff\xfe'\x80s \xc3",
		"a" + strings.Repeat("\u0301", 40) + "\u00ad",
		"How do I roll back the ＣＯＭＭＩＴ?",
	} {
		f.Add(s)
	}
	unk := ""
	if w, err := wordpiece.New(); err == nil {
		unk = w.Unknown()
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Normalize(s)
		if n2 := Normalize(n); n2 != n {
			t.Fatalf("Normalize not idempotent on %q: %q then %q", s, n, n2)
		}
		if !utf8.ValidString(n) || !norm.NFKC.IsNormalString(n) {
			t.Fatalf("Normalize(%q) = %q: not valid NFKC", s, n)
		}
		if strings.ContainsFunc(n, invisible) {
			t.Fatalf("Normalize(%q) = %q keeps an invisible character", s, n)
		}
		ascii := true
		for i := 0; i < len(s); i++ {
			ascii = ascii && s[i] < utf8.RuneSelf
		}
		if ascii && n != s {
			t.Fatalf("Normalize(%q) = %q: ASCII changed", s, n)
		}
		for _, name := range Names() {
			tok, err := Get(name)
			if err != nil {
				if errors.Is(err, wordpiece.ErrNoVocabulary) {
					continue
				}
				t.Fatal(err)
			}
			toks := tok.Tokenize(s)
			if !reflect.DeepEqual(toks, tok.Tokenize(n)) {
				t.Fatalf("%s: Tokenize(%q) = %q, of its normalisation %q", name, s, toks, tok.Tokenize(n))
			}
			q, w := tok.Query(s)
			if w != nil && len(w) != len(q) {
				t.Fatalf("%s: Query(%q): %d weights for %d tokens", name, s, len(w), len(q))
			}
			if unk != "" && (slices.Contains(toks, unk) || slices.Contains(q, unk)) {
				t.Fatalf("%s: %q gives %s: %q, %q", name, s, unk, toks, q)
			}
		}
	})
}
