package onnxmodel

// Names of the converted encoder's graph inputs and output. They follow the
// TF.js model: a sparse batch of token ids given as (sentence, position)
// coordinates plus the token id at each coordinate.
const (
	// InputIndices is the int64 [n, 2] input of (sentence, position) pairs,
	// in row-major order: sentence ascending, positions 0..len-1 ascending
	// within a sentence.
	InputIndices = "indices"
	// InputValues is the int64 [n] input of token ids, one per row of
	// InputIndices.
	InputValues = "values"
	// OutputEmbeddings is the float [batch, 512] output of L2-normalised
	// sentence embeddings, where batch is one more than the largest
	// sentence index in InputIndices.
	OutputEmbeddings = "embeddings"
)

// Opset is the ONNX default-domain opset version the converter targets, and
// IRVersion the matching ONNX IR version.
const (
	Opset     = 18
	IRVersion = 8
)
