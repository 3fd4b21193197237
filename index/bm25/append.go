package bm25

import (
	"context"
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/reqa/reqa/store"
)

// AppendField is [AppendTo] for a field of the index w is writing, over
// as many transactions as it takes to keep each under about [TxBytes] of
// merged postings; statistics and digest come from a last pass over what
// is stored. It stops early with ctx's error when ctx is cancelled.
func AppendField(ctx context.Context, w *store.Writer, old store.FieldMeta, b *Builder) (store.FieldMeta, error) {
	if err := mergeAll(ctx, w, old.Name, uint32(old.Docs), b); err != nil {
		return old, err
	}
	var fm store.FieldMeta
	err := w.Update(func(tx *store.WriteTx) error {
		fw, err := tx.Field(old.Name)
		if err != nil {
			return err
		}
		fm, err = finishAppend(fw, old, b)
		return err
	})
	return fm, err
}

// mergeAll merges every term of b into the stored field name, b's
// document i becoming base + i, over bounded transactions.
func mergeAll(ctx context.Context, w *store.Writer, name string, base uint32, b *Builder) error {
	return b.inBatches(ctx, w, func(tx *store.WriteTx) (*store.FieldWriter, error) {
		return tx.Field(name)
	}, func(fw *store.FieldWriter, t string) (int, error) {
		return mergePostings(fw, name, base, b, t)
	}, nil, nil)
}

// AppendTo adds the builder's documents to a stored field after its old.Docs
// existing documents (builder document i becomes old.Docs + i): it merges
// the postings of every term the builder holds, extends the document
// lengths and returns the field's new statistics and digest, as a build of
// all the documents at once would give them. Only the new documents are
// tokenized; the existing postings are read once, for the document
// frequencies the mean idf needs.
//
// The mean idf sums the same terms as a build from scratch, but the build
// sums in order of first appearance, which the postings do not record down
// to the token; the append sums in (first document, term) order, so the
// two can differ in the last bits of MeanIDF (|Δ| ≈ 1e-16 relative).
func AppendTo(fw *store.FieldWriter, old store.FieldMeta, b *Builder) (store.FieldMeta, error) {
	sorted := append([]string(nil), b.order...)
	sort.Strings(sorted)
	for _, t := range sorted {
		if _, err := mergePostings(fw, old.Name, uint32(old.Docs), b, t); err != nil {
			return old, err
		}
	}
	return finishAppend(fw, old, b)
}

// mergePostings stores the old postings of term in field name (documents
// below base) followed by the builder's, shifted past them, and returns the
// bytes written.
func mergePostings(fw *store.FieldWriter, name string, base uint32, b *Builder, t string) (int, error) {
	add := b.lists[b.terms[t]].decoded()
	var merged []Posting
	if enc, ok, err := fw.Postings(t); err != nil {
		return 0, err
	} else if ok {
		if merged, err = DecodePostings(enc, base); err != nil {
			return 0, fmt.Errorf("field %s postings of %q: %w", name, t, store.ErrCorrupt)
		}
	}
	merged = append(merged, make([]Posting, len(add))...)
	shifted := merged[len(merged)-len(add):]
	for i, p := range add {
		shifted[i] = Posting{Doc: base + p.Doc, TF: p.TF}
	}
	enc := EncodePostings(merged)
	if err := fw.SetPostings(t, enc); err != nil {
		return 0, fmt.Errorf("field %s: write postings of %q: %w", name, t, err)
	}
	return len(t) + len(enc), nil
}

// finishAppend extends the document lengths and computes the field's new
// statistics and digest from what is stored.
func finishAppend(fw *store.FieldWriter, old store.FieldMeta, b *Builder) (store.FieldMeta, error) {
	base := uint32(old.Docs)
	raw, err := fw.DocLens()
	if err != nil {
		return old, err
	}
	lens, err := DecodeDocLens(raw)
	if err != nil || len(lens) != old.Docs {
		return old, fmt.Errorf("field %s: document lengths: %w", old.Name, store.ErrCorrupt)
	}
	total := base + uint32(len(b.docLens))
	lens = append(lens, b.docLens...)
	if err := fw.PutDocLens(EncodeDocLens(lens)); err != nil {
		return old, err
	}

	// Statistics over the whole field, from the stored postings.
	type termDF struct {
		term  string
		first uint32
		df    int
	}
	var all []termDF
	err = fw.ForEachPostings(func(term string, enc []byte) error {
		df, k := binary.Uvarint(enc)
		first, k2 := binary.Uvarint(enc[max(k, 0):])
		if k <= 0 || k2 <= 0 || df == 0 || df > uint64(total) || first >= uint64(total) {
			return fmt.Errorf("field %s postings of %q: %w", old.Name, term, store.ErrCorrupt)
		}
		all = append(all, termDF{term, uint32(first), int(df)})
		return nil
	})
	if err != nil {
		return old, err
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].first < all[j].first })
	fm := old
	fm.Docs = int(total)
	fm.Terms = len(all)
	fm.Tokens = old.Tokens + b.tokens
	fm.AvgDL = float64(fm.Tokens) / float64(fm.Docs)
	sum := 0.0
	for _, x := range all {
		sum += rawIDF(fm.Docs, x.df)
	}
	fm.MeanIDF = 0
	if len(all) > 0 {
		fm.MeanIDF = sum / float64(len(all))
	}
	fm.Digest, fm.DigestTerms = fw.Redigest()
	return fm, nil
}
