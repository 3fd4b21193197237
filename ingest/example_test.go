package ingest_test

import (
	"context"
	"fmt"

	"github.com/reqa/reqa/ingest"
)

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
