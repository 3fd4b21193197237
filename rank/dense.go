package rank

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/reqa/reqa/index/adapter"
	"github.com/reqa/reqa/index/ann"
	"github.com/reqa/reqa/index/dense"
	"github.com/reqa/reqa/index/encoder"
	"github.com/reqa/reqa/index/encoder/uselite"
	"github.com/reqa/reqa/index/encoder/usenet"
	"github.com/reqa/reqa/store"
)

// DenseOptions tune the dense ranker.
type DenseOptions struct {
	// Lambda overrides the index's context weight when set (>= 0 with
	// LambdaSet).
	Lambda    float64
	LambdaSet bool
	// Threads bounds ONNX Runtime threads per run (0: 1).
	Threads int
	// ANN makes TopK search the index's HNSW graph instead of scoring
	// every candidate; it needs a graph built for the same λ and falls
	// back to exact search otherwise. ScoreAll always scores every
	// candidate.
	ANN bool
	// Ef is an ANN search's beam width (0: the graph's default; at least
	// the k asked for).
	Ef int
	// NoAdapter ignores a question adapter stored in the index (the
	// command line's --no-adapter): questions are scored with the raw
	// encoder embedding.
	NoAdapter bool
}

// DenseRanker ranks by the dot product of the question's embedding with
// every answer vector (exact search).
type DenseRanker struct {
	name   string
	enc    *encoder.Encoder
	lambda float64

	// graph, when set, is searched over the combined answer vectors
	// (answers). Exact scoring reads answers when the engine built them
	// (an index whose combined vectors take at most combineMax bytes),
	// else mixes sentence and context scores (dense.Mix).
	graph   *ann.Graph
	answers dense.Vectors
	ef      int

	// adapter, when set, maps every question embedding before scoring.
	adapter *adapter.Adapter

	// rows, when set, are the answer vectors the index stores for the
	// ranker's λ, read in place: exact scoring and the graph read them,
	// and the sentence and context vectors are never loaded.
	rows *answerRows
	// n is the number of candidates.
	n int

	st *denseState
}

// denseState is loaded once per engine: the encoder and raw vectors.
type denseState struct {
	err      error
	enc      *encoder.Encoder
	sent     dense.Vectors
	ctx      dense.Vectors
	ctxOf    []uint32
	combined map[float64]dense.Vectors
	// invNorms[λ][i] is 1/‖sent_i + λ·ctx[ctxOf[i]]‖ (see scoreShared).
	invNorms map[float64][]float64
	mu       sync.Mutex

	// Question embeddings, shared by every dense ranker of the engine;
	// aqcache holds them adapted.
	qmu     sync.RWMutex
	qcache  map[string][]float32
	aqcache map[string][]float32
	// recent holds the last questions embedded on demand (bounded, for
	// ask and serve: the dense inputs of one fused question share one
	// embedding) and inflight the ones being embedded now.
	recent   map[string][]float32
	inflight map[string]*questionCall

	// The stored question adapter (nil when the index has none).
	adapterOnce sync.Once
	adapter     *adapter.Adapter
	adapterErr  error
}

func (x *Index) loadDense(threads int) (*denseState, error) {
	m := x.r.Meta().Dense
	if m == nil {
		return nil, fmt.Errorf("%w \"dense\": index %s: %w", ErrUnknownRanker, x.r.Path(), ErrNoEmbeddings)
	}
	x.denseOnce.Do(func() {
		st := &denseState{combined: map[float64]dense.Vectors{}, qcache: map[string][]float32{}, aqcache: map[string][]float32{},
			recent: map[string][]float32{}, inflight: map[string]*questionCall{}}
		x.dense = st
		st.err = func() error {
			// Run in Go (fast start), the int8 USE-Lite reads its model
			// in place: its weights are packed once, its embedding table
			// read row by row (a fault there is an error, not a crash).
			// ONNX Runtime gets a copy. Both blobs are checksummed as
			// they are read; a fast start takes the model's stored
			// hash as its content's (reqa verify recomputes it).
			blob := x.r.LargeBlob
			if x.fastStart && m.Kind == encoder.KindUSELite && m.Precision == uselite.PrecisionInt8 {
				blob = x.r.LargeBlobInPlace
			}
			onnx, err := blob(store.BlobDenseModel)
			if err != nil {
				return err
			}
			vocab, err := x.r.LargeBlob(store.BlobDenseVocab)
			if err != nil {
				return err
			}
			return x.r.Guard(func() error {
				st.enc, err = encoder.New(encoder.Spec{Name: m.Encoder, Kind: m.Kind, Dim: m.Dim, Hash: m.Hash}, onnx, vocab, encoder.Options{Threads: threads, FastStart: x.fastStart, Checksummed: x.fastStart})
				if errors.Is(err, usenet.ErrFault) {
					// Read in place on another goroutine (the model's
					// hash, its packing): damage, as on this one.
					err = fmt.Errorf("question encoder: %w: %w", store.ErrCorrupt, err)
				}
				return err
			})
		}()
	})
	if x.dense.err != nil {
		return nil, fmt.Errorf("dense ranker: %w", x.dense.err)
	}
	return x.dense, nil
}

// vectors loads the encoder and, once, the sentence and context vectors
// of the file into its dense state.
func (l *local) vectors(threads int) (*denseState, error) {
	st, err := l.x.loadDense(threads)
	if err != nil {
		return nil, err
	}
	l.vecOnce.Do(func() {
		m := l.r.Meta().Dense
		l.vecErr = func() error {
			for _, b := range []struct {
				name string
				dst  *dense.Vectors
			}{{store.BlobDenseSent, &st.sent}, {store.BlobDenseCtx, &st.ctx}} {
				raw, err := l.r.LargeBlob(b.name)
				if err != nil {
					return err
				}
				// Checked for non-finite values as they are mixed
				// (invNorm or answers, before any ranker scores): one
				// pass, not two.
				if *b.dst, err = dense.DecodeUnchecked(raw); err != nil {
					return fmt.Errorf("blob %s: %w: %w", b.name, store.ErrCorrupt, err)
				}
				if b.dst.Dim != m.Dim {
					return fmt.Errorf("blob %s: width %d, meta says %d: %w", b.name, b.dst.Dim, m.Dim, store.ErrCorrupt)
				}
			}
			if st.sent.Len() != l.n || st.ctx.Len() != l.r.Meta().Contexts {
				return fmt.Errorf("embeddings cover %d sentences and %d contexts, index holds %d and %d: %w",
					st.sent.Len(), st.ctx.Len(), l.n, l.r.Meta().Contexts, store.ErrCorrupt)
			}
			st.ctxOf = l.contextOf()
			return nil
		}()
	})
	if l.vecErr != nil {
		return nil, fmt.Errorf("dense ranker: %w", l.vecErr)
	}
	return st, nil
}

// loadAdapter loads the index's question adapter once, refusing one trained
// for another encoder.
func (x *Index) loadAdapter(st *denseState) (*adapter.Adapter, error) {
	st.adapterOnce.Do(func() {
		raw, from := []byte(nil), x.r.Path()
		if t := x.tuned; t != nil {
			raw, from = t.Adapter, t.Source
		} else if x.r.HasBlob(store.BlobAdapter) {
			var err error
			if raw, err = x.r.Blob(store.BlobAdapter); err != nil {
				st.adapterErr = fmt.Errorf("question adapter: %w", err)
				return
			}
		}
		if raw == nil {
			return
		}
		m := x.r.Meta().Dense
		var err error
		st.adapter, err = adapter.Load(raw, m.Hash, m.Dim)
		switch {
		case errors.Is(err, adapter.ErrCorrupt):
			st.adapterErr = fmt.Errorf("question adapter in %s: %w: %w", from, store.ErrCorrupt, err)
		case err != nil:
			st.adapterErr = fmt.Errorf("question adapter in %s: %w", from, err)
		}
	})
	return st.adapter, st.adapterErr
}

func (st *denseState) answers(lambda float64) (dense.Vectors, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if v, ok := st.combined[lambda]; ok {
		return v, nil
	}
	// Combine checks the vectors (DecodeUnchecked read them) as it mixes.
	v, err := dense.Combine(st.sent, st.ctx, st.ctxOf, lambda)
	if err != nil {
		return v, fmt.Errorf("blobs %s, %s: %w: %w", store.BlobDenseSent, store.BlobDenseCtx, store.ErrCorrupt, err)
	}
	st.combined[lambda] = v
	return v, nil
}

// DenseRanker returns the dense ranker s names (s.Kind is set to
// KindDense), as Resolve builds it: for tests and experiments that use
// its methods beyond Ranker's.
func (x *Index) DenseRanker(s Spec) (*DenseRanker, error) {
	s.Kind = KindDense
	r, err := x.Resolve(s)
	if err != nil {
		return nil, err
	}
	d, ok := r.(*DenseRanker)
	if !ok {
		return nil, fmt.Errorf("%w %q: not a dense ranker of this file", ErrUnknownRanker, r.Name())
	}
	return d, nil
}

// denseRanker builds the dense ranker s names (with s.Dense's options):
// each answer is mixed with its context by the index's λ (or
// s.Dense.Lambda), or λ = 0 when s.SentenceOnly.
func (l *local) denseRanker(s Spec) (*DenseRanker, error) {
	opt := s.Dense
	if s.Name == "" {
		s.Name = "dense"
	}
	m := l.r.Meta().Dense
	if m == nil {
		return nil, fmt.Errorf("%w \"dense\": index %s: %w", ErrUnknownRanker, l.r.Path(), ErrNoEmbeddings)
	}
	lambda := m.Lambda
	if opt.LambdaSet {
		lambda = opt.Lambda
	}
	if s.SentenceOnly {
		lambda = 0
	}
	// At the index's λ the stored answer vectors are read in place (the
	// encoder alone is loaded); otherwise the vectors are loaded and mixed.
	var rows *answerRows
	if m.Answers && lambda == m.Lambda && useStoredAnswers {
		var err error
		if rows, err = l.answerRows(); err != nil {
			return nil, fmt.Errorf("dense ranker: %w", err)
		}
	}
	var st *denseState
	var err error
	var graph func() (*ann.Graph, error)
	if rows != nil && opt.ANN && m.Graph && m.GraphLambda == lambda {
		graph = l.prefetchGraph(rows)
	}
	if rows != nil {
		st, err = l.x.loadDense(opt.Threads)
	} else {
		st, err = l.vectors(opt.Threads)
	}
	// fail waits for the graph being loaded, if any, before returning err:
	// nothing may still read the index when the caller closes it.
	fail := func(err error) (*DenseRanker, error) {
		if graph != nil {
			graph()
		}
		return nil, err
	}
	if err != nil {
		return fail(err)
	}
	d := &DenseRanker{name: s.Name, enc: st.enc, lambda: lambda, st: st, ef: opt.Ef, n: l.n, rows: rows}
	if !opt.NoAdapter {
		if d.adapter, err = l.x.loadAdapter(st); err != nil {
			return fail(fmt.Errorf("dense ranker: %w", err))
		}
	}
	if rows != nil {
		if graph != nil {
			if d.graph, err = graph(); err != nil {
				return nil, err
			}
		}
		return d, nil
	}
	if opt.ANN && m.Graph && m.GraphLambda == lambda {
		if d.answers, err = st.answers(lambda); err != nil {
			return nil, err
		}
		if d.graph, err = l.loadGraph(d.answers); err != nil {
			return nil, err
		}
	} else if 4*int64(len(st.sent.Data)) <= combineMax {
		if d.answers, err = st.answers(lambda); err != nil {
			return nil, err
		}
	} else if _, err := st.invNorm(lambda); err != nil {
		// Exact scoring: the norms now, so that a damaged index fails here.
		return nil, err
	}
	return d, nil
}

// useStoredAnswers makes rankers read the answer vectors an index stores
// (a variable for tests: SetStoredAnswers).
var useStoredAnswers = true

// combineMax bounds the combined answer vectors an engine builds for exact
// scoring. Below it one pass over them per question is the cheapest
// scoring (mixing sentence and context scores instead cost a served SQuAD
// request 10–15% more CPU); above it their memory and the time to build
// them are not worth it (1.35 GB and most of a second per `reqa ask` at
// 661,408 sentences): scores are mixed, equal to within 1e-6.
var combineMax int64 = 512 << 20 // a variable for tests (SetCombineMax)

// answerRows opens the index's stored answer vectors once (nil: they
// cannot be read in place here).
func (l *local) answerRows() (*answerRows, error) {
	l.rowsOnce.Do(func() {
		l.rows, l.rowsErr = openAnswerRows(l.r, l.r.Meta().Dense, l.n, l.x.vectorCache)
		if l.rows != nil {
			l.rowsOpen.Store(l.rows)
		}
	})
	return l.rows, l.rowsErr
}

// loadGraphFrom loads the stored ANN graph over the answer vectors read in
// place: where the index stores it split (DenseMeta.GraphSlots), its
// upper layers decoded and its layer 0 read in place too, else decoded
// whole.
func (l *local) loadGraphFrom(rows *answerRows) (*ann.Graph, error) {
	if m := l.r.Meta().Dense; m != nil && m.GraphSlots {
		return l.graphOnceFrom(store.BlobDenseGraphUpper, func(raw []byte) (*ann.Graph, error) {
			slots, err := openGraphSlots(l.r, l.n, rows)
			if err != nil {
				return nil, err
			}
			return ann.LoadSplit(raw, rows.source(), slots)
		})
	}
	return l.graphOnce(func(raw []byte) (*ann.Graph, error) { return ann.LoadFrom(raw, rows.source()) })
}

// prefetchGraph starts loading the stored ANN graph over rows while the
// caller loads the rest (the question encoder, BM25 fields); the returned
// function waits for it. Nothing the graph reads depends on them.
func (l *local) prefetchGraph(rows *answerRows) func() (*ann.Graph, error) {
	done := make(chan struct{})
	var g *ann.Graph
	var err error
	go func() {
		defer close(done)
		g, err = l.loadGraphFrom(rows)
	}()
	return func() (*ann.Graph, error) {
		<-done
		return g, err
	}
}

// loadGraph loads the stored ANN graph over the answer vectors v.
func (l *local) loadGraph(v dense.Vectors) (*ann.Graph, error) {
	return l.graphOnce(func(raw []byte) (*ann.Graph, error) { return ann.Load(raw, v.Data, v.Dim) })
}

// graphOnce loads the stored ANN graph with load once per index (an index
// has answer rows, and loads its graph over them, or not).
func (l *local) graphOnce(load func(raw []byte) (*ann.Graph, error)) (*ann.Graph, error) {
	return l.graphOnceFrom(store.BlobDenseGraph, load)
}

// graphOnceFrom is graphOnce reading the blob name.
func (l *local) graphOnceFrom(name string, load func(raw []byte) (*ann.Graph, error)) (*ann.Graph, error) {
	l.graphMu.Lock()
	defer l.graphMu.Unlock()
	if l.graph != nil || l.graphErr != nil {
		return l.graph, l.graphErr
	}
	raw, err := l.r.LargeBlob(name)
	if err == nil {
		l.graph, err = load(raw)
		if err != nil {
			err = fmt.Errorf("ANN graph (blob %s): %w: %w", name, store.ErrCorrupt, err)
		}
	}
	l.graphErr = err
	return l.graph, err
}

// Adapted reports whether question embeddings pass through the index's
// question adapter before scoring.
func (d *DenseRanker) Adapted() bool { return d.adapter != nil }

// UsesANN reports whether TopK searches the ANN graph.
func (d *DenseRanker) UsesANN() bool { return d.graph != nil }

// Name implements Ranker.
func (d *DenseRanker) Name() string { return d.name }

// Docs implements Ranker.
func (d *DenseRanker) Docs() int { return d.n }

// Lambda returns the context weight in use.
func (d *DenseRanker) Lambda() float64 { return d.lambda }

// Prepare embeds questions in batches ahead of Score (evaluation).
func (d *DenseRanker) Prepare(ctx context.Context, questions []string, progress func(done, total int)) error {
	var todo []string
	seen := map[string]bool{}
	d.st.qmu.RLock()
	for _, q := range questions {
		if _, ok := d.st.qcache[q]; !ok && !seen[q] {
			seen[q] = true
			todo = append(todo, q)
		}
	}
	d.st.qmu.RUnlock()
	vecs, err := encodeQueries(ctx, d.enc, todo, progress)
	if err != nil {
		return err
	}
	d.SetQuestionVectors(todo, vecs)
	return nil
}

// SetQuestionVectors caches raw (unadapted) question embeddings (computed
// elsewhere, e.g. loaded from a file by an experiment) for every dense
// ranker of the engine.
func (d *DenseRanker) SetQuestionVectors(questions []string, vecs [][]float32) {
	d.st.qmu.Lock()
	for i, q := range questions {
		d.st.qcache[q] = vecs[i]
		delete(d.st.aqcache, q)
	}
	d.st.qmu.Unlock()
}

// QuestionVector returns the vector the ranker scores the question with:
// its embedding, passed through the question adapter when one is in use.
func (d *DenseRanker) QuestionVector(ctx context.Context, question string) ([]float32, error) {
	d.st.qmu.RLock()
	v, ok := d.st.qcache[question]
	av, aok := d.st.aqcache[question]
	d.st.qmu.RUnlock()
	if d.adapter != nil && aok {
		return av, nil
	}
	if !ok {
		var err error
		if v, err = d.st.embedOnce(ctx, d.enc, question); err != nil {
			return nil, err
		}
	}
	if d.adapter == nil {
		return v, nil
	}
	av = d.adapter.Apply(v)
	if ok {
		d.st.qmu.Lock()
		d.st.aqcache[question] = av
		d.st.qmu.Unlock()
	}
	return av, nil
}

// recentCap bounds denseState.recent.
const recentCap = 256

// questionCall is one on-demand question embedding in progress.
type questionCall struct {
	done chan struct{}
	v    []float32
	err  error
}

// embedOnce embeds question once for every dense ranker asking for it at
// about the same time (the dense inputs of a fused ranker run in parallel)
// and keeps the last recentCap embeddings.
func (st *denseState) embedOnce(ctx context.Context, enc *encoder.Encoder, question string) ([]float32, error) {
	st.qmu.Lock()
	if v, ok := st.recent[question]; ok {
		st.qmu.Unlock()
		return v, nil
	}
	if c, ok := st.inflight[question]; ok {
		st.qmu.Unlock()
		<-c.done
		return c.v, c.err
	}
	c := &questionCall{done: make(chan struct{})}
	st.inflight[question] = c
	st.qmu.Unlock()
	vecs, err := encodeQueries(ctx, enc, []string{question}, nil)
	if err == nil {
		c.v = vecs[0]
	}
	c.err = err
	st.qmu.Lock()
	delete(st.inflight, question)
	if err == nil {
		if len(st.recent) >= recentCap {
			clear(st.recent)
		}
		st.recent[question] = c.v
	}
	st.qmu.Unlock()
	close(c.done)
	return c.v, c.err
}

// ScoreAll implements Scorer: every candidate gets its dot product.
func (d *DenseRanker) ScoreAll(ctx context.Context, question string, s *Scores) error {
	q, err := d.QuestionVector(ctx, question)
	if err != nil {
		return err
	}
	s.Reset()
	var cs []float64
	if d.lambda != 0 && d.answers.Data == nil && d.rows == nil {
		cs = make([]float64, d.st.ctx.Len())
	}
	if err := d.scoreExact([][]float32{q}, [][]float64{s.Scores}, [][]float64{cs}); err != nil {
		return err
	}
	s.TouchAll()
	return nil
}

// TopK implements Ranker: the k best over the ANN graph when the ranker
// uses it, else over every candidate.
func (d *DenseRanker) TopK(ctx context.Context, question string, k int) ([]Hit, error) {
	if d.graph == nil {
		return topOf(ctx, d, question, k)
	}
	q, err := d.QuestionVector(ctx, question)
	if err != nil {
		return nil, err
	}
	var found []ann.Result
	if d.rows == nil {
		found = d.graph.Search(q, max(k, 1), d.ef)
	} else {
		err = d.rows.read(func() error {
			found = d.graph.Search(q, max(k, 1), d.ef)
			return d.rows.err()
		})
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.name, err)
	}
	out := make([]Hit, 0, min(k, len(found)))
	for _, r := range found[:min(k, len(found))] {
		out = append(out, Hit{ID: r.ID, Score: float64(r.Score)})
	}
	return out, nil
}

// scoreExact scores questions qs against every answer into outs: against
// the combined vectors when the ranker holds them, else the question's dot
// products with every sentence vector and every (fewer) context vector,
// mixed by dense.Mix (ctx: one scratch row of the contexts' length per
// question, unused when λ is 0 or the combined vectors are held).
func (d *DenseRanker) scoreExact(qs [][]float32, outs, ctx [][]float64) error {
	if d.rows != nil {
		return d.rows.read(func() error {
			if len(qs) == 1 {
				return d.rows.scoreAll(qs[0], outs[0])
			}
			return d.rows.scoreBlock(qs, outs)
		})
	}
	if d.answers.Data != nil {
		if len(qs) == 1 {
			dense.ScoreAll(d.answers, qs[0], outs[0])
		} else {
			dense.ScoreBlock(d.answers, qs, outs)
		}
		return nil
	}
	inv, err := d.st.invNorm(d.lambda)
	if err != nil {
		return err
	}
	if len(qs) == 1 {
		dense.ScoreAll(d.st.sent, qs[0], outs[0])
		if d.lambda != 0 {
			dense.ScoreAll(d.st.ctx, qs[0], ctx[0])
		}
	} else {
		dense.ScoreBlock(d.st.sent, qs, outs)
		if d.lambda != 0 {
			dense.ScoreBlock(d.st.ctx, qs, ctx)
		}
	}
	for j := range qs {
		dense.Mix(outs[j], ctx[j], d.st.ctxOf, inv, d.lambda)
	}
	return nil
}

// EmbedQuestions embeds questions with the index's encoder, raw (no
// question adapter, no cache).
func (d *DenseRanker) EmbedQuestions(ctx context.Context, questions []string) ([][]float32, error) {
	return encodeQueries(ctx, d.enc, questions, nil)
}

// encodeQueries is enc.EncodeQueries, with a fault reading the model in
// place (the index file cut short while open) reported as damage.
func encodeQueries(ctx context.Context, enc *encoder.Encoder, qs []string, progress func(done, total int)) ([][]float32, error) {
	v, err := enc.EncodeQueries(ctx, qs, progress)
	if errors.Is(err, usenet.ErrFault) {
		err = fmt.Errorf("question encoder: %w: %w", store.ErrCorrupt, err)
	}
	return v, err
}

// AnswerVectors returns the answer-tower vectors the ranker scores against,
// normalize(sent_i + λ·ctx_c(i)), built on the first call (shared storage;
// do not modify).
func (d *DenseRanker) AnswerVectors() (dense.Vectors, error) {
	if d.rows != nil {
		var v dense.Vectors
		err := d.rows.read(func() (err error) { v, err = d.rows.copyAll(); return err })
		return v, err
	}
	return d.st.answers(d.lambda)
}

// ScoreBatch implements BatchScorer: it scores a block of questions at
// once, every candidate.
func (d *DenseRanker) ScoreBatch(ctx context.Context, questions []string, ss []*Scores) error {
	qs := make([][]float32, len(questions))
	outs := make([][]float64, len(questions))
	cs := make([][]float64, len(questions))
	for i, q := range questions {
		v, err := d.QuestionVector(ctx, q)
		if err != nil {
			return err
		}
		qs[i] = v
		ss[i].Reset()
		outs[i] = ss[i].Scores
		if d.lambda != 0 && d.answers.Data == nil && d.rows == nil {
			cs[i] = make([]float64, d.st.ctx.Len())
		}
	}
	if err := d.scoreExact(qs, outs, cs); err != nil {
		return err
	}
	for _, s := range ss[:len(questions)] {
		s.TouchAll()
	}
	return nil
}

// sharedDense returns the positions in inputs of the dense rankers that
// scoreShared can score together (exact search, one engine, one question
// adapter), when there are at least two of them; else nil.
func sharedDense(inputs []Ranker) []int {
	var group []int
	var first *DenseRanker
	for i, r := range inputs {
		d, ok := r.(*DenseRanker)
		if !ok || d.graph != nil || d.rows != nil {
			continue
		}
		if first == nil {
			first = d
		}
		if d.st == first.st && d.adapter == first.adapter {
			group = append(group, i)
		}
	}
	if len(group) < 2 {
		return nil
	}
	return group
}

// denseShared is the scratch of scoreShared: the question's dot product
// with every sentence vector and every context vector.
type denseShared struct {
	sent, ctx []float64
}

// scoreShared scores question with every ranker of rs (positions from
// sharedDense) into outs, in one pass over the sentence vectors and one
// over the (fewer) context vectors instead of one pass over each ranker's
// combined vectors: candidate i's score at context weight λ is
//
//	(q·sent_i + λ·q·ctx_c(i)) / ‖sent_i + λ·ctx_c(i)‖ = q·normalize(sent_i + λ·ctx_c(i)),
//
// the score Score gives (up to float32 rounding, about 1e-7).
func scoreShared(ctx context.Context, rs []*DenseRanker, question string, outs [][]float64, scratch *denseShared) error {
	q, err := rs[0].QuestionVector(ctx, question)
	if err != nil {
		return err
	}
	st := rs[0].st
	if len(scratch.sent) != st.sent.Len() {
		scratch.sent = make([]float64, st.sent.Len())
	}
	dense.ScoreAll(st.sent, q, scratch.sent)
	needCtx := false
	for _, d := range rs {
		needCtx = needCtx || d.lambda != 0
	}
	if needCtx {
		if len(scratch.ctx) != st.ctx.Len() {
			scratch.ctx = make([]float64, st.ctx.Len())
		}
		dense.ScoreAll(st.ctx, q, scratch.ctx)
	}
	for j, d := range rs {
		inv, err := st.invNorm(d.lambda)
		if err != nil {
			return err
		}
		copy(outs[j], scratch.sent)
		dense.Mix(outs[j], scratch.ctx, st.ctxOf, inv, d.lambda)
	}
	return nil
}

// invNorm returns dense.InvNorms for λ, computed once per λ.
func (st *denseState) invNorm(lambda float64) ([]float64, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if v, ok := st.invNorms[lambda]; ok {
		return v, nil
	}
	if st.invNorms == nil {
		st.invNorms = map[float64][]float64{}
	}
	inv, err := dense.InvNorms(st.sent, st.ctx, st.ctxOf, lambda)
	if err != nil {
		return nil, fmt.Errorf("blobs %s, %s: %w: %w", store.BlobDenseSent, store.BlobDenseCtx, store.ErrCorrupt, err)
	}
	st.invNorms[lambda] = inv
	return inv, nil
}
