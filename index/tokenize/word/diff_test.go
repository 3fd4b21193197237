package word

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// checkSame compares the production scanners with the plain regexp port on
// one input: the text before the split must be byte-identical.
func checkSame(t *testing.T, s string) bool {
	t.Helper()
	got, want := treebankString(s), refTreebank(s)
	if got != want {
		t.Errorf("scanners and regexp port disagree on %q\nscanners: %q\nregexp:   %q", s, got, want)
		return false
	}
	toks := TokenizeSentence(s)
	ref := refSplit(want)
	if len(ref) == 0 {
		ref = nil
	}
	if !reflect.DeepEqual(toks, ref) {
		t.Errorf("TokenizeSentence(%q) = %q, split of the same text = %q", s, toks, ref)
		return false
	}
	return true
}

func TestDifferentialFixtures(t *testing.T) {
	for _, s := range fixtureTexts(t) {
		checkSame(t, s)
	}
}

func TestDifferentialRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	fails := 0
	for i := 0; i < n && fails < 10; i++ {
		if !checkSame(t, randomText(r, 1+r.IntN(24))) {
			fails++
		}
	}
}

// TestDifferentialSQuAD runs both ports over every SQuAD context and
// candidate sentence of the shared test set.
func TestDifferentialSQuAD(t *testing.T) {
	if testing.Short() {
		// May skip in CI: -short is a mode; make test and CI run without it.
		t.Skip("long differential test")
	}
	texts := readJSONLField(t, "data/squad-multireqa-test/contexts.jsonl.gz", "text")
	texts = append(texts, readJSONLField(t, "data/squad-multireqa-test/candidates.jsonl.gz", "text")...)
	fails := 0
	for _, s := range texts {
		if !checkSame(t, s) {
			if fails++; fails == 10 {
				t.Fatal("too many differences")
			}
		}
	}
	t.Logf("%d texts identical", len(texts))
}
