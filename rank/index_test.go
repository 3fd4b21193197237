package rank_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
)

// buildBM25Index builds a BM25-only index of input with the named
// tokenizers (all registered ones when none).
func buildBM25Index(t *testing.T, path, input string, tokenizers ...string) {
	t.Helper()
	c, err := ingest.ReadInputs([]string{input})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.Build(context.Background(), c, path, index.Options{Tokenizers: tokenizers}); err != nil {
		t.Fatal(err)
	}
}

// openTextIndex builds a BM25-only index of text (a plain-text file, one
// paragraph per blank-line block) and opens it; the engine closes with the
// test.
func openTextIndex(t *testing.T, text string) *rank.Index {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "x.reqa")
	buildBM25Index(t, path, file)
	e, err := rank.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// TestStemRanker checks bm25-stem on a new index (every tokenizer) and on
// an index built before the stem field existed (word and wpm only): the
// new one lists and answers with it, in both document forms; the old one
// does not list it, refuses it with ErrUnknownRanker and keeps answering
// with every ranker it has and with its default.
func TestStemRanker(t *testing.T) {
	dir := t.TempDir()
	fresh, old := filepath.Join(dir, "fresh.reqa"), filepath.Join(dir, "old.reqa")
	corpus := "../ingest/testdata/corpus"
	buildBM25Index(t, fresh, corpus)
	buildBM25Index(t, old, corpus, "word", "wpm")
	for _, tc := range []struct {
		path    string
		rankers []string
	}{
		{fresh, []string{"bm25-word", "bm25-wpm", "bm25-stem"}},
		{old, []string{"bm25-word", "bm25-wpm"}},
	} {
		e, err := rank.Open(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Rankers(); !slices.Equal(got, tc.rankers) {
			t.Errorf("%s: Rankers = %v, want %v", filepath.Base(tc.path), got, tc.rankers)
		}
		for _, name := range []string{"", "bm25-wpm", "bm25-word", "bm25-stem", "bm25-stem/sent"} {
			r, err := e.Ranker(name)
			if !slices.Contains(tc.rankers, "bm25-stem") && (name == "bm25-stem" || name == "bm25-stem/sent") {
				if !errors.Is(err, rank.ErrUnknownRanker) {
					t.Errorf("%s: %s on an index without the stem field: %v, want ErrUnknownRanker", filepath.Base(tc.path), name, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: %q: %v", filepath.Base(tc.path), name, err)
			}
			acc := rank.NewScores(r.Docs())
			if err := r.(rank.Scorer).ScoreAll(context.Background(), "How are configurations installed?", acc); err != nil {
				t.Fatalf("%s: %s: %v", filepath.Base(tc.path), name, err)
			}
		}
		e.Close()
	}
}

// TestStemMatchesInflections checks what the stem field is for: a question
// and a sentence that share only inflected forms of words meet under
// bm25-stem and not under bm25-word; an identifier's parts meet; and two
// words of a question meet the one word a document writes for them.
func TestStemMatchesInflections(t *testing.T) {
	e := openTextIndex(t, "The configuration of packages happens here.\n\nSet it with git-config and user.name.\n\nA failed step calls rollback.\n\nNothing else is said in this file.\n")
	for _, tc := range []struct {
		q, want string
	}{
		{"Configuring a package", "The configuration of packages happens here."},
		{"Which config sets the name?", "Set it with git-config and user.name."},
		{"How do I roll back?", "A failed step calls rollback."},
	} {
		for _, name := range []string{"bm25-word", "bm25-stem"} {
			r, err := e.Ranker(name)
			if err != nil {
				t.Fatal(err)
			}
			as, err := e.Ask(context.Background(), r, tc.q, 1)
			if err != nil {
				t.Fatal(err)
			}
			found := len(as) == 1 && as[0].Sentence == tc.want && as[0].Score > 0
			if found != (name == "bm25-stem") {
				t.Errorf("%s %q: answers %+v; want %q found only by bm25-stem", name, tc.q, as, tc.want)
			}
		}
	}
}

// TestStemFormWordsWeighHalf checks that a question's form words ("how",
// "do", "I") weigh stem.FormWeight in bm25-stem: a sentence that shares
// only them with the question, many times over, ranks below the one that
// shares its topic (it ranks first when they weigh 1, as under bm25-word).
func TestStemFormWordsWeighHalf(t *testing.T) {
	e := openTextIndex(t, "I do what I can, and how I do it is my business.\n\nLogs rotate weekly.\n\nNothing else is said in this file.\n\nThe box holds paper.\n")
	for name, want := range map[string]string{
		"bm25-word": "I do what I can, and how I do it is my business.",
		"bm25-stem": "Logs rotate weekly.",
	} {
		r, err := e.Ranker(name)
		if err != nil {
			t.Fatal(err)
		}
		as, err := e.Ask(context.Background(), r, "How do I rotate the logs?", 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(as) == 0 || as[0].Sentence != want {
			t.Errorf("%s: answers %+v, want %q first", name, as, want)
		}
	}
}
