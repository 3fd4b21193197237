package rank

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/reqa/reqa/index/weaviate"
	"github.com/reqa/reqa/rank/fuse"
	"github.com/reqa/reqa/store"
)

// Index is an open index with its rankers. It is safe for concurrent use.
// What the index holds lives in this file (the local backend) or in an
// engine the file names (the Weaviate backend); Open picks the backend
// once and everything else asks it.
type Index struct {
	r *store.Reader
	b backend
	// dense is the question encoder and its caches, shared by every dense
	// ranker (and, on the local backend, the vectors).
	denseOnce sync.Once
	dense     *denseState
	// corpusOnce builds corpusV, what fusions know of every candidate.
	corpusOnce sync.Once
	corpusV    *fuse.Corpus
	// tuned replaces the index's own fusions and adapter (see UseTuned).
	tuned *Tuned
	// fastStart is OpenOptions.FastStart; vectorCache is
	// OpenOptions.VectorCache.
	fastStart   bool
	vectorCache int64
}

// backend is where an index's sentences, vectors and postings live: this
// file (local.go) or a Weaviate collection (weaviate.go).
type backend interface {
	// ranker builds the ranker s names; s is not the default (Resolve
	// has applied it).
	ranker(s Spec) (Ranker, error)
	// answers calls yield with the answer of each of ids, in order, until
	// it returns false (Score and Inputs unset).
	answers(ctx context.Context, ids []uint32, yield func(Answer) bool) error
	// extID maps a dataset candidate id to its sentence id.
	extID(ext string) (uint32, bool)
	// questions flags every sentence that is itself a question
	// (sentence.IsQuestion); nil when the backend does not know.
	questions() ([]bool, error)
	// serves reports whether the backend can run the fusion p.
	serves(p fuse.Params) bool
	// allSentences returns every candidate sentence, in id order (nil
	// when they are kept in an engine).
	allSentences() []store.Sentence
	// url is where the data lives: "" for this file, else the engine's
	// weaviate:// URL.
	url() string
}

// DefaultVectorCache is the cache of answer vectors a serving process
// keeps (OpenOptions.VectorCache; reqa serve --vector-cache): at 64 MiB
// about a quarter of a 100k-sentence index's vectors, the parts of the
// graph every question walks through staying in it.
const DefaultVectorCache int64 = 64 << 20

// Open opens the index at path.
func Open(path string) (*Index, error) { return OpenWith(path, OpenOptions{}) }

// OpenOptions configure how an index kept in an engine reaches it.
type OpenOptions struct {
	// Engine are the engine client's options (credentials, TLS,
	// deadlines), typically weaviate.Credentials.Options(); nil: the API
	// key of $REQA_WEAVIATE_API_KEY, if set.
	Engine []weaviate.Option
	// QuestionTimeout bounds one question asked of the engine (0:
	// QuestionTimeout).
	QuestionTimeout time.Duration
	// FastStart is for a process that asks a question or two and exits
	// (reqa ask): questions are embedded by the Go int8 USE-Lite instead
	// of starting ONNX Runtime (encoder.Options.FastStart). Answers are
	// those of the runtime up to int8 rounding (the same P@1 and MRR on
	// the SQuAD and docs benchmarks' test halves); many questions are
	// faster without it (eval, serve). BM25 term dictionaries are then
	// checked lazily, by their term filters (store.OpenOptions.LazyTerms).
	FastStart bool
	// VectorCache, when above 0, is for a process that answers questions
	// for as long as it runs (reqa serve): the answer vectors are read from
	// the file into a cache of at most this many bytes instead of used in
	// place from its memory map, so the process holds that much of them
	// however many questions it answers (in place, the pages it reads stay
	// mapped: its resident memory grows towards the whole set). Answers
	// are the same to the bit. 0: in place, the cheapest for a question
	// or two.
	VectorCache int64
}

// OpenWith opens the index at path with o.
func OpenWith(path string, o OpenOptions) (*Index, error) {
	// A fast start also checks BM25 term dictionaries lazily: a field's
	// term filter at open, the whole dictionary only if a lookup misses
	// a term the filter has (store.OpenOptions.LazyTerms).
	r, err := store.OpenWith(path, store.OpenOptions{LazyTerms: o.FastStart})
	if err != nil {
		return nil, err
	}
	x := &Index{r: r, fastStart: o.FastStart, vectorCache: o.VectorCache}
	if r.Meta().Engine != nil {
		x.b, err = openWeaviate(x, o)
	} else {
		x.b, err = openLocal(x)
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	return x, nil
}

// VectorCache returns the figures of the cache the answer vectors are
// read through (OpenOptions.VectorCache), and false when they are read in
// place, the index has none, or no question has needed them yet.
func (x *Index) VectorCache() (store.CacheStats, bool) {
	l, ok := x.b.(*local)
	if !ok {
		return store.CacheStats{}, false
	}
	a := l.rowsOpen.Load()
	if a == nil || !a.rows.Cached() {
		return store.CacheStats{}, false
	}
	return a.rows.CacheStats(), true
}

// Close releases the index.
func (x *Index) Close() error { return x.r.Close() }

// Store returns the underlying index reader.
func (x *Index) Store() *store.Reader { return x.r }

// Meta returns the index metadata.
func (x *Index) Meta() store.Meta { return x.r.Meta() }

// EngineURL reports where the index's data lives: "" for this file, else
// the engine's weaviate:// URL.
func (x *Index) EngineURL() string { return x.b.url() }

// SentenceText returns the text of sentence id.
func (x *Index) SentenceText(id uint32) (string, error) {
	var text string
	found := false
	err := x.b.answers(context.Background(), []uint32{id}, func(a Answer) bool {
		text, found = a.Sentence, true
		return false
	})
	if err == nil && !found {
		err = fmt.Errorf("sentence %d: %w", id, store.ErrNotFound)
	}
	return text, err
}

// Sentences returns every candidate sentence, in id order (none for an
// index kept in an engine).
func (x *Index) Sentences() []store.Sentence { return x.b.allSentences() }

// SentenceByExtID maps a dataset candidate id to its sentence id.
func (x *Index) SentenceByExtID(ext string) (uint32, bool) { return x.b.extID(ext) }

// Answer is one ranked answer sentence with its context.
type Answer struct {
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
	// Sentence is the answer sentence.
	Sentence string `json:"sentence"`
	// Context is the whole passage; the sentence is Context[Start:End]
	// (byte offsets).
	Context string `json:"context"`
	Start   int    `json:"start"`
	End     int    `json:"end"`
	Title   string `json:"title,omitempty"`
	Source  string `json:"source,omitempty"`
	// Kind is the document block the sentence comes from ("paragraph",
	// "list-item", "table-row", "quote", "definition"); empty for text
	// without structure.
	Kind string `json:"kind,omitempty"`
	// ID is the record's id in its source (a JSONL "id", a dataset
	// context_id), when it has one.
	ID string `json:"id,omitempty"`
	// SentenceID is the index-internal id; CandidateID the dataset's.
	SentenceID  uint32 `json:"sentence_id"`
	CandidateID string `json:"candidate_id,omitempty"`
	// Scores holds each input ranker's score when the ranker is a fusion.
	Scores map[string]float64 `json:"scores,omitempty"`
	// Also lists the sources of lower-ranked candidates whose sentence
	// reads the same (white space aside), which Ask leaves out of its
	// answers: the same sentence in a README and its HTML rendering, or
	// repeated in a document.
	Also []string `json:"also,omitempty"`
}

// answerSet collects Ask's answers in rank order, each sentence once.
type answerSet struct {
	k    int
	out  []Answer
	seen map[string]int // sentence, white space collapsed → index in out
}

// askDepth is how many ranked candidates Ask reads, at most, to find k
// answers with distinct sentences among n candidates.
func askDepth(k, n int) int { return min(n, 4*k+16) }

// add takes the next-ranked answer: a sentence already answered goes to
// that answer's Also. It returns false once k answers are held and a is a
// new sentence (the caller stops there).
func (s *answerSet) add(a Answer) bool {
	key := strings.Join(strings.Fields(a.Sentence), " ")
	if j, ok := s.seen[key]; ok {
		if a.Source != "" {
			s.out[j].Also = append(s.out[j].Also, a.Source)
		}
		return true
	}
	if len(s.out) == s.k {
		return false
	}
	if s.seen == nil {
		s.seen = map[string]int{}
	}
	s.seen[key] = len(s.out)
	a.Rank = len(s.out) + 1
	s.out = append(s.out, a)
	return true
}

// Ask returns the k best answers to question by ranker r, each sentence
// once: a candidate whose sentence reads the same as a better one's is
// left out and listed in its Also (among the first [askDepth] candidates).
// A question that matches nothing returns no answers and no error.
func (x *Index) Ask(ctx context.Context, r Ranker, question string, k int) ([]Answer, error) {
	hits, err := r.TopK(ctx, question, askDepth(k, r.Docs()))
	if err != nil || len(hits) == 0 {
		return nil, err
	}
	ids := make([]uint32, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	set := answerSet{k: k}
	i := 0
	err = x.b.answers(ctx, ids, func(a Answer) bool {
		a.Score, a.Scores = hits[i].Score, hits[i].Inputs
		i++
		return set.add(a)
	})
	if err != nil {
		return nil, err
	}
	return set.out, nil
}

// kindName names a block kind for answers; plain text has none.
func kindName(k store.Kind) string {
	if k == store.KindText {
		return ""
	}
	return k.String()
}
