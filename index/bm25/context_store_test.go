package bm25

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/reqa/reqa/store"
)

// writeContextIndex stores one tokenizer's two fields of a small corpus
// in the context layout, with meta m's counts, and returns the field.
func writeContextIndex(t *testing.T, path string, contexts int) *ContextField {
	t.Helper()
	f := NewContextField()
	f.AddContext([]string{"the", "ferry", "leaves", "the", "ferry", "returns"})
	f.AddContext([]string{"gulls", "circle"})
	for _, s := range []struct {
		c    uint32
		toks []string
	}{{0, []string{"the", "ferry", "leaves"}}, {0, []string{"the", "ferry", "returns"}}, {1, []string{"gulls", "circle"}}} {
		if err := f.AddSentence(s.c, s.toks); err != nil {
			t.Fatal(err)
		}
	}
	f.Done()
	w, err := store.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	wc, err := f.Stats(store.FieldName("word", true), "word")
	if err != nil {
		t.Fatal(err)
	}
	if wc.Digest, wc.DigestTerms, err = f.Write(context.Background(), w, wc.Name, nil); err != nil {
		t.Fatal(err)
	}
	so := f.Sentences.Stats(store.FieldName("word", false), "word", false)
	if so.Digest, so.DigestTerms, err = f.Sentences.WriteField(context.Background(), w, so.Name, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(store.Meta{Contexts: contexts, Sentences: 3, BM25: Gensim(), Fields: []store.FieldMeta{wc, so}}); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestOpenContextLayoutDamagedMeta: a meta whose context count is
// negative or larger than the file could hold is ErrCorrupt, not a crash
// (it sizes an array).
func TestOpenContextLayoutDamagedMeta(t *testing.T) {
	ctxOf := []uint32{0, 0, 1}
	for _, contexts := range []int{2, -5, 1, 1 << 40} {
		path := filepath.Join(t.TempDir(), "x.reqa")
		writeContextIndex(t, path, contexts)
		r, err := store.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Open(r, store.FieldName("word", true), NewContexts(ctxOf))
		if contexts == 2 {
			if err != nil {
				t.Fatalf("healthy index: %v", err)
			}
			acc := NewAccumulator(f.Docs())
			if err := f.Score([]string{"ferry"}, acc); err != nil || len(acc.Touched) != 2 {
				t.Fatalf("healthy index: %v, %d touched", err, len(acc.Touched))
			}
		} else if !errors.Is(err, store.ErrCorrupt) {
			t.Errorf("meta with %d contexts: %v, want ErrCorrupt", contexts, err)
		}
		r.Close()
	}
}

// TestAppendContextFieldNeedsSentenceField: appending a context-layout
// field before its sentence field holds the new sentences would compute
// wrong statistics; it is refused.
func TestAppendContextFieldNeedsSentenceField(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.reqa")
	writeContextIndex(t, path, 2)
	w, old, err := store.CreateFrom(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	add := NewContextField()
	add.AddContext([]string{"a", "bell"})
	if err := add.AddSentence(0, []string{"a", "bell"}); err != nil {
		t.Fatal(err)
	}
	add.Done()
	fm, _ := old.Field(store.FieldName("word", true))
	_, err = AppendContextField(context.Background(), w, fm, old.Contexts, add, store.FieldName("word", false), []uint32{0, 0, 1, 2})
	if !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("context field appended before its sentence field: %v", err)
	}
}
