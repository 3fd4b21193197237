// Package word is reqa's word tokenizer for BM25: an exact Go port of NLTK's
// nltk.word_tokenize(text) (language "english", preserve_line=False), which
// is what the MultiReQA paper (Guo et al., 2020) fed to gensim's BM25. NLTK
// does not normalize the text, and neither does this package: no
// lower-casing, no Unicode normalization, no stemming.
//
// # What word_tokenize does
//
// word_tokenize splits the text into sentences with Punkt, then runs
// NLTKWordTokenizer.tokenize (nltk/tokenize/destructive.py) over each
// sentence and concatenates the tokens. [Tokenize] does the same, taking the
// sentences from [github.com/reqa/reqa/index/sentence.English] — Punkt with
// the project's own English abbreviations and sentence starters, which
// stands in for NLTK's pre-trained English Punkt model that word_tokenize
// loads (its data is not ours to copy). The two differ only where an
// abbreviation list decides a break; [TokenizeSentence] is
// NLTKWordTokenizer.tokenize alone.
//
// NLTKWordTokenizer is a cascade of regular-expression substitutions, each
// applied with re.sub over the whole sentence, in this order (NLTK 3.5, the
// version current when the paper was written):
//
//   - STARTING_QUOTES: pad « “ ‘ „ and runs of backquotes; a " at the very
//     start becomes a pair of backquotes; pad backquote pairs; a " or a pair
//     of apostrophes after a space or one of ( [ { < becomes a pair of
//     backquotes; an apostrophe before a single word character that is not
//     one of m, t, s, d (any case) gets a space after it ("' a").
//   - PUNCTUATION: split off the last period of the sentence when only
//     closing brackets, quotes and white space follow it; pad a comma or
//     colon followed by anything but a decimal digit (so 3,000 and 5:30
//     stay whole) and one at the very end; pad runs of two or more periods;
//     pad ; @ # $ % &; the final-period rule again with fewer closers; pad
//     ? and !; split an apostrophe followed by a space from the character
//     before it; pad *.
//   - PARENS_BRACKETS: pad ] [ ( ) { } < >.
//   - DOUBLE_DASHES: pad --.
//   - ENDING_QUOTES (on " " + text + " "): pad » ” ’; every remaining "
//     becomes a pair of apostrophes; split an apostrophe pair from the
//     character before it; split 's 'S 'm
//     'M 'd 'D and a bare ' from the word before them, and then 'll 'LL 're
//     'RE 've 'VE n't N'T, but only when a space follows them.
//   - CONTRACTIONS2 and CONTRACTIONS3 (Robert MacIntyre's list, any case):
//     cannot → can not, d'ye, gimme, gonna, gotta, lemme, mor'n, wanna
//     (only before white space), 'tis → 't is, 'twas → 't was.
//
// Finally the text is split on white space.
//
// # Faithful to Python, quirks included
//
// Go's regexp (RE2) has neither lookahead nor backreferences, and its \w,
// \b, \s and \d are ASCII-only, while Python 3's are Unicode-aware for str
// patterns. So every rule is a hand-written scanner (rules.go) that
// reproduces re.sub: start positions are tried left to right, the match is
// the one Python's backtracking engine takes, matches do not overlap, and
// zero-width assertions look at the real text. Character classes follow
// Python: \w is letters (L*), numbers (N*) and '_'; \d is decimal digits
// (Nd); \s and str.split() white space is Go's unicode.IsSpace plus
// U+001C..U+001F; IGNORECASE also folds i with İ and ı, s with ſ and k with
// the Kelvin sign; $ also matches before a final newline. The tables come
// from Go's unicode package (Unicode 15); the Pythons of 2020 (3.6 to 3.8)
// used Unicode 9 to 12.1, and characters assigned since are the only place
// the classes can differ.
//
// The port keeps NLTK's quirks, because BM25 scores depend on them:
//
//	a,,b          → a , ,b         the second comma is consumed by the first match
//	don't\nstop   → don't stop     contractions split only before a space
//	rock'n'roll   → rock ' n'roll  the apostrophe rule of 3.5
//	mor'n         → mor ' n        the apostrophe rule runs before the mor'n rule
//	a\t"b"        → a '' b ''      a " opens only after a space or bracket
//
// # Correctness and speed
//
// The scanners are checked byte for byte, before the final split, against a
// second port in reference_test.go that transcribes each pattern into Go's
// regexp (Python's classes spelled out) and handles the lookahead and \b
// rules with anchored matches and explicit checks; the differential test runs
// over hand-written fixtures, random texts, the SQuAD test set and a fuzz
// corpus. oracle_test.go compares with NLTK itself when given NLTK 3.5's
// destructive.py: every SQuAD context and candidate sentence, the fixtures
// and 20,000 random texts agree. Expected outputs in word_test.go were
// derived by hand from the rules.
//
// A rule is skipped when the sentence lacks every character its pattern
// needs, scanners copy the text only when they match, buffers are pooled,
// and all tokens of a call share one string. Tokenize and TokenizeSentence
// are safe for concurrent use. Invalid UTF-8 never makes them panic: each
// invalid byte is a character of its own that is neither a word character,
// a digit nor white space (as U+FFFD would be in Python) and is kept in the
// token it belongs to.
//
// # NLTK versions
//
// This package follows NLTK 3.5 (April 2020) exactly; its rules above are
// those of the released 3.5 destructive.py. Later releases changed them: the
// apostrophe rule, (?i)(\')(?!re|ve|ll|m|t|s|d)(\w)\b in 3.5, gained an n
// in its lookahead and was later rewritten again (so 3.5's "rock ' n'roll"
// differs), mor'n became more'n, the wanna rule's \s became a lookahead, a pair
// of apostrophes got its own rule, and rules padding the dashes U+2012..U+2015 and
// collapsing white space were added. None of that is in 3.5, and none of it
// is here.
//
// NLTK 3.4.5 had no NLTKWordTokenizer: word_tokenize used
// TreebankWordTokenizer, patched in nltk/tokenize/__init__.py with the same
// unicode-quote, apostrophe and first final-period rules. Its remaining rules
// are 3.5's with two differences: the ellipsis rule is \.\.\. → " ... "
// instead of \.{2,} (so ".." and "...." are not padded: "a..b" stays one
// token and "a....b" gives a ... .b), and there is no [*] rule (so
// asterisks stay inside tokens). Those two rules came with NLTK pull request
// 2322 (July 2019); whether the 3.4.5 release already carried them in its
// __init__.py patch could not be checked here.
package word
