package weaviate

import (
	"context"
	"errors"
	"fmt"
)

func Example() {
	f, srv := startFake() // stands in for a Weaviate node
	defer srv.Close()
	f.get = func(string) any { // what the node answers to the BM25 query
		return []any{map[string]any{"sid": 1, "_additional": map[string]any{"score": "0.92"}}}
	}
	ctx := context.Background()

	c, err := New(srv.URL) // or "h1:8080,h2:8080,h3:8080" for a cluster
	if err != nil {
		panic(err)
	}
	sentences := []Sentence{
		{ID: 0, Text: "The ferry leaves at nine.", Tokens: []string{"the", "ferry", "leaves", "at", "nine", "."}, Vector: []float32{1, 0}},
		{ID: 1, Text: "It returns at noon.", Tokens: []string{"it", "returns", "at", "noon", "."}, Vector: []float32{0, 1}},
	}
	spec := ImportSpec{Collection: "Ferries", ModelHash: "use-lite:3f2a", Dim: 2, Count: len(sentences),
		Progress: func(done, total int) { fmt.Printf("%d/%d\n", done, total) }}
	if err := c.Import(ctx, spec, func(i int) (Sentence, error) { return sentences[i], nil }); err != nil {
		panic(err)
	}

	col, err := c.Open(ctx, "Ferries", "use-lite:3f2a")
	if err != nil {
		panic(err)
	}
	hits, err := col.BM25(ctx, []string{"when", "does", "it", "return", "?"}, 10)
	fmt.Println(hits, err)

	_, err = c.Open(ctx, "Ferries", "another-model")
	fmt.Println(errors.Is(err, ErrOtherModel))
	// Output:
	// 0/2
	// 2/2
	// [{1 0.92}] <nil>
	// true
}
