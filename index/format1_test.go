package index_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/store"
)

// TestFormat1Index reads an index written before the context layout
// (format 1: sentence + context fields stored expanded, one posting per
// sentence + context document). testdata/format1/part1.reqa was built with
// `reqa index --dense=false` from testdata/append/part1.txt by reqa at
// commit 3a84f0d, the last to write format 1. It must answer exactly as a fresh build of the same text does, and
// appending part2 to it must keep its layout and answer as a fresh build of
// both parts.
func TestFormat1Index(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.reqa")
	b, err := os.ReadFile(filepath.Join("testdata", "format1", "part1.reqa"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, b, 0o644); err != nil {
		t.Fatal(err)
	}
	layouts := func(path string) (int, map[string]string) {
		t.Helper()
		r, err := store.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		m := map[string]string{}
		for _, f := range r.Meta().Fields {
			m[f.Name] = f.Layout
		}
		return r.Meta().FormatVersion, m
	}
	if v, l := layouts(old); v != 1 || l[store.FieldName("word", true)] != "" || l[store.FieldName("wpm", true)] != "" {
		t.Fatalf("fixture: format %d, layouts %v", v, l)
	}
	ctx := context.Background()
	// The fixture predates the "stem" tokenizer: compare with builds of
	// its two tokenizers.
	opt := index.Options{Tokenizers: []string{"word", "wpm"}}
	fresh := filepath.Join(dir, "fresh.reqa")
	if _, err := index.Build(ctx, readParts(t, "part1.txt"), fresh, opt); err != nil {
		t.Fatal(err)
	}
	if v, l := layouts(fresh); v != 4 || l[store.FieldName("word", true)] != bm25.ContextLayout || l[store.FieldName("word", false)] != "" {
		t.Fatalf("fresh build: format %d, layouts %v", v, l)
	}
	compareAnswers(t, fresh, old, false)
	sameStats(t, fresh, old)

	if _, err := index.Append(ctx, readParts(t, "part2.txt"), old, index.Options{}); err != nil {
		t.Fatal(err)
	}
	if v, l := layouts(old); v != 1 || l[store.FieldName("word", true)] != "" || l[store.FieldName("wpm", true)] != "" {
		t.Fatalf("appended format-1 index: format %d, layouts %v; want format 1 and the expanded layout kept", v, l)
	}
	full := filepath.Join(dir, "full.reqa")
	if _, err := index.Build(ctx, readParts(t, "part1.txt", "part2.txt"), full, opt); err != nil {
		t.Fatal(err)
	}
	compareAnswers(t, full, old, false)
	sameStats(t, full, old)
}

// sameStats checks that two indexes' fields have the same statistics,
// whatever their layouts (digests fingerprint what is stored, so they
// differ between layouts) and normalisations (the texts compared are
// ASCII, whose tokens normalisation does not change).
func sameStats(t *testing.T, a, b string) {
	t.Helper()
	ra, err := store.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer ra.Close()
	rb, err := store.Open(b)
	if err != nil {
		t.Fatal(err)
	}
	defer rb.Close()
	for _, fa := range ra.Meta().Fields {
		fb, ok := rb.Meta().Field(fa.Name)
		if !ok {
			t.Fatalf("%s: no field %s", b, fa.Name)
		}
		if math.Abs(fa.MeanIDF-fb.MeanIDF) > 1e-12*math.Abs(fa.MeanIDF) {
			t.Errorf("field %s mean idf %v vs %v", fa.Name, fa.MeanIDF, fb.MeanIDF)
		}
		fa.MeanIDF, fb.MeanIDF = 0, 0
		fa.Layout, fb.Layout = "", ""
		fa.Norm, fb.Norm = "", ""
		fa.Digest, fb.Digest, fa.DigestTerms, fb.DigestTerms = 0, 0, 0, 0
		if fa != fb {
			t.Errorf("field stats differ:\n%s %+v\n%s %+v", a, fa, b, fb)
		}
	}
}
