package rank_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/reqa/reqa/rank"
)

// TestDefinitionSubject: the question forms that ask what something is,
// and their subjects as stemmed words (also cut before a preposition).
func TestDefinitionSubject(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want [][]string // nil: not a definition question
	}{
		{"What is a spool?", [][]string{{"spool"}}},
		{"What are hooks?", [][]string{{"hook"}}},
		{"what's the rotate directive", [][]string{{"rotat", "direct"}}},
		{"What does copytruncate mean?", [][]string{{"copytrunc"}}},
		{"What is meant by a snapshot?", [][]string{{"snapshot"}}},
		{"What is ccache used for?", [][]string{{"ccach"}}},
		{"Define hard link.", [][]string{{"hard", "link"}}},
		{"What is a version range in node-semver?", [][]string{{"version", "rang", "in", "node-semv"}, {"version", "rang"}}},
		{"What is --dry-run?", [][]string{{"--dry-run"}}},
		{"How do I print a file?", nil},
		{"What happens when the disk is full?", nil},
		{"What is?", nil},
		{"What is the one thing that every user of this program should know before they start?", nil},
	} {
		got, ok := rank.DefinitionSubject(tc.q)
		if ok != (tc.want != nil) || !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("DefinitionSubject(%q) = %q, %v; want %q", tc.q, got, ok, tc.want)
		}
	}
}

// TestDefines: a sentence defines a subject when it opens with it (after
// an article, in any inflection) followed by a defining word.
func TestDefines(t *testing.T) {
	spool, _ := rank.DefinitionSubject("What is a spool?")
	rng, _ := rank.DefinitionSubject("What is a version range in node-semver?")
	opt, _ := rank.DefinitionSubject("What does --dry-run mean?")
	for _, tc := range []struct {
		sentence string
		subj     [][]string
		want     bool
	}{
		{"A spool is a directory where jobs wait.", spool, true},
		{"Spools are directories where jobs wait.", spool, true},
		{"The spool: where jobs wait.", spool, true},
		{"Spool: where jobs wait.", spool, true},
		{"Jobs wait in the spool.", spool, false},
		{"Spool files are removed nightly.", spool, false},
		{"spool", spool, false},
		{"A version range is a set of comparators.", rng, true},
		{"--dry-run: print what would be done.", opt, true},
		{"`--dry-run` means nothing is changed.", opt, true},
		{"Use --dry-run to see what would change.", opt, false},
	} {
		if got := rank.Defines(tc.sentence, tc.subj); got != tc.want {
			t.Errorf("Defines(%q, %q) = %v, want %v", tc.sentence, tc.subj, got, tc.want)
		}
	}
}

// TestDefaultDefinitionsFirst asks a page whose sentences mention a spool
// and a driver in passing, and define each once: the default answers
// "What is X?" with the definition, while the same fusion without the rule
// does not (so the test can fail); questions of other forms rank as they
// did.
func TestDefaultDefinitionsFirst(t *testing.T) {
	e := openIndexOf(t, "testdata/glossary")
	def, err := e.Ranker("default")
	if err != nil {
		t.Fatal(err)
	}
	p := e.BuiltinDefault()
	if !p.DefinitionsFirst {
		t.Fatalf("the built-in default %+v does not put definitions first", p)
	}
	p.DefinitionsFirst = false
	plain, err := e.Fused(p, rank.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	changed := 0
	for _, tc := range []struct{ q, want string }{
		{"What is a spool?", "A spool is a directory where queued print jobs wait for their printer."},
		{"What are drivers?", "A driver is a program that translates print jobs for one printer model."},
	} {
		as, err := e.Ask(ctx, def, tc.q, 3)
		if err != nil || len(as) == 0 {
			t.Fatalf("%q: %v, %d answers", tc.q, err, len(as))
		}
		if as[0].Sentence != tc.want {
			t.Errorf("%q: default answers %q, want %q", tc.q, as[0].Sentence, tc.want)
		}
		bs, err := e.Ask(ctx, plain, tc.q, 1)
		if err != nil || len(bs) == 0 {
			t.Fatalf("%q without the rule: %v, %d answers", tc.q, err, len(bs))
		}
		if bs[0].Sentence != tc.want {
			changed++
		}
	}
	if changed == 0 {
		t.Error("without the rule the fusion answers both questions with their definitions too: the fixture does not test the rule")
	}
	// Another form of question ranks exactly as the plain fusion does.
	q := "Where do print jobs wait?"
	as, err := e.Ask(ctx, def, q, 5)
	if err != nil {
		t.Fatal(err)
	}
	bs, err := e.Ask(ctx, plain, q, 5)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(sentences(as)) != fmt.Sprint(sentences(bs)) {
		t.Errorf("%q: default %q, plain fusion %q: want the same ranking", q, sentences(as), sentences(bs))
	}
}

func sentences(as []rank.Answer) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Sentence)
	}
	return out
}

// FuzzDefinition: any question and sentence are parsed without a panic; a
// subject found has one to eight words, none empty, the shorter forms
// prefixes of the first; no definition form gives no subject.
func FuzzDefinition(f *testing.F) {
	for _, s := range []string{"What is a spool?", "What are hooks?", "Define hard link.", "What is a version range in node-semver?",
		"what's   ", "What does ``: mean?", "What is \u00e9t\u00e9 in \u00fcber?", "What is --x used for?"} {
		f.Add(s, "A spool is a directory.")
	}
	f.Fuzz(func(t *testing.T, q, sentence string) {
		subj, ok := rank.DefinitionSubject(q)
		_ = rank.Defines(sentence, subj)
		if !ok {
			if subj != nil {
				t.Fatalf("%q: no definition form, yet subjects %q", q, subj)
			}
			return
		}
		if len(subj) == 0 || len(subj[0]) == 0 || len(subj[0]) > 8 {
			t.Fatalf("%q: subjects %q", q, subj)
		}
		for _, s := range subj[1:] {
			if len(s) == 0 || !slices.Equal(s, subj[0][:len(s)]) {
				t.Fatalf("%q: subject %q is not a prefix of %q", q, s, subj[0])
			}
		}
		for _, w := range subj[0] {
			if w == "" {
				t.Fatalf("%q: an empty word in %q", q, subj[0])
			}
		}
	})
}
