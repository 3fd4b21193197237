package index_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/index/tokenize"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/store"
)

// TestBuildAndCancel builds an index, then checks a cancelled build
// leaves it byte-identical, with no temporary file behind.
func TestBuildAndCancel(t *testing.T) {
	c, err := ingest.ReadInputs([]string{"testdata/corpus"})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "x.reqa")
	meta, err := index.Build(context.Background(), c, out, index.Options{Tokenizers: []string{"word"}})
	if err != nil {
		t.Fatal(err)
	}
	if meta.Sentences != len(c.Sentences) || len(meta.Fields) != 2 {
		t.Fatalf("meta %+v", meta)
	}
	before, _ := os.ReadFile(out)
	// A cancelled build must leave the existing index byte-identical and no
	// temporary file behind.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := index.Build(ctx, c, out, index.Options{Tokenizers: []string{"word"}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled build: %v", err)
	}
	after, _ := os.ReadFile(out)
	if string(before) != string(after) {
		t.Fatal("cancelled build changed the existing index")
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".*")); len(m) != 0 {
		t.Fatalf("temporary files left: %v", m)
	}
	r, err := store.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
}

// TestBuildEveryTokenizer checks that a build without named tokenizers
// writes both fields of every registered tokenizer ("stem" included), with
// the tokenizer's own statistics, and one named tokenizer only its own.
func TestBuildEveryTokenizer(t *testing.T) {
	c, err := ingest.ReadInputs([]string{"testdata/corpus"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		toks, want []string
	}{
		{nil, tokenize.Names()},
		{nil, []string{"word", "wpm", "stem"}},
		{[]string{"stem"}, []string{"stem"}},
		{[]string{"word", "wpm"}, []string{"word", "wpm"}},
	} {
		out := filepath.Join(t.TempDir(), "x.reqa")
		meta, err := index.Build(context.Background(), c, out, index.Options{Tokenizers: tc.toks})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range meta.Fields {
			got = append(got, f.Name)
		}
		var want []string
		for _, tok := range tc.want {
			want = append(want, store.FieldName(tok, true), store.FieldName(tok, false))
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("tokenizers %q: fields %q, want %q", tc.toks, got, want)
		}
		// The stemmed field merges inflections: fewer distinct terms than
		// the word field, over every word token (and the parts of those
		// with inner punctuation).
		word, okw := meta.Field(store.FieldName("word", false))
		stem, oks := meta.Field(store.FieldName("stem", false))
		if okw && oks && (stem.Terms >= word.Terms || stem.Tokens < word.Tokens) {
			t.Errorf("stem/sent %d terms, %d tokens; word/sent %d terms, %d tokens: want fewer terms, at least as many tokens",
				stem.Terms, stem.Tokens, word.Terms, word.Tokens)
		}
	}
}

// TestBuildStoresStructure builds an index from documents and reads the
// structure back: the context choice in the meta, heading paths as titles,
// anchors, kinds and lines; appending keeps the index's choice.
func TestBuildStoresStructure(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "docs.reqa")
	c := readDocs(t, "shims.md")
	ctx := context.Background()
	meta, err := index.Build(ctx, c, out, index.Options{Context: ingest.ContextParagraphHeading, Tokenizers: []string{"word"}})
	if err != nil {
		t.Fatal(err)
	}
	if meta.Context != ingest.ContextParagraphHeading {
		t.Fatalf("meta context %q", meta.Context)
	}
	if _, err := index.Append(ctx, readDocs(t, "notes.txt"), out, index.Options{Tokenizers: []string{"word"}}); err != nil {
		t.Fatal(err)
	}
	r, err := store.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Meta().Context != ingest.ContextParagraphHeading {
		t.Fatalf("appended meta context %q", r.Meta().Context)
	}
	sents, ctxs := records(t, r)
	var got []string
	for _, s := range sents {
		cx := ctxs[s.ContextID]
		got = append(got, fmt.Sprintf("%s|%s|%s|%s", s.Kind, cx.Title, s.Anchor(cx), s.Text(cx)))
	}
	md := filepath.Join("testdata", "docs", "shims.md")
	txt := filepath.Join("testdata", "docs", "notes.txt")
	for _, want := range []string{
		"list-item|Shimmer › Commands › shimmer which|" + md + ":21#shimmer-which|Looks in the selected version first.",
		"table-row|Shimmer › Commands › shimmer which|" + md + ":25#shimmer-which|Option: --skip-advice; Meaning: Does not suggest other versions.",
		"quote|Shimmer › Uninstalling|" + md + ":29#uninstalling|Removing the root directory removes every installed version.",
		"paragraph|notes|" + txt + ":4|The second paragraph stands alone.",
	} {
		found := false
		for _, g := range got {
			found = found || g == want
		}
		if !found {
			t.Errorf("missing %q in\n%s", want, strings.Join(got, "\n"))
		}
	}
	for _, cx := range ctxs {
		if cx.Doc == md && !strings.HasPrefix(cx.Text, cx.Title+"\n") {
			t.Errorf("paragraph+heading context without its heading path: %q", cx.Text)
		}
	}
}
