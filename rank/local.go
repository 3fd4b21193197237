package rank

import (
	"context"
	"errors"
	"fmt"
	"github.com/reqa/reqa/index/ann"
	"github.com/reqa/reqa/index/dense"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/index/sentence"
	"github.com/reqa/reqa/index/tokenize"
	"github.com/reqa/reqa/rank/fuse"
	"github.com/reqa/reqa/store"
)

// local is the backend of an index whose sentences, postings and vectors
// are in its own file: every ranker scores every candidate here.
type local struct {
	x *Index
	r *store.Reader
	// n is the number of sentences; ctxOf every sentence's context id,
	// and contexts the same for the BM25 fields (which share the sentence
	// lists they derive from it).
	n        int
	ctxOf    []uint32
	contexts *bm25.Contexts
	// sentences are every sentence record, read at open from an index
	// without stored context ids, else when first needed (sents).
	sentOnce  sync.Once
	sentences []store.Sentence
	sentErr   error
	sentsRead atomic.Bool // sentences is set (sents has run without error)
	byExtOnce sync.Once
	byExt     map[string]uint32
	// vecOnce loads the sentence and context vectors into the index's
	// dense state (vectors).
	vecOnce sync.Once
	vecErr  error
	// rowsOnce opens the stored answer vectors (answerRows).
	rowsOnce sync.Once
	rows     *answerRows
	rowsErr  error
	// rowsOpen is rows once opened (for VectorCache, which must not open
	// them).
	rowsOpen atomic.Pointer[answerRows]
	// momOnce loads the answer vectors' moments (moments).
	momOnce sync.Once
	mom     dense.Moments
	momErr  error
	// graphMu guards the stored ANN graph, loaded once (graphOnce).
	graphMu  sync.Mutex
	graph    *ann.Graph
	graphErr error
}

// moments returns the stored answer vectors' moments, loaded once.
func (l *local) moments() (dense.Moments, error) {
	l.momOnce.Do(func() {
		raw, err := l.r.LargeBlob(store.BlobDenseMoments)
		if err == nil {
			if l.mom, err = dense.DecodeMoments(raw); err != nil {
				err = fmt.Errorf("blob %s: %w: %w", store.BlobDenseMoments, store.ErrCorrupt, err)
			} else if l.mom.Dim != l.r.Meta().Dense.Dim {
				err = fmt.Errorf("blob %s: moments of dimension %d, meta says %d: %w", store.BlobDenseMoments, l.mom.Dim, l.r.Meta().Dense.Dim, store.ErrCorrupt)
			}
		}
		l.momErr = err
	})
	return l.mom, l.momErr
}

// openLocal opens the file's backend: from the stored context ids
// (store.RowsContextOf) when the index has them, reading no sentence
// record; else from every sentence record, as indexes from before them
// were opened.
func openLocal(x *Index) (*local, error) {
	r := x.r
	l := &local{x: x, r: r, n: r.Meta().Sentences}
	if r.Meta().ContextOf {
		ctxOf, err := storedContextOf(r, l.n)
		if err != nil {
			return nil, fmt.Errorf("open index %s: %w", r.Path(), err)
		}
		l.ctxOf, l.contexts = ctxOf, bm25.NewContexts(ctxOf)
		return l, nil
	}
	ss, err := l.sents()
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", r.Path(), err)
	}
	l.ctxOf = make([]uint32, len(ss))
	for i, s := range ss {
		l.ctxOf[i] = s.ContextID
	}
	l.contexts = bm25.NewContexts(l.ctxOf)
	return l, nil
}

// storedContextOf reads the n sentences' context ids the index stores.
func storedContextOf(r *store.Reader, n int) ([]uint32, error) {
	rs, err := r.Rows(store.RowsContextOf)
	if err != nil {
		return nil, fmt.Errorf("context ids: %w: %w", store.ErrCorrupt, err)
	}
	if rs.Len() != n || rs.RowBytes() != 4 {
		return nil, fmt.Errorf("context ids: %d stored (rows of %d bytes), meta says %d sentences: %w", rs.Len(), rs.RowBytes(), n, store.ErrCorrupt)
	}
	ctxOf, err := rs.Uint32s()
	if err != nil {
		return nil, fmt.Errorf("context ids: %w", err)
	}
	return ctxOf, nil
}

// sents returns every sentence record, read once.
func (l *local) sents() ([]store.Sentence, error) {
	l.sentOnce.Do(func() {
		ss, err := l.r.Sentences()
		if err == nil && len(ss) != l.n {
			err = fmt.Errorf("%d sentences stored, meta says %d: %w", len(ss), l.n, store.ErrCorrupt)
		}
		if err == nil && l.ctxOf != nil {
			for i, s := range ss {
				if s.ContextID != l.ctxOf[i] {
					err = fmt.Errorf("sentence %d: context %d, the stored context ids say %d: %w", i, s.ContextID, l.ctxOf[i], store.ErrCorrupt)
					break
				}
			}
		}
		l.sentences, l.sentErr = ss, err
		l.sentsRead.Store(err == nil)
	})
	return l.sentences, l.sentErr
}

func (l *local) url() string { return "" }

// serves: every fusion runs on the local backend.
func (l *local) serves(fuse.Params) bool { return true }

// allSentences returns every sentence record (nil if they cannot be read:
// the ranker that needs them reports it, see needSentences).
func (l *local) allSentences() []store.Sentence {
	ss, _ := l.sents()
	return ss
}

func (l *local) extID(ext string) (uint32, bool) {
	l.byExtOnce.Do(func() {
		ss, _ := l.sents()
		m := make(map[string]uint32, len(ss))
		for _, s := range ss {
			if s.ExtID != "" {
				m[s.ExtID] = s.ID
			}
		}
		l.byExt = m
	})
	id, ok := l.byExt[ext]
	return id, ok
}

func (l *local) answers(_ context.Context, ids []uint32, yield func(Answer) bool) error {
	for _, id := range ids {
		a, err := l.answer(id)
		if err != nil {
			return err
		}
		if !yield(a) {
			return nil
		}
	}
	return nil
}

func (l *local) answer(id uint32) (Answer, error) {
	if int(id) >= l.n {
		return Answer{}, fmt.Errorf("sentence %d: %w", id, store.ErrNotFound)
	}
	var s store.Sentence
	if l.sentsRead.Load() {
		s = l.sentences[id]
	} else {
		var err error
		if s, err = l.r.Sentence(id); err != nil {
			return Answer{}, err
		}
		if s.ContextID != l.ctxOf[id] {
			return Answer{}, fmt.Errorf("sentence %d: context %d, the stored context ids say %d: %w", id, s.ContextID, l.ctxOf[id], store.ErrCorrupt)
		}
	}
	c, err := l.r.Context(s.ContextID)
	if err != nil {
		return Answer{}, err
	}
	if s.End > len(c.Text) || s.Start > s.End {
		return Answer{}, fmt.Errorf("sentence %d: offsets outside its context: %w", id, store.ErrCorrupt)
	}
	return Answer{Sentence: c.Text[s.Start:s.End], Context: c.Text, Start: s.Start, End: s.End,
		Title: c.Title, Source: s.Anchor(c), Kind: kindName(s.Kind), ID: c.ExtID, SentenceID: id, CandidateID: s.ExtID}, nil
}

// questions reads the flags from the sentences' texts.
func (l *local) questions() ([]bool, error) {
	ss, err := l.sents()
	if err != nil {
		return nil, err
	}
	ctxs, err := l.r.Contexts()
	if err != nil {
		return nil, err
	}
	for i, s := range ss {
		if int(s.ContextID) >= len(ctxs) || s.Start < 0 || s.Start > s.End || s.End > len(ctxs[s.ContextID].Text) {
			return nil, fmt.Errorf("sentence %d: offsets outside its context: %w", i, store.ErrCorrupt)
		}
	}
	return sentence.Questions(func(i int) string {
		s := ss[i]
		return ctxs[s.ContextID].Text[s.Start:s.End]
	}, len(ss)), nil
}

func (l *local) ranker(s Spec) (Ranker, error) {
	switch s.Kind {
	case KindBM25:
		return l.bm25(s)
	case KindDense:
		return l.denseRanker(s)
	case KindFusion:
		p, err := l.x.specFusion(s)
		if err != nil {
			return nil, err
		}
		return l.fused(p, s)
	case KindDerived:
		return l.derived(s)
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownRanker, s.Name)
}

// bm25 builds the BM25 ranker s names.
func (l *local) bm25(s Spec) (Ranker, error) {
	field := store.FieldName(s.Tokenizer, !s.SentenceOnly)
	fm, ok := l.r.Meta().Field(field)
	if !ok {
		return nil, fmt.Errorf("%w %q (this index supports: %s)", ErrUnknownRanker, s.Name, strings.Join(l.x.Rankers(), ", "))
	}
	tok, err := fieldTokenizer(fm)
	if err != nil {
		return nil, err
	}
	f, err := bm25.Open(l.r, field, l.contexts)
	if err != nil {
		return nil, err
	}
	return &BM25Ranker{name: s.Name, tok: tok, field: f}, nil
}

// contextOf returns every sentence's context id (shared: do not modify).
func (l *local) contextOf() []uint32 { return l.ctxOf }

// needSentences reads every sentence record now, for a ranker that needs
// them (the corpus of an exact fusion, context evidence): damage is then
// reported when the ranker is built.
func (l *local) needSentences() error {
	_, err := l.sents()
	return err
}

// fieldTokenizer returns the tokenizer a BM25 field's tokens were made
// with — its tokenizer with its normalisation (fm.Norm; "" for indexes
// from before normalisation) — so that questions get the tokens the
// field's text got. A normalisation this reqa does not know is
// store.ErrNewerFormat.
func fieldTokenizer(fm store.FieldMeta) (tokenize.Tokenizer, error) {
	tok, err := tokenize.GetNorm(fm.Tokenizer, fm.Norm)
	if errors.Is(err, tokenize.ErrUnknownNorm) {
		return nil, fmt.Errorf("field %s: %w: %w", fm.Name, err, store.ErrNewerFormat)
	}
	if err != nil {
		return nil, fmt.Errorf("field %s: %w", fm.Name, err)
	}
	return tok, nil
}
