package sentencepiece

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// checkNFKC checks nfkc on s against what can be checked without a
// JavaScript engine: where norm.NFKC is trusted (needsFull is false), the
// by-the-book nfkcFull must agree with it; where norm.NFKC inserted a
// grapheme joiner, needsFull must have seen it coming; and normalising twice
// changes nothing.
func checkNFKC(t *testing.T, s string) {
	t.Helper()
	got := nfkc(s)
	if !needsFull(s) {
		if full := nfkcFull(s); full != got {
			t.Fatalf("nfkc(%+q) = %+q from norm, but nfkcFull gives %+q", s, got, full)
		}
		if strings.Count(got, norm.GraphemeJoiner) > strings.Count(s, norm.GraphemeJoiner) {
			t.Fatalf("norm.NFKC(%+q) inserted a grapheme joiner but needsFull is false", s)
		}
	}
	if again := nfkc(got); again != got {
		t.Fatalf("nfkc is not idempotent on %+q: %+q then %+q", s, got, again)
	}
}

func TestNFKC(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"ascii", "Hello, world!", "Hello, world!"},
		{"ligature", "ﬁne", "fine"},
		{"fullwidth", "ＡＢＣ１", "ABC1"},
		{"compose", "e\u0301", "é"},
		{"reorder then compose", "a\u0301\u0316", "á\u0316"},
		{"hangul jamo compose", "\u1100\u1161\u11a8", "각"},
		{"hangul syllable plus trailing jamo", "가\u11a8", "각"},
		{"no-break space", "a\u00a0b", "a b"},
		{"squared", "㎞", "km"},
		{"sinhala two-part vowel", "\u0dd9\u0dcf", "\u0ddc"},
		// Beyond norm's stream-safe limit ICU keeps reordering and inserts
		// nothing.
		{"31 acutes", "a" + strings.Repeat("\u0301", 31), "á" + strings.Repeat("\u0301", 30)},
		{"long mixed run sorted whole", "a" + strings.Repeat("\u0301\u0316", 20), "á" + strings.Repeat("\u0316", 20) + strings.Repeat("\u0301", 19)},
		// Unicode 16 and 17 (the supplement).
		{"outlined letters", "\U0001CCD6\U0001CCF0", "A0"},
		{"modifier capital S", "\uA7F1", "S"},
		{"outlined letter composes", "\U0001CCDA\u0301", "É"},
		{"new combining class reorders", "a\u1AE0\u0316", "a\u0316\u1AE0"},
		{"new mark does not block", "e\u1ADD\u0301", "é\u1ADD"},
		{"new composition", "\U000105D2\u0307", "\U000105C9"},
		{"new composite kept", "\U00016D68", "\U00016D68"},
		{"new composite chain", "\U00016D63\U00016D67\U00016D67", "\U00016D6A"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nfkc(tt.in); got != tt.want {
				t.Errorf("nfkc(%+q) = %+q, want %+q", tt.in, got, tt.want)
			}
			checkNFKC(t, tt.in)
		})
	}
}

// TestNFKCFullAgainstNorm compares the by-the-book normalisation with norm on
// random text where norm is trusted, to test nfkcFull's decomposition,
// ordering and composition on many characters.
func TestNFKCFullAgainstNorm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pool := append(slices.Clone(stressRunes), longRunMarks...)
	checked := 0
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			switch rng.IntN(4) {
			case 0:
				b.WriteRune(pool[rng.IntN(len(pool))])
			case 1:
				b.WriteRune(rune(0x300 + rng.IntN(0x70)))
			case 2:
				b.WriteRune(rune(0xA0 + rng.IntN(0x3000-0xA0)))
			default:
				b.WriteRune(rune(rng.IntN(0x30000)))
			}
		}
		s := strings.ToValidUTF8(b.String(), "\uFFFD")
		if needsFull(s) {
			continue
		}
		checked++
		if full, want := nfkcFull(s), norm.NFKC.String(s); full != want {
			t.Fatalf("nfkcFull(%+q) = %+q, norm.NFKC gives %+q", s, full, want)
		}
	}
	if checked < 10000 {
		t.Fatalf("only %d of 20000 random strings were checkable", checked)
	}
}

// TestSupplement checks the generated tables: every character they describe
// is one norm does not know (so the tables add and never override), and each
// composition is consistent with the decompositions. Once x/text's own tables
// are Unicode 17.0 (Go 1.27), the supplement is switched off and norm must
// agree with it instead.
func TestSupplement(t *testing.T) {
	if !supplementActive {
		for r, d := range supplementDecomp {
			if got := norm.NFKD.String(string(r)); got != d {
				t.Errorf("norm %s: NFKD(%U) = %+q, supplement says %+q", norm.Version, r, got, d)
			}
		}
		for r, c := range supplementCCC {
			if got := norm.NFD.PropertiesString(string(r)).CCC(); got != c {
				t.Errorf("norm %s: ccc(%U) = %d, supplement says %d", norm.Version, r, got, c)
			}
		}
		for pair, p := range supplementCompose {
			if got := norm.NFC.String(string(pair[:])); got != string(p) {
				t.Errorf("norm %s: NFC(%U %U) = %+q, supplement says %U", norm.Version, pair[0], pair[1], got, p)
			}
		}
		return
	}
	if len(supplementCCC) == 0 || len(supplementDecomp) == 0 || len(supplementCompose) == 0 {
		t.Fatal("supplement tables are empty: regenerate with go generate")
	}
	for r := range supplementDecomp {
		if assignedInNorm(r) {
			t.Errorf("supplement decomposes %U, which norm knows", r)
		}
	}
	for r := range supplementCCC {
		if assignedInNorm(r) {
			t.Errorf("supplement classes %U, which norm knows", r)
		}
	}
	for pair, p := range supplementCompose {
		if assignedInNorm(p) || (assignedInNorm(pair[0]) && assignedInNorm(pair[1])) {
			t.Errorf("supplement composes %U %U into %U, all known to norm", pair[0], pair[1], p)
		}
		if want, got := nfkcFull(string(p)), nfkcFull(string(pair[:])); got != want {
			t.Errorf("NFKC(%U %U) = %+q, NFKC(%U) = %+q", pair[0], pair[1], got, p, want)
		}
		if !inSupplement(p) {
			t.Errorf("%U is not in the supplement set", p)
		}
	}
}
