package rank

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/reqa/reqa/index/ann"
	"github.com/reqa/reqa/index/dense"
	"github.com/reqa/reqa/index/sentence"
	"github.com/reqa/reqa/index/weaviate"
	"github.com/reqa/reqa/rank/fuse"
)

// poolInput is one input of a pooled fusion (an engine index's ranker, or
// a file's, see localSparse and localDense): it returns its best
// candidates and completes the scores of others.
type poolInput interface {
	Ranker
	// top returns the k best candidates; q is the question's prepared
	// form (tokens or vector).
	top(ctx context.Context, q poolQuery, k int) ([]weaviate.Hit, error)
	// scoresOf returns the score of each of ids (0: no match).
	scoresOf(ctx context.Context, q poolQuery, ids []int) (map[int]float64, error)
	// stats describes the input's scores over the collection from its
	// best hits.
	stats(q poolQuery, best []weaviate.Hit) fuse.Stats
	// prepare turns the question into the input's query.
	prepare(ctx context.Context, question string) (poolQuery, error)
}

// poolQuery is a question as one input asks it.
type poolQuery struct {
	tokens []string
	// scale is what the engine's BM25 scores come back multiplied by
	// (weighted tokens sent as repeats: see repeated); 0 means 1.
	scale  float64
	vector []float32
	// scores are a file's sparse ranker's scores of every candidate
	// (localSparse), returned to pool by done.
	scores *Scores
	done   func()
}

func hitMap(hits []weaviate.Hit) map[int]float64 {
	m := make(map[int]float64, len(hits))
	for _, h := range hits {
		m[h.ID] = h.Score
	}
	return m
}

// hitStats fills the statistics the best hits give: Top1, Top2, Max and
// Min over them (mean and deviation are the input's to set).
func hitStats(best []weaviate.Hit) fuse.Stats {
	var s fuse.Stats
	if len(best) == 0 {
		return s
	}
	s.Top1, s.Max, s.Top2, s.Min = best[0].Score, best[0].Score, best[0].Score, best[0].Score
	if len(best) > 1 {
		s.Top2 = best[1].Score
	}
	for _, h := range best {
		s.Min = min(s.Min, h.Score)
	}
	return s
}

// pooledFusion fuses its inputs' best candidates only: each input's
// RemoteDepth best form a pool, every input's score of every pooled
// candidate is completed, and the pool is fused with each input's
// statistics over the whole index (FuseStats). An engine index's fusion
// is one; so is a file's when its inputs can be pooled (local.pooledFusion):
// then nothing in a question's cost is proportional to the index but
// the sparse inputs' postings.
type pooledFusion struct {
	params fuse.Params
	inputs []poolInput
	n      int
	// within bounds one question (an engine's; 0: no bound).
	within time.Duration
	// questions flags the sentences that are questions (nil: unknown),
	// for a fusion that demotes them; asks, when set instead, flags the
	// pool's (a file's fusion reads their texts).
	questions []bool
	asks      func(ctx context.Context, ids []int) ([]bool, error)
	// answers looks the pool's sentences up for Params.DefinitionsFirst.
	answers answersFunc
}

func (f *pooledFusion) Name() string { return f.params.Name }
func (f *pooledFusion) Docs() int    { return f.n }

// Params returns the fusion's parameters.
func (f *pooledFusion) Params() fuse.Params { return f.params }

// Prepare embeds the questions of a batch once for the dense inputs.
func (f *pooledFusion) Prepare(ctx context.Context, qs []string, progress func(done, total int)) error {
	for _, in := range f.inputs {
		if p, ok := in.(Preparer); ok {
			if err := p.Prepare(ctx, qs, progress); err != nil {
				return err
			}
			progress = nil
		}
	}
	return nil
}

// pool returns the fused candidates: ids, every input's score of each and
// the fused scores, in pool order.
func (f *pooledFusion) pool(ctx context.Context, question string) (ids []int, inputs [][]float64, fused []float64, err error) {
	qs := make([]poolQuery, len(f.inputs))
	best := make([][]weaviate.Hit, len(f.inputs))
	var wg sync.WaitGroup
	errs := make([]error, len(f.inputs))
	for i, in := range f.inputs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if qs[i], errs[i] = in.prepare(ctx, question); errs[i] == nil {
				best[i], errs[i] = in.top(ctx, qs[i], RemoteDepth) // also RemoteStatsDepth: one query
			}
		}()
	}
	wg.Wait()
	defer func() {
		for _, q := range qs {
			if q.done != nil {
				q.done()
			}
		}
	}()
	if err := firstError(errs); err != nil {
		return nil, nil, nil, err
	}
	// As embedded: a question no sparse input matches gets no answers.
	matched, sparse := false, false
	for i, in := range f.inputs {
		if isSparse(in) {
			sparse = true
			matched = matched || len(best[i]) > 0
		}
	}
	if sparse && !matched {
		return nil, nil, nil, nil
	}
	at := map[int]int{}
	for _, hits := range best {
		for _, h := range hits[:min(len(hits), RemoteDepth)] {
			if _, ok := at[h.ID]; !ok {
				at[h.ID] = len(ids)
				ids = append(ids, h.ID)
			}
		}
	}
	if len(ids) == 0 {
		return nil, nil, nil, nil
	}
	inputs = make([][]float64, len(f.inputs))
	stats := make([]fuse.Stats, len(f.inputs))
	for i, in := range f.inputs {
		inputs[i] = make([]float64, len(ids))
		known := hitMap(best[i])
		var missing []int
		for _, id := range ids {
			if _, ok := known[id]; !ok {
				missing = append(missing, id)
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if len(missing) > 0 {
				more, err := in.scoresOf(ctx, qs[i], missing)
				if err != nil {
					errs[i] = err
					return
				}
				for id, s := range more {
					known[id] = s
				}
			}
			for j, id := range ids {
				inputs[i][j] = known[id]
			}
			stats[i] = in.stats(qs[i], best[i])
		}()
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return nil, nil, nil, err
	}
	fused = make([]float64, len(ids))
	if err := fuse.FuseStats(f.params, inputs, stats, fused); err != nil {
		return nil, nil, nil, err
	}
	switch {
	case !f.params.DemoteQuestions:
	case f.asks != nil:
		asks, err := f.asks(ctx, ids)
		if err != nil {
			return nil, nil, nil, err
		}
		fuse.Demote(fused, asks)
	case len(f.questions) == f.n:
		asks := make([]bool, len(ids))
		for j, id := range ids {
			asks[j] = id >= 0 && id < f.n && f.questions[id]
		}
		fuse.Demote(fused, asks)
	}
	if f.params.DefinitionsFirst {
		if err := definitionsFirst(ctx, question, fused, func(j int) uint32 { return uint32(ids[j]) }, f.answers); err != nil {
			return nil, nil, nil, err
		}
	}
	return ids, inputs, fused, nil
}

// ranked returns the pool's candidates, ranked by the fusion, with every
// input's score of each.
func (f *pooledFusion) ranked(ctx context.Context, question string) ([]weaviate.Hit, map[int][]float64, error) {
	if f.within > 0 {
		var cancel context.CancelFunc
		ctx, cancel = withQuestionDeadline(ctx, f.within)
		defer cancel()
	}
	ids, in, fused, err := f.pool(ctx, question)
	if err != nil {
		return nil, nil, err
	}
	hits := make([]weaviate.Hit, len(ids))
	inputs := make(map[int][]float64, len(ids))
	for j, id := range ids {
		hits[j] = weaviate.Hit{ID: id, Score: fused[j]}
		row := make([]float64, len(in))
		for i := range in {
			row[i] = in[i][j]
		}
		inputs[id] = row
	}
	sortHits(hits)
	return hits, inputs, nil
}

// ScoreAll implements Scorer: the pool's candidates, ranked by the fusion.
func (f *pooledFusion) ScoreAll(ctx context.Context, question string, s *Scores) error {
	hits, _, err := f.ranked(ctx, question)
	if err != nil {
		return err
	}
	s.Reset()
	return fillAcc(s, hits)
}

// TopK implements Ranker: the k best of the pool, each with every
// input's score.
func (f *pooledFusion) TopK(ctx context.Context, question string, k int) ([]Hit, error) {
	hits, inputs, err := f.ranked(ctx, question)
	if err != nil {
		return nil, err
	}
	out, err := engineHits(hits[:min(k, len(hits))], f.n)
	if err != nil {
		return nil, err
	}
	for i := range out {
		row := inputs[int(out[i].ID)]
		out[i].Inputs = make(map[string]float64, len(row))
		for j, name := range f.params.Inputs {
			out[i].Inputs[name] = row[j]
		}
	}
	return out, nil
}

// firstError returns the first non-nil error (the inputs of a question
// usually fail alike).
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// sortHits orders hits best first, ties by lower id.
func sortHits(hits []weaviate.Hit) {
	slices.SortFunc(hits, func(a, b weaviate.Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return a.ID - b.ID
	})
}

// isSparse reports whether a pool input is a BM25 ranker (a question none
// of them matches gets no answers).
func isSparse(in poolInput) bool {
	switch in.(type) {
	case *remoteBM25, *localSparse:
		return true
	}
	return false
}

// localSparse is a file's BM25 ranker as a pooled fusion's input: it
// scores every candidate its postings reach (as alone), so its best
// candidates, the scores of the others and its statistics over the index
// are exact.
type localSparse struct {
	Scorer
	scratch sync.Pool // *Scores
}

func newLocalSparse(sc Scorer) *localSparse {
	l := &localSparse{Scorer: sc}
	l.scratch.New = func() any { return NewScores(sc.Docs()) }
	return l
}

func (l *localSparse) prepare(ctx context.Context, question string) (poolQuery, error) {
	s := l.scratch.Get().(*Scores)
	if err := l.ScoreAll(ctx, question, s); err != nil {
		l.scratch.Put(s)
		return poolQuery{}, err
	}
	return poolQuery{scores: s, done: func() { l.scratch.Put(s) }}, nil
}

func (l *localSparse) top(_ context.Context, q poolQuery, k int) ([]weaviate.Hit, error) {
	top := q.scores.Top(k)
	hits := make([]weaviate.Hit, 0, len(top))
	for _, h := range top { // touched candidates only
		hits = append(hits, weaviate.Hit{ID: int(h.ID), Score: h.Score})
	}
	return hits, nil
}

func (l *localSparse) scoresOf(_ context.Context, q poolQuery, ids []int) (map[int]float64, error) {
	m := make(map[int]float64, len(ids))
	for _, id := range ids {
		m[id] = q.scores.Scores[id]
	}
	return m, nil
}

// stats are fuse.Describe's of every candidate's score, from the touched
// ones (the others score 0).
func (l *localSparse) stats(q poolQuery, _ []weaviate.Hit) fuse.Stats {
	return fuse.DescribeSparse(q.scores.Scores, q.scores.Touched, len(q.scores.Scores))
}

// localDense is a file's dense ranker over its stored answer vectors as
// a pooled fusion's input: its best candidates from the ANN graph, the
// others' scores from their rows, its mean and deviation over the index
// from the answer vectors' moments (exact up to their sample).
type localDense struct {
	*DenseRanker
	graph   *ann.Graph
	moments dense.Moments
}

func (d *localDense) prepare(ctx context.Context, question string) (poolQuery, error) {
	v, err := d.QuestionVector(ctx, question)
	return poolQuery{vector: v}, err
}

func (d *localDense) top(_ context.Context, q poolQuery, k int) ([]weaviate.Hit, error) {
	var found []ann.Result
	err := d.rows.read(func() error {
		found = d.graph.Search(q.vector, k, max(d.ef, k))
		return d.rows.err()
	})
	if err != nil {
		return nil, err
	}
	hits := make([]weaviate.Hit, len(found))
	for i, r := range found {
		hits[i] = weaviate.Hit{ID: int(r.ID), Score: float64(r.Score)}
	}
	return hits, nil
}

func (d *localDense) scoresOf(_ context.Context, q poolQuery, ids []int) (map[int]float64, error) {
	m := make(map[int]float64, len(ids))
	err := d.rows.read(func() error {
		for _, id := range ids {
			x, err := d.rows.score(q.vector, id)
			if err != nil {
				return err
			}
			m[id] = x
		}
		return nil
	})
	return m, err
}

func (d *localDense) stats(q poolQuery, best []weaviate.Hit) fuse.Stats {
	s := hitStats(best)
	s.Mean, s.Std = d.moments.Stats(q.vector)
	return s
}

// localAsks flags the pooled sentences of a file that are questions,
// reading their texts.
func localAsks(l *local) func(context.Context, []int) ([]bool, error) {
	return func(ctx context.Context, ids []int) ([]bool, error) {
		asks := make([]bool, len(ids))
		u := make([]uint32, len(ids))
		for j, id := range ids {
			u[j] = uint32(id)
		}
		j := 0
		err := l.answers(ctx, u, func(a Answer) bool {
			asks[j] = sentence.IsQuestion(a.Sentence)
			j++
			return true
		})
		return asks, err
	}
}
