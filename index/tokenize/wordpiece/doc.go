// Package wordpiece is reqa's "wpm" tokenizer: BERT-uncased WordPiece, the
// tokenization the MultiReQA paper (Guo et al., 2020) gave its BM25 "wpm"
// baseline. It yields what Hugging Face's BertTokenizer (uncased) returns
// from tokenize(text): word pieces such as "una", "##ffa", "##ble", with no
// [CLS] or [SEP], no padding and no truncation.
//
//	tk, err := wordpiece.New()
//	toks := tk.Tokenize("Déjà vu!") // ["de" "##ja" "vu" "!"]
//
// # The algorithm
//
// Tokenize follows BERT's BasicTokenizer and WordpieceTokenizer:
//
//  1. Special tokens written verbatim in the text ("[CLS]", "[SEP]",
//     "[MASK]", "[PAD]", "[UNK]", case-sensitive) are cut out of the raw
//     text and kept whole, as Hugging Face does.
//  2. Clean: NUL, U+FFFD, invalid UTF-8 and every rune of Unicode category
//     C* (controls, format characters such as U+200B and U+00AD, private use,
//     unassigned) are deleted — deleted, not turned into spaces, so
//     "a\x0cb" is one word; every other white-space rune (including NBSP,
//     U+2009, U+3000, U+2028) separates words.
//  3. Each CJK ideograph becomes a word of its own.
//  4. Normalise: NFD, drop non-spacing marks (Mn), lowercase rune by rune.
//     The tokenizer.json says "strip_accents": null, which Hugging Face reads
//     as "strip when lowercasing".
//  5. Split on punctuation (ASCII 33-47, 58-64, 91-96, 123-126 and Unicode
//     P*): each punctuation rune is a token.
//  6. WordPiece, greedy longest-match-first: the longest vocabulary entry
//     that prefixes the word, then the longest "##" entry that prefixes the
//     rest, and so on. A word longer than 100 runes, or with a part no entry
//     matches, is the single token "[UNK]" ([Tokenizer.Unknown]; package
//     index/tokenize drops it, so it never matches in BM25).
//
// Where the two Hugging Face implementations disagree this package follows
// the Rust one (BertTokenizerFast, the pipeline tokenizer.json describes)
// for lowercasing: Σ becomes σ everywhere, while Python's str.lower() writes
// ς at the end of a word ("ΟΔΟΣ": ο ##δ ##ο ##σ here, ο ##δ ##ος in Python).
// For CJK ranges it follows Google's original code and the Python
// tokenizer (U+2B820-U+2CEAF; Rust starts that range at U+2B920).
// Neither difference occurs in the SQuAD test set.
//
// # The vocabulary: an embedded, uncommitted asset
//
// The 30,522-entry vocabulary is the tokenizer.json of the Go module
// github.com/clems4ever/all-minilm-l6-v2-go@v0.0.9 (all-MiniLM-L6-v2 uses
// bert-base-uncased's vocabulary; go.sum pins the file). It is third-party
// data, so it is not in the repository: `make` copies it from the Go module
// cache into assets/tokenizer.json (git-ignored), and go:embed builds it
// into the binary, which needs no file at run time. Without it the package
// still compiles (assets/ holds a committed placeholder) and [New] returns
// [ErrNoVocabulary]. New parses the file once per process (about 80 ms) and
// refuses a file whose model or normaliser differs from what Tokenize
// implements. Padding, truncation to 128 tokens and the [CLS]/[SEP]
// template in the file are ignored.
//
// # Why not github.com/sugarme/tokenizer
//
// The project meant to use github.com/sugarme/tokenizer v0.3.0 (in go.mod)
// to run this file. It is broken for it, and slow; Tokenize is a pure-Go
// implementation instead, and sugarme survives only in the tests, as a
// reference (with its normaliser replaced) that the fast path must match.
// The fork that all-minilm-l6-v2-go's own go.mod substitutes
// (github.com/clems4ever/tokenizer) fixes none of this: its only change
// avoids a reflect call.
//
// Correctness, sugarme v0.3.0 as loaded from this file (cases from
// testdata/cases.jsonl and the fuzz corpus):
//   - Accents are never stripped: it reads "strip_accents": null as false,
//     and its RemoveAccents drops Mn without first applying NFD, so even when
//     enabled "é" stays. "Café Déjà vu" gives [UNK] [UNK] vu instead of cafe
//     de ##ja vu. On the 2,067 SQuAD contexts this changes the tokens of
//     227 contexts (11%) and gives 532 [UNK] tokens instead of 55.
//   - Deleting multi-byte runes garbles the text (NormalizedString.Filter
//     misaligns): "\ufeffHello world", a text starting with a byte-order
//     mark, gives hello world ##hell ##o world; and its RemoveAccents, if
//     one enables it after an NFD, turns "0\u036fé0" into 0 ##e ##00.
//   - CJK extension A (U+3400-U+4DBF) is not split out: its range table is
//     unsorted, which unicode.Is does not allow.
//   - White space other than ' ', \t, \n, \r does not split words ("nb\u00a0sp"
//     is one [UNK]), and \t, \n, \r become spaces only next to a deleted
//     control character. Private-use and unassigned runes are kept.
//   - Lowercasing replaces the string without fixing its offsets, so a rune
//     whose lowercase has another UTF-8 length ("Ⱥ") makes it panic (nil
//     pointer dereference); invalid UTF-8 panics too (slice bounds).
//   - Two different special tokens in one text lose the first: "[MASK]
//     [UNK]" gives "[", "mask", "]", "[UNK]" (it re-sorts its matches by
//     token id after sorting them by position).
//   - NormalizedString.Map ignores the function it is given.
//
// Its pre-tokenizer and WordPiece model are right. The tests keep sugarme as
// a reference (sugarme_test.go): they cut out special tokens and normalise
// the text themselves, with a plain chain of string functions, and give
// sugarme the rest. That reference and Tokenize agree on every one of the
// 23,279 SQuAD contexts, candidate sentences and questions (792,705 tokens),
// and so does an independent Python implementation on Python's unicodedata
// (testdata/bert_reference.py), normalisation included.
//
// Speed, on the 2,067 SQuAD contexts (1.60 MB, 330,000 tokens), one run of
// go test -bench 'Tokenize$|Sugarme' -benchtime 3x on a 2-core machine
// shared with other work (load average 7.4, so absolute numbers are
// pessimistic; Tokenize alone varied from 64 to 170 ms per pass):
//
//	                       time/pass   MB/s   tokens/s   allocated/pass
//	Tokenize                   64 ms   25.1  5,160,000   12 MB,      7,246 allocs
//	sugarme, as configured  8,591 ms   0.19     38,000   2,791 MB, 37,587,458 allocs
//	sugarme, test reference 6,482 ms   0.25     51,000   1,955 MB, 27,798,117 allocs
//
// sugarme is over 100 times slower: a MultiReQA evaluation tokenizes
// ~25,000 texts (contexts, candidate sentences and questions, ~4 MB) and
// would spend about 20 s in sugarme, against a fraction of a second here.
//
// # Concurrency and failure
//
// A Tokenizer is immutable; any number of goroutines may share one
// (TestConcurrent, under -race). sugarme's Tokenizer also showed no data
// race when shared, but promises nothing, and calls log.Fatal on some
// errors, which no recover can catch.
// Tokenize accepts any string, never panics and never fails; the fuzz test
// FuzzTokenize checks that, and that it agrees with sugarme.
package wordpiece
