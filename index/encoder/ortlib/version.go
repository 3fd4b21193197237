package ortlib

// Version is the version of the ONNX Runtime the binary embeds, from the
// pinned npm package onnxruntime-node (the Makefile's ORT_PKG).
const Version = "1.24.1"

// SHA256 returns the hex SHA-256 of the embedded library, or
// [ErrNotEmbedded].
func SHA256() (string, error) { return libHash() }

// Size returns the size in bytes of the embedded library, or
// [ErrNotEmbedded].
func Size() (int64, error) {
	f, n, err := openLib()
	if err != nil {
		return 0, err
	}
	f.Close()
	return n, nil
}
