package store

import (
	"encoding/json"
	"fmt"
	"time"
)

// SourceFile is one source file of an index: what it was when indexed and
// the records it produced. Its contexts are the ids [Contexts[0],
// Contexts[1]) and its sentences [Sentences[0], Sentences[1]); the files
// of an index are listed in id order and their ranges cover every record.
type SourceFile struct {
	Path    string    `json:"path"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mtime"`
	// SHA256 is the hex SHA-256 of the file's bytes as read (compressed,
	// for a gzipped file).
	SHA256    string    `json:"sha256"`
	Contexts  [2]uint32 `json:"contexts"`
	Sentences [2]uint32 `json:"sentences"`
}

// SourceFiles is the blob BlobSourceFiles: the source files of an index in
// id order.
type SourceFiles struct {
	Files []SourceFile `json:"files"`
}

// EncodeSourceFiles encodes the blob BlobSourceFiles.
func EncodeSourceFiles(s SourceFiles) ([]byte, error) {
	return json.Marshal(s)
}

// DecodeSourceFiles decodes the blob BlobSourceFiles and checks that its
// ranges are in order and cover contexts contexts and sentences
// sentences; anything else is ErrCorrupt.
func DecodeSourceFiles(raw []byte, contexts, sentences int) (SourceFiles, error) {
	var s SourceFiles
	if err := json.Unmarshal(raw, &s); err != nil {
		return s, fmt.Errorf("blob %s: %v: %w", BlobSourceFiles, err, ErrCorrupt)
	}
	var c, n uint32
	seen := map[string]bool{}
	for _, f := range s.Files {
		if f.Contexts[0] != c || f.Contexts[1] < c || f.Sentences[0] != n || f.Sentences[1] < n || f.Path == "" || seen[f.Path] {
			return s, fmt.Errorf("blob %s: file %q: contexts %v, sentences %v after %d and %d: %w", BlobSourceFiles, f.Path, f.Contexts, f.Sentences, c, n, ErrCorrupt)
		}
		seen[f.Path] = true
		c, n = f.Contexts[1], f.Sentences[1]
	}
	if int(c) != contexts || int(n) != sentences {
		return s, fmt.Errorf("blob %s: files cover %d contexts and %d sentences, the index holds %d and %d: %w", BlobSourceFiles, c, n, contexts, sentences, ErrCorrupt)
	}
	return s, nil
}
