// Package rank answers questions from an index and evaluates rankers.
//
// An [Engine] is an open index plus its rankers. A ranker scores every
// candidate sentence for a question; "bm25-word" and "bm25-wpm" score the
// BM25 field of their tokenizer (the sentence followed by its context, or
// the sentence alone for the paper's sentence-only ablation).
//
// [Evaluate] runs rankers over questions with known gold sentences and
// reports the MultiReQA metrics in percent: P@1, MRR, P@5 and R@10. A
// question is answered at rank r when its highest-ranked gold candidate is
// at r (ties broken by candidate order): P@k counts r ≤ k, MRR averages 1/r,
// and R@10 averages the fraction of a question's gold candidates ranked in
// the top 10.
package rank
