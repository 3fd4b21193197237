package sentencepiece

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/reqa/reqa/internal/display"
)

// assets holds the build-time copy of the vocabulary. The pattern matches the
// committed README.md, so the package compiles even when vocab.json (which is
// never committed) is missing.
//
//go:embed assets/*
var assets embed.FS

// embeddedVocabPath is where the build puts the vocabulary inside assets.
const embeddedVocabPath = "assets/vocab.json"

// ErrNoVocabulary is returned by New when the binary was built without the
// vocabulary file assets/vocab.json. Build with the project's Makefile, which
// copies it there, or load a vocabulary explicitly with Load or FromJSON.
var ErrNoVocabulary = errors.New("sentencepiece: vocabulary not embedded (assets/vocab.json absent at build time)")

// reservedCount is the number of leading vocabulary entries that the reference
// tokenizer keeps out of its trie: "<unk>" (here "\uFFFD"), "<s>", "</s>" and
// three extra tokens. They can never be produced by matching, only id 0 is
// produced, for unknown characters.
const reservedCount = 6

// entry is one vocabulary line: the piece, its log-probability score and the
// piece's length in UTF-16 code units (the unit in which the reference walks
// back over its best path).
type entry struct {
	text      string
	score     float64
	utf16Len  int
	runeCount int
}

// New returns a Tokenizer for the vocabulary embedded at build time, the
// 8,000-piece SentencePiece model of the Universal Sentence Encoder Lite. It
// returns ErrNoVocabulary when the binary was built without it.
func New() (*Tokenizer, error) {
	data, err := assets.ReadFile(embeddedVocabPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNoVocabulary
		}
		return nil, fmt.Errorf("sentencepiece: reading embedded vocabulary: %w", err)
	}
	t, err := FromJSON(data)
	if err != nil {
		return nil, fmt.Errorf("sentencepiece: embedded vocabulary: %w", err)
	}
	return t, nil
}

// Load reads a vocabulary in the reference's vocab.json format from r and
// returns a Tokenizer for it. See FromJSON for the format.
func Load(r io.Reader) (*Tokenizer, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("sentencepiece: reading vocabulary: %w", err)
	}
	return FromJSON(data)
}

// FromJSON parses a vocabulary in the reference's vocab.json format and
// returns a Tokenizer for it.
//
// The format is a JSON array whose i-th element describes token id i as an
// array [piece, score, ...]: piece is a string and score a number or null
// (null counts as 0, as it does in the reference's JavaScript arithmetic);
// further elements are ignored. The first six entries are reserved: they are
// never matched, and entry 0 is the unknown token. Entry 0's piece must not be
// empty, since the reference steps back over an unknown token by its length
// (the reference would loop forever on an empty one). Strings are decoded as
// encoding/json does, so a lone UTF-16 surrogate escape becomes U+FFFD.
func FromJSON(data []byte) (*Tokenizer, error) {
	entries, ok := scanVocabulary(data)
	if !ok {
		var err error
		if entries, err = decodeVocabulary(data); err != nil {
			return nil, err
		}
	}
	if len(entries) == 0 {
		return nil, errors.New("sentencepiece: vocabulary is empty")
	}
	if entries[0].utf16Len == 0 {
		return nil, errors.New("sentencepiece: vocabulary entry 0 (the unknown token) has an empty piece")
	}
	return newTokenizer(entries), nil
}

// decodeVocabulary is FromJSON's decoding by encoding/json: any valid
// document, and the error that names what is wrong with an invalid one.
func decodeVocabulary(data []byte) ([]entry, error) {
	// One pass validates and splits the whole document; an entry that is
	// not an array fails it, and the entry-by-entry pass below names it.
	var rows [][]json.RawMessage
	if err := json.Unmarshal(data, &rows); err != nil {
		var raw []json.RawMessage
		if err := json.Unmarshal(data, &raw); err != nil {
			return nil, fmt.Errorf("sentencepiece: vocabulary is not a JSON array: %w", err)
		}
		for i, msg := range raw {
			var fields []json.RawMessage
			if err := json.Unmarshal(msg, &fields); err != nil {
				return nil, fmt.Errorf("sentencepiece: vocabulary entry %d: not an array: %w", i, err)
			}
		}
		return nil, fmt.Errorf("sentencepiece: vocabulary: %w", err)
	}
	if len(rows) > math.MaxInt32 {
		return nil, fmt.Errorf("sentencepiece: vocabulary has %d entries, more than int32 ids allow", len(rows))
	}
	entries := make([]entry, len(rows))
	for i, fields := range rows {
		e, err := parseEntry(fields)
		if err != nil {
			return nil, fmt.Errorf("sentencepiece: vocabulary entry %d: %w", i, err)
		}
		entries[i] = e
	}
	return entries, nil
}

// scanVocabulary reads the common shape of a vocabulary in one pass with
// no allocation beyond the entries: an array of [string, number or null]
// pairs whose strings are valid and whose numbers parse. It reports false on anything else —
// invalid JSON, or valid JSON outside that shape — for decodeVocabulary
// to read or reject; what it accepts, it reads as decodeVocabulary does
// (FuzzFromJSON compares the two).
func scanVocabulary(data []byte) ([]entry, bool) {
	s := vocabScanner{b: data}
	if !s.byte('[') {
		return nil, false
	}
	entries := make([]entry, 0, bytes.Count(data, []byte("],"))+1)
	if s.peek() == ']' {
		s.i++
	} else {
		for {
			if !s.byte('[') {
				return nil, false
			}
			text, ok := s.str()
			if !ok || !s.byte(',') {
				return nil, false
			}
			var e entry
			e.text = text
			if e.score, ok = s.number(); !ok || !s.byte(']') {
				return nil, false
			}
			for _, r := range e.text {
				e.runeCount++
				e.utf16Len++
				if r >= 0x10000 {
					e.utf16Len++
				}
			}
			entries = append(entries, e)
			if s.peek() == ',' {
				s.i++
				continue
			}
			if !s.byte(']') {
				return nil, false
			}
			break
		}
	}
	s.space()
	if s.i != len(s.b) || len(entries) > math.MaxInt32 {
		return nil, false
	}
	return entries, true
}

// vocabScanner is scanVocabulary's position in its document.
type vocabScanner struct {
	b []byte
	i int
}

// space skips JSON whitespace.
func (s *vocabScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek skips whitespace and returns the next byte (0 at the end).
func (s *vocabScanner) peek() byte {
	s.space()
	if s.i == len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// byte skips whitespace and then c, reporting whether c was there.
func (s *vocabScanner) byte(c byte) bool {
	if s.peek() != c {
		return false
	}
	s.i++
	return true
}

// str reads a string literal. One with no escapes (nearly every piece)
// must have no control characters and be valid UTF-8, and is its own
// text; one with escapes is decoded by encoding/json.
func (s *vocabScanner) str() (string, bool) {
	if !s.byte('"') {
		return "", false
	}
	start, escaped := s.i, false
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			lit := s.b[start:s.i]
			s.i++
			if escaped {
				var text string
				if json.Unmarshal(s.b[start-1:s.i], &text) != nil {
					return "", false
				}
				return text, true
			}
			if !utf8.Valid(lit) {
				return "", false
			}
			return string(lit), true
		case c == '\\':
			escaped = true
			s.i++ // the escaped byte cannot end the literal
		case c < 0x20:
			return "", false
		}
		s.i++
	}
	return "", false
}

// number reads a JSON number (-?int frac? exp?) or null (0).
func (s *vocabScanner) number() (float64, bool) {
	s.space()
	if bytes.HasPrefix(s.b[s.i:], []byte("null")) {
		s.i += 4
		return 0, true
	}
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.digits() == 0:
		return 0, false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return 0, false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return 0, false
		}
	}
	v, err := strconv.ParseFloat(string(s.b[start:s.i]), 64)
	return v, err == nil
}

// digits skips decimal digits and returns how many.
func (s *vocabScanner) digits() int {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

// parseEntry decodes one [piece, score] element, already checked to be
// valid JSON.
func parseEntry(fields []json.RawMessage) (entry, error) {
	if len(fields) < 2 {
		return entry{}, fmt.Errorf("has %d elements, want [piece, score]", len(fields))
	}
	var e entry
	piece := bytes.TrimSpace(fields[0])
	switch {
	case !bytes.HasPrefix(piece, []byte(`"`)):
		return entry{}, fmt.Errorf("piece %s is not a string", truncate(fields[0]))
	case bytes.IndexByte(piece, '\\') < 0 && utf8.Valid(piece):
		// No escapes: the literal is the string (most pieces).
		e.text = string(piece[1 : len(piece)-1])
	default:
		if err := json.Unmarshal(piece, &e.text); err != nil {
			return entry{}, fmt.Errorf("piece %s is not a string", truncate(fields[0]))
		}
	}
	score := bytes.TrimSpace(fields[1])
	if !bytes.Equal(score, []byte("null")) {
		if len(score) == 0 || !(score[0] == '-' || (score[0] >= '0' && score[0] <= '9')) {
			return entry{}, fmt.Errorf("score %s is neither a number nor null", truncate(fields[1]))
		}
		// A valid JSON number (the document parsed), read as
		// encoding/json reads it.
		v, err := strconv.ParseFloat(string(score), 64)
		if err != nil {
			return entry{}, fmt.Errorf("score %s: %w", truncate(fields[1]), err)
		}
		e.score = v
	}
	for _, r := range e.text {
		e.runeCount++
		e.utf16Len++
		if r >= 0x10000 {
			e.utf16Len++
		}
	}
	return e, nil
}

// truncate shortens a JSON fragment for an error message.
func truncate(b []byte) string { return display.Truncate(string(b), 40) }
