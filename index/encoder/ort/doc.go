// Package ort is reqa's one wrapper of ONNX Runtime: it loads the runtime,
// opens models ([Model], [OpenModel], [Inspect]) and runs the converted
// USE-Lite sentence encoder ([Session]); package encoder's Hugging
// Face–layout backend runs on [Model] too.
//
// It is a thin layer over github.com/yalue/onnxruntime_go, the only package
// of reqa that imports it. The runtime is a
// shared library loaded at run time, once per process, and kept until the
// process exits: call Init with its path (libonnxruntime.so.1 from ONNX
// Runtime 1.24, as shipped in the onnxruntime-node npm package), then
// NewSession with the model bytes that onnxmodel.ConvertTFJS produced. A
// missing file, a file that is not a shared library, or a runtime whose C
// API is older than the binding's (version 24) makes Init return an error.
//
// A Session turns a batch of token-id sequences into embeddings. It builds
// the sparse inputs the Universal Sentence Encoder Lite graph takes: one
// (sentence, position) pair and one token id per token, in the row-major
// order the graph relies on. Each sequence's embedding is independent of
// the others in the batch (the graph masks padding), which lets Embed sort
// sequences by length and run them in groups of at most Options.MaxBatch
// whose lengths differ little: every run pads its sequences to the longest
// one, and the attention projections pay for the padding. The graph reads only the first 128
// tokens of a sequence.
//
// The graph derives its batch size from the largest sentence index it sees,
// so a sequence without tokens cannot be sent as such; it gets the
// embedding the model computes for an empty row (mean of nothing, then the
// tanh layer and normalisation), computed once per session.
//
// Sessions are safe for concurrent use: ONNX Runtime runs calls on one
// session in parallel, each with its own tensors. Options.Threads bounds the
// threads one run uses; by default idle runtime threads sleep rather than
// spin, which matters on machines shared with other work.
package ort
