package sentencepiece

import (
	"strings"
	"sync"
)

// Tokenizer splits text into the SentencePiece ids of one vocabulary exactly as
// the reference JavaScript tokenizer does. It is immutable once built and safe
// for concurrent use by multiple goroutines.
type Tokenizer struct {
	entries []entry
	trie    trie
	pool    sync.Pool // of *workspace
}

// workspace holds the per-call buffers, reused through Tokenizer.pool.
type workspace struct {
	sym   []rune
	best  []float64
	words []int32
	// back holds the best path from the end of the input backwards: token ids
	// and the symbol index each token ends at.
	back    []int32
	backEnd []int
}

// maxPooledSymbols bounds the buffers returned to the pool, so one huge input
// does not pin its memory for the life of the Tokenizer.
const maxPooledSymbols = 1 << 16

func newTokenizer(entries []entry) *Tokenizer {
	return &Tokenizer{entries: entries, trie: buildTrie(entries)}
}

// VocabSize returns the number of entries in the vocabulary; every id that
// Encode returns is below it.
func (t *Tokenizer) VocabSize() int { return len(t.entries) }

// Piece returns the vocabulary's piece for id, or "" if id is out of range.
// Id 0 is the unknown token.
func (t *Tokenizer) Piece(id int32) string {
	if id < 0 || int(id) >= len(t.entries) {
		return ""
	}
	return t.entries[id].text
}

// Encode returns the token ids of text, as the Universal Sentence Encoder Lite
// expects them: the ids the reference tokenizer of @energetic-ai/embeddings
// 0.2.0 produces for the same text. Characters the vocabulary cannot cover
// become id 0, one 0 for each run of them. The empty string (and any text that
// normalises to it) gives an empty, non-nil slice.
//
// Invalid UTF-8 is read the way a JavaScript host decodes bytes: each invalid
// sequence becomes U+FFFD, which is unknown, so it yields id 0 (merged with
// neighbouring unknowns). Encode never panics.
func (t *Tokenizer) Encode(text string) []int32 {
	ws := t.run(text)
	ids := make([]int32, 0, len(ws.back))
	prevUnk := false
	for k := len(ws.back) - 1; k >= 0; k-- {
		id := ws.back[k]
		if !(prevUnk && id == 0) {
			ids = append(ids, id)
		}
		prevUnk = id == 0
	}
	t.release(ws)
	return ids
}

// Pieces returns the pieces of text, one string for each id Encode returns:
// the vocabulary's piece for a known id, and for id 0 the normalised text of
// the run of unknown characters it stands for. Spaces appear as "▁"
// (U+2581), and the first piece starts with one. Pieces is meant for
// debugging and inspection.
func (t *Tokenizer) Pieces(text string) []string {
	ws := t.run(text)
	out := make([]string, 0, len(ws.back))
	var unk strings.Builder
	flush := func() {
		if unk.Len() > 0 {
			out = append(out, unk.String())
			unk.Reset()
		}
	}
	for k := len(ws.back) - 1; k >= 0; k-- {
		id, end := ws.back[k], ws.backEnd[k]
		if id != 0 {
			flush()
			out = append(out, t.entries[id].text)
			continue
		}
		start := max(end-t.entries[0].utf16Len, 0)
		unk.WriteString(string(ws.sym[start:end]))
	}
	flush()
	t.release(ws)
	return out
}

// run normalises text and computes its best path, which it leaves in the
// returned workspace's back and backEnd, last token first.
func (t *Tokenizer) run(text string) *workspace {
	ws, _ := t.pool.Get().(*workspace)
	if ws == nil {
		ws = new(workspace)
	}
	ws.sym = appendSymbols(ws.sym[:0], text)
	t.viterbi(ws)
	t.backtrack(ws)
	return ws
}

func (t *Tokenizer) release(ws *workspace) {
	if cap(ws.sym) > maxPooledSymbols {
		return
	}
	t.pool.Put(ws)
}

// viterbi fills ws.best and ws.words for ws.sym.
//
// It is the reference's lattice search turned into a forward pass. The
// reference first collects, for every start position i, each piece that
// matches there (or, when none does, a one-symbol unknown piece with score 0
// and id 0), then visits end positions in increasing order and, within one
// end, start positions in increasing order, keeping a candidate when
//
//	best[end] === 0 || score >= best[end]
//
// where score = pieceScore + best[start]. Visiting start positions in
// increasing order and relaxing every end reached from each reproduces that
// order exactly, because each end is only ever reached once from each start
// and best[start] is final by the time start is visited. The quirks are kept
// on purpose: ties go to the later candidate (the shorter piece); 0 doubles as
// "unset", so a path whose total is exactly 0 is always replaced; positions no
// piece ends at keep best 0 and id 0.
func (t *Tokenizer) viterbi(ws *workspace) {
	n := len(ws.sym)
	ws.best = resize(ws.best, n+1)
	ws.words = resize(ws.words, n+1)
	best, words, sym := ws.best, ws.words, ws.sym
	for i := range best {
		best[i] = 0
		words[i] = 0
	}
	for i := 0; i < n; i++ {
		base := best[i]
		matched := false
		e := t.trie.next(0, sym[i])
		for k := i; e != nil; {
			if e.id >= 0 {
				matched = true
				score := t.trie.scores[e.id] + base
				if end := k + 1; best[end] == 0 || score >= best[end] {
					best[end] = score
					words[end] = e.id
				}
			}
			k++
			if e.child == leaf || k >= n {
				break
			}
			e = t.trie.next(e.child, sym[k])
		}
		if !matched {
			// The reference's stand-in for an unmatched symbol: [[symbol], 0, 0].
			score := 0 + base
			if e := i + 1; best[e] == 0 || score >= best[e] {
				best[e] = score
				words[e] = 0
			}
		}
	}
}

// backtrack walks the best path from the end, as the reference does: it steps
// back from each token by the UTF-16 length of that token's vocabulary piece
// (the JavaScript string length), not by the number of symbols it matched.
// For pieces of the Basic Multilingual Plane the two agree.
func (t *Tokenizer) backtrack(ws *workspace) {
	ws.back = ws.back[:0]
	ws.backEnd = ws.backEnd[:0]
	for iter := len(ws.sym); iter > 0; {
		id := ws.words[iter]
		ws.back = append(ws.back, id)
		ws.backEnd = append(ws.backEnd, iter)
		iter -= t.entries[id].utf16Len // >= 1: FromJSON guarantees it for id 0, and trie pieces are never empty
	}
}

func resize[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}
