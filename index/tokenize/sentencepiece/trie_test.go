package sentencepiece

import (
	"math/rand"
	"testing"
)

// TestTrieMatchesMap builds tries from random vocabularies — shared
// prefixes, repeated pieces, multi-byte and invalid UTF-8, empty pieces —
// and checks every walk against a map: a piece's walk ends on the edge of
// its last occurrence (id and score), a prefix that is no piece on id -1,
// and nothing else has an edge.
func TestTrieMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	alphabet := []string{"a", "b", "▁", "é", "\xff", "\xfe", "中", "😀", "ab", "\x80"}
	for round := 0; round < 200; round++ {
		entries := make([]entry, reservedCount+rng.Intn(60))
		for i := reservedCount; i < len(entries); i++ {
			var s string
			for n := rng.Intn(5); n > 0; n-- {
				s += alphabet[rng.Intn(len(alphabet))]
			}
			entries[i] = entry{text: s, score: float64(rng.Intn(1000)) / 7}
		}
		tr := buildTrie(entries)
		last := map[string]int{} // the walk (as runes) → the last piece walking it
		prefixes := map[string]bool{}
		for i := reservedCount; i < len(entries); i++ {
			rs := []rune(entries[i].text)
			if len(rs) == 0 {
				continue
			}
			last[string(rs)] = i
			for k := 1; k < len(rs); k++ {
				prefixes[string(rs[:k])] = true
			}
		}
		walk := func(key string) *edge {
			node, e := int32(0), (*edge)(nil)
			for _, r := range key {
				if node == leaf {
					return nil
				}
				if e = tr.next(node, r); e == nil {
					return nil
				}
				node = e.child
			}
			return e
		}
		for key, i := range last {
			e := walk(key)
			if e == nil || e.id != int32(i) || tr.scores[i] != entries[i].score {
				t.Fatalf("round %d: piece %q: edge %+v, want id %d score %v", round, key, e, i, entries[i].score)
			}
		}
		for key := range prefixes {
			if _, isPiece := last[key]; isPiece {
				continue
			}
			if e := walk(key); e == nil || e.id != -1 {
				t.Fatalf("round %d: prefix %q: edge %+v, want an edge without a piece", round, key, e)
			}
		}
		for probe := 0; probe < 50; probe++ {
			key := string([]rune(alphabet[rng.Intn(len(alphabet))] + alphabet[rng.Intn(len(alphabet))] + alphabet[rng.Intn(len(alphabet))]))
			_, isPiece := last[key]
			if e := walk(key); (e != nil) != (isPiece || prefixes[key]) {
				t.Fatalf("round %d: %q: edge %+v, piece %v prefix %v", round, key, e, isPiece, prefixes[key])
			}
		}
	}
}
