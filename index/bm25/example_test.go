package bm25_test

import (
	"fmt"
	"strings"

	"github.com/reqa/reqa/index/bm25"
)

func Example() {
	b := bm25.NewBuilder()
	for _, doc := range []string{
		"the ferry leaves at nine",
		"the ferry returns at noon",
		"tickets cost five euros",
	} {
		b.Add(strings.Fields(doc))
	}
	f := bm25.FromBuilder(b, "demo", "fields", true, bm25.Gensim())
	acc := bm25.NewAccumulator(f.Docs())
	f.Score(strings.Fields("when does the ferry return at noon"), acc)
	for _, h := range acc.TopK(2) {
		fmt.Printf("doc %d %.3f\n", h.Doc, h.Score)
	}
	// Output:
	// doc 1 0.664
	// doc 0 0.169
}
