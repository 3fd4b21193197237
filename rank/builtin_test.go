package rank

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank/fuse"
)

// TestBuiltinDefault checks the embedded defaults: they decode, validate,
// name their methods, fuse only BM25 and dense rankers, the last only
// rankers every index with embeddings has; DefaultFusion is the first, and
// hands out copies.
func TestBuiltinDefault(t *testing.T) {
	ps, err := parseBuiltin(builtinJSON)
	if err != nil {
		t.Fatalf("builtin.json: %v", err)
	}
	p := ps[0]
	if d := DefaultFusion(); d.Name != p.Name || d.Method != p.Method || !slices.Equal(d.Inputs, p.Inputs) {
		t.Errorf("DefaultFusion() = %+v, want builtin.json's first %+v", d, p)
	}
	for _, p := range ps {
		for _, in := range p.Inputs {
			s, err := ParseSpec(in)
			if err != nil || (s.Kind != KindBM25 && s.Kind != KindDense) {
				t.Errorf("%s input %q: %+v, %v; want a BM25 or dense ranker", p.Name, in, s, err)
			}
		}
		if p.TunedOn == "" {
			t.Errorf("builtin.json: %s does not say what it was chosen on (tuned_on)", p.Name)
		}
	}
	// DefaultFusion hands out copies: changing one leaves the default alone.
	d := DefaultFusion()
	d.Inputs[0] = "changed"
	if DefaultFusion().Inputs[0] == "changed" {
		t.Error("DefaultFusion shares its inputs with its callers")
	}
}

// TestParseBuiltinRejects checks that a broken default is an error naming
// what is wrong, never a default that half works.
func TestParseBuiltinRejects(t *testing.T) {
	const ok = `{"name": "fusion-zscore", "method": "zscore", "inputs": ["bm25-wpm"], "weights": [1]}`
	cases := map[string]string{
		"syntax":        `[{"name": "fusion-zscore",`,
		"not an array":  ok,
		"empty":         `[]`,
		"unknown field": `[{"name": "fusion-zscore", "method": "zscore", "inputs": ["bm25-wpm"], "weights": [1], "wieghts": [1]}]`,
		"weights":       `[{"name": "fusion-zscore", "method": "zscore", "inputs": ["bm25-wpm", "dense"], "weights": [1]}]`,
		"name":          `[{"name": "fusion-minmax", "method": "zscore", "inputs": ["bm25-wpm"], "weights": [1]}]`,
		"input":         `[{"name": "fusion-zscore", "method": "zscore", "inputs": ["fusion-rrf"], "weights": [1]}]`,
		"not a ranker":  `[{"name": "fusion-zscore", "method": "zscore", "inputs": ["bm99"], "weights": [1]}]`,
		"second broken": `[` + ok + `, {"name": "fusion-zscore", "method": "zscore", "inputs": ["bm25-wpm"], "weights": [1, 2]}]`,
		"no fallback":   `[{"name": "fusion-zscore", "method": "zscore", "inputs": ["bm25-stem", "dense"], "weights": [0.5, 0.5]}]`,
	}
	for name, raw := range cases {
		if _, err := parseBuiltin([]byte(raw)); err == nil || !strings.Contains(err.Error(), "built-in default fusion") {
			t.Errorf("%s: %v, want an error about the built-in default", name, err)
		}
	}
	two := `[{"name": "fusion-zscore", "method": "zscore", "inputs": ["bm25-wpm", "bm25-stem", "dense"], "weights": [0.5, 0.1, 0.4]}, ` + ok + `]`
	if ps, err := parseBuiltin([]byte(two)); err != nil || len(ps) != 2 {
		t.Errorf("a default with a fallback: %v, %v", ps, err)
	}
}

// TestFirstServed checks the fallback of the built-in default: an index
// answers with the first default whose inputs it has, so one built before
// the stem field existed keeps the default it had; an index with the
// field takes the first.
func TestFirstServed(t *testing.T) {
	dir := t.TempDir()
	c, err := ingest.ReadInputs([]string{"../ingest/testdata/corpus"})
	if err != nil {
		t.Fatal(err)
	}
	ps := []fuse.Params{
		{Name: "fusion-zscore", Method: "zscore", Inputs: []string{"bm25-wpm", "bm25-stem", "bm25-stem/sent"}, Weights: []float64{0.4, 0.4, 0.2}},
		{Name: "fusion-zscore", Method: "zscore", Inputs: []string{"bm25-wpm", "bm25-word"}, Weights: []float64{0.5, 0.5}},
	}
	for _, tc := range []struct {
		toks []string
		want int
	}{
		{nil, 0},
		{[]string{"word", "wpm"}, 1},
		{[]string{"wpm", "stem"}, 0},
	} {
		path := filepath.Join(dir, strings.Join(append([]string{"x"}, tc.toks...), "-")+".reqa")
		if _, err := index.Build(context.Background(), c, path, index.Options{Tokenizers: tc.toks}); err != nil {
			t.Fatal(err)
		}
		e, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.firstServed(ps); !slices.Equal(got.Inputs, ps[tc.want].Inputs) {
			t.Errorf("tokenizers %q: default over %v, want %v", tc.toks, got.Inputs, ps[tc.want].Inputs)
		}
		for _, in := range []string{"dense", "ctxmax:bm25-stem", "junk"} {
			if e.hasInput(in) != (in == "ctxmax:bm25-stem" && tc.want == 0) {
				t.Errorf("tokenizers %q: hasInput(%q) = %v", tc.toks, in, e.hasInput(in))
			}
		}
		e.Close()
	}
}
