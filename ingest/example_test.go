package ingest_test

import (
	"context"
	"fmt"

	"github.com/reqa/reqa/index/tokenize"
	"github.com/reqa/reqa/ingest"
)

// ExampleIndexFields reads a small corpus and fills the two BM25 fields of
// the word tokenizer: one document per sentence, with its context or alone.
func ExampleIndexFields() {
	c, err := ingest.ReadInputs([]string{"testdata/corpus/bridges.txt"})
	if err != nil {
		fmt.Println(err)
		return
	}
	tok, err := tokenize.Get("word")
	if err != nil {
		fmt.Println(err)
		return
	}
	withCtx, sentOnly, err := ingest.IndexFields(context.Background(), c, tok, 2, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(c.Sentences), "sentences,", withCtx.Docs(), "and", sentOnly.Docs(), "documents")
	// Sentences 0 and 1 share a context that says "cables" twice, so their
	// documents with context count it three times.
	ps, _, _ := withCtx.Postings("cables")
	fmt.Println("\"cables\" with context:", ps)
	ps, _, _ = sentOnly.Postings("cables")
	fmt.Println("\"cables\" alone:", ps)
	// Output:
	// 4 sentences, 4 and 4 documents
	// "cables" with context: [{0 3} {1 3}]
	// "cables" alone: [{0 1} {1 1}]
}
