package bm25

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/reqa/reqa/store"
)

// randomBuilder returns a builder of n documents over a vocabulary of
// about 300 terms.
func randomBuilder(n int, seed int64) *Builder {
	rng := rand.New(rand.NewSource(seed))
	b := NewBuilder()
	for d := 0; d < n; d++ {
		toks := make([]string, 1+rng.Intn(30))
		for i := range toks {
			toks[i] = fmt.Sprint("t", rng.Intn(300)*rng.Intn(2))
		}
		b.Add(toks)
	}
	return b
}

// writeIndex writes fields with write, commits and returns the reader.
func writeIndex(t *testing.T, path string, fields []store.FieldMeta, write func(w *store.Writer) error) *store.Reader {
	t.Helper()
	w, err := store.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := write(w); err != nil {
		w.Abort()
		t.Fatal(err)
	}
	if err := w.Commit(store.Meta{Fields: fields, BM25: Gensim()}); err != nil {
		t.Fatal(err)
	}
	r, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestWriteFieldInManyTransactions writes a field with a batch of a few
// dozen bytes (hundreds of transactions) and in one transaction: the
// stored postings, document lengths and digest must be the same, and the
// many-transaction field must verify.
func TestWriteFieldInManyTransactions(t *testing.T) {
	b := randomBuilder(2000, 1)
	dir := t.TempDir()
	one := b.Stats("f", "word", false)
	r1 := writeIndex(t, filepath.Join(dir, "one.reqa"), nil, func(w *store.Writer) error {
		return w.Update(func(tx *store.WriteTx) error {
			fw, err := tx.Field("f")
			if err != nil {
				return err
			}
			if err := b.Write(context.Background(), fw); err != nil {
				return err
			}
			one.Digest, one.DigestTerms = fw.Digest()
			return nil
		})
	})
	defer func(n int) { txBatch = n }(txBatch)
	txBatch = 40
	many := b.Stats("f", "word", false)
	r2 := writeIndex(t, filepath.Join(dir, "many.reqa"), []store.FieldMeta{many}, func(w *store.Writer) error {
		var err error
		many.Digest, many.DigestTerms, err = b.WriteField(context.Background(), w, "f", nil)
		return err
	})
	if many.Digest != one.Digest || many.DigestTerms != one.DigestTerms || many.DigestTerms != len(b.order) {
		t.Fatalf("digest %08x/%d, one transaction %08x/%d, %d terms", many.Digest, many.DigestTerms, one.Digest, one.DigestTerms, len(b.order))
	}
	sameFields(t, r1, r2, "f", b.order)

	// A cancelled WriteField stops with the context's error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w, err := store.Create(filepath.Join(dir, "cancelled.reqa"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if _, _, err := b.WriteField(ctx, w, "f", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled WriteField: %v", err)
	}
}

// TestAppendFieldInManyTransactions appends a second builder to a stored
// field with AppendTo in one transaction and with AppendField in many:
// the results must be the same, and equal to writing both at once.
func TestAppendFieldInManyTransactions(t *testing.T) {
	first, second := randomBuilder(700, 2), randomBuilder(500, 3)
	dir := t.TempDir()
	base := func(name string) (string, store.FieldMeta) {
		p := filepath.Join(dir, name)
		fm := first.Stats("f", "word", false)
		r := writeIndex(t, p, nil, func(w *store.Writer) error {
			var err error
			fm.Digest, fm.DigestTerms, err = first.WriteField(context.Background(), w, "f", nil)
			return err
		})
		r.Close()
		return p, fm
	}
	appendWith := func(p string, old store.FieldMeta, fn func(w *store.Writer) (store.FieldMeta, error)) (*store.Reader, store.FieldMeta) {
		w, _, err := store.CreateFrom(context.Background(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		fm, err := fn(w)
		if err != nil {
			w.Abort()
			t.Fatal(err)
		}
		if err := w.Commit(store.Meta{Fields: []store.FieldMeta{fm}, BM25: Gensim()}); err != nil {
			t.Fatal(err)
		}
		r, err := store.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r, fm
	}
	p1, old1 := base("one.reqa")
	r1, fm1 := appendWith(p1, old1, func(w *store.Writer) (fm store.FieldMeta, err error) {
		err = w.Update(func(tx *store.WriteTx) error {
			fw, err := tx.Field("f")
			if err != nil {
				return err
			}
			fm, err = AppendTo(fw, old1, second)
			return err
		})
		return fm, err
	})
	p2, old2 := base("many.reqa")
	defer func(n int) { txBatch = n }(txBatch)
	txBatch = 40
	r2, fm2 := appendWith(p2, old2, func(w *store.Writer) (store.FieldMeta, error) {
		return AppendField(context.Background(), w, old2, second)
	})
	if fm1 != fm2 {
		t.Fatalf("field meta %+v, in one transaction %+v", fm2, fm1)
	}
	if err := r2.VerifyField("f"); err != nil {
		t.Fatal(err)
	}
	terms := append(append([]string(nil), first.order...), second.order...)
	sameFields(t, r1, r2, "f", terms)
	// Both equal a build of all the documents at once.
	all := NewBuilder()
	for _, b := range []*Builder{first, second} {
		for d := range b.docLens {
			var toks []string
			for id, term := range b.order {
				for _, p := range b.lists[id].decoded() {
					if p.Doc == uint32(d) {
						for range p.TF {
							toks = append(toks, term)
						}
					}
				}
			}
			all.Add(toks)
		}
	}
	for _, term := range terms {
		got, _, err := r2.Postings("f", term)
		if err != nil {
			t.Fatal(err)
		}
		if want := all.lists[all.terms[term]].encoded(); !bytes.Equal(got, want) {
			t.Fatalf("postings of %q differ from a build of everything", term)
		}
	}
}

func sameFields(t *testing.T, a, b *store.Reader, name string, terms []string) {
	t.Helper()
	la, err := a.DocLens(name)
	if err != nil {
		t.Fatal(err)
	}
	lb, err := b.DocLens(name)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(la, lb) {
		t.Fatal("document lengths differ")
	}
	for _, term := range terms {
		pa, oka, err := a.Postings(name, term)
		if err != nil {
			t.Fatal(err)
		}
		pb, okb, err := b.Postings(name, term)
		if err != nil {
			t.Fatal(err)
		}
		if oka != okb || !bytes.Equal(pa, pb) {
			t.Fatalf("postings of %q differ", term)
		}
	}
}
