package weaviate

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
)

func openedFake(t *testing.T) (*fakeServer, *Collection) {
	t.Helper()
	f, c := newFake(t)
	if err := c.Import(context.Background(), spec(3, 3), synthSentences(3)); err != nil {
		t.Fatal(err)
	}
	col, err := c.Open(context.Background(), "Squad", "model-1")
	if err != nil {
		t.Fatal(err)
	}
	return f, col
}

func lastQuery(t *testing.T, f *fakeServer) string {
	t.Helper()
	rs := f.requests(http.MethodPost, "/v1/graphql")
	var q struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(rs[len(rs)-1].Body, &q); err != nil {
		t.Fatal(err)
	}
	return q.Query
}

func TestBM25Query(t *testing.T) {
	f, col := openedFake(t)
	f.get = func(string) any {
		return []any{
			map[string]any{"sid": 2, "_additional": map[string]any{"score": "3.25"}},
			map[string]any{"sid": 0, "_additional": map[string]any{"score": 1.5}},
		}
	}
	hits, err := col.BM25(context.Background(), []string{"who", "\"quoted\\", "##s", "?"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0] != (Hit{ID: 2, Score: 3.25}) || hits[1] != (Hit{ID: 0, Score: 1.5}) {
		t.Errorf("hits %v", hits)
	}
	want := `{ Get { Squad(bm25: {query: "who \"quoted\\ ##s ?", properties: ["tokens"]}, limit: 5) { sid _additional { score } } } }`
	if q := lastQuery(t, f); q != want {
		t.Errorf("query\n got %s\nwant %s", q, want)
	}
	if hits, err := col.BM25(context.Background(), nil, 5); hits != nil || err != nil {
		t.Errorf("empty query: %v %v", hits, err)
	}
}

func TestNearVectorQuery(t *testing.T) {
	f, col := openedFake(t)
	f.get = func(string) any {
		return []any{map[string]any{"sid": 1, "_additional": map[string]any{"distance": -0.75}}}
	}
	hits, err := col.NearVector(context.Background(), []float32{0.5, -0.125}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0] != (Hit{ID: 1, Score: 0.75}) {
		t.Errorf("hits %v", hits)
	}
	want := `{ Get { Squad(nearVector: {vector: [0.5,-0.125]}, limit: 3) { sid _additional { distance } } } }`
	if q := lastQuery(t, f); q != want {
		t.Errorf("query\n got %s\nwant %s", q, want)
	}
	if _, err := col.NearVector(context.Background(), []float32{1}, 3); err == nil {
		t.Error("wrong dimension accepted")
	}
}

func TestConsistencyLevel(t *testing.T) {
	f, c := newFake(t)
	c.consistency = "QUORUM"
	if err := c.Import(context.Background(), spec(3, 3), synthSentences(3)); err != nil {
		t.Fatal(err)
	}
	for _, r := range f.requests(http.MethodPost, "/v1/batch/objects") {
		if r.Query != "consistency_level=QUORUM" {
			t.Errorf("batch query %q", r.Query)
		}
	}
	col, err := c.Open(context.Background(), "Squad", "model-1")
	if err != nil {
		t.Fatal(err)
	}
	f.get = func(string) any { return []any{} }
	if _, err := col.BM25(context.Background(), []string{"a"}, 1); err != nil {
		t.Fatal(err)
	}
	if q := lastQuery(t, f); !strings.Contains(q, "limit: 1, consistencyLevel: QUORUM)") {
		t.Errorf("query %s", q)
	}
}

func TestQueryErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		get  func(string) any
		want string
	}{
		{"no sid", func(string) any { return []any{map[string]any{"_additional": map[string]any{"score": "1"}}} }, "has no sid"},
		{"no score", func(string) any { return []any{map[string]any{"sid": 1, "_additional": map[string]any{}}} }, "no _additional.score"},
		{"bad score", func(string) any { return []any{map[string]any{"sid": 1, "_additional": map[string]any{"score": "x"}}} }, "not a number"},
		{"no handler", nil, "unsupported query"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, col := openedFake(t)
			f.get = tc.get
			_, err := col.BM25(context.Background(), []string{"a"}, 3)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	f, c := newFake(t)
	if _, err := c.Open(ctx, "Squad", "model-1"); !errors.Is(err, ErrNoCollection) {
		t.Errorf("missing: %v", err)
	}
	if err := c.Import(ctx, spec(3, 3), synthSentences(3)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Open(ctx, "Squad", "model-2"); !errors.Is(err, ErrOtherModel) {
		t.Errorf("other model: %v", err)
	}
	delete(f.objects[MetaCollection], manifestID("Squad"))
	if _, err := c.Open(ctx, "Squad", "model-1"); !errors.Is(err, ErrIncomplete) {
		t.Errorf("no manifest: %v", err)
	}
	if _, err := c.Open(ctx, "lower", "model-1"); err == nil {
		t.Error("bad name accepted")
	}
}

func FuzzFlexFloat(f *testing.F) {
	for _, s := range []string{`"1.5"`, `2`, `"x"`, `null`, `"1e400"`, `""`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var v flexFloat
		_ = v.UnmarshalJSON([]byte(s)) // must not panic
	})
}
