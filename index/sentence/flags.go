package sentence

import (
	"errors"
	"fmt"
)

// ErrFlags is returned by DecodeFlags for a value that is not n flags.
var ErrFlags = errors.New("not a flag list")

// EncodeFlags stores one bit per sentence, sentence i in bit i%8 of byte
// i/8 (the form of an index's question flags, which an index kept in an
// external engine stores because it holds no texts).
func EncodeFlags(flags []bool) []byte {
	out := make([]byte, (len(flags)+7)/8)
	for i, f := range flags {
		if f {
			out[i/8] |= 1 << (i % 8)
		}
	}
	return out
}

// DecodeFlags reads n flags written by EncodeFlags: exactly (n+7)/8 bytes
// whose bits past the n-th are clear, else an error wrapping ErrFlags.
func DecodeFlags(raw []byte, n int) ([]bool, error) {
	if n < 0 || len(raw) != (n+7)/8 {
		return nil, fmt.Errorf("%w: %d bytes for %d sentences", ErrFlags, len(raw), n)
	}
	if n%8 != 0 && raw[len(raw)-1]>>(n%8) != 0 {
		return nil, fmt.Errorf("%w: bits set past sentence %d", ErrFlags, n)
	}
	out := make([]bool, n)
	for i := range out {
		out[i] = raw[i/8]&(1<<(i%8)) != 0
	}
	return out, nil
}

// Questions flags the texts that are questions (IsQuestion).
func Questions(texts func(i int) string, n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = IsQuestion(texts(i))
	}
	return out
}
