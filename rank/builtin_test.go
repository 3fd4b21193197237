package rank

import (
	"strings"
	"testing"
)

// TestBuiltinDefault checks the embedded default: it decodes, validates,
// names its method, fuses only rankers an index with embeddings has, and is
// the first of the built-in fusions.
func TestBuiltinDefault(t *testing.T) {
	p, err := parseBuiltin(builtinJSON)
	if err != nil {
		t.Fatalf("builtin.json: %v", err)
	}
	if d := DefaultFusion(); d.Name != p.Name || d.Method != p.Method || len(d.Inputs) != len(p.Inputs) {
		t.Errorf("DefaultFusion() = %+v, want builtin.json's %+v", d, p)
	}
	for _, in := range p.Inputs {
		s, err := ParseSpec(in)
		if err != nil || (s.Kind != KindBM25 && s.Kind != KindDense) {
			t.Errorf("input %q: %+v, %v; want a BM25 or dense ranker", in, s, err)
		}
	}
	if p.TunedOn == "" {
		t.Error("builtin.json does not say what it was chosen on (tuned_on)")
	}
	bs := builtinFusions()
	seen := map[string]bool{}
	for _, b := range bs {
		if seen[b.Name] {
			t.Errorf("built-in fusion %s twice", b.Name)
		}
		seen[b.Name] = true
	}
	if bs[0].Name != p.Name || !seen["fusion-rrf"] {
		t.Errorf("built-in fusions %v: want the default first, and fusion-rrf", seen)
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
	cases := map[string]string{
		"syntax":        `{"name": "fusion-zscore",`,
		"unknown field": `{"name": "fusion-zscore", "method": "zscore", "inputs": ["bm25-wpm"], "weights": [1], "wieghts": [1]}`,
		"weights":       `{"name": "fusion-zscore", "method": "zscore", "inputs": ["bm25-wpm", "dense"], "weights": [1]}`,
		"name":          `{"name": "fusion-minmax", "method": "zscore", "inputs": ["bm25-wpm"], "weights": [1]}`,
		"input":         `{"name": "fusion-zscore", "method": "zscore", "inputs": ["fusion-rrf"], "weights": [1]}`,
		"not a ranker":  `{"name": "fusion-zscore", "method": "zscore", "inputs": ["bm99"], "weights": [1]}`,
	}
	for name, raw := range cases {
		if _, err := parseBuiltin([]byte(raw)); err == nil || !strings.Contains(err.Error(), "built-in default fusion") {
			t.Errorf("%s: %v, want an error about the built-in default", name, err)
		}
	}
}
