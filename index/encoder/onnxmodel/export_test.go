package onnxmodel

// ToyShards exposes the toy fixture's weights to the external tests.
var ToyShards = toyShards

// Encode exposes a node's protobuf encoding to the external tests.
func (n *Node) Encode() []byte { return n.encode() }
