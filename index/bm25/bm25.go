package bm25

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/reqa/reqa/store"
)

// Params are BM25's parameters; see [Gensim] and [Lucene].
type Params = store.BM25Params

// Gensim returns gensim 3.8 summarization.bm25's parameters (the MultiReQA
// paper's setup).
func Gensim() Params { return Params{Variant: "gensim", K1: 1.5, B: 0.75, Epsilon: 0.25} }

// Lucene returns Lucene's BM25 defaults.
func Lucene() Params { return Params{Variant: "lucene", K1: 1.2, B: 0.75} }

// ErrCorrupt reports undecodable postings or document lengths.
var ErrCorrupt = errors.New("bm25: damaged postings")

// Posting is one document's term frequency for a term.
type Posting struct {
	Doc uint32
	TF  uint32
}

// EncodePostings encodes postings sorted by Doc.
func EncodePostings(ps []Posting) []byte {
	b := make([]byte, 0, 2+3*len(ps))
	b = binary.AppendUvarint(b, uint64(len(ps)))
	prev := uint32(0)
	for i, p := range ps {
		d := p.Doc - prev
		if i == 0 {
			d = p.Doc
		}
		b = binary.AppendUvarint(b, uint64(d))
		b = binary.AppendUvarint(b, uint64(p.TF))
		prev = p.Doc
	}
	return b
}

// DecodePostings decodes what EncodePostings wrote. maxDoc bounds document
// ids (exclusive).
func DecodePostings(b []byte, maxDoc uint32) ([]Posting, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, ErrCorrupt
	}
	b = b[k:]
	out := make([]Posting, n)
	var doc uint64
	for i := range out {
		d, k1 := binary.Uvarint(b)
		if k1 <= 0 {
			return nil, ErrCorrupt
		}
		b = b[k1:]
		tf, k2 := binary.Uvarint(b)
		if k2 <= 0 {
			return nil, ErrCorrupt
		}
		b = b[k2:]
		if i > 0 && d == 0 {
			return nil, ErrCorrupt
		}
		doc += d
		if doc >= uint64(maxDoc) || tf == 0 || tf > math.MaxUint32 {
			return nil, ErrCorrupt
		}
		out[i] = Posting{Doc: uint32(doc), TF: uint32(tf)}
	}
	if len(b) != 0 {
		return nil, ErrCorrupt
	}
	return out, nil
}

// EncodeDocLens encodes document lengths.
func EncodeDocLens(ls []uint32) []byte {
	b := make([]byte, 0, 2*len(ls)+4)
	b = binary.AppendUvarint(b, uint64(len(ls)))
	for _, l := range ls {
		b = binary.AppendUvarint(b, uint64(l))
	}
	return b
}

// DecodeDocLens decodes what EncodeDocLens wrote.
func DecodeDocLens(b []byte) ([]uint32, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, ErrCorrupt
	}
	b = b[k:]
	out := make([]uint32, n)
	for i := range out {
		v, k := binary.Uvarint(b)
		if k <= 0 || v > math.MaxUint32 {
			return nil, ErrCorrupt
		}
		b = b[k:]
		out[i] = uint32(v)
	}
	if len(b) != 0 {
		return nil, ErrCorrupt
	}
	return out, nil
}

// Builder accumulates documents for one field. Documents get ids 0, 1, 2…
// in the order they are added. A Builder is not safe for concurrent use.
//
// A term's postings are kept as they will be stored: delta-coded document
// ids and term frequencies as uvarints, appended as documents arrive (ids
// only grow). That is 2–3 bytes a posting instead of a [Posting]'s 8 plus
// slice growth: on 10 MB of paragraphs the BM25 builders of a build went
// from 95 MB to under 30 MB of heap (BENCHMARKS.md, "Build memory"), and
// [Builder.Write] stores the bytes without re-encoding them.
type Builder struct {
	terms   map[string]int32
	order   []string   // terms by first appearance
	lists   []postList // by term id
	docLens []uint32
	tokens  int64
	scratch map[int32]uint32
	first   []int32
}

// postList is one term's postings in their stored encoding (without the
// leading count), with what appending the next one needs.
type postList struct {
	enc  []byte
	df   uint32 // postings in enc
	last uint32 // document of the last posting
}

func (l *postList) add(doc, tf uint32) {
	d := doc - l.last
	if l.df == 0 {
		d = doc
	}
	l.enc = binary.AppendUvarint(l.enc, uint64(d))
	l.enc = binary.AppendUvarint(l.enc, uint64(tf))
	l.df++
	l.last = doc
}

// encoded returns the postings as [EncodePostings] writes them.
func (l *postList) encoded() []byte {
	b := make([]byte, 0, binary.MaxVarintLen32+len(l.enc))
	b = binary.AppendUvarint(b, uint64(l.df))
	return append(b, l.enc...)
}

// decoded returns the postings.
func (l *postList) decoded() []Posting {
	out := make([]Posting, 0, l.df)
	b := l.enc
	var doc uint32
	for len(b) > 0 {
		d, k := binary.Uvarint(b)
		tf, k2 := binary.Uvarint(b[k:])
		b = b[k+k2:]
		doc += uint32(d)
		out = append(out, Posting{Doc: doc, TF: uint32(tf)})
	}
	return out
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{terms: make(map[string]int32), scratch: make(map[int32]uint32)}
}

// Add appends a document made of tokens and returns its id.
func (b *Builder) Add(tokens []string) uint32 {
	return b.AddParts(tokens)
}

// AddParts appends one document made of the concatenation of parts (for
// example a sentence's tokens and then its context's) and returns its id.
// It is Add without building the concatenation.
func (b *Builder) AddParts(parts ...[]string) uint32 {
	doc := uint32(len(b.docLens))
	clear(b.scratch)
	b.first = b.first[:0]
	n := 0
	for _, tokens := range parts {
		n += len(tokens)
		for _, t := range tokens {
			id, ok := b.terms[t]
			if !ok {
				id = int32(len(b.order))
				t = strings.Clone(t) // keep the term, not the text it was cut from
				b.terms[t] = id
				b.order = append(b.order, t)
				b.lists = append(b.lists, postList{})
			}
			if b.scratch[id] == 0 {
				b.first = append(b.first, id)
			}
			b.scratch[id]++
		}
	}
	for _, id := range b.first {
		b.lists[id].add(doc, b.scratch[id])
	}
	b.docLens = append(b.docLens, uint32(n))
	b.tokens += int64(n)
	return doc
}

// Docs returns the number of documents added.
func (b *Builder) Docs() int { return len(b.docLens) }

// Stats returns the field's statistics, as stored in the index meta.
func (b *Builder) Stats(name, tokenizer string, withContext bool) store.FieldMeta {
	n := len(b.docLens)
	fm := store.FieldMeta{Name: name, Tokenizer: tokenizer, WithContext: withContext, Docs: n, Terms: len(b.order), Tokens: b.tokens}
	if n > 0 {
		fm.AvgDL = float64(b.tokens) / float64(n)
	}
	if len(b.order) > 0 {
		sum := 0.0
		for id := range b.order { // gensim: dict order = first appearance
			sum += rawIDF(n, int(b.lists[id].df))
		}
		fm.MeanIDF = sum / float64(len(b.order))
	}
	return fm
}

// Write stores the field's postings (in term byte order) and document
// lengths. It stops early with ctx's error when ctx is cancelled.
func (b *Builder) Write(ctx context.Context, fw *store.FieldWriter) error {
	sorted := append([]string(nil), b.order...)
	sort.Strings(sorted)
	for i, t := range sorted {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		l := &b.lists[b.terms[t]]
		if err := fw.PutPostings(t, l.encoded()); err != nil {
			return fmt.Errorf("write postings of %q: %w", t, err)
		}
	}
	return fw.PutDocLens(EncodeDocLens(b.docLens))
}

// TxBytes bounds the postings bytes [Builder.WriteField] and [AppendField]
// put in one transaction: bbolt holds every page a transaction changes in
// memory until it commits, so writing a large field in one transaction
// cost as much memory again as the field (appending 1 MB to an index of
// 100 MB of text peaked at 455 MB of Go heap; see BENCHMARKS.md, "Build
// memory").
const TxBytes = 16 << 20

// txBatch is TxBytes, lowered by tests to exercise many transactions.
var txBatch = TxBytes

// WriteField writes the field name (postings in term byte order, then the
// document lengths) into w over as many transactions as it takes to keep
// each under about TxBytes, and returns the field's term-dictionary
// digest and term count. Nothing is visible until the writer commits, so
// several transactions are as safe as one. progress, if set, is called
// after each transaction with the terms written and the total. It stops
// early with ctx's error when ctx is cancelled.
func (b *Builder) WriteField(ctx context.Context, w *store.Writer, name string, progress func(done, total int)) (digest uint32, terms int, err error) {
	return b.writeField(ctx, w, name, b.docLens, progress)
}

// writeField is WriteField with the document lengths to store.
func (b *Builder) writeField(ctx context.Context, w *store.Writer, name string, docLens []uint32, progress func(done, total int)) (digest uint32, terms int, err error) {
	var fw *store.FieldWriter
	err = b.inBatches(ctx, w, func(tx *store.WriteTx) (*store.FieldWriter, error) {
		var err error
		if fw == nil {
			fw, err = tx.Field(name)
		} else {
			fw, err = tx.ResumeField(fw)
		}
		return fw, err
	}, func(fw *store.FieldWriter, t string) (int, error) {
		enc := b.lists[b.terms[t]].encoded()
		if err := fw.PutPostings(t, enc); err != nil {
			return 0, fmt.Errorf("write postings of %q: %w", t, err)
		}
		return len(t) + len(enc), nil
	}, func(fw *store.FieldWriter) error {
		return fw.PutDocLens(EncodeDocLens(docLens))
	}, progress)
	if err != nil {
		return 0, 0, err
	}
	digest, terms = fw.Digest()
	return digest, terms, nil
}

// inBatches calls put for every term of b, in byte order, over as many
// transactions of w as it takes to keep each under about txBatch bytes
// (put returns the bytes it wrote). bind gives each transaction its field
// writer; last, if set, runs in the last transaction after every term.
// progress, if set, is called after each transaction with the terms done.
// It stops early with ctx's error when ctx is cancelled.
func (b *Builder) inBatches(ctx context.Context, w *store.Writer, bind func(tx *store.WriteTx) (*store.FieldWriter, error),
	put func(fw *store.FieldWriter, term string) (int, error), last func(fw *store.FieldWriter) error, progress func(done, total int)) error {
	sorted := append([]string(nil), b.order...)
	sort.Strings(sorted)
	next := 0
	for {
		err := w.Update(func(tx *store.WriteTx) error {
			fw, err := bind(tx)
			if err != nil {
				return err
			}
			for size := 0; next < len(sorted) && size < txBatch; next++ {
				if next%4096 == 0 {
					if err := ctx.Err(); err != nil {
						return err
					}
				}
				n, err := put(fw, sorted[next])
				if err != nil {
					return err
				}
				size += n
			}
			if next == len(sorted) && last != nil {
				return last(fw)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if progress != nil {
			progress(next, len(sorted))
		}
		if next == len(sorted) {
			return nil
		}
	}
}

// Postings returns the postings of term (the builder as a [Source]).
func (b *Builder) Postings(term string) ([]Posting, bool, error) {
	id, ok := b.terms[term]
	if !ok {
		return nil, false, nil
	}
	return b.lists[id].decoded(), true, nil
}

// rawIDF is gensim's idf before the negative-idf floor.
func rawIDF(n, df int) float64 {
	return math.Log(float64(n)-float64(df)+0.5) - math.Log(float64(df)+0.5)
}

// Source looks up a term's postings.
type Source interface {
	Postings(term string) ([]Posting, bool, error)
}

// Field scores questions against one BM25 field. It is safe for concurrent
// use.
type Field struct {
	meta   store.FieldMeta
	params Params
	denom  []float64 // per document: k1·(1 − b + b·|d|/avgdl)
	src    Source
	eps    float64
}

// NewField returns a scorer over src with the given statistics and document
// lengths.
func NewField(meta store.FieldMeta, params Params, docLens []uint32, src Source) (*Field, error) {
	if len(docLens) != meta.Docs {
		return nil, fmt.Errorf("field %s: %d document lengths for %d documents: %w", meta.Name, len(docLens), meta.Docs, ErrCorrupt)
	}
	f := &Field{meta: meta, params: params, src: src, denom: make([]float64, len(docLens))}
	k1, b, avgdl := params.K1, params.B, meta.AvgDL
	for i, l := range docLens {
		if avgdl > 0 {
			f.denom[i] = k1 * (1 - b + b*float64(l)/avgdl)
		} else {
			f.denom[i] = k1
		}
	}
	// gensim's floor ε·mean idf; on a corpus whose mean idf is negative
	// gensim's floor is negative too, and matching a question term then
	// LOWERS a sentence's score below one that matches nothing. reqa floors
	// at ε·|mean idf| instead, which is gensim exactly whenever the mean
	// idf is ≥ 0 (every real benchmark) — see the package doc.
	f.eps = params.Epsilon * math.Abs(meta.MeanIDF)
	return f, nil
}

// FromBuilder returns a scorer over the builder's documents, without a store.
func FromBuilder(b *Builder, name, tokenizer string, withContext bool, params Params) *Field {
	f, _ := NewField(b.Stats(name, tokenizer, withContext), params, b.docLens, b)
	return f
}

// Open returns a scorer over the stored field name, caching decoded
// postings. cs gives every sentence's context; only a field in the
// [ContextLayout] needs it (nil, or nil context ids: the sentence records
// are read), and the fields opened with one share its sentence lists.
func Open(r *store.Reader, name string, cs *Contexts) (*Field, error) {
	meta, ok := r.Meta().Field(name)
	if !ok {
		return nil, fmt.Errorf("bm25 field %s: %w", name, store.ErrNotFound)
	}
	var src Source = &storeSource{r: r, name: name, maxDoc: uint32(meta.Docs), cache: newPostingsCache()}
	switch meta.Layout {
	case "":
	case ContextLayout:
		sentName, ok := store.SentenceField(name)
		sm, found := r.Meta().Field(sentName)
		if !ok || !found || sm.Tokenizer != meta.Tokenizer || sm.Docs != meta.Docs {
			return nil, fmt.Errorf("field %s: context layout without its sentence field %s: %w", name, sentName, store.ErrCorrupt)
		}
		if err := r.CheckField(sentName); err != nil {
			return nil, err
		}
		if cs == nil || cs.of == nil {
			sents, err := r.Sentences()
			if err != nil {
				return nil, err
			}
			ctxOf := make([]uint32, len(sents))
			for i, s := range sents {
				ctxOf[i] = s.ContextID
			}
			cs = NewContexts(ctxOf)
		}
		if len(cs.of) != meta.Docs {
			return nil, fmt.Errorf("field %s: %d sentences for %d documents: %w", name, len(cs.of), meta.Docs, store.ErrCorrupt)
		}
		// The meta's context count sizes an array: bound it by the file
		// (a context record takes more than a byte), so a damaged meta is
		// an error, not a crash.
		contexts := r.Meta().Contexts
		if st, err := os.Stat(r.Path()); err != nil || contexts < 0 || int64(contexts) > st.Size() || uint64(contexts) > math.MaxUint32 {
			return nil, fmt.Errorf("field %s: %d contexts: %w", name, contexts, store.ErrCorrupt)
		}
		// Only the expanded postings are cached (ContextPostings), not
		// the two lists they come from.
		cp, err := newContextPostings(
			&storeSource{r: r, name: name, maxDoc: uint32(contexts)},
			&storeSource{r: r, name: sentName, maxDoc: uint32(sm.Docs)},
			cs, contexts)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", name, err)
		}
		src = cp
	default:
		return nil, fmt.Errorf("field %s: unknown layout %q (written by a newer reqa?): %w", name, meta.Layout, store.ErrNewerFormat)
	}
	if err := r.CheckField(name); err != nil {
		return nil, err
	}
	raw, err := r.DocLens(name)
	if err != nil {
		return nil, err
	}
	lens, err := DecodeDocLens(raw)
	if err != nil {
		return nil, fmt.Errorf("field %s document lengths: %w", name, err)
	}
	return NewField(meta, r.Meta().BM25, lens, src)
}

// Meta returns the field's statistics.
func (f *Field) Meta() store.FieldMeta { return f.meta }

// Docs returns the number of documents.
func (f *Field) Docs() int { return len(f.denom) }

// IDF returns the idf the scorer uses for a term with document frequency df.
func (f *Field) IDF(df int) float64 {
	n := f.meta.Docs
	if f.params.Variant == "lucene" {
		return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
	}
	idf := rawIDF(n, df)
	if idf < 0 {
		return f.eps
	}
	return idf
}

// Accumulator holds per-document scores for one question. Reuse one per
// goroutine: Reset clears only the documents the last question touched.
type Accumulator struct {
	// Scores has one entry per document.
	Scores []float64
	// Touched lists the documents that matched at least one query token,
	// in the order they were first matched.
	Touched []uint32
	mark    []bool
}

// NewAccumulator returns an accumulator for n documents.
func NewAccumulator(n int) *Accumulator {
	// Touched has room for every document from the start: a common term
	// touches nearly all, and growing the list as it goes copied it
	// again and again (pages never touched cost no memory).
	return &Accumulator{Scores: make([]float64, n), mark: make([]bool, n), Touched: make([]uint32, 0, n)}
}

// Reset zeroes the scores of the touched documents.
func (a *Accumulator) Reset() {
	for _, d := range a.Touched {
		a.Scores[d] = 0
		a.mark[d] = false
	}
	a.Touched = a.Touched[:0]
}

// Touch marks document d as touched (its score is set by the caller).
func (a *Accumulator) Touch(d uint32) {
	if !a.mark[d] {
		a.mark[d] = true
		a.Touched = append(a.Touched, d)
	}
}

// TouchAll marks every document as touched (for scorers, like dense
// retrieval, that score them all).
func (a *Accumulator) TouchAll() {
	a.Touched = a.Touched[:0]
	for i := range a.Scores {
		a.mark[i] = true
		a.Touched = append(a.Touched, uint32(i))
	}
}

// Score adds the BM25 score of every document for the tokenized query into
// a, which must have been made for Docs() documents.
func (f *Field) Score(query []string, a *Accumulator) error {
	return f.ScoreWeighted(query, nil, a)
}

// ScoreWeighted is Score with each query token's term scaled by its
// weight (weights[i] for query[i]; nil weighs every token 1): the score of
// a document is Σ weight · idf · tf-part, so a token of weight ½ counts
// half as much as one of weight 1 and as much as half a repeat. Weights
// must be finite and positive.
func (f *Field) ScoreWeighted(query []string, weights []float64, a *Accumulator) error {
	if len(a.Scores) != len(f.denom) || len(a.mark) != len(f.denom) {
		return fmt.Errorf("bm25: accumulator has %d entries for %d documents", len(a.Scores), len(f.denom))
	}
	if weights != nil && len(weights) != len(query) {
		return fmt.Errorf("bm25: %d weights for %d query tokens", len(weights), len(query))
	}
	sc := &termScorer{f: f, a: a, k1: f.params.K1, lucene: f.params.Variant == "lucene"}
	for i, t := range query {
		sc.token, sc.weighted = t, weights != nil
		if sc.weighted {
			sc.weight = weights[i]
		}
		// A context field's postings are streamed (a common term's are
		// nearly every sentence); others are read whole.
		if cp, ok := f.src.(*ContextPostings); ok {
			if _, err := streamPostings(cp, t, scoreSink{sc}); err != nil {
				return err
			}
			continue
		}
		ps, found, err := f.src.Postings(t)
		if err != nil {
			return err
		}
		if !found || len(ps) == 0 {
			continue
		}
		if err := sc.start(len(ps)); err != nil {
			return err
		}
		for _, p := range ps {
			sc.add(p.Doc, p.TF)
		}
	}
	return nil
}

// termScorer adds one query token's BM25 term to every document its
// postings name (Field.ScoreWeighted).
type termScorer struct {
	f        *Field
	a        *Accumulator
	k1       float64
	lucene   bool
	token    string
	weighted bool    // weight applies (ScoreWeighted's weights given)
	weight   float64 // the token's weight
	idf      float64 // the token's idf times its weight, set by start
}

// start sets the token's idf from its document frequency n.
func (t *termScorer) start(n int) error {
	t.idf = t.f.IDF(n)
	if t.weighted {
		w := t.weight
		if !(w > 0) || math.IsInf(w, 0) {
			return fmt.Errorf("bm25: query token %q has weight %v, want a finite weight > 0", t.token, w)
		}
		t.idf *= w
	}
	return nil
}

func (t *termScorer) add(doc, tf uint32) {
	x := float64(tf)
	var s float64
	if t.lucene {
		s = t.idf * x / (x + t.f.denom[doc])
	} else {
		s = (t.idf * x * (t.k1 + 1)) / (x + t.f.denom[doc])
	}
	a := t.a
	a.Scores[doc] += s
	if !a.mark[doc] {
		a.mark[doc] = true
		a.Touched = append(a.Touched, doc)
	}
}

// scoreSink is the postingSink of a termScorer: a struct, so that
// streamPostings is compiled for it with direct calls.
type scoreSink struct{ t *termScorer }

func (s scoreSink) start(n int) error  { return s.t.start(n) }
func (s scoreSink) add(doc, tf uint32) { s.t.add(doc, tf) }

// Hit is one scored document.
type Hit struct {
	Doc   uint32
	Score float64
}

// TopK returns the k best of the touched documents, best first, ties broken
// by lower document id. A negative k returns them all.
func (a *Accumulator) TopK(k int) []Hit {
	if k < 0 || k >= len(a.Touched) {
		hits := make([]Hit, 0, len(a.Touched))
		for _, d := range a.Touched {
			hits = append(hits, Hit{Doc: d, Score: a.Scores[d]})
		}
		sort.Slice(hits, func(i, j int) bool { return better(hits[i], hits[j]) })
		return hits
	}
	if k == 0 {
		return nil
	}
	// Keep the k best in a min-heap whose root is the worst kept hit.
	h := make([]Hit, 0, k)
	for _, d := range a.Touched {
		x := Hit{Doc: d, Score: a.Scores[d]}
		if len(h) < k {
			h = append(h, x)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if !better(h[p], h[i]) {
					break
				}
				h[p], h[i] = h[i], h[p]
				i = p
			}
			continue
		}
		if !better(x, h[0]) {
			continue
		}
		h[0] = x
		for i := 0; ; {
			l, r, w := 2*i+1, 2*i+2, i
			if l < len(h) && better(h[w], h[l]) {
				w = l
			}
			if r < len(h) && better(h[w], h[r]) {
				w = r
			}
			if w == i {
				break
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	sort.Slice(h, func(i, j int) bool { return better(h[i], h[j]) })
	return h
}

// better orders hits: higher score first, then lower document id.
func better(x, y Hit) bool {
	if x.Score != y.Score {
		return x.Score > y.Score
	}
	return x.Doc < y.Doc
}

// storeSource reads postings from a store field, caching decoded lists.
type storeSource struct {
	r      *store.Reader
	name   string
	maxDoc uint32
	cache  *postingsCache // nil: not cached
}

// postingsCache keeps decoded postings by term, up to maxCachedPostings
// postings (then it starts afresh). It is safe for concurrent use.
type postingsCache struct {
	mu     sync.RWMutex
	m      map[string][]Posting
	cached int
}

func newPostingsCache() *postingsCache { return &postingsCache{m: map[string][]Posting{}} }

// get returns the cached postings of term, whether the term exists, and
// whether it was cached.
func (c *postingsCache) get(term string) (ps []Posting, found, ok bool) {
	c.mu.RLock()
	ps, ok = c.m[term]
	c.mu.RUnlock()
	return ps, ps != nil, ok
}

// put caches the postings of term (nil for a term that does not exist).
func (c *postingsCache) put(term string, ps []Posting) {
	c.mu.Lock()
	if c.cached+len(ps) > maxCachedPostings {
		c.m = map[string][]Posting{}
		c.cached = 0
	}
	c.m[term] = ps
	c.cached += len(ps) + 1
	c.mu.Unlock()
}

// maxCachedPostings bounds the decoded-postings cache (about 256 MiB).
const maxCachedPostings = 32 << 20

func (s *storeSource) Postings(term string) ([]Posting, bool, error) {
	if s.cache != nil {
		if ps, found, ok := s.cache.get(term); ok {
			return ps, found, nil
		}
	}
	var ps []Posting
	raw, found, err := s.r.Postings(s.name, term)
	if err != nil {
		return nil, false, err
	}
	if found {
		ps, err = DecodePostings(raw, s.maxDoc)
		if err != nil {
			return nil, false, fmt.Errorf("field %s postings of %q: %w", s.name, term, err)
		}
	}
	if s.cache != nil {
		s.cache.put(term, ps)
	}
	return ps, found, nil
}
