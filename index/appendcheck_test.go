package index

import (
	"errors"
	"testing"

	"github.com/reqa/reqa/store"
)

// TestCheckAppendSettings checks an append accepts settings equal to the
// index's (--dense=false onto a BM25-only index changes nothing) and
// refuses, naming it, any that differs.
func TestCheckAppendSettings(t *testing.T) {
	yes, no := true, false
	k1, k2 := 1.5, 1.2
	l1, l2 := 0.25, 0.5
	bm25Only := store.Meta{BM25: store.BM25Params{Variant: "gensim", K1: 1.5, B: 0.75},
		Fields: []store.FieldMeta{{Tokenizer: "word"}, {Tokenizer: "word"}, {Tokenizer: "wpm"}}}
	dense := bm25Only
	dense.Dense = &store.DenseMeta{Encoder: "use-lite", Lambda: 0.25}
	cases := []struct {
		name string
		m    store.Meta
		s    AppendSettings
		ok   bool
	}{
		{"nothing given", bm25Only, AppendSettings{}, true},
		{"--dense=false onto BM25-only", bm25Only, AppendSettings{Dense: &no}, true},
		{"--dense onto BM25-only", bm25Only, AppendSettings{Dense: &yes}, false},
		{"--dense onto dense", dense, AppendSettings{Dense: &yes}, true},
		{"--dense=false onto dense", dense, AppendSettings{Dense: &no}, false},
		{"same tokenizers", bm25Only, AppendSettings{Tokenizers: []string{"wpm", "word", "wpm"}}, true},
		{"other tokenizers", bm25Only, AppendSettings{Tokenizers: []string{"word"}}, false},
		{"same bm25", bm25Only, AppendSettings{BM25Variant: "gensim", K1: &k1}, true},
		{"other bm25", bm25Only, AppendSettings{BM25Variant: "lucene"}, false},
		{"other k1", bm25Only, AppendSettings{K1: &k2}, false},
		{"same lambda", dense, AppendSettings{Lambda: &l1}, true},
		{"other lambda", dense, AppendSettings{Lambda: &l2}, false},
		{"lambda without embeddings", bm25Only, AppendSettings{Lambda: &l1}, false},
	}
	for _, tc := range cases {
		err := CheckAppendSettings(tc.m, tc.s)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrCannotAppend)) {
			t.Errorf("%s: got %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}
