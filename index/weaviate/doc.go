// Package weaviate holds reqa's client for Weaviate, the distributed engine
// a corpus moves to when one machine is not enough (issue 15). It speaks
// Weaviate's REST and GraphQL API with net/http and encoding/json only.
//
// Today it holds:
//
//   - [Client]: one engine address, requests with retries and exponential
//     backoff on connection errors and 5xx answers, and the server version
//     check ([Client.Version], [MinVersion]).
//   - The collection reqa writes: one object per candidate sentence, with
//     the sentence, its context, title, heading path and source, reqa's
//     sentence id ("sid") and a "tokens" property holding reqa's own
//     WordPiece tokens of sentence + context, joined by spaces and indexed
//     with Weaviate's "whitespace" tokenization, stop words off (preset
//     "none") and BM25 k1 = 1.5, b = 0.75 as reqa's. Vectors are reqa's own
//     (vectorizer "none", distance "dot").
//   - [Client.Import]: batched writes to /v1/batch/objects under
//     deterministic object ids (UUID v5 of collection and sentence id), so a
//     re-import overwrites instead of duplicating; it reports progress,
//     stops on context cancellation and resumes where a failed run stopped.
//     A [Manifest] (one object per collection in the "ReqaMeta" collection)
//     holds the model hash, the sentence count, a watermark and a
//     "complete" flag that is set only after every object is written and
//     counted, so a failed import never looks complete.
//   - [Client.Open] and [Collection]: BM25 over the token property and
//     nearVector top-k queries, both returning reqa sentence ids and scores.
//
// # Scores
//
// Weaviate's BM25 is Lucene's: idf = ln(1 + (N − n + 0.5)/(n + 0.5)), a
// term scores idf · tf / (tf + k1 · (1 − b + b · |d| / avgdl)), and a query
// token repeated r times counts r times. On one shard that is reqa's
// "lucene" BM25 variant with k1 = 1.5 (not reqa's default gensim variant,
// whose idf differs); statistics are per shard, so on a sharded collection
// scores differ from a single index's. nearVector's score is the dot
// product (−distance), as index/ann's.
//
// # Errors
//
// Failures wrap sentinel errors, tested with errors.Is: [ErrUnreachable],
// [ErrNoCollection], [ErrOtherModel], [ErrIncomplete], [ErrVersion],
// [ErrSchema]; other HTTP failures are an [*HTTPError].
package weaviate
