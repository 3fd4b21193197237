package store

import (
	"testing"
)

// build writes a one-context index at path whose context has title.
func build(t *testing.T, path string, title string) {
	t.Helper()
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	err = w.Update(func(tx *WriteTx) error {
		if err := tx.PutContext(Context{ID: 0, Title: title, Text: "One. Two.", Source: "a.txt:1"}); err != nil {
			return err
		}
		if err := tx.PutSentence(Sentence{ID: 0, ContextID: 0, Start: 0, End: 4}); err != nil {
			return err
		}
		fw, err := tx.Field("word/ctx")
		if err != nil {
			return err
		}
		if err := fw.PutPostings("One", []byte{1, 0, 1}); err != nil {
			return err
		}
		return fw.PutDocLens([]byte{1, 4})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(Meta{Contexts: 1, Sentences: 1, Fields: []FieldMeta{{Name: "word/ctx", Docs: 1}}}); err != nil {
		t.Fatal(err)
	}
}

func buildIndex(t testing.TB, path string, m Meta, fill func(tx *WriteTx) error) {
	t.Helper()
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Update(fill); err != nil {
		w.Abort()
		t.Fatal(err)
	}
	if err := w.Commit(m); err != nil {
		t.Fatal(err)
	}
}
