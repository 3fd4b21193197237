package rank

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/reqa/reqa/index/tokenize/stem"
	"github.com/reqa/reqa/rank/fuse"
)

// A question of the form "What is X?" asks for the sentence that defines
// X ("X is …", "X: …"), and in documentation that sentence usually exists
// beside many that merely mention X: a list item naming it, a heading, a
// sentence using it in passing. DefinitionSubject and Defines recognise
// the two sides; a fusion with Params.DefinitionsFirst puts the sentences
// among its best DefinitionDepth that define the question's subject
// first, in their fused order (BENCHMARKS.md, "A definition comes first").

// DefinitionDepth is how deep in a fusion's ranking a defining sentence is
// looked for.
const DefinitionDepth = 50

// definitionForms are the question forms that ask what something is:
// words before the subject, and words that may follow it.
var definitionForms = []struct{ before, after []string }{
	{[]string{"what", "is", "meant", "by"}, nil},
	{[]string{"what", "is"}, []string{"used", "for"}},
	{[]string{"what", "are"}, []string{"used", "for"}},
	{[]string{"what", "is"}, nil},
	{[]string{"what", "are"}, nil},
	{[]string{"what's"}, nil},
	{[]string{"what", "does"}, []string{"mean"}},
	{[]string{"what", "do"}, []string{"mean"}},
	{[]string{"define"}, nil},
}

// definingWords are the words that, right after its subject, make a
// sentence a definition of it.
var definingWords = map[string]bool{
	"is": true, "are": true, "means": true, "mean": true, "refers": true,
	"stands": true, "denotes": true, "specifies": true, "defines": true,
	"lets": true, "allows": true, ":": true,
}

// articles are dropped before a subject, in questions and sentences.
var articles = map[string]bool{"a": true, "an": true, "the": true}

// cutWords end a subject early: "What is a version range in node-semver?"
// asks about "version range" as much as about "version range in
// node-semver".
var cutWords = map[string]bool{"in": true, "for": true, "within": true, "on": true, "under": true}

// definitionWords splits text into lower-cased words, a trailing colon its
// own word, other punctuation around words dropped.
func definitionWords(text string) []string {
	var out []string
	for _, f := range strings.Fields(strings.ToLower(text)) {
		colon := strings.HasSuffix(strings.TrimRight(f, ".,;!?\"'`)"), ":")
		w := strings.TrimRight(f, ".,;:!?\"'`)")
		w = strings.TrimLeft(w, "(\"'`")
		if w != "" {
			out = append(out, w)
		}
		if colon {
			out = append(out, ":")
		}
	}
	return out
}

// DefinitionSubject returns the stemmed words of what a question asks to
// have defined — "What are hooks?" gives ["hook"] — and the same cut
// before its first preposition, when the question has a definition form.
func DefinitionSubject(question string) (subjects [][]string, ok bool) {
	w := definitionWords(question)
	for _, f := range definitionForms {
		if len(w) <= len(f.before) || !slices.Equal(w[:len(f.before)], f.before) {
			continue
		}
		x := w[len(f.before):]
		if len(f.after) > 0 {
			if len(x) <= len(f.after) || !slices.Equal(x[len(x)-len(f.after):], f.after) {
				continue
			}
			x = x[:len(x)-len(f.after)]
		}
		for len(x) > 0 && articles[x[0]] {
			x = x[1:]
		}
		if len(x) == 0 || len(x) > 8 {
			return nil, false
		}
		full := stems(x)
		subjects = append(subjects, full)
		for i := 1; i < len(x); i++ {
			if cutWords[x[i]] {
				subjects = append(subjects, full[:i])
				break
			}
		}
		return subjects, true
	}
	return nil, false
}

// Defines reports whether sentence begins with one of subjects (after an
// article) followed by a defining word.
func Defines(sentence string, subjects [][]string) bool {
	w := definitionWords(sentence)
	for len(w) > 0 && articles[w[0]] {
		w = w[1:]
	}
	for _, s := range subjects {
		if len(w) <= len(s) {
			continue
		}
		if slices.Equal(stems(w[:len(s)]), s) && definingWords[w[len(s)]] {
			return true
		}
	}
	return false
}

func stems(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = stem.Stem(w)
	}
	return out
}

// answersFunc looks sentences up by id (a backend's answers).
type answersFunc func(ctx context.Context, ids []uint32, yield func(Answer) bool) error

// definitionsFirst raises, for a question of a definition form, the
// candidates among the DefinitionDepth best of fused whose sentence
// defines the question's subject above every other candidate, keeping the
// order within each group (fuse.Raise, the opposite of fuse.Demote). fused[j]
// is the score of candidate id(j) (nil: j itself). A question of another
// form costs nothing.
func definitionsFirst(ctx context.Context, question string, fused []float64, id func(j int) uint32, answers answersFunc) error {
	subj, ok := DefinitionSubject(question)
	if !ok || answers == nil || len(fused) == 0 {
		return nil
	}
	ids := make([]uint32, 0, DefinitionDepth)
	at := make(map[uint32]int, DefinitionDepth)
	for _, j := range fuse.TopIndices(fused, DefinitionDepth) {
		if math.IsInf(fused[j], 0) || math.IsNaN(fused[j]) {
			continue
		}
		x := uint32(j)
		if id != nil {
			x = id(j)
		}
		ids, at[x] = append(ids, x), j
	}
	var first []int
	err := answers(ctx, ids, func(a Answer) bool {
		if Defines(a.Sentence, subj) {
			first = append(first, at[a.SentenceID])
		}
		return true
	})
	if err != nil {
		return fmt.Errorf("definitions first: %w", err)
	}
	fuse.Raise(fused, first)
	return nil
}
