package bm25

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/reqa/reqa/store"
)

// Renumber says where a sync puts a field's documents: the stored
// document d becomes Keep[d] (deleted when negative), the builder's
// document i becomes At[i], and Docs documents remain.
type Renumber struct {
	Keep []int64
	At   []uint32
	Docs int
}

// SyncField rewrites a stored field whose documents are one per sentence
// (a sentence field, or a sentence + context field of the expanded
// layout) for a sync: the stored documents are kept or deleted and
// renumbered as r says, the builder's added, and the statistics and
// digest computed from what is stored, as a build of the remaining
// documents gives them (the mean idf up to its last bits, as
// [AppendField]). Only the builder's documents were tokenized: the kept
// documents' postings and lengths are carried over.
func SyncField(ctx context.Context, w *store.Writer, old store.FieldMeta, b *Builder, r Renumber) (store.FieldMeta, error) {
	if len(r.Keep) != old.Docs || len(r.At) != b.Docs() {
		return old, fmt.Errorf("field %s: renumbering %d+%d documents of %d+%d", old.Name, len(r.Keep), len(r.At), old.Docs, b.Docs())
	}
	fm := old
	err := w.Update(func(tx *store.WriteTx) error {
		fw, lens, err := rewrite(ctx, tx, old.Name, r, r, b, b.docLens)
		if err != nil {
			return err
		}
		fm.Docs, fm.Tokens, fm.AvgDL = r.Docs, sumLens(lens), 0
		if r.Docs > 0 {
			fm.AvgDL = float64(fm.Tokens) / float64(r.Docs)
		}
		type termDF struct {
			term  string
			first uint32
			df    int
		}
		var all []termDF
		err = fw.ForEachPostings(func(term string, enc []byte) error {
			ps, err := DecodePostings(enc, uint32(r.Docs))
			if err != nil || len(ps) == 0 {
				return fmt.Errorf("field %s postings of %q: %w", old.Name, term, store.ErrCorrupt)
			}
			all = append(all, termDF{term, ps[0].Doc, len(ps)})
			return nil
		})
		if err != nil {
			return err
		}
		sort.SliceStable(all, func(i, j int) bool { return all[i].first < all[j].first })
		fm.Terms, fm.MeanIDF = len(all), 0
		sum := 0.0
		for _, x := range all {
			sum += rawIDF(fm.Docs, x.df)
		}
		if len(all) > 0 {
			fm.MeanIDF = sum / float64(len(all))
		}
		fm.Digest, fm.DigestTerms = fw.Digest()
		return nil
	})
	return fm, err
}

// SyncContextField is [SyncField] for a sentence + context field in the
// context layout: its postings are over contexts (renumbered as ctxs
// says, f's contexts added), its document lengths over sentences (as
// sents says, f's sentence + context documents added). It must run after
// the tokenizer's sentence field, sentName, has been synced (the
// statistics read it); ctxOf gives the context of every sentence after.
func SyncContextField(ctx context.Context, w *store.Writer, old store.FieldMeta, f *ContextField, ctxs, sents Renumber, sentName string, ctxOf []uint32) (store.FieldMeta, error) {
	if old.Layout != ContextLayout {
		return old, fmt.Errorf("field %s: layout %q, not %q", old.Name, old.Layout, ContextLayout)
	}
	if len(sents.Keep) != old.Docs || len(sents.At) != len(f.CtxOf) || len(ctxs.At) != f.Contexts.Docs() || len(ctxOf) != sents.Docs {
		return old, fmt.Errorf("field %s: renumbering does not fit the field", old.Name)
	}
	sentsOf, err := newSentenceMap(ctxOf, ctxs.Docs)
	if err != nil {
		return old, fmt.Errorf("field %s: %w", old.Name, err)
	}
	fm := old
	err = w.Update(func(tx *store.WriteTx) error {
		fw, lens, err := rewrite(ctx, tx, old.Name, ctxs, sents, f.Contexts, f.DocLens())
		if err != nil {
			return err
		}
		sw, err := tx.Field(sentName)
		if err != nil {
			return err
		}
		fm.Docs, fm.Tokens, fm.AvgDL = sents.Docs, sumLens(lens), 0
		if sents.Docs > 0 {
			fm.AvgDL = float64(fm.Tokens) / float64(sents.Docs)
		}
		if fm.Terms, fm.MeanIDF, err = contextStats(fw, sw, old.Name, sentName, ctxs.Docs, sents.Docs, ctxOf, sentsOf); err != nil {
			return err
		}
		fm.Digest, fm.DigestTerms = fw.Digest()
		return nil
	})
	return fm, err
}

// rewrite replaces the field name with its postings renumbered as post
// says and b's added, and its document lengths renumbered as lensBy says
// with add (one per new document) added; it returns the new field's
// writer and lengths.
func rewrite(ctx context.Context, tx *store.WriteTx, name string, post, lensBy Renumber, b *Builder, add []uint32) (*store.FieldWriter, []uint32, error) {
	fw, err := tx.Field(name)
	if err != nil {
		return nil, nil, err
	}
	raw, err := fw.DocLens()
	if err != nil {
		return nil, nil, err
	}
	old, err := DecodeDocLens(raw)
	if err != nil || len(old) != len(lensBy.Keep) || len(add) != len(lensBy.At) {
		return nil, nil, fmt.Errorf("field %s: document lengths: %w", name, store.ErrCorrupt)
	}
	lens := make([]uint32, lensBy.Docs)
	for d, nd := range lensBy.Keep {
		if nd >= 0 {
			lens[nd] = old[d]
		}
	}
	for i, l := range add {
		lens[lensBy.At[i]] = l
	}
	merged := map[string][]Posting{}
	err = fw.ForEachPostings(func(term string, enc []byte) error {
		ps, err := DecodePostings(enc, uint32(len(post.Keep)))
		if err != nil {
			return fmt.Errorf("field %s postings of %q: %w", name, term, store.ErrCorrupt)
		}
		out := ps[:0]
		for _, p := range ps {
			if nd := post.Keep[p.Doc]; nd >= 0 {
				out = append(out, Posting{Doc: uint32(nd), TF: p.TF})
			}
		}
		if len(out) > 0 {
			merged[term] = out
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	for id, t := range b.order {
		for _, p := range b.lists[id].decoded() {
			merged[t] = append(merged[t], Posting{Doc: post.At[p.Doc], TF: p.TF})
		}
	}
	if err := tx.DeleteField(name); err != nil {
		return nil, nil, err
	}
	if fw, err = tx.Field(name); err != nil {
		return nil, nil, err
	}
	terms := make([]string, 0, len(merged))
	for t := range merged {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	for _, t := range terms {
		ps := merged[t]
		slices.SortFunc(ps, func(a, b Posting) int { return cmp.Compare(a.Doc, b.Doc) })
		if err := fw.PutPostings(t, EncodePostings(ps)); err != nil {
			return nil, nil, fmt.Errorf("field %s: write postings of %q: %w", name, t, err)
		}
	}
	if err := fw.PutDocLens(EncodeDocLens(lens)); err != nil {
		return nil, nil, err
	}
	return fw, lens, nil
}

func sumLens(lens []uint32) int64 {
	var n int64
	for _, l := range lens {
		n += int64(l)
	}
	return n
}
