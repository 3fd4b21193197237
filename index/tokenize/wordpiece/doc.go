// Package wordpiece is reqa's "wpm" tokenizer: BERT-uncased WordPiece, as
// the MultiReQA paper used for its BM25 baseline. (Draft; see the report.)
package wordpiece
