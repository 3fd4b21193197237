package rank

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/reqa/reqa/index/tokenize"
	"github.com/reqa/reqa/rank/fuse"
	"github.com/reqa/reqa/store"
)

// ErrUnknownRanker reports a ranker name that is not one, or a ranker the
// index cannot serve.
var ErrUnknownRanker = errors.New("unknown ranker")

// ErrNoEmbeddings reports an index without embeddings asked for what
// needs them (the dense ranker, fusions, a question adapter). Such an
// error wraps ErrUnknownRanker too when a ranker was asked for.
var ErrNoEmbeddings = errors.New("index has no embeddings")

// ErrNoTunedParams reports a fusion that needs tuned parameters the index
// does not hold (and that has no built-in default). Such an error wraps
// ErrUnknownRanker too: the index cannot answer with that ranker.
var ErrNoTunedParams = errors.New("no tuned parameters")

// Kind is what a ranker name stands for.
type Kind int

const (
	// KindDefault is the empty name: the index's default ranker
	// (see [Index.Default]).
	KindDefault Kind = iota
	// KindBM25 is "bm25-TOKENIZER": BM25 over one tokenizer's field.
	KindBM25
	// KindDense is "dense": the dual encoder.
	KindDense
	// KindFusion is "fusion-METHOD": a fusion of other rankers' scores.
	KindFusion
	// KindDerived is "ctxmax:NAME" or "ctxrel:NAME": context evidence
	// derived from another ranker (a fusion input; see [ContextRanker]).
	KindDerived
)

// DefaultName names the index's default ranker on a command line
// ("-r default"); the empty name means the same.
const DefaultName = "default"

// FusionMethods lists the fusion methods in canonical order.
var FusionMethods = []string{"rrf", "minmax", "zscore", "adaptive", "learned", "rerank"}

// InputNames lists the rankers a fusion takes as inputs, in canonical
// order: BM25 of each tokenizer (tokenize.Names) and dense. An index
// answers with those it has the fields for ([Index.Rankers]).
func InputNames() []string {
	var out []string
	for _, t := range tokenize.Names() {
		out = append(out, "bm25-"+t)
	}
	return append(out, "dense")
}

// Names lists every ranker name [ParseSpec] accepts but the derived forms
// ("NAME/sent", "ctxmax:NAME", "ctxrel:NAME"), in canonical order: the
// [InputNames], a fusion of each of [FusionMethods], and [DefaultName].
func Names() []string {
	out := InputNames()
	for _, m := range FusionMethods {
		out = append(out, "fusion-"+m)
	}
	return append(out, DefaultName)
}

// Spec says which ranker, with what options. [ParseSpec] fills the fields
// that come from a name; the caller sets the options; [Index.Resolve]
// turns it into a Ranker.
type Spec struct {
	// Name is the ranker's name as given (the built ranker's Name()); empty
	// for the index's default (Resolve then names the ranker it picks).
	Name string
	Kind Kind
	// Tokenizer is a BM25 ranker's tokenizer ("word", "wpm", "stem"; see
	// tokenize.Names).
	Tokenizer string
	// Method is a fusion's method (see FusionMethods), or a derived
	// ranker's derivation ("ctxmax", "ctxrel").
	Method string
	// Base is the name a derived ranker derives from.
	Base string
	// SentenceOnly scores the sentence alone instead of the sentence and its
	// context: the "NAME/sent" form of a fusion input, or the paper's
	// sentence-only ablation (--no-context) for the whole ranker.
	SentenceOnly bool
	// Dense tunes the dense ranker and the dense inputs of fusions.
	Dense DenseOptions
	// Fusion, when set, are the parameters a fusion runs with instead of
	// the index's (eval --params-from, parameters tuned on the fly).
	Fusion *fuse.Params
}

// ParseSpec parses a ranker name; it is the one parser of ranker names:
//
//	"" or "default"    the index's default ranker (see Index.Default)
//	bm25-TOKENIZER     BM25 (tokenizers: see tokenize.Names)
//	dense              the dual encoder
//	fusion-METHOD      a fusion (methods: see FusionMethods)
//	NAME/sent          NAME on the sentence alone (not for fusions)
//	ctxmax:NAME        the best NAME score in each sentence's context
//	ctxrel:NAME        NAME's score minus the best in its context
//
// An error wraps ErrUnknownRanker.
func ParseSpec(name string) (Spec, error) {
	s := Spec{Name: name}
	if name == "" || name == DefaultName {
		return Spec{}, nil
	}
	if mode, base, ok := strings.Cut(name, ":"); ok {
		if mode != "ctxmax" && mode != "ctxrel" {
			return Spec{}, unknownName(name)
		}
		b, err := ParseSpec(base)
		if err != nil || b.Kind == KindDefault || b.Kind == KindFusion {
			return Spec{}, unknownName(name)
		}
		s.Kind, s.Method, s.Base = KindDerived, mode, base
		return s, nil
	}
	base, sent := strings.CutSuffix(name, fuse.SentenceOnlySuffix)
	s.SentenceOnly = sent
	switch {
	case base == "dense":
		s.Kind = KindDense
	case strings.HasPrefix(base, "bm25-") && slices.Contains(tokenize.Names(), strings.TrimPrefix(base, "bm25-")):
		s.Kind, s.Tokenizer = KindBM25, strings.TrimPrefix(base, "bm25-")
	case strings.HasPrefix(base, "fusion-") && !sent && slices.Contains(FusionMethods, strings.TrimPrefix(base, "fusion-")):
		s.Kind, s.Method = KindFusion, strings.TrimPrefix(base, "fusion-")
	default:
		return Spec{}, unknownName(name)
	}
	return s, nil
}

func unknownName(name string) error {
	var fusions []string
	for _, m := range FusionMethods {
		fusions = append(fusions, "fusion-"+m)
	}
	var bm []string
	for _, t := range tokenize.Names() {
		bm = append(bm, "bm25-"+t)
	}
	return fmt.Errorf("%w %q (rankers: %s, dense, %s)", ErrUnknownRanker, name, strings.Join(bm, ", "), strings.Join(fusions, ", "))
}

// with returns the spec of another name with s's options (document form,
// dense options); the explicit fusion parameters are dropped.
func (s Spec) with(name string) (Spec, error) {
	n, err := ParseSpec(name)
	if err != nil {
		return Spec{}, err
	}
	n.SentenceOnly = n.SentenceOnly || s.SentenceOnly
	n.Dense = s.Dense
	return n, nil
}

// Rankers lists the index's own rankers (BM25 per tokenizer, dense), in
// canonical order; [Index.Available] adds the fusions.
func (e *Index) Rankers() []string {
	var out []string
	for _, t := range tokenize.Names() {
		if _, ok := e.r.Meta().Field(store.FieldName(t, true)); ok {
			out = append(out, "bm25-"+t)
		}
	}
	if e.r.Meta().Dense != nil {
		out = append(out, "dense")
	}
	return out
}

// Available lists every ranker name the index answers with: its own
// rankers, then the fusions it holds tuned parameters for (best first)
// and the built-in fusions (the default, DefaultFusion, and fusion-rrf) when
// it has embeddings.
func (e *Index) Available() ([]string, error) {
	out := e.Rankers()
	if e.r.Meta().Dense == nil {
		return out, nil
	}
	stored, err := e.StoredFusions()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, p := range stored {
		if !seen[p.Name] {
			seen[p.Name] = true
			out = append(out, p.Name)
		}
	}
	for _, p := range e.builtinFusions() {
		if !seen[p.Name] {
			out = append(out, p.Name)
		}
	}
	return out, nil
}

// Default returns the name of the ranker the index answers with when none
// is named: the best fusion `reqa fuse` stored (on an index kept in an
// engine, the best one the engine can run), else the built-in default
// fusion (see BuiltinDefault) when it has embeddings, else bm25-wpm.
func (e *Index) Default() (string, error) {
	if e.r.Meta().Dense == nil {
		return "bm25-wpm", nil
	}
	stored, err := e.StoredFusions()
	if err != nil {
		return "", err
	}
	for _, p := range stored {
		if e.b.serves(p) {
			return p.Name, nil
		}
	}
	return e.BuiltinDefault().Name, nil
}

// FusionParams returns the parameters the index answers the fusion called
// name with: the ones stored by `reqa fuse`, else the built-in ones (the
// default fusion, BuiltinDefault, and fusion-rrf) on an index with
// embeddings. Other fusions
// of an untuned index fail with ErrNoTunedParams (and ErrUnknownRanker).
func (e *Index) FusionParams(name string) (fuse.Params, error) {
	if e.r.Meta().Dense == nil {
		return fuse.Params{}, fmt.Errorf("%w %q: a fusion needs the dense ranker: %w", ErrUnknownRanker, name, ErrNoEmbeddings)
	}
	stored, err := e.StoredFusions()
	if err != nil {
		return fuse.Params{}, err
	}
	for _, p := range stored {
		if p.Name == name {
			return p, nil
		}
	}
	for _, p := range e.builtinFusions() {
		if p.Name == name {
			return p, nil
		}
	}
	return fuse.Params{}, fmt.Errorf("%w %q: %w in index %s", ErrUnknownRanker, name, ErrNoTunedParams, e.r.Path())
}

// Resolve builds the ranker s names, with its options; it is the one place
// where defaults are applied: the default ranker for an empty name (see
// Default), the index's or built-in fusion parameters (see FusionParams)
// unless s.Fusion is set, exact dense scoring inside fusions. An unknown
// or unserved ranker wraps ErrUnknownRanker; a fusion without parameters
// ErrNoTunedParams. Every Ranker it returns is safe for concurrent Score
// calls.
func (e *Index) Resolve(s Spec) (Ranker, error) {
	if s.Kind == KindDefault {
		name, err := e.Default()
		if err != nil {
			return nil, err
		}
		d, err := s.with(name)
		if err != nil {
			return nil, err
		}
		return e.Resolve(d)
	}
	return e.b.ranker(s)
}

// specFusion returns the parameters the fusion s names runs with: s.Fusion
// when set, else the index's (FusionParams). An input the fusion's weights ignore is left out (fuse.Params.Weighted):
// the built-in default weighs bm25-wpm 0, and a question should not pay
// for its vocabulary and postings.
func (e *Index) specFusion(s Spec) (fuse.Params, error) {
	if s.Fusion != nil {
		return s.Fusion.Weighted(), nil
	}
	p, err := e.FusionParams(s.Name)
	return p.Weighted(), err
}

// Ranker resolves the ranker called name with default options (sentence
// and context, exact dense search).
func (e *Index) Ranker(name string) (Ranker, error) {
	s, err := ParseSpec(name)
	if err != nil {
		return nil, err
	}
	return e.Resolve(s)
}
