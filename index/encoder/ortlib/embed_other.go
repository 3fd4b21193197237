//go:build !amd64 && !arm64

package ortlib

import "embed"

// lib is empty on architectures reqa carries no ONNX Runtime for: set
// REQA_ORT_LIB.
var lib embed.FS

const libDir = "lib/none"
