package bm25_test

import (
	"fmt"
	"strings"

	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/store"
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

// ExampleContextField fills a sentence + context field in the context
// layout — contexts first, then their sentences — and scores it: the
// postings over sentence + context documents are computed from those over
// contexts and over sentences.
func ExampleContextField() {
	f := bm25.NewContextField()
	f.AddContext(strings.Fields("the ferry leaves at nine . it returns at noon ."))
	f.AddContext(strings.Fields("tickets cost five euros ."))
	for _, s := range []struct {
		ctx  uint32
		text string
	}{{0, "the ferry leaves at nine ."}, {0, "it returns at noon ."}, {1, "tickets cost five euros ."}} {
		if err := f.AddSentence(s.ctx, strings.Fields(s.text)); err != nil {
			fmt.Println(err)
			return
		}
	}
	f.Done()
	meta, err := f.Stats(store.FieldName("demo", true), "fields")
	if err != nil {
		fmt.Println(err)
		return
	}
	src, err := f.Source()
	if err != nil {
		fmt.Println(err)
		return
	}
	ps, _, _ := src.Postings("ferry")
	fmt.Println("ferry:", ps)
	field, err := bm25.NewField(meta, bm25.Gensim(), f.DocLens(), src)
	if err != nil {
		fmt.Println(err)
		return
	}
	acc := bm25.NewAccumulator(field.Docs())
	field.Score(strings.Fields("which ferry returns at noon"), acc)
	for _, h := range acc.TopK(2) {
		fmt.Printf("sentence %d %.3f\n", h.Doc, h.Score)
	}
	// Output:
	// ferry: [{0 2} {1 1}]
	// sentence 1 0.408
	// sentence 0 0.367
}
