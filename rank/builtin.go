package rank

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/reqa/reqa/rank/fuse"
	"github.com/reqa/reqa/store"
)

// builtinJSON holds the default rankers of an index with embeddings and no
// tuned fusion, in order of preference: a JSON array of fusion parameters.
// The first was chosen by leave-one-domain-out results over SQuAD and the
// docs benchmark's document sets (BENCHMARKS.md "Out of domain"; `make
// transfer-lodo` reproduces the choice); an index answers with the first
// whose inputs it holds, so indexes built before an input existed (the
// "stem" BM25 field) keep the default they had. The last one fuses only
// rankers every index with embeddings has.
//
//go:embed builtin.json
var builtinJSON []byte

// baseInputs are the rankers every index with embeddings has.
var baseInputs = []string{"bm25-word", "bm25-wpm", "dense", "bm25-word/sent", "bm25-wpm/sent", "dense/sent"}

// parseBuiltin decodes and checks the built-in defaults' parameters.
func parseBuiltin(raw []byte) ([]fuse.Params, error) {
	var ps []fuse.Params
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ps); err != nil {
		return nil, fmt.Errorf("built-in default fusion: %w", jsonProblem(err))
	}
	if len(ps) == 0 {
		return nil, errors.New("built-in default fusion: none")
	}
	for i, p := range ps {
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("built-in default fusion %d: %w", i+1, err)
		}
		if s, err := ParseSpec(p.Name); err != nil || s.Kind != KindFusion || p.Name != "fusion-"+p.Method {
			return nil, fmt.Errorf("built-in default fusion %d: name %q does not match method %q", i+1, p.Name, p.Method)
		}
		for _, in := range p.Inputs {
			if s, err := ParseSpec(in); err != nil || s.Kind == KindFusion || s.Kind == KindDefault {
				return nil, fmt.Errorf("built-in default fusion %d: input %q is not a fusion input", i+1, in)
			}
		}
	}
	for _, in := range ps[len(ps)-1].Inputs {
		if !slices.Contains(baseInputs, in) {
			return nil, fmt.Errorf("built-in default fusion %d: input %q: the last default must fuse only rankers every index with embeddings has (%v)", len(ps), in, baseInputs)
		}
	}
	return ps, nil
}

var builtin = sync.OnceValues(func() ([]fuse.Params, error) { return parseBuiltin(builtinJSON) })

// builtinDefaults returns copies of builtin.json's fusions, preferred
// first. The embedded file is checked by the package's tests; a broken
// one is a build defect and panics here.
func builtinDefaults() []fuse.Params {
	ps, err := builtin()
	if err != nil {
		panic(err)
	}
	out := make([]fuse.Params, len(ps))
	for i, p := range ps {
		p.Inputs = slices.Clone(p.Inputs)
		p.Weights = slices.Clone(p.Weights)
		out[i] = p
	}
	return out
}

// DefaultFusion is what `reqa ask` uses on an index with embeddings, every
// input field and no tuned parameters: the first fusion in builtin.json,
// chosen by its worst-case gain over bm25-wpm on domains it was not fitted
// on (see builtinJSON). An index lacking one of its inputs answers with
// [Index.BuiltinDefault] instead.
func DefaultFusion() fuse.Params { return builtinDefaults()[0] }

// BuiltinDefault returns the built-in default fusion of this index: the
// first of builtin.json's fusions whose inputs the index has (an index
// built before the "stem" field existed gets the default it had then).
// Only meaningful on an index with embeddings.
func (e *Index) BuiltinDefault() fuse.Params { return e.firstServed(builtinDefaults()) }

// firstServed returns the first of ps whose inputs the index has, else the
// last.
func (e *Index) firstServed(ps []fuse.Params) fuse.Params {
	for _, p := range ps {
		if !slices.ContainsFunc(p.Inputs, func(in string) bool { return !e.hasInput(in) }) {
			return p
		}
	}
	return ps[len(ps)-1]
}

// hasInput reports whether the index holds what the fusion input name
// reads: a BM25 field, or embeddings.
func (e *Index) hasInput(name string) bool {
	s, err := ParseSpec(name)
	if err != nil {
		return false
	}
	switch s.Kind {
	case KindBM25:
		_, ok := e.r.Meta().Field(store.FieldName(s.Tokenizer, !s.SentenceOnly))
		return ok
	case KindDense:
		return e.r.Meta().Dense != nil
	case KindDerived:
		return e.hasInput(s.Base)
	}
	return false
}

// builtinFusions are the fusions every index with embeddings answers with
// untuned, its default first (names are distinct).
func (e *Index) builtinFusions() []fuse.Params {
	out := []fuse.Params{e.BuiltinDefault()}
	for _, p := range []fuse.Params{DefaultRRF()} {
		if p.Name != out[0].Name {
			out = append(out, p)
		}
	}
	return out
}
