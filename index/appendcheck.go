package index

import (
	"fmt"
	"slices"
	"strings"

	"github.com/reqa/reqa/store"
)

// AppendSettings are the build settings an append was given explicitly
// (nil or empty: not given). An append keeps the index's own settings;
// [CheckAppendSettings] accepts settings that equal them, since they
// change nothing.
type AppendSettings struct {
	// Dense asks for an index with (true) or without (false) embeddings.
	Dense *bool
	// Tokenizers are the BM25 tokenizers asked for (in any order).
	Tokenizers []string
	// BM25Variant, K1 and B are the BM25 parameters asked for.
	BM25Variant string
	K1, B       *float64
	// Lambda is the dense context weight asked for.
	Lambda *float64
	// ContextVectors is how context vectors are made, asked for
	// (store.DenseMeta.ContextVectors; nil: not given).
	ContextVectors *string
}

// CheckAppendSettings returns an error wrapping ErrCannotAppend naming the
// first setting of s that differs from the index's (m), or nil when every
// setting given matches: `index --append --dense=false` onto a BM25-only
// index, for one, changes nothing and is accepted.
func CheckAppendSettings(m store.Meta, s AppendSettings) error {
	refuse := func(setting, format string, args ...any) error {
		return fmt.Errorf("%w: %s cannot be changed by an append (%s); the index keeps its own — rebuild without appending to change it",
			ErrCannotAppend, setting, fmt.Sprintf(format, args...))
	}
	if s.Dense != nil && *s.Dense != (m.Dense != nil) {
		if m.Dense == nil {
			return refuse("dense", "the index has no embeddings")
		}
		return refuse("dense", "the index has embeddings from encoder %s", m.Dense.Encoder)
	}
	if len(s.Tokenizers) > 0 {
		var have []string
		for _, f := range m.Fields {
			if !slices.Contains(have, f.Tokenizer) {
				have = append(have, f.Tokenizer)
			}
		}
		want := slices.Clone(s.Tokenizers)
		slices.Sort(want)
		want = slices.Compact(want)
		slices.Sort(have)
		if !slices.Equal(want, have) {
			return refuse("tokenizer", "the index has %s, %s was asked for", strings.Join(have, ","), strings.Join(want, ","))
		}
	}
	if s.BM25Variant != "" && s.BM25Variant != m.BM25.Variant {
		return refuse("bm25", "the index uses %s, %s was asked for", m.BM25.Variant, s.BM25Variant)
	}
	if s.K1 != nil && *s.K1 != m.BM25.K1 {
		return refuse("k1", "the index uses %g, %g was asked for", m.BM25.K1, *s.K1)
	}
	if s.B != nil && *s.B != m.BM25.B {
		return refuse("b", "the index uses %g, %g was asked for", m.BM25.B, *s.B)
	}
	if s.Lambda != nil {
		if m.Dense == nil {
			return refuse("lambda", "the index has no embeddings")
		}
		if *s.Lambda != m.Dense.Lambda {
			return refuse("lambda", "the index uses %g, %g was asked for", m.Dense.Lambda, *s.Lambda)
		}
	}
	if s.ContextVectors != nil {
		if m.Dense == nil {
			return refuse("context-vectors", "the index has no embeddings")
		}
		if contextVectorsName(*s.ContextVectors) != contextVectorsName(m.Dense.ContextVectors) {
			return refuse("context-vectors", "the index's are %s, %s was asked for", contextVectorsName(m.Dense.ContextVectors), contextVectorsName(*s.ContextVectors))
		}
	}
	return nil
}

// contextVectorsName names a store.DenseMeta.ContextVectors as the
// command line does: "" (the encoder's) is "model", and both ways of making
// them from the sentences are "sentences" (an append asking for
// "sentences" keeps the index's way).
func contextVectorsName(how string) string {
	switch how {
	case "":
		return ContextVectorsModel
	case store.ContextVectorsWindow:
		return ContextVectorsSentences
	}
	return how
}

// ContextVectorsModel names the default store.DenseMeta.ContextVectors
// ("": contexts embedded by the encoder from their text) where a name is
// needed (reqa index --context-vectors).
const ContextVectorsModel = "model"

// ContextVectorsSentences names context vectors made from the context's
// sentences' vectors (reqa index --context-vectors sentences); a build
// makes them as store.ContextVectorsWindow says.
const ContextVectorsSentences = "sentences"

// DefaultContextVectors is the --context-vectors of a new index when none
// is asked for (reqa index, and eval's and demo's temporary indexes): made
// from the sentences' vectors, about half the embedding work on real
// documents, chosen on 2026-12-03 by the rule written before the blind
// benchmark's round 2 (cmd/mkdocsqa/blind2/SOURCES.md; BENCHMARKS.md).
// The zero Options.ContextVectors is still the model's.
const DefaultContextVectors = ContextVectorsSentences

// ParseContextVectors maps a --context-vectors name (ContextVectorsModel or
// ContextVectorsSentences) to the store.DenseMeta.ContextVectors a build
// writes.
func ParseContextVectors(name string) (string, error) {
	switch name {
	case ContextVectorsModel:
		return "", nil
	case ContextVectorsSentences:
		return store.ContextVectorsWindow, nil
	}
	return "", fmt.Errorf("context vectors %q: want %s or %s", name, ContextVectorsModel, ContextVectorsSentences)
}
