package store

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// filterIndex writes an index whose field "word/ctx" holds terms t0000 …
// and returns its path.
func filterIndex(t testing.TB, terms int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.reqa")
	var digest uint32
	buildIndex(t, path, Meta{}, func(tx *WriteTx) error {
		fw, err := tx.Field("word/ctx")
		if err != nil {
			return err
		}
		for i := 0; i < terms; i++ {
			if err := fw.PutPostings(fmt.Sprintf("t%04d", i), []byte{1, 0, 1}); err != nil {
				return err
			}
		}
		digest, _ = fw.Digest()
		return fw.PutDocLens([]byte{1, 4})
	})
	// Commit again with the digest in the meta (buildIndex committed an
	// empty meta): as a build does, the filter is written at commit.
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := Meta{FormatVersion: 1, Fields: []FieldMeta{{Name: "word/ctx", Docs: 1, Digest: digest, DigestTerms: terms}}}
	if err := db.Update(func(tx *bolt.Tx) error {
		if err := putTermFilters(tx, m); err != nil {
			return err
		}
		return (&WriteTx{tx: tx}).PutMeta(m)
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	return path
}

// editField runs edit on field word/ctx's bucket of the index at path.
func editField(t *testing.T, path string, edit func(fb *bolt.Bucket) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bolt.Tx) error { return edit(tx.Bucket([]byte(fieldPrefix + "word/ctx"))) }); err != nil {
		t.Fatal(err)
	}
}

// TestTermFilter: a lazy reader reads the term filter instead of the
// dictionary, finds every stored term, misses absent ones (the filter
// wrongly claims about one in 2,000), and reports a deleted key as
// ErrCorrupt when a lookup misses it — at open when terms are checked
// eagerly or the filter is stale, damaged or absent.
func TestTermFilter(t *testing.T) {
	const terms = 3000
	deleteKey := func(fb *bolt.Bucket) error { return fb.Bucket(bucketPostings).Delete([]byte("t0042")) }
	for _, tc := range []struct {
		name    string
		edit    func(fb *bolt.Bucket) error
		lazy    bool
		openErr bool // CheckField fails
		missErr bool // the lookup of t0042 fails
	}{
		{name: "intact, lazy", lazy: true},
		{name: "intact, eager"},
		{name: "key deleted, lazy", edit: deleteKey, lazy: true, missErr: true},
		{name: "key deleted, eager", edit: deleteKey, openErr: true, missErr: true},
		{name: "key deleted, filter stale", lazy: true, openErr: true, missErr: true, edit: func(fb *bolt.Bucket) error {
			v := append([]byte(nil), fb.Get(keyTermFilter)...)
			p, _ := unseal(v, "")
			p[7] ^= 1 // the digest it was built for
			if err := fb.Put(keyTermFilter, seal(p)); err != nil {
				return err
			}
			return deleteKey(fb)
		}},
		{name: "key deleted, filter absent", lazy: true, openErr: true, missErr: true, edit: func(fb *bolt.Bucket) error {
			if err := fb.Delete(keyTermFilter); err != nil {
				return err
			}
			return deleteKey(fb)
		}},
		{name: "filter damaged", lazy: true, openErr: true, edit: func(fb *bolt.Bucket) error {
			v := append([]byte(nil), fb.Get(keyTermFilter)...)
			v[filterHeader+3] ^= 0x10
			return fb.Put(keyTermFilter, v)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filterIndex(t, terms)
			if tc.edit != nil {
				editField(t, path, tc.edit)
			}
			r, err := OpenWith(path, OpenOptions{LazyTerms: tc.lazy})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if err := r.CheckField("word/ctx"); (err != nil) != tc.openErr || err != nil && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("CheckField: %v, want an error: %v", err, tc.openErr)
			}
			if tc.openErr {
				return
			}
			if _, found, err := r.Postings("word/ctx", "t0042"); (err != nil) != tc.missErr || err != nil && !errors.Is(err, ErrCorrupt) || found && tc.missErr {
				t.Fatalf("t0042: found %v, %v; want an error: %v", found, err, tc.missErr)
			}
			if tc.missErr {
				return
			}
			for i := 0; i < terms; i += 97 {
				if _, found, err := r.Postings("word/ctx", fmt.Sprintf("t%04d", i)); !found || err != nil {
					t.Fatalf("t%04d: found %v, %v", i, found, err)
				}
			}
			f, err := r.termFilter("word/ctx")
			if err != nil || f == nil {
				t.Fatalf("filter %v, %v", f, err)
			}
			wrong := 0
			for i := 0; i < 20000; i++ {
				term := fmt.Sprintf("absent%d", i)
				if _, found, err := r.Postings("word/ctx", term); found || err != nil {
					t.Fatalf("%s: found %v, %v", term, found, err)
				}
				if f.has([]byte(term)) {
					wrong++
				}
			}
			if wrong > 40 { // 0.2%; 16 bits and 11 probes a term: ~0.05%
				t.Errorf("the filter claims %d of 20,000 absent terms", wrong)
			}
			t.Logf("the filter claims %d of 20,000 absent terms", wrong)
		})
	}
}

// TestTermFilterWrittenAtCommit: Commit writes a field's filter for the
// meta's digest, and keeps one already current.
func TestTermFilterWrittenAtCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.reqa")
	var digest uint32
	var terms int
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Update(func(tx *WriteTx) error {
		fw, err := tx.Field("word/ctx")
		if err != nil {
			return err
		}
		for _, term := range []string{"alpha", "beta", "gamma"} {
			if err := fw.PutPostings(term, []byte{1, 0, 1}); err != nil {
				return err
			}
		}
		digest, terms = fw.Digest()
		return fw.PutDocLens([]byte{1, 4})
	}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(Meta{Contexts: 0, Fields: []FieldMeta{{Name: "word/ctx", Docs: 1, Digest: digest, DigestTerms: terms}}}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenWith(path, OpenOptions{LazyTerms: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := r.termFilter("word/ctx")
	if err != nil || f == nil {
		t.Fatalf("no current filter after Commit: %v, %v", f, err)
	}
	for _, term := range []string{"alpha", "beta", "gamma"} {
		if !f.has([]byte(term)) {
			t.Errorf("the filter lacks %q", term)
		}
	}
	if rep := r.Check(); len(rep.Problems) > 0 {
		t.Errorf("Check: %v", rep.Problems)
	}
}

// TestCheckTermFilter: Check reads a field's filter as a record and
// reports a current filter that lacks a term (a lazy reader would take
// that term's damaged key for an absent term).
func TestCheckTermFilter(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(fb *bolt.Bucket) error
		want string
	}{
		{"intact", nil, ""},
		{"bits cleared", func(fb *bolt.Bucket) error {
			p, _ := unseal(append([]byte(nil), fb.Get(keyTermFilter)...), "")
			clear(p[filterHeader:])
			return fb.Put(keyTermFilter, seal(p))
		}, "term filter lacks the term"},
		{"checksum", func(fb *bolt.Bucket) error {
			v := append([]byte(nil), fb.Get(keyTermFilter)...)
			v[len(v)-1] ^= 1
			return fb.Put(keyTermFilter, v)
		}, "word/ctx term filter"},
		{"stale, bits cleared", func(fb *bolt.Bucket) error {
			p, _ := unseal(append([]byte(nil), fb.Get(keyTermFilter)...), "")
			clear(p[filterHeader:])
			p[3] ^= 1 // built for another term count: not used, not checked
			return fb.Put(keyTermFilter, seal(p))
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filterIndex(t, 500)
			if tc.edit != nil {
				editField(t, path, tc.edit)
			}
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			rep := r.Check()
			got := fmt.Sprint(rep.Problems)
			switch {
			case tc.want == "" && len(rep.Problems) > 0:
				t.Errorf("Check: %v", rep.Problems)
			case tc.want != "" && (len(rep.Problems) == 0 || !strings.Contains(got, tc.want) || !errors.Is(rep.Problems[0], ErrCorrupt)):
				t.Errorf("Check: %v, want %q", rep.Problems, tc.want)
			}
		})
	}
}

// FuzzDecodeTermFilter: any bytes decode to an error or a filter whose
// probes stay inside its bits, and a filter written by buildTermFilter
// decodes to one holding every term it was built from.
func FuzzDecodeTermFilter(f *testing.F) {
	path := filterIndex(f, 50)
	r, err := Open(path)
	if err != nil {
		f.Fatal(err)
	}
	var stored []byte
	if err := r.view(func(tx *bolt.Tx) error {
		p, err := unseal(tx.Bucket([]byte(fieldPrefix+"word/ctx")).Get(keyTermFilter), "")
		stored = append([]byte(nil), p...)
		return err
	}); err != nil {
		f.Fatal(err)
	}
	r.Close()
	f.Add(stored, "t0007")
	f.Add(stored[:filterHeader], "x")
	f.Add([]byte{}, "")
	f.Fuzz(func(t *testing.T, p []byte, term string) {
		tf, err := decodeTermFilter(p, "fuzz")
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		tf.has([]byte(term)) // must not index outside the bits
		if bytes.Equal(p, stored) && !tf.has([]byte("t0007")) {
			t.Fatal("the stored filter lost a term")
		}
	})
}

// TestTermHashes: the filter's hash is FNV-1a 64 (the layout says so: a
// filter written by one reqa is read by the next).
func TestTermHashes(t *testing.T) {
	for _, term := range []string{"", "a", "grows", "▁the", "\xff"} {
		h := fnv.New64a()
		h.Write([]byte(term))
		s := h.Sum64()
		if h1, h2 := termHashes([]byte(term)); h1 != s&0xffffffff || h2 != s>>32|1 {
			t.Errorf("%q: %x %x, FNV-1a gives %x", term, h1, h2, s)
		}
	}
}
