package rank

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/reqa/reqa/rank/fuse"
)

// builtinJSON is the default ranker of an index with embeddings and no
// tuned fusion, chosen by leave-one-domain-out results over SQuAD and the
// docs benchmark's document sets (BENCHMARKS.md "Defaults chosen across
// domains"; `make transfer-lodo` reproduces the choice).
//
//go:embed builtin.json
var builtinJSON []byte

// parseBuiltin decodes and checks the built-in default's parameters.
func parseBuiltin(raw []byte) (fuse.Params, error) {
	var p fuse.Params
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, fmt.Errorf("built-in default fusion: %w", jsonProblem(err))
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("built-in default fusion: %w", err)
	}
	if s, err := ParseSpec(p.Name); err != nil || s.Kind != KindFusion || p.Name != "fusion-"+p.Method {
		return p, fmt.Errorf("built-in default fusion: name %q does not match method %q", p.Name, p.Method)
	}
	for _, in := range p.Inputs {
		if s, err := ParseSpec(in); err != nil || s.Kind == KindFusion || s.Kind == KindDefault {
			return p, fmt.Errorf("built-in default fusion: input %q is not a fusion input", in)
		}
	}
	return p, nil
}

var builtin = sync.OnceValues(func() (fuse.Params, error) { return parseBuiltin(builtinJSON) })

// DefaultFusion is what `reqa ask` uses on an index with embeddings but no
// tuned parameters: the fusion in builtin.json, chosen by its worst-case
// gain over bm25-wpm on domains it was not fitted on (see builtinJSON).
// The embedded file is checked by the package's tests; a broken one is a
// build defect and panics here.
func DefaultFusion() fuse.Params {
	p, err := builtin()
	if err != nil {
		panic(err)
	}
	p.Inputs = slices.Clone(p.Inputs)
	p.Weights = slices.Clone(p.Weights)
	return p
}

// builtinFusions are the fusions every index with embeddings answers with
// untuned, the default first (names are distinct).
func builtinFusions() []fuse.Params {
	out := []fuse.Params{DefaultFusion()}
	for _, p := range []fuse.Params{DefaultRRF()} {
		if p.Name != out[0].Name {
			out = append(out, p)
		}
	}
	return out
}
