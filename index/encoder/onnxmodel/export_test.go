package onnxmodel

// ToyShards exposes the toy fixture's weights to the external tests.
var ToyShards = toyShards
