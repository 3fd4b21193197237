package index

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/index/tokenize"
	"github.com/reqa/reqa/store"
)

// syntheticCorpus returns a corpus of n contexts of 1–9 sentences each.
// With shuffle, the sentences are in random order, as a dataset's
// candidates may be, so that one context's sentences land in several
// chunks.
func syntheticCorpus(n int, shuffle bool, seed int64) *Corpus {
	rng := rand.New(rand.NewSource(seed))
	words := strings.Fields("the ferry leaves at nine and returns at noon while gulls circle over the harbour wall " +
		"tickets cost four euros children travel free on weekdays unaffordable préparation naïve")
	c := &Corpus{}
	for i := 0; i < n; i++ {
		var text strings.Builder
		var spans [][2]int
		for s := 0; s < 1+rng.Intn(9); s++ {
			if text.Len() > 0 {
				text.WriteByte(' ')
			}
			start := text.Len()
			for w := 0; w < 3+rng.Intn(12); w++ {
				if w > 0 {
					text.WriteByte(' ')
				}
				text.WriteString(words[rng.Intn(len(words))])
			}
			text.WriteByte('.')
			spans = append(spans, [2]int{start, text.Len()})
		}
		id := uint32(len(c.Contexts))
		c.Contexts = append(c.Contexts, store.Context{ID: id, Title: fmt.Sprint("c", i), Text: text.String()})
		for _, sp := range spans {
			c.Sentences = append(c.Sentences, store.Sentence{ContextID: id, Start: sp[0], End: sp[1]})
		}
	}
	if shuffle {
		rng.Shuffle(len(c.Sentences), func(i, j int) { c.Sentences[i], c.Sentences[j] = c.Sentences[j], c.Sentences[i] })
	}
	for i := range c.Sentences {
		c.Sentences[i].ID = uint32(i)
	}
	return c
}

// TestIndexFieldsMatchesWholeCorpus checks the streaming IndexFields
// against the plain way of building a field: tokenize everything, then
// add each sentence's tokens followed by its context's. Every term's
// postings, the document lengths and the statistics must be equal, for any
// worker count, with sentences in context order or shuffled across chunks.
func TestIndexFieldsMatchesWholeCorpus(t *testing.T) {
	for _, shuffle := range []bool{false, true} {
		c := syntheticCorpus(400, shuffle, 11)
		for _, name := range tokenize.Names() {
			tok, err := tokenize.Get(name)
			if err != nil {
				t.Fatal(err)
			}
			wantCtx, wantSent := bm25.NewBuilder(), bm25.NewBuilder()
			for _, s := range c.Sentences {
				x := c.Contexts[s.ContextID]
				st := tok.Tokenize(s.Text(x))
				wantCtx.Add(append(slices.Clone(st), tok.Tokenize(x.Text)...))
				wantSent.Add(st)
			}
			for _, workers := range []int{1, 3} {
				f, err := IndexFields(context.Background(), c, tok, workers, nil)
				if err != nil {
					t.Fatal(err)
				}
				where := fmt.Sprintf("shuffle=%v %s workers=%d", shuffle, name, workers)
				gotCtx, err := f.Expand()
				if err != nil {
					t.Fatal(err)
				}
				sameBuilder(t, where+" ctx", gotCtx, wantCtx, c, tok)
				sameBuilder(t, where+" sent", f.Sentences, wantSent, c, tok)
				// The context layout's statistics are the expanded field's.
				st, err := f.Stats("f", "t")
				if err != nil {
					t.Fatal(err)
				}
				st.Layout = ""
				if want := wantCtx.Stats("f", "t", true); st != want {
					t.Fatalf("%s: context-layout stats %+v, want %+v", where, st, want)
				}
			}
		}
	}
}

func sameBuilder(t *testing.T, where string, got, want *bm25.Builder, c *Corpus, tok tokenize.Tokenizer) {
	t.Helper()
	if g, w := got.Stats("f", "t", true), want.Stats("f", "t", true); g != w {
		t.Fatalf("%s: stats %+v, want %+v", where, g, w)
	}
	seen := map[string]bool{}
	for _, x := range c.Contexts {
		for _, term := range tok.Tokenize(x.Text) {
			if seen[term] {
				continue
			}
			seen[term] = true
			g, _, _ := got.Postings(term)
			w, _, _ := want.Postings(term)
			if !slices.Equal(g, w) {
				t.Fatalf("%s: postings of %q differ", where, term)
			}
		}
	}
	if len(seen) == 0 {
		t.Fatalf("%s: no terms compared", where)
	}
}

// TestIndexFieldsCancelled checks that cancelling stops IndexFields with the
// context's error and leaves no goroutine writing (the race detector and
// the test's return would show one).
func TestIndexFieldsCancelled(t *testing.T) {
	c := syntheticCorpus(3000, false, 5)
	tok, err := tokenize.Get("word")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err = IndexFields(ctx, c, tok, 2, func(done, total int) {
		calls++
		if calls == 3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled IndexFields: %v", err)
	}
	if calls != 3 {
		t.Fatalf("progress called %d times after cancelling at the third", calls)
	}
}

// TestIndexFieldsProgressPanics checks that a panic in the progress
// callback comes out of IndexFields instead of leaving it waiting for its
// goroutines (the dispatcher blocked on a full queue).
func TestIndexFieldsProgressPanics(t *testing.T) {
	c := syntheticCorpus(3000, false, 9)
	tok, err := tokenize.Get("word")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan any)
	go func() {
		defer func() { done <- recover() }()
		IndexFields(context.Background(), c, tok, 2, func(int, int) { panic("progress") })
	}()
	select {
	case p := <-done:
		if p != "progress" {
			t.Fatalf("recovered %v, want the callback's panic", p)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("IndexFields hung after its progress callback panicked")
	}
}
