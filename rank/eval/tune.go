package eval

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/fuse"
)

// TuningExamples scores qs with every input and reduces each question to a
// fuse.Example (pool depth 50 per input). Runs on GOMAXPROCS workers.
func TuningExamples(ctx context.Context, inputs []rank.Ranker, qs []Question) ([]fuse.Example, error) {
	return tuningExamples(ctx, inputs, qs, nil, false)
}

// tuningExamples is TuningExamples; with rerank each example also carries
// ranks, context maxima and sentence positions and lengths for the "rerank" method.
func tuningExamples(ctx context.Context, inputs []rank.Ranker, qs []Question, corpus *fuse.Corpus, rerank bool) ([]fuse.Example, error) {
	texts := make([]string, len(qs))
	for i, q := range qs {
		texts[i] = q.Text
	}
	for _, r := range inputs {
		if p, ok := r.(rank.Preparer); ok {
			if err := p.Prepare(ctx, texts, nil); err != nil {
				return nil, err
			}
		}
	}
	out := make([]fuse.Example, len(qs))
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, runtime.GOMAXPROCS(0))
	for w := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			accs := make([]*rank.Scores, len(inputs))
			scores := make([][]float64, len(inputs))
			for i, r := range inputs {
				accs[i] = rank.NewScores(r.Docs())
				scores[i] = accs[i].Scores
			}
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(qs) {
					return
				}
				for j, r := range inputs {
					sc, ok := r.(rank.Scorer)
					if !ok {
						errs[w] = fmt.Errorf("%s does not score every candidate", r.Name())
						return
					}
					if err := sc.ScoreAll(ctx, qs[i].Text, accs[j]); err != nil {
						errs[w] = err
						return
					}
				}
				if rerank {
					out[i] = fuse.NewExampleContext(scores, qs[i].Gold, 50, corpus)
				} else {
					out[i] = fuse.NewExample(scores, qs[i].Gold, 50)
					// The built-in default demotes questions when it is
					// scored among tuned fusions (TuneFusions).
					out[i].Question = corpus.QuestionsOf(out[i].Pool, len(scores[0]))
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, ctx.Err()
}

// TuneResult is one tuned fusion with its sweep (convex methods).
type TuneResult struct {
	Params fuse.Params
	Sweep  []fuse.SweepPoint
}

// TuneFusions learns every method in methods over inputs on tune (the
// tuning questions), the inputs built with opt's options, and returns them
// best first (by P@1 on tune). label records what tune was.
func TuneFusions(ctx context.Context, e *rank.Index, methods, inputs []string, tune []Question, opt rank.Spec, label string) ([]TuneResult, error) {
	type inputSet struct {
		names []string
		rs    []rank.Ranker
		exs   []fuse.Example
	}
	sets := map[string]*inputSet{}
	get := func(names []string, rerank bool) (*inputSet, error) {
		key := strings.Join(names, "\x00")
		if rerank {
			key += "\x00rerank"
		}
		if s, ok := sets[key]; ok {
			return s, nil
		}
		s := &inputSet{names: names}
		for _, n := range names {
			r, err := e.Input(n, opt)
			if err != nil {
				return nil, err
			}
			s.rs = append(s.rs, r)
		}
		var err error
		if s.exs, err = tuningExamples(ctx, s.rs, tune, e.FusionCorpus(), rerank); err != nil {
			return nil, err
		}
		sets[key] = s
		return s, nil
	}
	var out []TuneResult
	for _, m := range methods {
		names := inputs
		if m == "rerank" && slices.Equal(inputs, rank.DefaultFusionInputs) {
			names = rank.RerankInputs
		}
		set, err := get(names, m == "rerank")
		if err != nil {
			return nil, err
		}
		p, sweep, err := fuse.Tune(m, names, set.exs, fuse.TuneOptions{Label: label})
		if err != nil {
			return nil, err
		}
		if m == "rrf" {
			// RRF's k is not tuned; score it on the tuning set for ordering.
			fr, err := rank.NewFusedRanker(p, set.rs)
			if err != nil {
				return nil, err
			}
			res, err := Run(ctx, fr, tune, 0, nil)
			if err != nil {
				return nil, err
			}
			p.TuneP1 = Summarize(p.Name, tune, res).PAt1
		}
		out = append(out, TuneResult{Params: p, Sweep: sweep})
	}
	if len(tune) >= CVBelow || len(tune) < fuse.CVFolds {
		sort.SliceStable(out, func(i, j int) bool { return out[i].Params.TuneP1 > out[j].Params.TuneP1 })
		return out, nil
	}
	// A small tuning set: order by cross-validated P@1, the built-in
	// default among the candidates (BENCHMARKS.md "Out of domain": on a
	// few dozen questions the re-ranker fits them and does worse than
	// learning nothing, even on its own domain's test half).
	for i := range out {
		p := &out[i].Params
		if p.Method == "rrf" {
			p.CVP1 = p.TuneP1 // nothing fitted
			continue
		}
		names := p.Inputs
		set, err := get(names, p.Method == "rerank")
		if err != nil {
			return nil, err
		}
		if p.CVP1, err = fuse.CrossValidate(p.Method, names, set.exs, fuse.TuneOptions{Label: label}); err != nil {
			return nil, err
		}
	}
	def := e.BuiltinDefault()
	set, err := get(def.Inputs, false)
	if err != nil {
		return nil, err
	}
	if def.TuneP1, _, err = fuse.Evaluate(def, set.exs); err != nil {
		return nil, err
	}
	def.CVP1 = def.TuneP1 // fitted elsewhere: out of sample here
	kept := out[:0]
	replaced := false
	for _, r := range out {
		if r.Params.Name == def.Name && r.Params.CVP1 <= def.CVP1 {
			replaced = true // the built-in parameters carry further
			continue
		}
		kept = append(kept, r)
	}
	out = kept
	if replaced || !slices.ContainsFunc(out, func(r TuneResult) bool { return r.Params.Name == def.Name }) {
		out = append(out, TuneResult{Params: def})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Params.CVP1 > out[j].Params.CVP1 })
	return out, nil
}

// CVBelow is the tuning-set size under which TuneFusions orders fusions by
// cross-validated P@1 (fuse.CrossValidate) instead of P@1 on the tuning
// set, with the built-in default among them: `reqa ask` then uses a tuned
// fusion only when it beats the default on questions it was not fitted on.
const CVBelow = 1000
