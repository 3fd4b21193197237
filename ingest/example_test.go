package ingest_test

import (
	"context"
	"fmt"

	"github.com/reqa/reqa/index/tokenize"
	"github.com/reqa/reqa/ingest"
)

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
	f, err := ingest.IndexFields(context.Background(), c, tok, 2, nil)
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

// ExampleReadInputsContext reads a directory of mixed files under a memory
// limit and sums up what was read, skipped and refused.
func ExampleReadInputsContext() {
	c, err := ingest.ReadInputsContext(context.Background(), []string{"testdata/corpus"},
		ingest.ReadOptions{MemoryLimit: 1 << 30, Exclude: []string{"*.jsonl"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(c.Sentences), "sentences")
	fmt.Println(c.FileSummary())
	// Output:
	// 10 sentences
	// files: jsonl 1 skipped; md 1 read; txt 1 read
}

// ExampleMatchGlob shows the glob patterns of ReadOptions.Include and
// Exclude.
func ExampleMatchGlob() {
	for _, m := range []struct{ pattern, path string }{
		{"*.md", "docs/guide/intro.md"},      // no slash: the base name, at any depth
		{"docs/*.md", "docs/guide/intro.md"}, // a slash: the whole path
		{"docs/**/*.md", "docs/guide/intro.md"},
		{"/README.md", "sub/README.md"}, // a leading slash anchors at the top
	} {
		fmt.Println(m.pattern, m.path, ingest.MatchGlob(m.pattern, m.path))
	}
	// Output:
	// *.md docs/guide/intro.md true
	// docs/*.md docs/guide/intro.md false
	// docs/**/*.md docs/guide/intro.md true
	// /README.md sub/README.md false
}
