package ortlib

import "embed"

// lib holds lib/linux-arm64/libonnxruntime.so.1 when make put it there (the
// README keeps the pattern matching when it did not).
//
//go:embed lib/linux-arm64
var lib embed.FS

const libDir = "lib/linux-arm64"
