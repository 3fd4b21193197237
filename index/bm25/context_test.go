package bm25

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/reqa/reqa/store"
)

// contextCorpus returns contexts of 1–8 sentences over a small vocabulary;
// a sentence's tokens come from its context's, except now and then a term
// the context lacks (as tokenizing a sentence alone can give at its
// edges). With shuffle the sentences are numbered in random order.
func contextCorpus(rng *rand.Rand, contexts int, shuffle bool) (ctxToks, sentToks [][]string, ctxOf []uint32) {
	type sent struct {
		c    uint32
		toks []string
	}
	var sents []sent
	for c := 0; c < contexts; c++ {
		var all []string
		for s := 0; s < 1+rng.Intn(8); s++ {
			toks := make([]string, 1+rng.Intn(12))
			for i := range toks {
				toks[i] = fmt.Sprint("w", rng.Intn(60)*rng.Intn(3))
			}
			all = append(all, toks...)
			own := slices.Clone(toks)
			if rng.Intn(15) == 0 {
				own = append(own, fmt.Sprint("edge", rng.Intn(5)))
			}
			sents = append(sents, sent{uint32(c), own})
		}
		ctxToks = append(ctxToks, all)
	}
	if contexts > 2 {
		ctxToks = append(ctxToks, nil) // a context without sentences
	}
	if shuffle {
		rng.Shuffle(len(sents), func(i, j int) { sents[i], sents[j] = sents[j], sents[i] })
	}
	for _, s := range sents {
		sentToks = append(sentToks, s.toks)
		ctxOf = append(ctxOf, s.c)
	}
	return ctxToks, sentToks, ctxOf
}

// TestContextLayoutMatchesExpanded builds the same sentence + context
// documents both ways — expanded, one document per sentence, and in the
// context layout — and requires identical postings for every term,
// document lengths, statistics (MeanIDF to the last bit) and scores.
func TestContextLayoutMatchesExpanded(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for round := 0; round < 24; round++ {
		contexts := 1 + rng.Intn(40)
		if round >= 20 {
			contexts = 500 + rng.Intn(500) // common terms past one streamed block
		}
		ctxToks, sentToks, ctxOf := contextCorpus(rng, contexts, round%2 == 1)
		expanded := NewBuilder()
		f := &ContextField{Contexts: NewBuilder(), Sentences: NewBuilder(), CtxOf: ctxOf}
		seen := map[string]bool{}
		for s, toks := range sentToks {
			expanded.AddParts(toks, ctxToks[ctxOf[s]])
			f.Sentences.Add(toks)
			for _, part := range [][]string{toks, ctxToks[ctxOf[s]]} {
				for _, tok := range part {
					if !seen[tok] {
						seen[tok] = true
						f.Order = append(f.Order, tok)
					}
				}
			}
		}
		for _, toks := range ctxToks {
			f.Contexts.Add(toks)
		}
		where := fmt.Sprintf("round %d", round)
		// The same field through the adding API.
		added := NewContextField()
		for _, toks := range ctxToks {
			added.AddContext(toks)
		}
		for s, toks := range sentToks {
			if err := added.AddSentence(ctxOf[s], toks); err != nil {
				t.Fatal(err)
			}
		}
		added.Done()
		if !slices.Equal(added.Order, f.Order) || !slices.Equal(added.CtxOf, f.CtxOf) || !slices.Equal(added.DocLens(), f.DocLens()) {
			t.Fatalf("%s: AddContext/AddSentence give another field", where)
		}
		if err := added.AddSentence(uint32(len(ctxToks)), nil); err == nil {
			t.Fatalf("%s: a sentence of a context not added was accepted", where)
		}
		want := expanded.Stats(store.FieldName("x", true), "word", true)
		got, err := f.Stats(store.FieldName("x", true), "word")
		if err != nil {
			t.Fatal(err)
		}
		if got.Layout != ContextLayout {
			t.Fatalf("%s: layout %q", where, got.Layout)
		}
		got.Layout = ""
		if got != want || math64bits(got.MeanIDF) != math64bits(want.MeanIDF) {
			t.Fatalf("%s: stats %+v, expanded %+v", where, got, want)
		}
		if !slices.Equal(f.DocLens(), expanded.docLens) {
			t.Fatalf("%s: document lengths differ", where)
		}
		src, err := f.Source()
		if err != nil {
			t.Fatal(err)
		}
		back, err := f.Expand()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(back.order, expanded.order) || back.tokens != expanded.tokens {
			t.Fatalf("%s: Expand's terms or tokens differ", where)
		}
		// Streamed (before anything is cached) as Postings returns them.
		streamSrc, err := f.Source()
		if err != nil {
			t.Fatal(err)
		}
		for _, term := range append(slices.Clone(f.Order), "absent") {
			w, okw, _ := expanded.Postings(term)
			st, df, oks, err := streamed(streamSrc, term)
			if err != nil {
				t.Fatal(err)
			}
			if oks != okw || df != len(w) || !slices.Equal(st, w) {
				t.Fatalf("%s: streamed postings of %q: %v (%v, df %d), expanded %v (%v)", where, term, st, oks, df, w, okw)
			}
		}
		for _, term := range append(slices.Clone(f.Order), "absent") {
			w, okw, _ := expanded.Postings(term)
			g, okg, err := src.Postings(term)
			if err != nil {
				t.Fatal(err)
			}
			e, oke, _ := back.Postings(term)
			if okw != okg || okw != oke || !slices.Equal(g, w) || !slices.Equal(e, w) {
				t.Fatalf("%s: postings of %q: %v (%v), expanded %v (%v), Expand %v", where, term, g, okg, w, okw, e)
			}
		}
		// Scores, through Field, bit for bit, touched in the same order
		// (a fresh source: streamed, nothing cached).
		fresh, err := f.Source()
		if err != nil {
			t.Fatal(err)
		}
		fe := FromBuilder(expanded, store.FieldName("x", true), "word", true, Gensim())
		fc, err := NewField(got, Gensim(), f.DocLens(), fresh)
		if err != nil {
			t.Fatal(err)
		}
		for q := 0; q < 10; q++ {
			query := []string{f.Order[rng.Intn(len(f.Order))], f.Order[rng.Intn(len(f.Order))], "absent"}
			ae, ac := NewAccumulator(fe.Docs()), NewAccumulator(fc.Docs())
			if err := fe.Score(query, ae); err != nil {
				t.Fatal(err)
			}
			if err := fc.Score(query, ac); err != nil {
				t.Fatal(err)
			}
			for d := range ae.Scores {
				if math64bits(ae.Scores[d]) != math64bits(ac.Scores[d]) {
					t.Fatalf("%s: query %q doc %d: %v, expanded %v", where, query, d, ac.Scores[d], ae.Scores[d])
				}
			}
			if !slices.Equal(ae.Touched, ac.Touched) {
				t.Fatalf("%s: query %q: documents touched in another order", where, query)
			}
		}
	}
}

// TestContextPostingsRejectsDamage: a context id out of range, in the
// sentence map or in the postings, is ErrCorrupt, not a panic.
func TestContextPostingsRejectsDamage(t *testing.T) {
	ctxB, sentB := NewBuilder(), NewBuilder()
	ctxB.Add([]string{"a", "b"})
	sentB.Add([]string{"a"})
	if _, err := NewContextPostings(ctxB, sentB, []uint32{3}, 1); err == nil {
		t.Fatal("sentence in context 3 of 1 accepted")
	}
	ctxB.Add([]string{"a"}) // postings of "a" now name context 1
	p, err := NewContextPostings(ctxB, sentB, []uint32{0}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.Postings("a"); err == nil {
		t.Fatal("postings naming context 1 of 1 accepted")
	}
}

func math64bits(f float64) uint64 { return math.Float64bits(f) }

// streamed collects a term's postings as ScoreWeighted reads them:
// streamed when src is a context field's, else whole.
func streamed(src Source, term string) (ps []Posting, df int, found bool, err error) {
	cp, ok := src.(*ContextPostings)
	if !ok {
		ps, found, err = src.Postings(term)
		return ps, len(ps), found, err
	}
	c := &collected{}
	found, err = streamPostings(cp, term, collector{c})
	return c.ps, c.df, found, err
}

// FuzzContextPostings builds a context-layout field from fuzzed
// documents and checks that expanding never panics and always equals the
// expanded layout.
func FuzzContextPostings(f *testing.F) {
	f.Add([]byte("ab ba\nab\nc"), []byte{0, 0, 1})
	f.Add([]byte(""), []byte{})
	f.Add([]byte("x\n\ny z x"), []byte{2, 0, 2, 2})
	f.Fuzz(func(t *testing.T, text []byte, owners []byte) {
		// Contexts are the lines of text; sentence i belongs to context
		// owners[i] % contexts and holds the words of that context at
		// even positions, plus one of its own when owners[i] is odd.
		var ctxToks [][]string
		for _, line := range bytes.Split(text, []byte("\n")) {
			var toks []string
			for _, w := range bytes.Fields(line) {
				toks = append(toks, string(w))
			}
			ctxToks = append(ctxToks, toks)
		}
		if len(owners) > 500 {
			owners = owners[:500]
		}
		field := NewContextField()
		for _, toks := range ctxToks {
			field.AddContext(toks)
		}
		expanded := NewBuilder()
		for _, o := range owners {
			c := uint32(int(o) % len(ctxToks))
			var toks []string
			for i, w := range ctxToks[c] {
				if i%2 == 0 {
					toks = append(toks, w)
				}
			}
			if o%2 == 1 {
				toks = append(toks, fmt.Sprint("own", o))
			}
			if err := field.AddSentence(c, toks); err != nil {
				t.Fatal(err)
			}
			expanded.AddParts(toks, ctxToks[c])
		}
		field.Done()
		st, err := field.Stats("f", "t")
		if err != nil {
			t.Fatal(err)
		}
		st.Layout = ""
		if want := expanded.Stats("f", "t", true); st.Docs != want.Docs || st.Terms != want.Terms || st.Tokens != want.Tokens ||
			math64bits(st.MeanIDF) != math64bits(want.MeanIDF) {
			t.Fatalf("stats %+v, expanded %+v", st, want)
		}
		src, err := field.Source()
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := field.Source()
		if err != nil {
			t.Fatal(err)
		}
		for _, term := range field.Order {
			st, df, _, err := streamed(fresh, term)
			if err != nil {
				t.Fatal(err)
			}
			want, _, _ := expanded.Postings(term)
			if df != len(want) || !slices.Equal(st, want) {
				t.Fatalf("streamed postings of %q: %v (df %d), expanded %v", term, st, df, want)
			}
		}
		for _, term := range field.Order {
			got, _, err := src.Postings(term)
			if err != nil {
				t.Fatal(err)
			}
			want, _, _ := expanded.Postings(term)
			if !slices.Equal(got, want) {
				t.Fatalf("postings of %q: %v, expanded %v", term, got, want)
			}
		}
	})
}

// BenchmarkContextStats measures ContextField.Stats (the document
// frequency of every term) on 20,000 contexts of about 4.5 sentences, with
// sentences in context order and shuffled (as a dataset's candidates may
// be).
func BenchmarkContextStats(b *testing.B) {
	for _, shuffle := range []bool{false, true} {
		name := "in-order"
		if shuffle {
			name = "shuffled"
		}
		b.Run(name, func(b *testing.B) {
			rng := rand.New(rand.NewSource(1))
			ctxToks, sentToks, ctxOf := contextCorpus(rng, 20000, shuffle)
			f := NewContextField()
			for _, toks := range ctxToks {
				f.AddContext(toks)
			}
			for s, toks := range sentToks {
				if err := f.AddSentence(ctxOf[s], toks); err != nil {
					b.Fatal(err)
				}
			}
			f.Done()
			for b.Loop() {
				if _, err := f.Stats("f", "t"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(sentToks)), "sentences")
		})
	}
}

// TestContextsShared: the fields opened with one Contexts share one set
// of sentence lists, built once; a field that counts other contexts is
// damage.
func TestContextsShared(t *testing.T) {
	cs := NewContexts([]uint32{0, 0, 1, 2, 2})
	a, err := cs.sentences(3)
	if err != nil {
		t.Fatal(err)
	}
	b, err := cs.sentences(3)
	if err != nil {
		t.Fatal(err)
	}
	if &a.ids[0] != &b.ids[0] || !slices.Equal(a.of(2), []uint32{3, 4}) {
		t.Errorf("sentence lists %v and %v: not one set, or wrong", a, b)
	}
	if _, err := cs.sentences(4); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("another context count: %v, want ErrCorrupt", err)
	}
	if _, err := NewContexts([]uint32{0, 5}).sentences(2); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("a context id out of range: %v, want ErrCorrupt", err)
	}
}
