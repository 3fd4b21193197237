package sentencepiece

import "sort"

// rootDense is the number of code points whose child of the root is found by
// direct indexing rather than by binary search. It covers Latin, Greek,
// Cyrillic, the general punctuation block and U+2581 ("▁"), which starts
// most pieces.
const rootDense = 0x2600

// trie is an immutable prefix tree over the code points of the vocabulary's
// pieces, the equivalent of the reference's Trie (lib/trie.ts) frozen into
// flat arrays. Node 0 is the root.
type trie struct {
	nodes []trieNode
	// edges holds every node's children, sorted by code point, node by node.
	edges []trieEdge
	// root maps code points below rootDense to the root's child (0: none).
	root []int32
}

type trieNode struct {
	// firstEdge and numEdges locate the node's children in trie.edges.
	firstEdge, numEdges int32
	// id is the token id of the piece ending here, or -1 if none does.
	id int32
	// score is that piece's score.
	score float64
}

type trieEdge struct {
	r     rune
	child int32
}

// buildTrie inserts the pieces of entries[reservedCount:] in order. As in the
// reference, a piece that occurs twice keeps the score and id of its last
// occurrence.
func buildTrie(entries []entry) trie {
	// Build with maps first, then freeze.
	type mnode struct {
		children map[rune]int32
		id       int32
		score    float64
	}
	nodes := []mnode{{children: map[rune]int32{}, id: -1}}
	for i := reservedCount; i < len(entries); i++ {
		cur := int32(0)
		for _, r := range entries[i].text {
			next, ok := nodes[cur].children[r]
			if !ok {
				next = int32(len(nodes))
				nodes = append(nodes, mnode{children: map[rune]int32{}, id: -1})
				nodes[cur].children[r] = next
			}
			cur = next
		}
		if cur != 0 { // empty pieces are never inserted
			nodes[cur].id = int32(i)
			nodes[cur].score = entries[i].score
		}
	}

	t := trie{nodes: make([]trieNode, len(nodes)), root: make([]int32, rootDense)}
	for n, mn := range nodes {
		start := len(t.edges)
		for r, c := range mn.children {
			t.edges = append(t.edges, trieEdge{r, c})
		}
		kids := t.edges[start:]
		sort.Slice(kids, func(a, b int) bool { return kids[a].r < kids[b].r })
		t.nodes[n] = trieNode{firstEdge: int32(start), numEdges: int32(len(kids)), id: mn.id, score: mn.score}
	}
	for _, e := range t.edges[t.nodes[0].firstEdge : t.nodes[0].firstEdge+t.nodes[0].numEdges] {
		if e.r >= 0 && e.r < rootDense {
			t.root[e.r] = e.child
		}
	}
	return t
}

// child returns the child of node n reached by r, or 0 if there is none.
func (t *trie) child(n int32, r rune) int32 {
	if n == 0 && r >= 0 && r < rootDense {
		return t.root[r]
	}
	nd := &t.nodes[n]
	lo, end := int(nd.firstEdge), int(nd.firstEdge+nd.numEdges)
	// Binary search narrows [lo, hi) while keeping edges[hi].r >= r (or hi
	// == end); the final scan stops at the first edge not below r.
	hi := end
	for hi-lo > 8 {
		mid := int(uint(lo+hi) >> 1)
		if t.edges[mid].r < r {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for ; lo < end; lo++ {
		if e := t.edges[lo]; e.r >= r {
			if e.r == r {
				return e.child
			}
			return 0
		}
	}
	return 0
}
