// Package stem is reqa's "stem" tokenizer for BM25: the word tokenizer's
// tokens (package index/tokenize/word, NLTK word_tokenize), lower-cased and
// reduced by the Snowball English (Porter2) stemmer
// (github.com/kljensen/snowball), so that "configure", "configured" and
// "configures" meet as "configur", and "Installing" meets "installs".
//
// Every token of the word tokenizer is kept, one stemmed token for each, in
// the same order: stop words are not dropped (the word tokenizer keeps them;
// BM25's IDF already weighs them down) and are not stemmed either, as
// Snowball's stop-word list asks ("was" stays "was", not "wa"). Tokens of
// one or two bytes, punctuation and numbers come out lower-cased and
// otherwise as they were.
//
// Stemming is what Lucene's, Xapian's and Elasticsearch's English analyzers
// do before BM25; reqa's other tokenizers ("word": exact NLTK tokens,
// "wpm": BERT WordPiece) do not stem.
package stem
