package wordpiece

import (
	"io/fs"
)

// TokenizerJSON returns the embedded tokenizer.json's bytes (for `reqa
// version`'s hashes), or [ErrNoVocabulary].
func TokenizerJSON() ([]byte, error) {
	b, err := fs.ReadFile(assets, assetPath)
	if err != nil {
		return nil, ErrNoVocabulary
	}
	return b, nil
}
