package store

import "strings"

// The names of an index's parts: the blobs (in the blobs bucket) and the
// BM25 fields (one field/NAME bucket each). Every package names them
// through these; see the schema in the package documentation.
const (
	// BlobDenseModel is the dense encoder's ONNX model.
	BlobDenseModel = "dense/model.onnx"
	// BlobDenseVocab is the dense encoder's vocabulary (tokenizer).
	BlobDenseVocab = "dense/vocab.json"
	// BlobDenseSent holds every sentence's embedding (index/dense's codec).
	BlobDenseSent = "dense/sentences"
	// BlobDenseCtx holds every context's embedding.
	BlobDenseCtx = "dense/contexts"
	// BlobDenseGraph is the HNSW graph over the answer vectors (index/ann).
	BlobDenseGraph = "dense/graph"
	// BlobDenseGraphUpper is that graph without its layer 0 (ann's
	// MarshalUpper), the part of it RowsDenseGraphSlots does not hold;
	// present when DenseMeta.GraphSlots is.
	BlobDenseGraphUpper = "dense/graph-upper"
	// BlobAdapter is the question adapter trained by `reqa tune`
	// (index/adapter's codec).
	BlobAdapter = "dense/adapter"
	// BlobFusion holds the fusion parameters learned by `reqa fuse`: a JSON
	// array of rank/fuse.Params, best first.
	BlobFusion = "fusion/params"
	// BlobDenseMoments holds the mean and covariance of the answer vectors
	// (index/dense's moments codec), from which an index kept in an
	// external engine normalises dense scores (Meta.Engine).
	BlobDenseMoments = "dense/moments"
	// BlobExtIDs lists every sentence's dataset candidate id, one per line
	// in sentence id order, for an index kept in an external engine that was
	// built from a dataset (evaluation maps gold candidates with it).
	BlobExtIDs = "engine/ext-ids"
	// BlobQuestions flags every sentence that is itself a question (one
	// bit per sentence, index/sentence's EncodeFlags), for an index kept
	// in an external engine: the default fusion ranks questions last
	// (rank/fuse's DemoteQuestions), and the file holds no texts to tell
	// them by. An embedded index reads them from its texts.
	BlobQuestions = "engine/questions"
	// BlobSourceFiles lists the source files an index was built from, with
	// each one's size, modification time, SHA-256 and the contexts and
	// sentences it produced (a JSON [SourceFiles]), so that `reqa index
	// --sync` can tell what changed. Indexes built before it, or from
	// inputs that are not whole files (standard input, a ReQA dataset),
	// have none.
	BlobSourceFiles = "source/files"
)

// RowsDenseAnswers is the row set (Writer.PutRows) of every sentence's
// answer vector normalize(e_s + λ·e_c) for the index's λ (DenseMeta.Lambda),
// little-endian float32, read in place by the dense ranker; the blob
// BlobDenseMoments holds their moments. Present when DenseMeta.Answers is.
const RowsDenseAnswers = "dense/answers"

// RowsDenseGraphSlots is the row set of the ANN graph's layer 0, a row
// per sentence: its neighbour count then room for 2·M neighbour ids,
// uint32 little-endian (ann's PutSlots), searched in place with
// BlobDenseGraphUpper. Present when DenseMeta.GraphSlots is.
const RowsDenseGraphSlots = "dense/graph-slots"

// RowsContextOf is the row set of every sentence's context id (uint32,
// little-endian, in sentence id order); present when Meta.ContextOf is.
const RowsContextOf = "records/context-of"

// Field-name suffixes of the two document forms of a tokenizer's BM25
// fields.
const (
	fieldCtx  = "/ctx"
	fieldSent = "/sent"
)

// FieldName is the BM25 field of a tokenizer and document form:
// "TOKENIZER/ctx" (the sentence and its context) or "TOKENIZER/sent" (the
// sentence alone).
func FieldName(tokenizer string, withContext bool) string {
	if withContext {
		return tokenizer + fieldCtx
	}
	return tokenizer + fieldSent
}

// SentenceField returns the sentence-only field of the same tokenizer as
// the sentence + context field name; ok is false when name is not one.
func SentenceField(name string) (string, bool) {
	tok, ok := strings.CutSuffix(name, fieldCtx)
	if !ok {
		return "", false
	}
	return tok + fieldSent, true
}

// ContextVectorsSentences is DenseMeta.ContextVectors for context vectors
// made as the normalized mean of their sentences' vectors (indexes built
// with context vectors from sentences before ContextVectorsWindow).
const ContextVectorsSentences = "sentences"

// ContextVectorsWindow is DenseMeta.ContextVectors for context vectors made
// from their sentences' vectors, each weighted by how many of the leading
// tokens the encoder reads of the context it takes up (a sentence past
// them weighs nothing): of the ways tried, the closest to the vector the
// model gives the context's text.
const ContextVectorsWindow = "sentences-window"
