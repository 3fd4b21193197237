package rank_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
)

// ExampleIndex_Ask opens a BM25 index, resolves a ranker by name and asks
// for the two best answers.
func ExampleIndex_Ask() {
	dir, err := os.MkdirTemp("", "reqa-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	notes := filepath.Join(dir, "notes.txt")
	text := "The ferry leaves at nine. It returns at noon.\n\nTickets cost five euros at the kiosk.\n"
	if err := os.WriteFile(notes, []byte(text), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	c, err := ingest.ReadInputs([]string{notes})
	if err != nil {
		fmt.Println(err)
		return
	}
	out := filepath.Join(dir, "notes.reqa")
	if _, err := index.Build(context.Background(), c, out, index.Options{Tokenizers: []string{"wpm"}}); err != nil {
		fmt.Println(err)
		return
	}
	x, err := rank.Open(out)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer x.Close()
	r, err := x.Ranker("bm25-wpm")
	if err != nil {
		fmt.Println(err)
		return
	}
	answers, err := x.Ask(context.Background(), r, "How much do tickets cost?", 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range answers {
		fmt.Printf("%d. %s (%s)\n", a.Rank, a.Sentence, filepath.Base(a.Source))
	}
	// Output:
	// 1. Tickets cost five euros at the kiosk. (notes.txt:3)
}

// A question asking what something is, and the sentences that define it:
// the built-in default ranks those first among its best answers.
func ExampleDefinitionSubject() {
	subj, ok := rank.DefinitionSubject("What is a version range in node-semver?")
	fmt.Println(ok, subj)
	for _, s := range []string{
		"A version range is a set of comparators that specify versions that satisfy the range.",
		"Version ranges can be combined with ||.",
	} {
		fmt.Println(rank.Defines(s, subj), s)
	}
	_, ok = rank.DefinitionSubject("How do I pin a version?")
	fmt.Println(ok)
	// Output:
	// true [[version rang in node-semv] [version rang]]
	// true A version range is a set of comparators that specify versions that satisfy the range.
	// false Version ranges can be combined with ||.
	// false
}
