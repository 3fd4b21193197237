package sentencepiece

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// literalPort is a line-by-line Go transcription of the reference's encode
// (lib/tokenizer.ts with lib/trie.ts), with none of Tokenizer's
// restructuring: a trie of maps, the lattice of per-end maps visited by
// increasing start, and the backward walk. It is slow and exists only as an
// independent oracle for the fuzz test. It takes the symbols after
// normalisation, which checkNFKC tests separately.
func newLiteralPort(t *Tokenizer) func(symbols []rune) []int32 {
	type trieNode struct {
		children map[rune]*trieNode
		end      bool
		word     []rune
		score    float64
		index    int32
	}
	root := &trieNode{children: map[rune]*trieNode{}}
	for i := reservedCount; i < len(t.entries); i++ {
		node := root
		syms := []rune(t.entries[i].text)
		for j, s := range syms {
			if node.children[s] == nil {
				node.children[s] = &trieNode{children: map[rune]*trieNode{}, word: append(slices.Clone(node.word), s)}
			}
			node = node.children[s]
			if j == len(syms)-1 {
				node.end = true
				node.score = t.entries[i].score
				node.index = int32(i)
			}
		}
	}
	type match struct {
		key   []rune
		score float64
		index int32
	}
	commonPrefixSearch := func(ss []rune) []match {
		var output []match
		node := root.children[ss[0]]
		for i := 0; i < len(ss) && node != nil; i++ {
			if node.end {
				output = append(output, match{node.word, node.score, node.index})
			}
			if i+1 < len(ss) {
				node = node.children[ss[i+1]]
			} else {
				node = nil
			}
		}
		if len(output) == 0 {
			output = append(output, match{[]rune{ss[0]}, 0, 0})
		}
		return output
	}

	return func(symbols []rune) []int32 {
		n := len(symbols)
		nodes := make([]map[int][]match, n+1)
		words := make([]int32, n+1)
		best := make([]float64, n+1)
		for i := range nodes {
			nodes[i] = map[int][]match{}
		}
		for i := 0; i < n; i++ {
			for _, piece := range commonPrefixSearch(symbols[i:]) {
				endPos := len(piece.key)
				nodes[i+endPos][i] = append(nodes[i+endPos][i], piece)
			}
		}
		for endPos := 0; endPos <= n; endPos++ {
			starts := make([]int, 0, len(nodes[endPos]))
			for s := range nodes[endPos] {
				starts = append(starts, s)
			}
			sort.Ints(starts) // for...in over integer keys is in increasing order
			for _, startPos := range starts {
				for _, word := range nodes[endPos][startPos] {
					score := word.score + best[endPos-len(word.key)]
					if best[endPos] == 0 || score >= best[endPos] {
						best[endPos] = score
						words[endPos] = word.index
					}
				}
			}
		}
		var results []int32
		for iter := len(words) - 1; iter > 0; {
			results = append(results, words[iter])
			iter -= t.entries[words[iter]].utf16Len
		}
		var merged []int32
		isPreviousUnk := false
		for _, id := range results {
			if !(isPreviousUnk && id == 0) {
				merged = append(merged, id)
			}
			isPreviousUnk = id == 0
		}
		slices.Reverse(merged)
		return merged
	}
}

// fuzzTokenizer returns the embedded tokenizer, or the toy one where the
// vocabulary was not embedded, so the fuzz test runs on a clean clone too.
func fuzzTokenizer(f *testing.F) *Tokenizer {
	if tok, err := New(); err == nil {
		return tok
	}
	data, err := os.ReadFile(filepath.Join("testdata", "toy.vocab.json"))
	if err != nil {
		f.Fatal(err)
	}
	tok, err := FromJSON(data)
	if err != nil {
		f.Fatal(err)
	}
	return tok
}

func FuzzEncode(f *testing.F) {
	tok := fuzzTokenizer(f)
	literalPort := newLiteralPort(tok)
	// tiles reports whether the pieces of a best path always spell out the
	// symbols: true when every piece's UTF-16 length is its length in code
	// points and the unknown piece has length 1, as in the USE-Lite
	// vocabulary.
	tiles := tok.entries[0].utf16Len == 1
	for _, e := range tok.entries[reservedCount:] {
		tiles = tiles && e.utf16Len == e.runeCount
	}
	for _, s := range []string{
		"", " ", "a", "Who invented the microwave oven?", "  padded  ", "tabs\tand\nnewlines",
		"ﬁnancial ① ＡＢＣ", "Café naïve", "東京は日本", "pizza 🍕 ☕", "a\xffb\xc3", "\xed\xa0\x80",
		"Ωμέγα ψ ж", "a" + strings.Repeat("\u0301\u0316", 20), "\U0001CCD6\uA7F1\U000105D2\u0307",
		"e\u1ADD\u0301", "\u0dd9\u0dcf\u0ddf\u0f73", "가\u11a8\u1100\u1161", ":30 :00 ://",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids := tok.Encode(s)
		pieces := tok.Pieces(s)
		if len(pieces) != len(ids) {
			t.Fatalf("Encode(%+q) has %d ids but Pieces has %d", s, len(ids), len(pieces))
		}
		for i, id := range ids {
			if id < 0 || int(id) >= tok.VocabSize() {
				t.Fatalf("Encode(%+q)[%d] = %d, outside the vocabulary", s, i, id)
			}
			if i > 0 && id == 0 && ids[i-1] == 0 {
				t.Fatalf("Encode(%+q) = %v has consecutive unknowns", s, ids)
			}
			if id != 0 && pieces[i] != tok.Piece(id) {
				t.Fatalf("Pieces(%+q)[%d] = %q, but id %d is %q", s, i, pieces[i], id, tok.Piece(id))
			}
		}
		symbols := appendSymbols(nil, s)
		if want := literalPort(symbols); !slices.Equal(ids, want) && !(len(ids) == 0 && len(want) == 0) {
			t.Fatalf("Encode(%+q) = %v, the literal port of the reference gives %v", s, ids, want)
		}
		if tiles {
			if got, want := strings.Join(pieces, ""), string(symbols); got != want {
				t.Fatalf("Pieces(%+q) spell %+q, want the symbols %+q", s, got, want)
			}
		}
		if utf8.ValidString(s) {
			checkNFKC(t, s)
		}
	})
}

// FuzzFromJSON: no vocabulary makes the reader panic; one it accepts has
// the pieces a plain encoding/json decode of it gives, and encodes.
func FuzzFromJSON(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "toy.vocab.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`[["\u00e9\"x", -1.5], ["a", null], ["b", 1e-3, "extra"]]`))
	for _, s := range []string{
		` [ ] `, `[["a",0]]`, `[["a",-0.5e+3],["b\\",1E2]]`, `[["a",01]]`, `[["a",1.]]`, `[["a",-]]`,
		`[["a",1e999]]`, `[["a\u00"]]`, "[[\"a\x01\",1]]", "[[\"\xff\",1]]", `[["a",1],]`, `[["a",nul]]`,
		`[["a",1]] x`, `[["a" , 2 ] , [ "b",null ]]`, `[["a",1,2]]`, `[[1,1]]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// The one-pass scanner reads what it accepts exactly as
		// encoding/json does.
		if fast, ok := scanVocabulary(b); ok {
			slow, err := decodeVocabulary(b)
			if err != nil {
				t.Fatalf("the scanner accepted what encoding/json rejects: %v", err)
			}
			if !slices.Equal(fast, slow) {
				t.Fatalf("the scanner read %v, encoding/json %v", fast, slow)
			}
		}
		tok, err := FromJSON(b)
		if err != nil {
			return
		}
		var ref [][]any
		if err := json.Unmarshal(b, &ref); err != nil {
			t.Fatalf("accepted a vocabulary encoding/json rejects: %v", err)
		}
		for i, r := range ref {
			if s, _ := r[0].(string); tok.Piece(int32(i)) != s {
				t.Fatalf("piece %d: %q, encoding/json reads %q", i, tok.Piece(int32(i)), s)
			}
		}
		tok.Encode("héllo, wörld")
	})
}
