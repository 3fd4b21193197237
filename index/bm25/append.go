package bm25

import (
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/reqa/reqa/store"
)

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
	sorted := append([]string(nil), b.order...)
	sort.Strings(sorted)
	for _, t := range sorted {
		add := b.lists[b.terms[t]].decoded()
		var merged []Posting
		if enc, ok, err := fw.Postings(t); err != nil {
			return old, err
		} else if ok {
			if merged, err = DecodePostings(enc, base); err != nil {
				return old, fmt.Errorf("field %s postings of %q: %w", old.Name, t, store.ErrCorrupt)
			}
		}
		merged = append(merged, make([]Posting, len(add))...)
		shifted := merged[len(merged)-len(add):]
		for i, p := range add {
			shifted[i] = Posting{Doc: base + p.Doc, TF: p.TF}
		}
		if err := fw.SetPostings(t, EncodePostings(merged)); err != nil {
			return old, fmt.Errorf("field %s: write postings of %q: %w", old.Name, t, err)
		}
	}
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
