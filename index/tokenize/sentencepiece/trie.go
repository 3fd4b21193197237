package sentencepiece

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// rootDense is the number of code points whose edge from the root is found by
// direct indexing rather than by hashing. It covers Latin, Greek, Cyrillic,
// the general punctuation block and U+2581 ("▁"), which starts most pieces.
const rootDense = 0x2600

// trie is an immutable prefix tree over the code points of the vocabulary's
// pieces, the equivalent of the reference's Trie (lib/trie.ts) frozen into
// flat arrays. Node 0 is the root; the other nodes exist only as the targets
// of edges, and each edge carries what the reference keeps in its target node:
// whether a piece ends there, and that piece's id and score. Walking the trie
// thus touches one 16-byte array slot per character, and the score array when
// a piece ends.
type trie struct {
	// root holds the edges from the root for code points below rootDense
	// (child 0: no edge).
	root []edge
	// table is an open-addressing hash table of all other edges, keyed by
	// parent node and code point; its length is a power of two.
	table []edge
	shift uint // 64 - log2(len(table))
	// scores holds the score of each token id.
	scores []float64
}

// edge leads from a parent node to child by one code point.
type edge struct {
	key uint64 // parent<<32 | code point; unused in trie.root
	// child is the target node, or leaf when the target has no edges of its
	// own; 0 (the root, never a target) marks an unused slot.
	child int32
	// id is the token id of the piece ending at the target, or -1 if none
	// does.
	id int32
}

// leaf is the child of an edge whose target has no edges.
const leaf = -1

func edgeKey(parent int32, r rune) uint64 { return uint64(uint32(parent))<<32 | uint64(uint32(r)) }

// buildTrie inserts the pieces of entries[reservedCount:] in order. As in the
// reference, a piece that occurs twice keeps the score and id of its last
// occurrence; an empty piece is never inserted.
func buildTrie(entries []entry) trie {
	// The pieces are inserted in code-point order (stably: among equal
	// pieces the later keeps its id and score), so each shares its path
	// with the one before for as long as they agree and the tree grows
	// without a lookup: no map, no per-node allocation.
	type medge struct {
		parent int32
		r      rune
		child  int32
	}
	// keys[i] is piece i as the code points it is walked by: the text
	// itself, or for invalid UTF-8 the text with each bad byte made
	// U+FFFD (as ranging over it yields), so that byte order is code-point
	// order and equal walks are equal keys.
	keys := make([]string, len(entries))
	order := make([]int, 0, len(entries))
	for i := reservedCount; i < len(entries); i++ {
		t := entries[i].text
		if t == "" {
			continue
		}
		if !utf8.ValidString(t) {
			t = string([]rune(t))
		}
		keys[i] = t
		order = append(order, i)
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := strings.Compare(keys[a], keys[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b) // stable: equal pieces in id order
	})
	// At most one node (and edge) per code point of the pieces.
	nodes := 1
	for _, i := range order {
		nodes += entries[i].runeCount
	}
	edges := make([]medge, 0, nodes-1)
	ids := append(make([]int32, 0, nodes), -1)
	scores := append(make([]float64, 0, nodes), 0)
	fanout := append(make([]int32, 0, nodes), 0)
	path := []int32{0} // path[k]: the node after the previous piece's first k code points
	prev := ""
	for _, i := range order {
		key := keys[i]
		// The code points key shares with the previous piece.
		common, off := 0, 0
		for off < len(key) && off < len(prev) {
			r1, n1 := utf8.DecodeRuneInString(key[off:])
			r2, n2 := utf8.DecodeRuneInString(prev[off:])
			if r1 != r2 || n1 != n2 {
				break
			}
			common++
			off += n1
		}
		path = path[:common+1]
		for _, r := range key[off:] {
			parent, child := path[len(path)-1], int32(len(ids))
			ids, scores, fanout = append(ids, -1), append(scores, 0), append(fanout, 0)
			edges = append(edges, medge{parent, r, child})
			fanout[parent]++
			path = append(path, child)
		}
		end := path[len(path)-1]
		ids[end], scores[end] = int32(i), entries[i].score
		prev = key
	}

	size, shift := 8, uint(61)
	for size < 2*len(edges) {
		size *= 2
		shift--
	}
	t := trie{root: make([]edge, rootDense), table: make([]edge, size), shift: shift, scores: make([]float64, len(entries))}
	for n, id := range ids {
		if id >= 0 {
			t.scores[id] = scores[n]
		}
	}
	for _, me := range edges {
		e := edge{key: edgeKey(me.parent, me.r), child: me.child, id: ids[me.child]}
		if fanout[me.child] == 0 {
			e.child = leaf
		}
		if me.parent == 0 && me.r >= 0 && me.r < rootDense {
			t.root[me.r] = e
			continue
		}
		for j := t.slot(e.key); ; j = (j + 1) & (len(t.table) - 1) {
			if t.table[j].child == 0 {
				t.table[j] = e
				break
			}
		}
	}
	return t
}

// slot is the first table slot to probe for key (Fibonacci hashing).
func (t *trie) slot(key uint64) int { return int((key * 0x9E3779B97F4A7C15) >> t.shift) }

// next returns the edge from node by r, or nil if there is none.
func (t *trie) next(node int32, r rune) *edge {
	if node == 0 && r >= 0 && r < rootDense {
		if e := &t.root[r]; e.child != 0 {
			return e
		}
		return nil
	}
	key := edgeKey(node, r)
	mask := len(t.table) - 1
	for j := t.slot(key); ; j = (j + 1) & mask {
		e := &t.table[j]
		if e.child == 0 {
			return nil
		}
		if e.key == key {
			return e
		}
	}
}
