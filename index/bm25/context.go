package bm25

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/reqa/reqa/store"
)

// ContextLayout is the [store.FieldMeta] Layout of a sentence + context
// field stored as context postings.
//
// A sentence + context document is the sentence followed by its whole
// context, so a context's terms appear once in the postings of every one
// of its sentences: on paragraphs of about five sentences that made the
// sentence + context fields four fifths of a BM25 index, and on text cut
// into 4 KiB passages (about 60 sentences each) over 90%. In the context
// layout the field stores each term's postings over contexts (document =
// context id), and a term's postings over sentence + context documents are
// computed when asked, from those and the same tokenizer's sentence-only
// field: tf = tf(context) + tf(sentence), for every sentence of a context
// that holds the term and every sentence that holds it itself
// ([ContextPostings]). The scores are those of the expanded layout to the
// last bit: the postings, document lengths and statistics are the same.
const ContextLayout = "context"

// sentenceMap lists each context's sentences, in id order, in one array
// (a context's are ids[at[c]:at[c+1]]): two slices, not one per context,
// which matters with many small contexts.
type sentenceMap struct {
	at  []uint32
	ids []uint32
}

func newSentenceMap(ctxOf []uint32, contexts int) (sentenceMap, error) {
	if contexts < 0 || uint64(contexts) > math.MaxUint32 {
		return sentenceMap{}, fmt.Errorf("bm25: %d contexts: %w: %w", contexts, ErrCorrupt, store.ErrCorrupt)
	}
	m := sentenceMap{at: make([]uint32, contexts+1), ids: make([]uint32, len(ctxOf))}
	for s, c := range ctxOf {
		if int(c) >= contexts {
			return m, fmt.Errorf("bm25: sentence %d in context %d of %d: %w: %w", s, c, contexts, ErrCorrupt, store.ErrCorrupt)
		}
		m.at[c+1]++
	}
	for c := 1; c <= contexts; c++ {
		m.at[c] += m.at[c-1]
	}
	next := slices.Clone(m.at[:contexts])
	for s, c := range ctxOf {
		m.ids[next[c]] = uint32(s)
		next[c]++
	}
	return m, nil
}

func (m sentenceMap) of(c uint32) []uint32 { return m.ids[m.at[c]:m.at[c+1]] }

// Contexts is every sentence's context id and, built on first use and
// then shared by every field in the context layout opened with it (an
// index's word and stem fields, say), each context's sentences. It is
// safe for concurrent use.
type Contexts struct {
	of       []uint32
	once     sync.Once
	contexts int
	m        sentenceMap
	err      error
}

// NewContexts returns the Contexts of sentences whose context ids are
// ctxOf (not copied; nil: Open reads the sentence records).
func NewContexts(ctxOf []uint32) *Contexts { return &Contexts{of: ctxOf} }

// sentences returns each of contexts contexts' sentences.
func (c *Contexts) sentences(contexts int) (sentenceMap, error) {
	c.once.Do(func() {
		c.contexts = contexts
		c.m, c.err = newSentenceMap(c.of, contexts)
	})
	if c.err == nil && c.contexts != contexts {
		return sentenceMap{}, fmt.Errorf("bm25: %d contexts, %d before: %w: %w", contexts, c.contexts, ErrCorrupt, store.ErrCorrupt)
	}
	return c.m, c.err
}

func (m sentenceMap) contexts() int { return len(m.at) - 1 }

// ContextPostings is the [Source] of a sentence + context field in the
// context layout. It is safe for concurrent use.
type ContextPostings struct {
	ctx, sent Source
	sentsOf   sentenceMap
	ctxOf     []uint32
	inOrder   bool // sentence ids grow with context ids: no sort needed
	cache     *postingsCache
}

// NewContextPostings returns the sentence + context postings computed from
// ctx (postings over contexts, document = context id) and sent (postings
// over sentences alone), where sentence s belongs to context ctxOf[s] and
// there are contexts contexts.
func NewContextPostings(ctx, sent Source, ctxOf []uint32, contexts int) (*ContextPostings, error) {
	return newContextPostings(ctx, sent, NewContexts(ctxOf), contexts)
}

// newContextPostings is NewContextPostings with the sentence lists of cs.
func newContextPostings(ctx, sent Source, cs *Contexts, contexts int) (*ContextPostings, error) {
	ctxOf := cs.of
	m, err := cs.sentences(contexts)
	if err != nil {
		return nil, err
	}
	p := &ContextPostings{ctx: ctx, sent: sent, sentsOf: m, ctxOf: ctxOf, inOrder: slices.IsSorted(ctxOf), cache: newPostingsCache()}
	return p, nil
}

// Postings returns the postings of term over sentence + context documents.
func (p *ContextPostings) Postings(term string) ([]Posting, bool, error) {
	if ps, found, ok := p.cache.get(term); ok {
		return ps, found, nil
	}
	ps, found, err := p.expand(term)
	if err != nil {
		return nil, false, err
	}
	p.cache.put(term, ps)
	return ps, found, nil
}

func (p *ContextPostings) expand(term string) ([]Posting, bool, error) {
	cp, sp, ok, err := p.lists(term)
	if err != nil || !ok {
		return nil, false, err
	}
	if p.inOrder {
		c := &collected{}
		found, err := mergeInOrder(p, term, cp, sp, collector{c})
		return c.ps, found, err
	}
	n := 0
	for _, x := range cp {
		n += len(p.sentsOf.of(x.Doc))
	}
	fromCtx := make([]Posting, 0, n)
	for _, x := range cp {
		for _, s := range p.sentsOf.of(x.Doc) {
			fromCtx = append(fromCtx, Posting{Doc: s, TF: x.TF})
		}
	}
	slices.SortFunc(fromCtx, func(a, b Posting) int { return cmp.Compare(a.Doc, b.Doc) })
	// Merge in the sentences' own counts (both lists are in document
	// order; a sentence may hold a term its context does not, when the
	// two are tokenized differently at the sentence's edges).
	out := make([]Posting, 0, len(fromCtx)+len(sp))
	i := 0
	for _, x := range sp {
		for i < len(fromCtx) && fromCtx[i].Doc < x.Doc {
			out = append(out, fromCtx[i])
			i++
		}
		if i < len(fromCtx) && fromCtx[i].Doc == x.Doc {
			if uint64(fromCtx[i].TF)+uint64(x.TF) > math.MaxUint32 {
				return nil, false, fmt.Errorf("bm25: term frequency of %q overflows: %w", term, ErrCorrupt)
			}
			out = append(out, Posting{Doc: x.Doc, TF: fromCtx[i].TF + x.TF})
			i++
			continue
		}
		out = append(out, x)
	}
	out = append(out, fromCtx[i:]...)
	return out, true, nil
}

// lists returns term's postings over contexts and over sentences alone,
// checking that every context they name exists; ok is false when the
// term is in neither.
func (p *ContextPostings) lists(term string) (cp, sp []Posting, ok bool, err error) {
	cp, okc, err := p.ctx.Postings(term)
	if err != nil {
		return nil, nil, false, err
	}
	sp, oks, err := p.sent.Postings(term)
	if err != nil {
		return nil, nil, false, err
	}
	for _, x := range cp {
		if int(x.Doc) >= p.sentsOf.contexts() {
			return nil, nil, false, fmt.Errorf("bm25: postings of %q name context %d of %d: %w: %w", term, x.Doc, p.sentsOf.contexts(), ErrCorrupt, store.ErrCorrupt)
		}
	}
	return cp, sp, okc || oks, nil
}

// postingSink takes a term's postings one at a time, after being told
// how many there are (streamPostings). Instantiated with a struct type, as
// the scorer's is, its calls compile to direct, inlinable ones.
type postingSink interface {
	// start is called once with the number of postings, before any add;
	// an error stops the stream.
	start(n int) error
	add(doc, tf uint32)
}

// collector is the postingSink that keeps what it is given (expand).
type collector struct{ c *collected }

type collected struct {
	ps []Posting
	df int
}

func (c collector) start(n int) error {
	c.c.df, c.c.ps = n, make([]Posting, 0, n)
	return nil
}

func (c collector) add(doc, tf uint32) { c.c.ps = append(c.c.ps, Posting{Doc: doc, TF: tf}) }

// streamPostings hands term's sentence + context postings to s in the
// order Postings returns them, without holding them all (a common term's
// are nearly every sentence of the index). A term already cached, or an
// index whose sentence ids do not grow with their context ids (a sort
// needs the whole list), takes expand's path. found is false when the
// term has no postings; then s is not called.
func streamPostings[S postingSink](p *ContextPostings, term string, s S) (found bool, err error) {
	if ps, found, ok := p.cache.get(term); ok || !p.inOrder {
		if !ok {
			var err error
			if ps, found, err = p.Postings(term); err != nil {
				return false, err
			}
		}
		if !found || len(ps) == 0 {
			return false, nil
		}
		if err := s.start(len(ps)); err != nil {
			return false, err
		}
		for _, x := range ps {
			s.add(x.Doc, x.TF)
		}
		return true, nil
	}
	cp, sp, ok, err := p.lists(term)
	if err != nil || !ok {
		return false, err
	}
	return mergeInOrder(p, term, cp, sp, s)
}

// mergeInOrder hands s the sentence + context postings of term from its
// context postings cp (checked by lists) and sentence postings sp, for an
// index whose sentence ids grow with their context ids: every sentence of
// every context holding the term, with the sentence's own count added,
// and every sentence holding it whose context does not, in sentence
// order, never held as a list.
func mergeInOrder[S postingSink](p *ContextPostings, term string, cp, sp []Posting, s S) (found bool, err error) {
	// The count first (both lists run in context order, the sentences'
	// because their ids grow with their contexts').
	n := 0
	for _, x := range cp {
		n += len(p.sentsOf.of(x.Doc))
	}
	j := 0
	for _, x := range sp {
		if int(x.Doc) >= len(p.ctxOf) {
			return false, fmt.Errorf("bm25: postings of %q name sentence %d of %d: %w: %w", term, x.Doc, len(p.ctxOf), ErrCorrupt, store.ErrCorrupt)
		}
		c := p.ctxOf[x.Doc]
		for j < len(cp) && cp[j].Doc < c {
			j++
		}
		if j == len(cp) || cp[j].Doc != c {
			n++
		}
	}
	if n == 0 {
		return false, nil
	}
	if err := s.start(n); err != nil {
		return false, err
	}
	k := 0
	for _, x := range cp {
		for _, d := range p.sentsOf.of(x.Doc) {
			for k < len(sp) && sp[k].Doc < d {
				s.add(sp[k].Doc, sp[k].TF)
				k++
			}
			tf := x.TF
			if k < len(sp) && sp[k].Doc == d {
				if uint64(tf)+uint64(sp[k].TF) > math.MaxUint32 {
					return false, fmt.Errorf("bm25: term frequency of %q overflows: %w", term, ErrCorrupt)
				}
				tf += sp[k].TF
				k++
			}
			s.add(d, tf)
		}
	}
	for ; k < len(sp); k++ {
		s.add(sp[k].Doc, sp[k].TF)
	}
	return true, nil
}

// ContextField is one tokenizer's sentence + context field held as a
// builder over contexts, ready to be written in the context layout: with
// the same tokenizer's sentence-only builder it gives the field's document
// lengths and statistics, equal to those of the expanded field.
type ContextField struct {
	// Contexts has one document per context, in context id order.
	Contexts *Builder
	// Sentences has one document per sentence alone, in sentence id order.
	Sentences *Builder
	// CtxOf gives every sentence's context.
	CtxOf []uint32
	// Order lists the terms of the sentence + context documents in order
	// of first appearance (sentence by sentence, its tokens then its
	// context's), the order gensim sums the mean idf in.
	Order []string

	// Per context, its distinct terms by first appearance: context c's are
	// ctxTerms[ctxAt[c]:ctxAt[c+1]].
	ctxTerms []int32
	ctxAt    []int
	seen     map[string]struct{}
}

// NewContextField returns an empty field. Fill it with AddContext for
// every context, in id order, then AddSentence for every sentence, in id
// order.
func NewContextField() *ContextField {
	return &ContextField{Contexts: NewBuilder(), Sentences: NewBuilder(), seen: map[string]struct{}{}}
}

// AddContext adds the next context's tokens (context ids count from 0).
func (f *ContextField) AddContext(tokens []string) {
	f.Contexts.Add(tokens)
	// The context's distinct terms in order of first appearance, for the
	// vocabulary order of its sentences' documents (freed once every
	// sentence is added).
	if len(f.ctxAt) == 0 {
		f.ctxAt = append(f.ctxAt, 0)
	}
	f.ctxTerms = append(f.ctxTerms, f.Contexts.first...)
	f.ctxAt = append(f.ctxAt, len(f.ctxTerms))
}

// AddSentence adds the next sentence's tokens; it belongs to context ctx,
// already added.
func (f *ContextField) AddSentence(ctx uint32, tokens []string) error {
	if f.seen == nil {
		return errors.New("bm25: AddSentence after Done")
	}
	if int(ctx) >= f.Contexts.Docs() {
		return fmt.Errorf("bm25: sentence %d in context %d of %d", len(f.CtxOf), ctx, f.Contexts.Docs())
	}
	f.Sentences.Add(tokens)
	f.CtxOf = append(f.CtxOf, ctx)
	for _, t := range tokens {
		if _, ok := f.seen[t]; !ok {
			t = f.Sentences.order[f.Sentences.terms[t]] // the builder's copy
			f.seen[t] = struct{}{}
			f.Order = append(f.Order, t)
		}
	}
	for _, id := range f.ctxTerms[f.ctxAt[ctx]:f.ctxAt[ctx+1]] {
		t := f.Contexts.order[id]
		if _, ok := f.seen[t]; !ok {
			f.seen[t] = struct{}{}
			f.Order = append(f.Order, t)
		}
	}
	return nil
}

// Done frees what only adding needed; nothing can be added after it.
func (f *ContextField) Done() {
	f.ctxTerms, f.ctxAt, f.seen = nil, nil, nil
}

// DocLens returns the length of every sentence + context document.
func (f *ContextField) DocLens() []uint32 {
	lens := make([]uint32, len(f.CtxOf))
	for s, c := range f.CtxOf {
		lens[s] = f.Sentences.docLens[s] + f.Contexts.docLens[c]
	}
	return lens
}

// Source returns the field's postings over sentence + context documents.
func (f *ContextField) Source() (*ContextPostings, error) {
	return NewContextPostings(f.Contexts, f.Sentences, f.CtxOf, f.Contexts.Docs())
}

// Stats returns the field's statistics, as an expanded build of the same
// documents gives them, with Layout set to ContextLayout.
func (f *ContextField) Stats(name, tokenizer string) (store.FieldMeta, error) {
	src, err := f.Source()
	if err != nil {
		return store.FieldMeta{}, err
	}
	n := len(f.CtxOf)
	fm := store.FieldMeta{Name: name, Tokenizer: tokenizer, WithContext: true, Layout: ContextLayout, Docs: n, Terms: len(f.Order)}
	for _, l := range f.DocLens() {
		fm.Tokens += int64(l)
	}
	if n > 0 {
		fm.AvgDL = float64(fm.Tokens) / float64(n)
	}
	if len(f.Order) > 0 {
		sum := 0.0
		for _, t := range f.Order {
			df, err := src.df(t)
			if err != nil {
				return store.FieldMeta{}, err
			}
			sum += rawIDF(n, df)
		}
		fm.MeanIDF = sum / float64(len(f.Order))
	}
	return fm, nil
}

// df returns the number of sentence + context documents holding term,
// without expanding its postings: the sentences of the contexts that hold
// it, plus the sentences that hold it and whose context does not.
func (p *ContextPostings) df(term string) (int, error) {
	cp, _, err := p.ctx.Postings(term)
	if err != nil {
		return 0, err
	}
	sp, _, err := p.sent.Postings(term)
	if err != nil {
		return 0, err
	}
	return contextDF(cp, sp, p.sentsOf, func(s uint32) uint32 { return p.ctxOf[s] })
}

// contextDF counts the sentence + context documents of a term with
// context postings cp and sentence postings sp.
func contextDF(cp, sp []Posting, sentsOf sentenceMap, ctxOf func(uint32) uint32) (int, error) {
	df := 0
	for _, x := range cp {
		if int(x.Doc) >= sentsOf.contexts() {
			return 0, fmt.Errorf("bm25: postings name context %d of %d: %w: %w", x.Doc, sentsOf.contexts(), ErrCorrupt, store.ErrCorrupt)
		}
		df += len(sentsOf.of(x.Doc))
	}
	for _, x := range sp {
		c := ctxOf(x.Doc)
		if _, held := slices.BinarySearchFunc(cp, c, func(p Posting, c uint32) int { return cmp.Compare(p.Doc, c) }); !held {
			df++
		}
	}
	return df, nil
}

// Write stores the field in the context layout: the contexts' postings
// and the sentence + context document lengths, over bounded transactions
// like [Builder.WriteField]. It returns the term-dictionary digest and
// term count of what it stored.
func (f *ContextField) Write(ctx context.Context, w *store.Writer, name string, progress func(done, total int)) (uint32, int, error) {
	return f.Contexts.writeField(ctx, w, name, f.DocLens(), progress)
}

// Expand returns a builder holding the field in the expanded layout (one
// document per sentence: the sentence, then its context), as adding those
// documents one by one would have made it. Appending to an index written
// before the context layout needs it.
func (f *ContextField) Expand() (*Builder, error) {
	src, err := f.Source()
	if err != nil {
		return nil, err
	}
	b := NewBuilder()
	b.docLens = f.DocLens()
	for _, l := range b.docLens {
		b.tokens += int64(l)
	}
	for _, t := range f.Order {
		ps, _, err := src.expand(t)
		if err != nil {
			return nil, err
		}
		id := int32(len(b.order))
		b.terms[t] = id
		b.order = append(b.order, t)
		var l postList
		for _, p := range ps {
			l.add(p.Doc, p.TF)
		}
		b.lists = append(b.lists, l)
	}
	return b, nil
}

// AppendContextField adds f to a stored sentence + context field in the
// context layout, whose index held oldContexts contexts and old.Docs
// sentences: f's context i becomes oldContexts + i and its sentence j
// old.Docs + j. It must run after f.Sentences has been appended to the
// same tokenizer's sentence field, sentName (the statistics read it);
// ctxOf gives the context of every sentence, old and new. Like
// [AppendField] it merges over bounded transactions, then computes the
// statistics and digest from what is stored, with the same caveat on the
// last bits of MeanIDF.
func AppendContextField(ctx context.Context, w *store.Writer, old store.FieldMeta, oldContexts int, f *ContextField, sentName string, ctxOf []uint32) (store.FieldMeta, error) {
	if old.Layout != ContextLayout {
		return old, fmt.Errorf("field %s: layout %q, not %q", old.Name, old.Layout, ContextLayout)
	}
	if err := mergeAll(ctx, w, old.Name, uint32(oldContexts), f.Contexts); err != nil {
		return old, err
	}
	contexts := oldContexts + f.Contexts.Docs()
	total := old.Docs + len(f.CtxOf)
	if len(ctxOf) != total {
		return old, fmt.Errorf("field %s: %d sentence contexts for %d sentences: %w", old.Name, len(ctxOf), total, store.ErrCorrupt)
	}
	sentsOf, err := newSentenceMap(ctxOf, contexts)
	if err != nil {
		return old, fmt.Errorf("field %s: %w", old.Name, err)
	}
	fm := old
	err = w.Update(func(tx *store.WriteTx) error {
		fw, err := tx.Field(old.Name)
		if err != nil {
			return err
		}
		sw, err := tx.Field(sentName)
		if err != nil {
			return err
		}
		// The statistics read the sentence field: it must hold the new
		// sentences already.
		if raw, err := sw.DocLens(); err != nil {
			return err
		} else if sl, err := DecodeDocLens(raw); err != nil || len(sl) != total {
			return fmt.Errorf("field %s: its sentence field %s holds %d documents, want %d (append it first): %w", old.Name, sentName, len(sl), total, store.ErrCorrupt)
		}
		raw, err := fw.DocLens()
		if err != nil {
			return err
		}
		lens, err := DecodeDocLens(raw)
		if err != nil || len(lens) != old.Docs {
			return fmt.Errorf("field %s: document lengths: %w", old.Name, store.ErrCorrupt)
		}
		add := f.DocLens()
		lens = append(lens, add...)
		if err := fw.PutDocLens(EncodeDocLens(lens)); err != nil {
			return err
		}
		fm.Docs = total
		fm.Tokens = old.Tokens
		for _, l := range add {
			fm.Tokens += int64(l)
		}
		fm.AvgDL = 0
		if total > 0 {
			fm.AvgDL = float64(fm.Tokens) / float64(total)
		}

		var err2 error
		if fm.Terms, fm.MeanIDF, err2 = contextStats(fw, sw, old.Name, sentName, contexts, total, ctxOf, sentsOf); err2 != nil {
			return err2
		}
		fm.Digest, fm.DigestTerms = fw.Redigest()
		return nil
	})
	return fm, err
}

// contextStats returns the vocabulary size and mean raw idf of a
// sentence + context field in the context layout (fw; its sentence field
// sw, sentName), over contexts contexts and total sentences whose contexts
// ctxOf gives.
func contextStats(fw, sw *store.FieldWriter, name, sentName string, contexts, total int, ctxOf []uint32, sentsOf sentenceMap) (terms int, meanIDF float64, err error) {
	// Every term of the sentence + context documents is in the
	// sentence field or the context field: its document frequency is
	// the number of sentences of the contexts that hold it plus the
	// sentences that hold it and whose context does not.
	type termDF struct {
		term  string
		first uint32
		df    int
	}
	var all []termDF
	stat := func(term string) error {
		var cp, sp []Posting
		if enc, ok, err := fw.Postings(term); err != nil {
			return err
		} else if ok {
			if cp, err = DecodePostings(enc, uint32(contexts)); err != nil {
				return fmt.Errorf("field %s postings of %q: %w", name, term, store.ErrCorrupt)
			}
		}
		if enc, ok, err := sw.Postings(term); err != nil {
			return err
		} else if ok {
			if sp, err = DecodePostings(enc, uint32(total)); err != nil {
				return fmt.Errorf("field %s postings of %q: %w", sentName, term, store.ErrCorrupt)
			}
		}
		x := termDF{term: term, first: uint32(total)}
		df, err := contextDF(cp, sp, sentsOf, func(s uint32) uint32 { return ctxOf[s] })
		if err != nil {
			return fmt.Errorf("field %s postings of %q: %w", name, term, err)
		}
		x.df = df
		for _, p := range cp {
			if ss := sentsOf.of(p.Doc); len(ss) > 0 {
				x.first = min(x.first, ss[0])
			}
		}
		if len(sp) > 0 {
			x.first = min(x.first, sp[0].Doc)
		}
		if x.df > 0 {
			all = append(all, x)
		}
		return nil
	}
	err = sw.ForEachPostings(func(term string, _ []byte) error { return stat(term) })
	if err != nil {
		return 0, 0, err
	}
	err = fw.ForEachPostings(func(term string, _ []byte) error {
		if _, inSent, err := sw.Postings(term); err != nil || inSent {
			return err // counted above
		}
		return stat(term)
	})
	if err != nil {
		return 0, 0, err
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].first != all[j].first {
			return all[i].first < all[j].first
		}
		return all[i].term < all[j].term
	})
	terms = len(all)
	sum := 0.0
	for _, x := range all {
		sum += rawIDF(total, x.df)
	}
	if len(all) > 0 {
		meanIDF = sum / float64(len(all))
	}
	return terms, meanIDF, nil
}
