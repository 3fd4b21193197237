// Package store is reqa's on-disk index format: one bbolt file per index.
//
// # Schema
//
// A reqa index is a single bbolt database with these buckets:
//
//	meta        "magic" → "reqa-index", "meta" → JSON Meta (format version,
//	            counts, tokenizers, BM25 parameters, what built it)
//	contexts    uint32 big-endian id → Context record
//	sentences   uint32 big-endian id → Sentence record (offsets into its context)
//	field/NAME  one bucket per BM25 field (tokenizer × document form, its
//	            normalisation in FieldMeta.Norm), holding
//	            the sub-bucket "postings" (term → compressed postings), the
//	            key "doclens" (every document's length, varint-coded) and
//	            the key "termfilter" (a Bloom filter of its terms for the
//	            FieldMeta's digest, written at commit: termfilter.go); a
//	            sentence + context field whose FieldMeta.Layout is "context"
//	            holds postings over contexts (see package index/bm25)
//	blobs       name → large opaque values (embeddings, graphs, models)
//	rows/NAME   fixed-width rows read in place from the memory map, in
//	            checksummed chunks 8-byte aligned in their pages (see
//	            rows.go; [Writer.PutRows], [Reader.Rows]), or read from
//	            the file by pread into a bounded cache outside the Go heap
//	            ([Reader.RowsCached], rowcache.go: a long-running reader)
//
// The names inside are declared once, in names.go, and every package uses
// those constants: the BM25 fields are "TOKENIZER/ctx" (the sentence and its
// context) and "TOKENIZER/sent" (the sentence alone), named by [FieldName];
// the blobs are
//
//	dense/model.onnx  the dense encoder's ONNX model        [BlobDenseModel]
//	dense/vocab.json  its vocabulary                        [BlobDenseVocab]
//	dense/sentences   every sentence's embedding            [BlobDenseSent]
//	dense/contexts    every context's vector, as            [BlobDenseCtx]
//	                  DenseMeta.ContextVectors says
//	dense/graph       the HNSW graph over answer vectors    [BlobDenseGraph]
//	dense/graph-upper the same graph without its layer 0 (ann's
//	                  MarshalUpper; when DenseMeta.GraphSlots)
//	                                                        [BlobDenseGraphUpper]
//	dense/moments     mean and covariance of the answer vectors
//	                  (when DenseMeta.Answers)              [BlobDenseMoments]
//	dense/adapter     the question adapter (reqa tune)      [BlobAdapter]
//	fusion/params     learned fusion parameters (reqa fuse) [BlobFusion]
//	source/files      the source files: path, size, mtime, SHA-256 and
//	                  the context and sentence ids each produced
//	                  (JSON [SourceFiles]; `reqa index --sync`)  [BlobSourceFiles]
//
// and the row sets are
//
//	dense/answers       every sentence's answer vector normalize(e_s + λ·e_c)
//	                    for the index's λ, float32, when DenseMeta.Answers
//	                                                      [RowsDenseAnswers]
//	dense/graph-slots   the graph's layer 0: a slot per sentence (neighbour
//	                    count, then 2·M ids, uint32), when
//	                    DenseMeta.GraphSlots: the graph is searched in
//	                    place                              [RowsDenseGraphSlots]
//	records/context-of  every sentence's context id, uint32, when
//	                    Meta.ContextOf: an index opens without reading
//	                    every sentence record              [RowsContextOf]
//
// (an index from before them has neither; a writer from before them drops
// the meta's flags when it rewrites the meta, so its stale rows are never
// used, and `reqa index --sync` stores them).
//
// Every record value ends in a CRC-32C of its payload, so a flipped byte in a
// context, a sentence, a postings list or a blob is reported as [ErrCorrupt]
// naming the damaged record instead of producing silently wrong answers.
// The store does not interpret postings: package index/bm25 owns their codec.
//
// # Atomic builds
//
// [Create] writes into a temporary file beside the target (".NAME.reqa-build-*")
// and [Writer.Commit] syncs it and renames it over the target only when it is
// complete. An interrupted build therefore never leaves a half-written index
// under the target name and never damages an index that was already there.
// Temporary files left by a killed build are removed by the next [Create] for
// the same target once their bbolt file lock shows no process holds them.
//
// # Versioning
//
// [Open] refuses a file that is not a bbolt database or lacks reqa's magic
// ([ErrNotIndex]) and a file written by a newer format ([ErrNewerFormat]).
// Format 2 added the context layout of sentence + context fields; a
// reader of format 1 would take its context postings for sentence
// postings, so format 2 files are refused by it. Format 1 files are read,
// and appended to in their own layout. Format 3 is an index
// kept in an external engine (Meta.Engine): the file holds no records,
// postings or vectors, so older readers, which would take it for a
// damaged index, refuse it as newer. Format 4 (this one) records in each
// field the text normalisation its tokens were made with
// (FieldMeta.Norm, package index/tokenize's Norm: NFKC, soft hyphens and
// zero-width characters deleted, "[UNK]" dropped), in a file or an engine
// index; an older reader would tokenize questions without it and miss
// what the field holds, so it refuses the file as newer. Fields without a
// Norm (formats 1–3) are asked and appended to with their tokens as they
// were, so an old index answers as it always did.
//
// An engine index file holds, besides the meta, the blobs
// dense/model.onnx, dense/vocab.json, dense/adapter and fusion/params as
// above, and
//
//	dense/moments     mean and covariance of the answer vectors [BlobDenseMoments]
//	engine/ext-ids    every sentence's dataset candidate id     [BlobExtIDs]
//	engine/questions  which sentences are questions (a bit each) [BlobQuestions]
//
// A committed file ends at its last page in use: bbolt grows a file ahead
// of its pages, and [Writer.Commit] and [Amend] cut that padding off.
package store
