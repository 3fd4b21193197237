// Package bm25 builds and scores BM25 inverted indexes.
//
// A [Builder] collects tokenized documents (for reqa, one document per
// candidate sentence: the sentence followed by its whole context, or the
// sentence alone for the paper's ablation) and writes their postings and
// document lengths into a store field ([Builder.WriteField], over
// transactions of at most [TxBytes]); [AppendField] merges a builder's
// documents into a stored field. A builder keeps postings in their stored
// encoding, so its memory is the field's size. A [Field] scores questions against a
// stored field (or directly against a Builder, for in-memory use).
//
// # Scoring
//
// The default [Gensim] parameters reproduce gensim 3.8's summarization.bm25,
// which the MultiReQA paper used, bit for bit in float64:
//
//	idf(t)   = ln(N − n_t + 0.5) − ln(n_t + 0.5)
//	           (every negative idf replaced by ε × the mean idf over the vocabulary, ε = 0.25)
//	score    = Σ over query tokens t, repeats counted again, that occur in d:
//	           idf(t) · tf · (k1 + 1) / (tf + k1 · (1 − b + b · |d| / avgdl))
//
// with k1 = 1.5 and b = 0.75, summed in query order as gensim does. The mean
// idf is accumulated in the order terms first appear in the corpus, as
// gensim's dict iteration does.
//
// One deliberate departure: the floor is ε × |mean idf|. gensim's floor
// turns negative when the mean idf is negative — a small corpus where most
// terms occur in more than half the documents, which is common here because
// every sentence's document repeats its whole context (index three short
// paragraphs and ask a question) — and then a sentence that matches a
// question term scores below one that matches nothing (observed: "It
// returns at noon." −0.146 for "When does the ferry return?", below
// unrelated sentences at 0). Whenever the mean idf is ≥ 0, as on every
// benchmark set (SQuAD: word 6.7, wpm 6.0), the two are identical; the
// gensim transcription test checks both cases. [Lucene] is the Lucene 8+ variant
// (idf = ln(1 + (N − n + 0.5)/(n + 0.5)), no (k1 + 1) factor).
//
// Ties are broken by document id, i.e. by candidate order in the input.
//
// # Layouts of the sentence + context field
//
// A sentence + context document repeats its context once per sentence.
// Stored as they are (the expanded layout, index format 1), their postings
// were most of an index: four fifths on paragraphs, over nine tenths on text
// cut into 4 KiB passages. The context layout ([ContextLayout], format 2)
// stores the field's postings over contexts and expands them when read,
// adding the sentence field's counts ([ContextPostings]; scoring streams
// the expansion into the scores, never holding a common term's list of
// nearly every sentence); statistics are
// computed the same way at build time ([ContextField]), so scores are those
// of the expanded layout to the last bit. SQuAD's index: 14.5 → 10.0 MB;
// 100 MB of text on one line: 1.35 GB → 294 MB, built in 86 s with 744 MiB
// instead of 3 min 9 s with 3.04 GiB (BENCHMARKS.md, "Context layout").
//
// # Postings codec
//
// A term's postings are stored as uvarint(count) followed by count pairs of
// uvarint(doc − previous doc) and uvarint(tf). Document lengths are a
// sequence of uvarints. Both are decoded defensively: damaged input yields
// [ErrCorrupt], never a panic.
package bm25
