// Package ort runs a converted sentence-encoder model through ONNX Runtime.
//
// It is a thin layer over github.com/yalue/onnxruntime_go. The runtime is a
// shared library loaded at run time, once per process: call Init with its
// path (libonnxruntime.so.1 from ONNX Runtime 1.24, as shipped in the
// onnxruntime-node npm package), then NewSession with the model bytes that
// onnxmodel.ConvertTFJS produced.
//
// A Session turns a batch of token-id sequences into embeddings. It builds
// the sparse (indices, values) inputs the Universal Sentence Encoder Lite
// graph takes: one (sentence, position) pair and one token id per token,
// in row-major order. Because that graph derives the batch size from the
// largest sentence index it sees, sentences without tokens are not sent to
// the model; they get the embedding the model assigns to an empty row,
// computed once per session.
//
// Sessions are safe for concurrent use; ONNX Runtime serialises nothing
// between runs on one session, so throughput grows with goroutines until
// the cores are busy. Options.Threads bounds the threads one run uses.
package ort
