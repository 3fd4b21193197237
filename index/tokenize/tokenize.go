// Package tokenize names reqa's tokenizers and gives them one interface.
//
//   - "word": NLTK word_tokenize (package index/tokenize/word), no
//     normalization — the MultiReQA paper's BM25 word tokens;
//   - "wpm": BERT-uncased WordPiece (package index/tokenize/wordpiece);
//   - "stem": the word tokens lower-cased and Snowball English stemmed,
//     identifiers also split into their parts (package
//     index/tokenize/stem), so inflections of a word meet; a question's
//     two adjacent words also search as one ("roll back", "rollback"), and
//     its question-form words ("how", "do", "I") weigh half.
//
// New indexes hold a BM25 field pair for every tokenizer in [Names];
// indexes built before "stem" existed lack its fields: they do not offer
// bm25-stem (package rank refuses it with ErrUnknownRanker) and answer
// with every other ranker as before.
package tokenize

import (
	"fmt"
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
	// Tokenize returns the tokens of a document's text.
	Tokenize(text string) []string
	// Query returns the tokens a question is searched with and each
	// one's weight in a BM25 score (nil: all 1): Tokenize's tokens, and
	// for "stem" also two adjacent words written as one, with
	// question-form words weighing [stem.FormWeight] (see [stem.Query]).
	Query(text string) (tokens []string, weights []float64)
}

// Names lists the registered tokenizers in their canonical order.
func Names() []string { return []string{"word", "wpm", "stem"} }

type wordTok struct{}

func (wordTok) Name() string                            { return "word" }
func (wordTok) Tokenize(text string) []string           { return word.Tokenize(text) }
func (wordTok) Query(text string) ([]string, []float64) { return word.Tokenize(text), nil }

type wpmTok struct{ t *wordpiece.Tokenizer }

func (w wpmTok) Name() string                            { return "wpm" }
func (w wpmTok) Tokenize(text string) []string           { return w.t.Tokenize(text) }
func (w wpmTok) Query(text string) ([]string, []float64) { return w.t.Tokenize(text), nil }

type stemTok struct{}

func (stemTok) Name() string                            { return "stem" }
func (stemTok) Tokenize(text string) []string           { return stem.Tokenize(text) }
func (stemTok) Query(text string) ([]string, []float64) { return stem.Query(text) }

var (
	wpmOnce sync.Once
	wpm     *wordpiece.Tokenizer
	wpmErr  error
)

// Get returns the tokenizer called name.
func Get(name string) (Tokenizer, error) {
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
