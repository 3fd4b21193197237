package rank

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/index/tokenize"
	"github.com/reqa/reqa/rank/fuse"
	"github.com/reqa/reqa/store"
)

// Index is an open index with its rankers. It is safe for concurrent use.
type Index struct {
	r         *store.Reader
	sentences []store.Sentence
	byExtOnce sync.Once
	byExt     map[string]uint32
	denseOnce sync.Once
	dense     *denseState
	// corpusOnce builds corpusV, what fusions know of every candidate.
	corpusOnce sync.Once
	corpusV    *fuse.Corpus
	// tuned replaces the index's own fusions and adapter (see UseTuned).
	tuned *Tuned
	// remote is set when the index is kept in an external engine
	// (remote.go).
	remote *remote
}

// Open opens the index at path.
func Open(path string) (*Index, error) {
	r, err := store.Open(path)
	if err != nil {
		return nil, err
	}
	if r.Meta().Engine != nil {
		rm, err := openRemote(r)
		if err != nil {
			r.Close()
			return nil, err
		}
		return &Index{r: r, remote: rm}, nil
	}
	ss, err := r.Sentences()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	if len(ss) != r.Meta().Sentences {
		r.Close()
		return nil, fmt.Errorf("open index %s: %d sentences stored, meta says %d: %w", path, len(ss), r.Meta().Sentences, store.ErrCorrupt)
	}
	e := &Index{r: r, sentences: ss}
	return e, nil
}

// Close releases the index.
func (e *Index) Close() error { return e.r.Close() }

// Store returns the underlying index reader.
func (e *Index) Store() *store.Reader { return e.r }

// Meta returns the index metadata.
func (e *Index) Meta() store.Meta { return e.r.Meta() }

// Sentences returns every candidate sentence, in id order.
func (e *Index) Sentences() []store.Sentence { return e.sentences }

// SentenceText returns the text of sentence id (from the engine, for an
// index kept in one).
func (e *Index) SentenceText(id uint32) (string, error) {
	if e.remote != nil {
		col, err := e.collection()
		if err != nil {
			return "", err
		}
		objs, err := col.Objects(context.Background(), []int{int(id)})
		if err != nil {
			return "", err
		}
		return objs[0].Text, nil
	}
	a, err := e.answer(id)
	return a.Sentence, err
}

// SentenceByExtID maps a dataset candidate id to its sentence id.
func (e *Index) SentenceByExtID(ext string) (uint32, bool) {
	if e.remote != nil {
		return e.remoteExtID(ext)
	}
	e.byExtOnce.Do(func() {
		m := make(map[string]uint32, len(e.sentences))
		for _, s := range e.sentences {
			if s.ExtID != "" {
				m[s.ExtID] = s.ID
			}
		}
		e.byExt = m
	})
	id, ok := e.byExt[ext]
	return id, ok
}

// Ranker scores every candidate sentence for a question.
type Ranker interface {
	// Name is the ranker's name, e.g. "bm25-wpm".
	Name() string
	// Score fills acc with every candidate's score for question.
	// Candidates not in acc.Touched scored 0.
	Score(question string, acc *bm25.Accumulator) error
	// Docs is the number of candidates.
	Docs() int
}

// BM25Ranker ranks with one BM25 field.
type BM25Ranker struct {
	name  string
	tok   tokenize.Tokenizer
	field *bm25.Field
}

// Name implements Ranker.
func (b *BM25Ranker) Name() string { return b.name }

// Docs implements Ranker.
func (b *BM25Ranker) Docs() int { return b.field.Docs() }

// Tokens returns the question's tokens as the ranker sees them.
func (b *BM25Ranker) Tokens(question string) []string {
	toks, _ := b.tok.Query(question)
	return toks
}

// Score implements Ranker.
func (b *BM25Ranker) Score(question string, acc *bm25.Accumulator) error {
	toks, weights := b.tok.Query(question)
	return b.field.ScoreWeighted(toks, weights, acc)
}

// bm25 builds the BM25 ranker s names.
func (e *Index) bm25(s Spec) (Ranker, error) {
	field := store.FieldName(s.Tokenizer, !s.SentenceOnly)
	if _, ok := e.r.Meta().Field(field); !ok {
		return nil, fmt.Errorf("%w %q (this index supports: %s)", ErrUnknownRanker, s.Name, strings.Join(e.Rankers(), ", "))
	}
	tok, err := tokenize.Get(s.Tokenizer)
	if err != nil {
		return nil, err
	}
	f, err := bm25.Open(e.r, field, e.contextOf())
	if err != nil {
		return nil, err
	}
	return &BM25Ranker{name: s.Name, tok: tok, field: f}, nil
}

// contextOf returns every sentence's context id.
func (e *Index) contextOf() []uint32 {
	ctxOf := make([]uint32, len(e.sentences))
	for i, s := range e.sentences {
		ctxOf[i] = s.ContextID
	}
	return ctxOf
}

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
func (e *Index) Ask(r Ranker, question string, k int) ([]Answer, error) {
	if e.remote != nil {
		return e.remoteAsk(r, question, k)
	}
	var (
		hits   []bm25.Hit
		inputs [][]float64 // per hit, each input's score (fusions)
		names  []string
	)
	if fr, ok := r.(*FusedRanker); ok {
		var matched bool
		var err error
		hits, inputs, matched, err = fr.TopK(question, askDepth(k, fr.Docs()))
		if err != nil {
			return nil, err
		}
		// A question no sparse input matches gets no answers.
		if !matched {
			return nil, nil
		}
		for _, x := range fr.Inputs() {
			names = append(names, x.Name())
		}
	} else {
		acc := bm25.NewAccumulator(r.Docs())
		if err := r.Score(question, acc); err != nil {
			return nil, err
		}
		hits = acc.TopK(askDepth(k, r.Docs()))
	}
	set := answerSet{k: k}
	for i, h := range hits {
		a, err := e.answer(h.Doc)
		if err != nil {
			return nil, err
		}
		a.Score = h.Score
		if inputs != nil {
			a.Scores = map[string]float64{}
			for j, n := range names {
				a.Scores[n] = inputs[i][j]
			}
		}
		if !set.add(a) {
			break
		}
	}
	return set.out, nil
}

func (e *Index) answer(id uint32) (Answer, error) {
	if int(id) >= len(e.sentences) {
		return Answer{}, fmt.Errorf("sentence %d: %w", id, store.ErrNotFound)
	}
	s := e.sentences[id]
	c, err := e.r.Context(s.ContextID)
	if err != nil {
		return Answer{}, err
	}
	if s.End > len(c.Text) || s.Start > s.End {
		return Answer{}, fmt.Errorf("sentence %d: offsets outside its context: %w", id, store.ErrCorrupt)
	}
	return Answer{Sentence: c.Text[s.Start:s.End], Context: c.Text, Start: s.Start, End: s.End,
		Title: c.Title, Source: s.Anchor(c), Kind: kindName(s.Kind), ID: c.ExtID, SentenceID: id, CandidateID: s.ExtID}, nil
}

// rankOf returns the 1-based rank of document g when every document is
// ranked by score (descending), ties by lower id; documents outside
// acc.Touched scored 0.
func rankOf(acc *bm25.Accumulator, n int, g uint32) int {
	sg := acc.Scores[g]
	better := 0
	touchedBelow := 0
	for _, d := range acc.Touched {
		sd := acc.Scores[d]
		if sd > sg || (sd == sg && d < g) {
			better++
		}
		if d < g {
			touchedBelow++
		}
	}
	switch {
	case sg < 0:
		better += n - len(acc.Touched)
	case sg == 0:
		better += int(g) - touchedBelow
	}
	return better + 1
}

// kindName names a block kind for answers; plain text has none.
func kindName(k store.Kind) string {
	if k == store.KindText {
		return ""
	}
	return k.String()
}
