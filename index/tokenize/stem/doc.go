// Package stem is reqa's "stem" tokenizer for BM25: the word tokenizer's
// tokens (package index/tokenize/word, NLTK word_tokenize), lower-cased and
// reduced by the Snowball English (Porter2) stemmer
// (github.com/kljensen/snowball), so that "configure", "configured" and
// "configures" meet as "configur", and "Installing" meets "installs".
//
// Every token of the word tokenizer is kept, stemmed, in the same order. A
// token with punctuation inside or around its letters and digits — the
// identifiers, options and paths of technical documentation: "git-config",
// "user.name", "--global", "os.Open", "max_connections" — is followed by
// the stems of its parts ("git-config" gives "git-config", "git",
// "config"), so a question saying "config" or "global" meets them; the
// word tokenizer keeps such tokens whole, and WordPiece splits them but
// does not stem. Measured on the tune halves of SQuAD and the docs
// benchmark, adding the parts raised bm25-stem on SQuAD (66.9 → 67.3 P@1)
// and on the four document sets together (26.4 → 29.3), and on no set
// lowered it (BENCHMARKS.md, issue 14). Stop words are not dropped (the word tokenizer keeps them;
// BM25's IDF already weighs them down) and are not stemmed either, as
// Snowball's stop-word list asks ("was" stays "was", not "wa"). Tokens of
// one or two bytes, punctuation and numbers come out lower-cased and
// otherwise as they were.
//
// A question is searched with [Query]'s tokens: Tokenize's, then every two
// adjacent words written as one ("roll back" → "rollback", "log out" →
// "logout"), because documentation writes many phrasal verbs and compounds
// as one word that askers write as two. Measured on the tune halves of
// SQuAD, the four document sets and the held-out Python set, it raised the
// P@1 of bm25-stem and of the default ranker on debfaq and on the four sets
// in one index (one question each) and on SQuAD (by 0.1), and lowered it on
// none (BENCHMARKS.md, "Two words a document writes as one").
//
// Query also weighs each token: a question-form word ([Form]: an
// interrogative, an auxiliary, a first-person pronoun — "how", "do", "I",
// "can", "we") counts [FormWeight] (½) in the BM25 score, every other token
// 1 (index/bm25's Field.ScoreWeighted). Such words say what shape the question
// has, not what it is about, and at full weight they met text of the same
// shape: "How do I …?" questions were answered from the contexts under a
// FAQ's "How can I …?" headings. Chosen on the tune halves of SQuAD and
// four documentation sets, where it raised the default ranker on SQuAD,
// bash and debfaq and lowered it on none, and bm25-stem alone by up to 6
// P@1 (git; SQuAD 1.6) and lowered it on none (BENCHMARKS.md,
// "Question-form words weigh half").
//
// Stemming is what Lucene's, Xapian's and Elasticsearch's English analyzers
// do before BM25; reqa's other tokenizers ("word": exact NLTK tokens,
// "wpm": BERT WordPiece) do not stem.
package stem
