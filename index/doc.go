// Package index builds reqa index files.
//
// Its subpackages hold the parts of an index: tokenizers, BM25 postings,
// the sentence splitter, the dense encoder, vectors and the ANN graph,
// question adapters, and the Weaviate client.
//
// The package itself writes indexes. It takes a [Corpus] of contexts and
// sentences, or any [Input] (package ingest's reader corpus is one, and
// forms its documents' contexts when asked).
//
// [Build] writes a new index file. [Append] adds a corpus to an existing
// one and tokenizes and embeds only the new text. [BuildEngine] puts the
// sentences, tokens and vectors into a Weaviate collection and writes a
// small engine index file that names it; Append extends such an index too.
//
// [Sync] brings an index built from files in line with them (`reqa index
// --sync`): it reads the source files the index records ([IndexedFiles]:
// path, size, modification time, SHA-256, the ids each produced; written
// by every build and append of whole files), and in one atomic rewrite of
// a copy adds new files, replaces changed ones and deletes removed ones in
// the records, every BM25 field (kept postings and lengths renumbered,
// statistics recomputed), the vectors (kept ones copied) and the ANN graph
// (updated when it keeps at least half its nodes: removed ones unlinked,
// their neighbours repaired, added ones inserted — ann.Graph.Update; else
// rebuilt from the vectors). Records are renumbered in the order a build
// of the same files gives them, so the result is that build's index (the
// dense ANN path within the graph's recall when the graph was updated);
// only added and changed text is tokenized and embedded.
//
// All three run one pipeline: form the contexts, tokenize, embed, write
// into a sink, commit. The embed step runs the encoder over every distinct
// sentence; a context's vector is, as the index's DenseMeta.ContextVectors
// says, made from its sentences' vectors weighted by the tokens each fills
// of what the encoder reads of the context (store.ContextVectorsWindow, what
// [DefaultContextVectors] names), their plain mean (indexes from before
// the weights), or the encoder's embedding of the context's text (the zero
// Options.ContextVectors, `--context-vectors model`). There are two sinks: the bbolt file, and the
// Weaviate collection with its engine file. A build and an append differ
// only in where ids start, where the settings come from and whether the
// sink writes new data or extends the index's.
//
// A build tokenizes with today's normalisation (package index/tokenize's
// Norm) and records it in each field; an append tokenizes with the one
// the index's fields record, so an index's tokens are always of one kind
// ([FieldTokenizer]).
//
// Builds are atomic. Cancelling the context stops the work and leaves any
// index at the target as it was. Memory follows one tokenizer's postings
// at a time ([IndexFields] streams chunks in order).
//
// [EstimateBuildMemory] predicts a build's peak memory so that a build
// that cannot fit can be refused; a [MemoryEstimator] does so while a
// corpus is read. [CheckOut] says whether an index may replace what is at
// a path. [CheckAppendSettings] refuses settings an append cannot change.
//
// [SaveFusions] and [SaveAdapter] amend what `reqa fuse` and `reqa tune`
// learned into an index. [Verify] reads a whole index file and checks
// every record, postings list, vector, graph, model hash and adapter, and
// the fusion parameters through a check its caller passes (package rank
// owns their format), listing the damage it finds (`reqa verify`).
package index
