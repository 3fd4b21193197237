package stem

import (
	"reflect"
	"testing"

	"github.com/reqa/reqa/index/tokenize/word"
)

func TestStem(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// Inflections and derivations meet.
		{"configure", "configur"},
		{"configured", "configur"},
		{"Configuration", "configur"},
		{"configurations", "configur"},
		{"installing", "instal"},
		{"installs", "instal"},
		{"Packages", "packag"},
		{"running", "run"},
		{"dogs", "dog"},
		{"generously", "generous"},
		// Stop words are lower-cased, not stemmed ("was" would become "wa").
		{"Was", "was"},
		{"being", "being"},
		{"THE", "the"},
		// Short tokens, punctuation and numbers are only lower-cased.
		{"I", "i"},
		{"'s", "'s"},
		{"n't", "n't"},
		{"?", "?"},
		{"``", "``"},
		{"3,000", "3,000"},
		{"1.5", "1.5"},
		// Words with inner punctuation keep it.
		{"APT-GET", "apt-get"},
		{"Debian's", "debian"},
		// Non-ASCII letters: lower-cased; invalid UTF-8 kept byte for byte.
		{"Ünïcode", "ünïcode"},
		{"Ζήτα", "ζήτα"},
		{"CAF\xe9S", "caf\xe9s"},
	} {
		if got := Stem(tc.in); got != tc.want {
			t.Errorf("Stem(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTokenize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"How do I configure the Configuration?", []string{"how", "do", "i", "configur", "the", "configur", "?"}},
		{"It's installing packages.", []string{"it", "'s", "instal", "packag", "."}},
		// A token with inner punctuation: the whole, then its parts.
		{`Run "apt-get update" first.`, []string{"run", "``", "apt-get", "apt", "get", "updat", "''", "first", "."}},
		{"Set user.name with --global.", []string{"set", "user.nam", "user", "name", "with", "--", "global", "."}},
		{"max_connections costs 3,000", []string{"max_connect", "max", "connect", "cost", "3,000", "3", "000"}},
		// Apostrophes do not split.
		{"They don't know o'clock", []string{"they", "do", "n't", "know", "o'clock"}},
	} {
		if got := Tokenize(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestQuery(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // beyond Tokenize's tokens
	}{
		{"", nil},
		{"How do I roll back an update?", []string{"rollback", "backan"}},
		// The second word may be a stop word: a phrasal verb's particle.
		{"What does bash run when I log out?", []string{"bashrun", "runwhen", "logout"}},
		{"Who checks Bug Fixes?", []string{"checksbug", "bugfix"}},
		// Never from a first stop word, a one-letter word, punctuation,
		// numbers or an identifier.
		{"Is it in it?", nil},
		{"a live x y", nil},
		{"ia 64 apt-get update user.name", nil},
		// Words apart by punctuation are not adjacent.
		{"read, only", nil},
	} {
		got, _ := Query(tc.in)
		base := Tokenize(tc.in)
		if len(got) < len(base) || !reflect.DeepEqual(got[:len(base)], base) {
			t.Fatalf("Query(%q) = %q: does not start with Tokenize's %q", tc.in, got, base)
		}
		if extra := got[len(base):]; !reflect.DeepEqual(extra, tc.want) && (len(extra) != 0 || len(tc.want) != 0) {
			t.Errorf("Query(%q) adds %q, want %q", tc.in, extra, tc.want)
		}
	}
}

func TestQueryWeights(t *testing.T) {
	h := FormWeight
	for _, tc := range []struct {
		in   string
		want []float64
	}{
		{"", []float64{}},
		// how do i roll back ? rollback
		{"How do I roll back?", []float64{h, h, h, 1, 1, 1, 1}},
		// what is user.nam user name ?
		{"WHAT is user.name?", []float64{h, h, 1, 1, 1, 1}},
		// Form words are whole words: "Shoulder", "Mayday" and "ours" are not.
		{"Shoulder Mayday ours", []float64{1, 1, 1, 1, 1}},
		// Should we ? (no joined form from a stop word)
		{"Should we?", []float64{h, h, 1}},
	} {
		toks, got := Query(tc.in)
		if len(got) != len(toks) || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Query(%q) = %q weighted %v, want weights %v", tc.in, toks, got, tc.want)
		}
	}
}

func TestForm(t *testing.T) {
	for w, want := range map[string]bool{"how": true, "How": true, "I": true, "should": true, "Were": true,
		"": false, "shoulder": false, "configure": false, "it": false, "the": false, "?": false} {
		if got := Form(w); got != want {
			t.Errorf("Form(%q) = %v, want %v", w, got, want)
		}
	}
}

func TestParts(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"config", []string{"config"}},
		{"git-config", []string{"git", "config"}},
		{"--global", []string{"global"}},
		{"os.Open()", []string{"os", "Open"}},
		{"/etc/apt/sources.list", []string{"etc", "apt", "sources", "list"}},
		{"n't", []string{"n't"}},
		{"``", nil},
		{"naïve–café", []string{"naïve", "café"}},
	} {
		if got := Parts(tc.in); !reflect.DeepEqual(got, tc.want) && (len(got) != 0 || len(tc.want) != 0) {
			t.Errorf("Parts(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestTokenizeFollowsWord checks that the stem tokenizer keeps every word
// token, in order, stemmed: a word without inner punctuation gives exactly
// its stem.
func TestTokenizeFollowsWord(t *testing.T) {
	for _, s := range []string{
		"The quick brown foxes jumped over the lazy dogs. They cannot come!",
		"Which version of Debian ships the newest kernel? Bookworm does, I think.",
	} {
		w, st := word.Tokenize(s), Tokenize(s)
		if len(w) != len(st) {
			t.Fatalf("%q: %d word tokens, %d stem tokens %q", s, len(w), len(st), st)
		}
		for i := range w {
			if st[i] != Stem(w[i]) {
				t.Errorf("%q: token %d: %q, want Stem(%q) = %q", s, i, st[i], w[i], Stem(w[i]))
			}
		}
	}
}
