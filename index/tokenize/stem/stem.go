package stem

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"

	"github.com/reqa/reqa/index/tokenize/word"
)

// Tokenize returns the stemmed tokens of text: for each of
// [word.Tokenize]'s tokens, its [Stem], then, when the token holds
// punctuation between or around its letters and digits ("git-config",
// "user.name", "--global", "max_connections"), the stem of each of its
// [Parts].
func Tokenize(text string) []string {
	return stems(word.Tokenize(text))
}

// stems is Tokenize over word tokens toks.
func stems(toks []string) []string {
	if len(toks) == 0 {
		return nil
	}
	out := make([]string, 0, len(toks))
	for _, t := range toks {
		out = append(out, Stem(t))
		if ps := Parts(t); len(ps) > 1 || len(ps) == 1 && ps[0] != t {
			for _, p := range ps {
				out = append(out, Stem(p))
			}
		}
	}
	return out
}

// Query returns the tokens a question is searched with and each one's
// weight in its BM25 score (weights[i] for tokens[i]).
//
// The tokens are [Tokenize]'s, then, for every two adjacent words of
// letters, the [Stem] of the two written as one ("roll back" gives
// "rollback", "log out" "logout", "bug fixes" "bugfix"), so a question
// meets a document that writes as one word what the asker wrote as two.
// The first word must not be a stop word (no "init" from "in it", no
// "alive" from "a live"); the second may ("out", "up", "in": the particles
// of phrasal verbs). A joined form that no document holds matches nothing
// and changes no score. Documents are tokenized without the joined forms:
// every adjacent pair of a corpus would double its postings.
//
// A question-form word ([Form]: "how", "do", "I" in "How do I …?") weighs
// [FormWeight]; every other token weighs 1.
func Query(text string) (tokens []string, weights []float64) {
	toks := word.Tokenize(text)
	tokens = stems(toks)
	weights = make([]float64, 0, len(tokens)+len(toks))
	for _, t := range toks {
		w := 1.0
		if Form(t) {
			w = FormWeight
		}
		weights = append(weights, w)
		if ps := Parts(t); len(ps) > 1 || len(ps) == 1 && ps[0] != t {
			for range ps {
				weights = append(weights, 1)
			}
		}
	}
	for i := 0; i+1 < len(toks); i++ {
		a, b := toks[i], toks[i+1]
		if !isWord(a) || !isWord(b) {
			continue
		}
		a, b = strings.ToLower(a), strings.ToLower(b)
		if english.IsStopWord(a) {
			continue
		}
		tokens = append(tokens, Stem(a+b))
		weights = append(weights, 1)
	}
	return tokens, weights
}

// FormWeight is the weight of a question-form word in a question's BM25
// score: such a word says what shape the question has, not what it is
// about, yet matches text of the same shape — "How do I …?" questions met
// the contexts under a FAQ's "How can I …?" headings before the sentences
// that answer them. Chosen on the tune halves of SQuAD and four
// documentation sets (0 to 1 in steps of ⅛; the best worst P@1 gain over
// weight 1, ties by mean MRR), and leave-one-domain-out a better default
// than weight 1 (BENCHMARKS.md, "Question-form words weigh half").
const FormWeight = 0.5

// formWords are the words that give a question its form: the
// interrogatives, the auxiliaries a question opens with and the
// first-person pronouns of "how do I", "can we".
var formWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`what which who whom whose when where why how
		do does did can could should would will shall may might must is are am was were
		i me my we us our`) {
		formWords[w] = true
	}
}

// Form reports whether the word token is a question-form word, in any case
// ("How", "how", "I").
func Form(token string) bool {
	if len(token) > len("should") {
		return false
	}
	return formWords[strings.ToLower(token)]
}

// isWord reports whether token is at least two letters and nothing else.
func isWord(token string) bool {
	n := 0
	for _, r := range token {
		if !unicode.IsLetter(r) {
			return false
		}
		n++
	}
	return n >= 2
}

// Parts splits a token at every run of characters that are neither
// letters, digits nor apostrophes ("n't" and "o'clock" stay whole). A
// token that is all punctuation has no parts.
func Parts(token string) []string {
	return strings.FieldsFunc(token, func(r rune) bool {
		return r != '\'' && !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// Stem returns the Snowball English stem of one token, lower-cased. Stop
// words, tokens of at most two bytes and tokens without a letter are only
// lower-cased. A token that is not valid UTF-8 only has its ASCII letters
// lower-cased, its bytes kept (Snowball works on runes and would turn
// invalid bytes into U+FFFD, merging distinct tokens). Snowball English
// knows ASCII vowels only: words of other scripts are lower-cased and
// rarely changed.
func Stem(token string) string {
	if !utf8.ValidString(token) {
		// strings.ToLower would replace the invalid bytes.
		return lowerASCII(token)
	}
	low := strings.ToLower(token)
	if !hasLetter(low) {
		return low
	}
	s := english.Stem(low, false)
	if s == "" {
		// Never an empty token: BM25 terms are non-empty.
		return low
	}
	return s
}

// hasLetter reports whether s holds an ASCII or non-ASCII letter-like
// byte: punctuation and numbers are left as they are.
func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// lowerASCII lower-cases the ASCII letters of s, keeping every other byte.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
