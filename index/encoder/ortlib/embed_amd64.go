package ortlib

import "embed"

// lib holds lib/linux-amd64/libonnxruntime.so.1 when make put it there (the
// README keeps the pattern matching when it did not).
//
//go:embed lib/linux-amd64
var lib embed.FS

const libDir = "lib/linux-amd64"
