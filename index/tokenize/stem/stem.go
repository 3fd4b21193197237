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

// Query returns the tokens a question is searched with: [Tokenize]'s,
// then, for every two adjacent words of letters, the [Stem] of the two
// written as one ("roll back" gives "rollback", "log out" "logout", "bug
// fixes" "bugfix"), so a question meets a document that writes as one word
// what the asker wrote as two. The first word must not be a stop word (no
// "init" from "in it", no "alive" from "a live"); the second may ("out",
// "up", "in": the particles of phrasal verbs). A joined form that no
// document holds matches nothing and changes no score. Documents are
// tokenized without the joined forms: every adjacent pair of a corpus
// would double its postings.
func Query(text string) []string {
	toks := word.Tokenize(text)
	out := stems(toks)
	for i := 0; i+1 < len(toks); i++ {
		a, b := toks[i], toks[i+1]
		if !isWord(a) || !isWord(b) {
			continue
		}
		a, b = strings.ToLower(a), strings.ToLower(b)
		if english.IsStopWord(a) {
			continue
		}
		out = append(out, Stem(a+b))
	}
	return out
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
