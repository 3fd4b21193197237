// Package rank answers questions from an index, evaluates rankers and owns
// "which ranker, with what options".
//
// # Engines and rankers
//
// An [Index] is an open index. A [Ranker] scores every candidate sentence
// for a question; [Index.Ask] returns the best answers, each sentence once
// (its other places in [Answer].Also), each with its context, source and
// record id. The rankers are:
//
//   - "bm25-word", "bm25-wpm" and "bm25-stem": BM25 over one tokenizer's
//     field, on the sentence followed by its context, or on the sentence
//     alone for the paper's sentence-only ablation ([BM25Ranker]), each
//     question token weighted as its tokenizer's Query says (bm25-stem:
//     question-form words ½: package index/tokenize/stem's FormWeight);
//     "bm25-stem" only on indexes built since the stem tokenizer exists;
//   - "dense": the dual encoder, the dot product of the question's embedding
//     (through the question adapter `reqa tune` trained, when the index has
//     one) with normalize(e_sentence + λ·e_context), exact or over the HNSW
//     graph ([DenseRanker], [DenseOptions]);
//   - "fusion-METHOD": the scores of several rankers fused by one of
//     [FusionMethods] with parameters learned by `reqa fuse` (package
//     rank/fuse), or built in: the default ([DefaultFusion], embedded from
//     builtin.json and chosen by leave-one-domain-out results) and
//     fusion-rrf ([DefaultRRF]) ([FusedRanker]);
//   - as fusion inputs only, "NAME/sent" (NAME on the sentence alone) and
//     "ctxmax:NAME", "ctxrel:NAME" (context evidence, [ContextRanker]).
//
// # Names, options and defaults
//
// [ParseSpec] is the one parser of ranker names: it returns a [Spec], to
// which the caller adds options (sentence only, dense options, explicit
// fusion parameters). [Index.Resolve] is the one place defaults are
// applied: the empty name (or "default") is [Index.Default] — the best
// fusion stored by `reqa fuse`, else the built-in default fusion on an
// index with embeddings, else bm25-wpm — and a fusion runs with the parameters of
// [Index.FusionParams]. [Index.Available] lists every ranker an index
// answers with. ask, eval, fuse, demo and serve all go through these, so
// they agree on what a name and the default mean. Errors wrap
// [ErrUnknownRanker] (not a ranker, or not one this index has) or
// [ErrNoTunedParams] (a fusion the index holds no parameters for).
//
// [LoadTuned] reads the fusion parameters and question adapter learned for
// another index (or a JSON file of fusion parameters) and
// [Index.UseTuned] answers with them instead of the index's own: how
// learned parts transfer to another domain (`reqa eval --params-from`).
//
// # Indexes kept in an engine
//
// An index file whose meta names an engine (store.Meta.Engine: Weaviate,
// written by `reqa index --engine`) holds no sentences; [Open] returns an
// Index whose rankers ask the engine (remote.go): bm25-TOKENIZER and
// dense return their [RemoteDepth] best candidates, and a fusion pools
// every input's best, completes each input's score of every pooled
// candidate with filtered queries and fuses them with statistics over the
// whole collection (dense: exact, from the answer vectors' moments in the
// file; BM25: from its [RemoteStatsDepth] best scores). Sentence-only
// forms, context-derived inputs and the re-ranker need every candidate and
// wrap [ErrEngineRanker]. [Index.Ask], [Run] and [Index.SentenceByExtID]
// work on both kinds.
//
// # Evaluation and tuning
//
// [Run] runs a ranker over [EvalQuestion]s with known gold sentences and
// [Summarize] reports the MultiReQA metrics in percent: P@1, MRR, P@5 and
// R@10. A question is answered at rank r when its highest-ranked gold
// candidate is at r (ties broken by candidate order): P@k counts r ≤ k, MRR
// averages 1/r (see internal/metric), and R@10 averages the fraction of a
// question's gold candidates ranked in the top 10. [Index.TuneFusions]
// learns fusions on tuning questions, [SaveFusions] stores them;
// [Index.AdapterData] prepares a question adapter's training data and
// [SaveAdapter] stores the adapter; [Index.SelfQuestions] makes
// pseudo-questions from the indexed text for label-free adaptation
// (`reqa tune --self`). Package rank/report writes eval's full report.
//
// # Verification
//
// [Verify] reads a whole index and checks every record, postings list,
// vector, graph, model hash, adapter and fusion parameter set, listing the
// damage it finds (`reqa verify`).
package rank
