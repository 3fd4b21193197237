// Package rank answers questions from an index and owns "which ranker,
// with what options".
//
// # Indexes and rankers
//
// An [Index] is an open index file. Where its sentences, postings and
// vectors live is its backend, chosen once by [Open]: the file itself
// (local.go), or a Weaviate collection the file names (weaviate.go, an
// index written by `reqa index --engine`). Everything else asks the
// backend, so [Index.Ask], [Index.Resolve], [Index.SentenceByExtID] and
// evaluation work the same on both.
//
// A [Ranker] returns a question's k best candidates ([Ranker.TopK]); a
// [Scorer] also scores every candidate into a [Scores] buffer, which is
// what evaluation ranks gold sentences with. [Index.Ask] returns the best
// answers, each sentence once (its other places in [Answer].Also), each
// with its context, source and record id. The rankers are:
//
//   - "bm25-word", "bm25-wpm" and "bm25-stem": BM25 over one tokenizer's
//     field, on the sentence followed by its context, or on the sentence
//     alone for the paper's sentence-only ablation ([BM25Ranker]), each
//     question token weighted as its tokenizer's Query says (bm25-stem:
//     question-form words ½: package index/tokenize/stem's FormWeight);
//     the question is tokenized with the normalisation the field was
//     built with (store.FieldMeta.Norm: NFKC and no [UNK] since format
//     4, the text as it is before), through the engine too, so an old
//     index answers as it always did;
//     "bm25-stem" only on indexes built since the stem tokenizer exists;
//   - "dense": the dual encoder, the dot product of the question's embedding
//     (through the question adapter `reqa tune` trained, when the index has
//     one) with normalize(e_sentence + λ·e_context), exact or, for TopK,
//     over the HNSW graph ([DenseRanker], [DenseOptions]). At the index's
//     own λ the answer vectors the index stores are read in place from the
//     file's memory map (answers.go: a chunk is checked the first time a
//     question reads it), so opening reads nothing in proportion to the
//     index; at another λ, or on an index written before they were stored,
//     the sentence and context vectors are loaded and mixed. The graph is
//     searched in place too where the index stores it split
//     (graphslots.go: its layer-0 slots read from the map, only its upper
//     layers decoded; ann.LoadSplit). An index opened with
//     [OpenOptions.FastStart] (reqa ask) embeds questions with the Go
//     int8 USE-Lite (package index/encoder/usenet, its model read in
//     place) instead of starting ONNX Runtime; a fusion loads its inputs
//     and the graph it searches at once, one goroutine each. An index
//     opened with [OpenOptions.VectorCache] (reqa serve, [DefaultVectorCache])
//     reads the answer vectors from the file into a cache of that size
//     instead (store.Reader.RowsCached; the graph asks it for dot
//     products, ann.DotSource): the same answers to the bit, and a
//     long-running process holds the cache, not every vector it has read;
//   - "fusion-METHOD": the scores of several rankers fused by one of
//     [FusionMethods] with parameters learned by `reqa fuse` (package
//     rank/fuse), or built in: the default ([DefaultFusion], embedded from
//     builtin.json and chosen by leave-one-domain-out results; for a
//     question asking what X is, the sentences among its best
//     [DefinitionDepth] that define X come first: [DefinitionSubject],
//     [Defines]) and fusion-rrf ([DefaultRRF]) ([FusedRanker]). Asked as
//     ask and serve ask (DenseOptions.ANN), a zscore, learned or adaptive
//     fusion of BM25 and dense inputs over stored answer vectors is pooled
//     (pool.go): each input's [RemoteDepth] best, every input's score of
//     those completed, fused with each input's statistics over the whole
//     index (BM25: exact, from the candidates its postings touch; dense:
//     from the answer vectors' moments). Scoring every candidate instead
//     (`reqa ask --exact`, `reqa eval` without --ann) gave the same P@1 on
//     SQuAD's and the docs benchmark's test halves (BENCHMARKS.md). A
//     minmax or zscore fusion's inputs of weight 0 are left out
//     (fuse.Params.Weighted: the built-in default's bm25-wpm);
//   - as fusion inputs only, "NAME/sent" (NAME on the sentence alone) and
//     "ctxmax:NAME", "ctxrel:NAME" (context evidence, [ContextRanker]).
//
// # Names, options and defaults
//
// [ParseSpec] is the one parser of ranker names: it returns a [Spec], to
// which the caller adds options (sentence only, dense options, explicit
// fusion parameters). [Index.Resolve] is the one place defaults are
// applied: the empty name (or "default") is [Index.Default] — the best
// fusion stored by `reqa fuse` that the backend runs, else the built-in
// default fusion on an index with embeddings, else bm25-wpm — and a fusion
// runs with the parameters of [Index.FusionParams]. [Index.Available]
// lists every ranker an index answers with. ask, eval, fuse, demo and
// serve all go through these, so they agree on what a name and the default
// mean. Errors wrap [ErrUnknownRanker] (not a ranker, or not one this index
// has), [ErrNoEmbeddings] or [ErrNoTunedParams]; they say what is wrong,
// and the command line adds what to run about it.
//
// [LoadTuned] reads the fusion parameters and question adapter learned for
// another index (or a JSON file of fusion parameters) and
// [Index.UseTuned] answers with them instead of the index's own: how
// learned parts transfer to another domain (`reqa eval --params-from`).
//
// # Indexes kept in an engine
//
// On the Weaviate backend bm25-TOKENIZER and dense return the engine's
// best candidates, and a fusion is pooled as above: it pools every input's [RemoteDepth] best,
// completes each input's score of every pooled candidate with filtered
// queries and fuses them with statistics over the whole collection
// (dense: exact, from the answer vectors' moments in the file; BM25: from
// its [RemoteStatsDepth] best scores). Sentence-only forms, context-derived
// inputs and the re-ranker need every candidate and wrap [ErrEngineRanker].
//
// # Stored fusion parameters
//
// [EncodeFusions] and [DecodeFusions] are the format of the fusion
// parameters an index stores (package index writes them into the file and
// checks them with [CheckFusions] when it verifies one).
//
// Evaluation, fusion tuning, adapter training data and self-questions are
// package rank/eval's.
package rank
