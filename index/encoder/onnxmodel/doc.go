// Package onnxmodel writes ONNX models and converts the TF.js graph model
// of the Universal Sentence Encoder Lite into one.
//
// Work in progress: the protobuf writer (Model.Marshal) is done; the
// TF.js converter follows.
package onnxmodel
