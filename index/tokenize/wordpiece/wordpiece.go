package wordpiece

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// assets holds the assets directory: a committed placeholder and, once
// `make` has copied it from the Go module cache, tokenizer.json.
//
//go:embed assets
var assets embed.FS

// assetPath is where the vocabulary file sits inside [assets].
const assetPath = "assets/tokenizer.json"

// ErrNoVocabulary is returned by [New] when the binary was built without
// the tokenizer.json asset. The file is third-party data and is not in the
// repository; `make` copies it from the Go module
// github.com/clems4ever/all-minilm-l6-v2-go@v0.0.9 into
// index/tokenize/wordpiece/assets/ before building.
var ErrNoVocabulary = errors.New("wordpiece: tokenizer.json was not embedded; run `make` to copy it from the Go module cache into index/tokenize/wordpiece/assets/")

// Tokenizer splits text into BERT-uncased WordPiece tokens. It is immutable
// once built, so one Tokenizer may be used by any number of goroutines at
// once.
type Tokenizer struct {
	*vocabulary
}

// vocabulary is the immutable data a Tokenizer reads, parsed once per
// process from the embedded file.
type vocabulary struct {
	// tokens maps a token id to its text ("un", "##aff").
	tokens []string
	// initial maps a word-initial piece to its id.
	initial map[string]int32
	// cont maps a continuation piece, without its "##" prefix, to its id.
	cont map[string]int32
	// maxInitial and maxCont are the byte lengths of the longest keys of
	// initial and cont: no longer piece can match.
	maxInitial, maxCont int
	// unk is the unknown-word token, "[UNK]".
	unk string
	// maxChars is the longest word, in runes, that is split into pieces;
	// a longer one becomes unk.
	maxChars int
	// specials are the added tokens matched verbatim in the raw text before
	// any normalisation ("[CLS]", "[MASK]", ...), longest first.
	specials []string
	// specialStart marks the bytes a special token can start with.
	specialStart [256]bool
	// asciiTok is the token of each ASCII punctuation byte.
	asciiTok [128]string
}

// New returns a Tokenizer built from the embedded tokenizer.json. It returns
// [ErrNoVocabulary] when the binary was built without that file, and an
// error when the file is not a BERT-uncased WordPiece tokenizer. Parsing
// happens once per process; later calls are cheap.
func New() (*Tokenizer, error) {
	v, err := loadEmbedded()
	if err != nil {
		return nil, err
	}
	return &Tokenizer{v}, nil
}

// Unknown returns the token a word the vocabulary cannot spell becomes,
// "[UNK]".
func (t *Tokenizer) Unknown() string { return t.unk }

// loadEmbedded parses the embedded file once.
var loadEmbedded = sync.OnceValues(func() (*vocabulary, error) { return load(assets) })

// load parses assetPath from fsys, or returns ErrNoVocabulary when it is
// absent.
func load(fsys fs.FS) (*vocabulary, error) {
	data, err := fs.ReadFile(fsys, assetPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoVocabulary
	}
	if err != nil {
		return nil, fmt.Errorf("wordpiece: reading embedded %s: %w", assetPath, err)
	}
	return parse(data)
}

// fileFormat is the part of a Hugging Face tokenizer.json this package
// reads. Padding, truncation and the post-processor (which adds [CLS] and
// [SEP]) are deliberately ignored: Tokenize neither pads, truncates nor adds
// special tokens.
type fileFormat struct {
	AddedTokens []struct {
		Content    string `json:"content"`
		SingleWord bool   `json:"single_word"`
		Lstrip     bool   `json:"lstrip"`
		Rstrip     bool   `json:"rstrip"`
		Normalized bool   `json:"normalized"`
	} `json:"added_tokens"`
	Normalizer *struct {
		Type               string `json:"type"`
		CleanText          bool   `json:"clean_text"`
		HandleChineseChars bool   `json:"handle_chinese_chars"`
		StripAccents       *bool  `json:"strip_accents"`
		Lowercase          bool   `json:"lowercase"`
	} `json:"normalizer"`
	PreTokenizer *struct {
		Type string `json:"type"`
	} `json:"pre_tokenizer"`
	Model struct {
		Type                    string          `json:"type"`
		UnkToken                string          `json:"unk_token"`
		ContinuingSubwordPrefix string          `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    int             `json:"max_input_chars_per_word"`
		Vocab                   json.RawMessage `json:"vocab"`
	} `json:"model"`
}

// parse builds a vocabulary from a tokenizer.json, refusing any file whose
// pipeline is not the one Tokenize implements.
func parse(data []byte) (*vocabulary, error) {
	var f fileFormat
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("wordpiece: parsing tokenizer.json: %w", err)
	}
	bad := func(what string) error {
		return fmt.Errorf("wordpiece: tokenizer.json is not a BERT-uncased WordPiece tokenizer: %s", what)
	}
	n := f.Normalizer
	switch {
	case f.Model.Type != "WordPiece":
		return nil, bad("model type " + f.Model.Type)
	case f.Model.ContinuingSubwordPrefix != "##":
		return nil, bad("continuing_subword_prefix " + f.Model.ContinuingSubwordPrefix)
	case f.Model.MaxInputCharsPerWord <= 0:
		return nil, bad("max_input_chars_per_word is not positive")
	case n == nil || n.Type != "BertNormalizer" || !n.CleanText || !n.HandleChineseChars || !n.Lowercase ||
		(n.StripAccents != nil && !*n.StripAccents):
		return nil, bad("normalizer is not an uncased BertNormalizer")
	case f.PreTokenizer == nil || f.PreTokenizer.Type != "BertPreTokenizer":
		return nil, bad("pre_tokenizer is not BertPreTokenizer")
	}
	// The vocabulary, {"token": id, …}, is the bulk of the file: it is
	// read by scanVocab rather than into a map (twice as fast to start).
	nVocab, err := countVocab(f.Model.Vocab)
	if err != nil {
		return nil, bad(err.Error())
	}
	v := &vocabulary{
		tokens:   make([]string, nVocab),
		initial:  make(map[string]int32, nVocab),
		cont:     make(map[string]int32, nVocab/4),
		unk:      f.Model.UnkToken,
		maxChars: f.Model.MaxInputCharsPerWord,
	}
	hasUnk := false
	err = scanVocab(f.Model.Vocab, func(tok string, id int) error {
		hasUnk = hasUnk || tok == f.Model.UnkToken
		if id < 0 || id >= len(v.tokens) || v.tokens[id] != "" || tok == "" {
			return fmt.Errorf("token %q has id %d; ids must be 0..%d, each once", tok, id, len(v.tokens)-1)
		}
		v.tokens[id] = tok
		if rest, ok := strings.CutPrefix(tok, "##"); ok && len(rest) > 0 {
			if _, dup := v.cont[rest]; dup {
				return fmt.Errorf("token %q twice", tok)
			}
			v.cont[rest] = int32(id)
			v.maxCont = max(v.maxCont, len(rest))
		} else {
			// "##" alone (or "##" followed by nothing) is an ordinary
			// word-initial piece, as in the reference implementations.
			if _, dup := v.initial[tok]; dup {
				return fmt.Errorf("token %q twice", tok)
			}
			v.initial[tok] = int32(id)
			v.maxInitial = max(v.maxInitial, len(tok))
		}
		return nil
	})
	if err != nil {
		return nil, bad(err.Error())
	}
	if !hasUnk {
		return nil, bad(fmt.Sprintf("unk_token %q is not in the vocabulary", f.Model.UnkToken))
	}
	for _, a := range f.AddedTokens {
		if a.Normalized || a.SingleWord || a.Lstrip || a.Rstrip || a.Content == "" {
			return nil, bad(fmt.Sprintf("added token %q needs matching rules this package does not implement", a.Content))
		}
		v.specials = append(v.specials, a.Content)
		v.specialStart[a.Content[0]] = true
	}
	// Longest first, so that the first match at a position is the longest:
	// Hugging Face matches added tokens leftmost-longest.
	sort.SliceStable(v.specials, func(i, j int) bool { return len(v.specials[i]) > len(v.specials[j]) })
	for c := range v.asciiTok {
		if asciiClass[c] == asciiPunct {
			if id, ok := v.initial[string(rune(c))]; ok {
				v.asciiTok[c] = v.tokens[id]
			} else {
				v.asciiTok[c] = v.unk
			}
		}
	}
	return v, nil
}

// Tokenize returns the WordPiece tokens of text as Hugging Face's
// BertTokenizer (uncased) tokenize(text) does (the package documentation
// lists the two corners where its Python and Rust versions differ): without
// [CLS] or [SEP], without padding or truncation. Word-initial pieces are plain ("un"),
// continuation pieces carry "##" ("##aff"), and a word that cannot be
// segmented, or is longer than 100 runes, is the single token "[UNK]".
// Special tokens written verbatim in text ("[MASK]", "[SEP]", ...) are kept
// whole, as Hugging Face keeps them. Any input is accepted, including
// invalid UTF-8 (whose bytes are dropped like U+FFFD); the result is nil
// when text holds no token.
//
// The returned strings share the vocabulary's memory; they are never
// modified.
func (t *Tokenizer) Tokenize(text string) []string {
	if t == nil || t.vocabulary == nil {
		return nil
	}
	var (
		out     []string
		stack   [64]byte
		chunk   = stack[:0] // the current word, cleaned but not normalised
		ascii   = true      // chunk is all ASCII (and already lowercased)
		scratch []byte      // normalisation buffer, reused across chunks
	)
	if len(text) > 0 {
		out = make([]string, 0, len(text)/5+1)
	}
	flush := func() {
		if len(chunk) > 0 {
			if ascii {
				out = t.appendPieces(out, chunk)
			} else {
				out, scratch = t.appendNormalized(out, chunk, scratch)
			}
		}
		chunk, ascii = chunk[:0], true
	}
	for i := 0; i < len(text); {
		c := text[i]
		if t.specialStart[c] {
			if s := t.specialAt(text[i:]); s != "" {
				flush()
				out = append(out, s)
				i += len(s)
				continue
			}
		}
		if c < utf8.RuneSelf {
			i++
			switch asciiClass[c] {
			case asciiWord:
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				chunk = append(chunk, c)
			case asciiSpace:
				flush()
			case asciiPunct:
				flush()
				out = append(out, t.asciiTok[c])
			}
			// asciiControl: dropped.
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case dropped(r):
		case isSpace(r):
			flush()
		case isCJK(r):
			flush()
			chunk = append(chunk, text[i:i+size]...)
			ascii = false
			flush()
		default:
			chunk = append(chunk, text[i:i+size]...)
			ascii = false
		}
		i += size
	}
	flush()
	if len(out) == 0 {
		return nil
	}
	return out
}

// specialAt returns the special token s begins with, or "".
func (t *Tokenizer) specialAt(s string) string {
	for _, sp := range t.specials {
		if len(s) >= len(sp) && s[:len(sp)] == sp {
			return sp
		}
	}
	return ""
}

// appendNormalized normalises a chunk that holds non-ASCII runes — NFD,
// drop non-spacing marks (Mn), lowercase — then splits it on punctuation
// and appends the pieces of each word. Punctuation is split only after NFD
// because NFD can turn a non-punctuation rune into punctuation (U+1FEF
// GREEK VARIA becomes '`'). It returns out and the grown scratch buffer.
func (t *Tokenizer) appendNormalized(out []string, chunk, scratch []byte) ([]string, []byte) {
	nfd := norm.NFD.Append(scratch[:0], chunk...)
	// Rewrite nfd in place: the lowercase of a rune can be longer than the
	// rune, so write into a second region after the NFD text when needed.
	word := nfd[len(nfd):]
	var buf [utf8.UTFMax]byte
	emit := func() {
		if len(word) > 0 {
			out = t.appendPieces(out, word)
			word = word[:0]
		}
	}
	for j := 0; j < len(nfd); {
		r, size := utf8.DecodeRune(nfd[j:])
		j += size
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		r = unicode.ToLower(r)
		if isPunct(r) {
			emit()
			n := utf8.EncodeRune(buf[:], r)
			out = t.appendPieces(out, buf[:n])
			continue
		}
		word = utf8.AppendRune(word, r)
	}
	emit()
	// Keep the larger of the two buffers for the next chunk.
	if cap(word) > cap(nfd) {
		return out, word[:0]
	}
	return out, nfd[:0]
}

// appendPieces appends the greedy longest-match-first WordPiece segmentation
// of the normalised word w (non-empty), or the unknown token when w is too
// long or some part of it matches no piece.
func (t *Tokenizer) appendPieces(out []string, w []byte) []string {
	if len(w) > t.maxChars && utf8.RuneCount(w) > t.maxChars {
		return append(out, t.unk)
	}
	// Fast path: most words are a single piece.
	if len(w) <= t.maxInitial {
		if id, ok := t.initial[string(w)]; ok {
			return append(out, t.tokens[id])
		}
	}
	mark := len(out)
	pieces, maxLen := t.initial, t.maxInitial
	for start := 0; start < len(w); {
		end := min(len(w), start+maxLen)
		for end < len(w) && !utf8.RuneStart(w[end]) {
			end-- // back off to a rune boundary
		}
		found := false
		for end > start {
			if id, ok := pieces[string(w[start:end])]; ok {
				out = append(out, t.tokens[id])
				found = true
				break
			}
			end--
			for end > start && !utf8.RuneStart(w[end]) {
				end--
			}
		}
		if !found {
			return append(out[:mark], t.unk)
		}
		start = end
		pieces, maxLen = t.cont, t.maxCont
	}
	return out
}

// countVocab returns the number of members of the vocabulary object raw
// (valid JSON: json.Unmarshal has checked the whole file).
func countVocab(raw json.RawMessage) (int, error) {
	n := 0
	err := scanVocab(raw, func(string, int) error { n++; return nil })
	return n, err
}

// scanVocab calls yield with each member of the JSON object raw, whose
// values must be integers. raw is valid JSON, so the scan only has to
// find the members: a key without escapes is its bytes, one with escapes
// is decoded by encoding/json.
func scanVocab(raw json.RawMessage, yield func(tok string, id int) error) error {
	b := bytes.TrimSpace(raw)
	if len(b) < 2 || b[0] != '{' {
		return errors.New("vocab is not an object")
	}
	p := 1
	skip := func() {
		for p < len(b) && (b[p] == ' ' || b[p] == '\n' || b[p] == '\t' || b[p] == '\r') {
			p++
		}
	}
	for {
		skip()
		if p < len(b) && b[p] == '}' {
			return nil
		}
		if p >= len(b) || b[p] != '"' {
			return errors.New("vocab: bad key")
		}
		start, escaped := p, false
		for p++; p < len(b) && b[p] != '"'; p++ {
			if b[p] == '\\' {
				escaped = true
				p++
			}
		}
		if p >= len(b) {
			return errors.New("vocab: unterminated key")
		}
		p++
		lit := b[start:p]
		var tok string
		if escaped || !utf8.Valid(lit) {
			if err := json.Unmarshal(lit, &tok); err != nil {
				return fmt.Errorf("vocab: key %s: %w", lit, err)
			}
		} else {
			tok = string(lit[1 : len(lit)-1])
		}
		skip()
		if p >= len(b) || b[p] != ':' {
			return errors.New("vocab: missing colon")
		}
		p++
		skip()
		end := p
		for end < len(b) && b[end] != ',' && b[end] != '}' && b[end] != ' ' && b[end] != '\n' && b[end] != '\t' && b[end] != '\r' {
			end++
		}
		id, err := strconv.Atoi(string(b[p:end]))
		if err != nil {
			return fmt.Errorf("vocab: token %q: id %s is not an integer", tok, b[p:end])
		}
		if err := yield(tok, id); err != nil {
			return err
		}
		p = end
		skip()
		if p < len(b) && b[p] == ',' {
			p++
		}
	}
}
