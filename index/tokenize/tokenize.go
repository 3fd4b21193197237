// Package tokenize names reqa's tokenizers and gives them one interface.
//
//   - "word": NLTK word_tokenize (package index/tokenize/word), case
//     kept — the MultiReQA paper's BM25 word tokens;
//   - "wpm": BERT-uncased WordPiece (package index/tokenize/wordpiece);
//   - "stem": the word tokens lower-cased and Snowball English stemmed,
//     identifiers also split into their parts (package
//     index/tokenize/stem), so inflections of a word meet; a question's
//     two adjacent words also search as one ("roll back", "rollback"), and
//     its question-form words ("how", "do", "I") weigh half.
//
// [Get]'s tokenizers read text [Normalize]d (soft hyphens and zero-width
// characters deleted, then NFKC), so "café" in NFC and in NFD, "ﬁrst" and
// "first", "ＦＥＲＲＹ ９" and "FERRY 9", "co-operative" written with a
// soft hyphen and "cooperative" are the same tokens; and they never yield
// an unknown token ("[UNK]" of "wpm"), so text a tokenizer cannot spell
// matches nothing rather than all other text it cannot spell. Stored text
// is never normalised: only tokens are made from the normalised text.
// This normalisation is named [Norm] and recorded in every field of an
// index (store.FieldMeta.Norm); [GetNorm] gives the tokenizers an index
// was built with, "" for indexes written before it (text tokenized as it
// is, "[UNK]" kept), which are asked and appended to exactly as before.
//
// New indexes hold a BM25 field pair for every tokenizer in [Names];
// indexes built before "stem" existed lack its fields: they do not offer
// bm25-stem (package rank refuses it with ErrUnknownRanker) and answer
// with every other ranker as before.
package tokenize

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/reqa/reqa/index/tokenize/stem"
	"github.com/reqa/reqa/index/tokenize/word"
	"github.com/reqa/reqa/index/tokenize/wordpiece"
)

// Tokenizer turns text into tokens. Implementations are safe for
// concurrent use.
type Tokenizer interface {
	// Name is the tokenizer's registered name.
	Name() string
	// Norm is the normalisation the tokenizer applies: [Norm], or "" for
	// none (an index's fields from before normalisation).
	Norm() string
	// Tokenize returns the tokens of a document's text.
	Tokenize(text string) []string
	// Query returns the tokens a question is searched with and each
	// one's weight in a BM25 score (nil: all 1): Tokenize's tokens, and
	// for "stem" also two adjacent words written as one, with
	// question-form words weighing [stem.FormWeight] (see [stem.Query]).
	Query(text string) (tokens []string, weights []float64)
}

// ErrUnknownNorm reports a normalisation this reqa does not know (an index
// written by a newer one).
var ErrUnknownNorm = errors.New("unknown text normalisation")

// Names lists the registered tokenizers in their canonical order.
func Names() []string { return []string{"word", "wpm", "stem"} }

// Get returns the tokenizer called name, with today's normalisation
// ([Norm]): what new indexes are built with.
func Get(name string) (Tokenizer, error) { return GetNorm(name, Norm) }

// GetNorm returns the tokenizer called name with the normalisation norm:
// [Norm], or "" for the tokenizer as it was before normalisation (text
// tokenized as it is, "[UNK]" kept), which indexes built then are asked
// with. An unknown norm is [ErrUnknownNorm].
func GetNorm(name, norm string) (Tokenizer, error) {
	t, err := get(name)
	if err != nil {
		return nil, err
	}
	switch norm {
	case "":
		return t, nil
	case Norm:
		return normalized{t}, nil
	}
	return nil, fmt.Errorf("tokenizer %s: normalisation %q (this reqa knows %q): %w", name, norm, Norm, ErrUnknownNorm)
}

// raw is a tokenizer without normalisation.
type raw interface {
	Tokenizer
	// unknown is the token of text the tokenizer cannot spell ("[UNK]"),
	// "" when it has none.
	unknown() string
}

type wordTok struct{}

func (wordTok) Name() string                            { return "word" }
func (wordTok) Norm() string                            { return "" }
func (wordTok) unknown() string                         { return "" }
func (wordTok) Tokenize(text string) []string           { return word.Tokenize(text) }
func (wordTok) Query(text string) ([]string, []float64) { return word.Tokenize(text), nil }

type wpmTok struct{ t *wordpiece.Tokenizer }

func (w wpmTok) Name() string                            { return "wpm" }
func (w wpmTok) Norm() string                            { return "" }
func (w wpmTok) unknown() string                         { return w.t.Unknown() }
func (w wpmTok) Tokenize(text string) []string           { return w.t.Tokenize(text) }
func (w wpmTok) Query(text string) ([]string, []float64) { return w.t.Tokenize(text), nil }

type stemTok struct{}

func (stemTok) Name() string                            { return "stem" }
func (stemTok) Norm() string                            { return "" }
func (stemTok) unknown() string                         { return "" }
func (stemTok) Tokenize(text string) []string           { return stem.Tokenize(text) }
func (stemTok) Query(text string) ([]string, []float64) { return stem.Query(text) }

// normalized is a tokenizer with the normalisation [Norm]: it reads
// [Normalize]d text and never yields its unknown token, so text it
// cannot spell matches nothing (a question of only such text matches no
// sentence) instead of every other text it cannot spell.
type normalized struct{ t raw }

func (n normalized) Name() string { return n.t.Name() }
func (n normalized) Norm() string { return Norm }

func (n normalized) Tokenize(text string) []string {
	toks := n.t.Tokenize(Normalize(text))
	if unk := n.t.unknown(); unk != "" {
		toks = slices.DeleteFunc(toks, func(t string) bool { return t == unk })
	}
	return toks
}

func (n normalized) Query(text string) ([]string, []float64) {
	toks, weights := n.t.Query(Normalize(text))
	unk := n.t.unknown()
	if unk == "" || !slices.Contains(toks, unk) {
		return toks, weights
	}
	k := 0
	for i, t := range toks {
		if t == unk {
			continue
		}
		toks[k] = t
		if weights != nil {
			weights[k] = weights[i]
		}
		k++
	}
	if weights != nil {
		weights = weights[:k]
	}
	return toks[:k], weights
}

var (
	wpmOnce sync.Once
	wpm     *wordpiece.Tokenizer
	wpmErr  error
)

// get returns the tokenizer called name, without normalisation.
func get(name string) (raw, error) {
	switch name {
	case "word":
		return wordTok{}, nil
	case "wpm":
		wpmOnce.Do(func() { wpm, wpmErr = wordpiece.New() })
		if wpmErr != nil {
			return nil, fmt.Errorf("tokenizer wpm: %w", wpmErr)
		}
		return wpmTok{wpm}, nil
	case "stem":
		return stemTok{}, nil
	}
	return nil, fmt.Errorf("unknown tokenizer %q (known: %s)", name, strings.Join(Names(), ", "))
}
