package index_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/index/tokenize"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/store"
)

// ExampleBuild reads a directory of documents and indexes it into a BM25
// file with one tokenizer, then appends one more file to it.
func ExampleBuild() {
	dir, err := os.MkdirTemp("", "reqa-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "corpus.reqa")
	c, err := ingest.ReadInputs([]string{"testdata/corpus/bridges.txt", "testdata/corpus/lighthouses.md"})
	if err != nil {
		fmt.Println(err)
		return
	}
	opt := index.Options{Tokenizers: []string{"word"}}
	meta, err := index.Build(context.Background(), c, out, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(meta.Sentences, "sentences,", len(meta.Fields), "fields, contexts formed as", meta.Context)
	more, err := ingest.ReadInputs([]string{"testdata/corpus/insects.jsonl"})
	if err != nil {
		fmt.Println(err)
		return
	}
	if meta, err = index.Append(context.Background(), more, out, opt); err != nil {
		fmt.Println(err)
		return
	}
	r, err := store.Open(out)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	fmt.Println(r.Meta().Sentences, "sentences after the append, from", len(meta.Sources), "inputs")
	// Output:
	// 10 sentences, 2 fields, contexts formed as paragraph+heading
	// 13 sentences after the append, from 3 inputs
}

// ExampleIndexFields reads a small corpus and fills the two BM25 fields of
// the word tokenizer: sentence + context documents, and sentences alone.
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
	f, err := index.IndexFields(context.Background(), &c.Corpus, tok, 2, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(c.Sentences), "sentences in", f.Contexts.Docs(), "context(s)")
	// The sentence + context field is stored as postings over contexts and
	// read as postings over sentence + context documents: sentences 0 and 1
	// share a context that says "cables" twice, so their documents count it
	// three times.
	withCtx, err := f.Source()
	if err != nil {
		fmt.Println(err)
		return
	}
	ps, _, _ := withCtx.Postings("cables")
	fmt.Println("\"cables\" with context:", ps)
	ps, _, _ = f.Sentences.Postings("cables")
	fmt.Println("\"cables\" alone:", ps)
	// Output:
	// 4 sentences in 2 context(s)
	// "cables" with context: [{0 3} {1 3}]
	// "cables" alone: [{0 1} {1 1}]
}
