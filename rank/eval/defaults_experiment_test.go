//go:build experiment

package eval

// The experiment that chose the built-in default ranker (rank.DefaultFusion,
// rank/defaults.json) by leave-one-domain-out results: every candidate
// design is fitted on the tune halves of all domains but one and scored on
// the held-out domain; the design with the best worst-case held-out gain
// over bm25-wpm wins, and is then fitted on every domain's tune half.
//
//	REQA_DEFAULTS_DOMAINS='squad=/tmp/dfl/squad.reqa=../shared/data/squad-multireqa-test;golibs=…' \
//	REQA_DEFAULTS_CACHE=/tmp/dfl/cache REQA_DEFAULTS_OUT=/tmp/dfl/chosen.json \
//	go test -tags experiment -run TestDefaultsLODO -v -timeout 0 ./rank/

import (
	"context"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"github.com/reqa/reqa/rank"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank/fuse"
)

// lodoDomain is one domain's tuning examples per half (inputs: rank.RerankInputs).
type lodoDomain struct {
	Name       string
	Tune, Test []fuse.Example
	// LODO: false for a domain only evaluated (the union of the doc sets).
	LODO bool
	// Inputs names the examples' inputs (a cache of other inputs is
	// recomputed).
	Inputs []string
	// Stamp is the index file's size and modification time when the
	// examples were scored, and lodoScoring: a cache of a rebuilt index,
	// or of inputs that now score differently, is recomputed.
	Stamp string
}

// indexStamp says which build of an index file is on disk.
func indexStamp(t *testing.T, index string) string {
	st, err := os.Stat(index)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d@%d/v%d", st.Size(), st.ModTime().UnixNano(), lodoScoring)
}

// lodoScoring is bumped whenever an input scores differently for the same
// index, so that cached examples are scored again: 2 since bm25-stem
// searches a question's adjacent words joined too (stem.Query), 3 since
// its question-form words weigh stem.FormWeight.
const lodoScoring = 3

// lodoDomains reads REQA_DEFAULTS_DOMAINS ("name=index=dataset;…"; a name
// starting with "+" is evaluated only, never held out or fitted on).
func lodoDomains(t *testing.T) []*lodoDomain {
	spec := os.Getenv("REQA_DEFAULTS_DOMAINS")
	if spec == "" {
		// May skip in CI: an experiment (build tag experiment), opted in.
		t.Skip("set REQA_DEFAULTS_DOMAINS='name=INDEX=DATASET;…' to run the defaults experiment")
	}
	cache := os.Getenv("REQA_DEFAULTS_CACHE")
	var out []*lodoDomain
	for _, item := range strings.Split(spec, ";") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		parts := strings.Split(item, "=")
		if len(parts) != 3 {
			t.Fatalf("domain %q: want name=index=dataset", item)
		}
		name, only := strings.CutPrefix(parts[0], "+")
		d := &lodoDomain{Name: name, LODO: !only}
		file := filepath.Join(cache, name+".gob")
		if f, err := os.Open(file); cache != "" && err == nil {
			err = gob.NewDecoder(f).Decode(d)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			stamp := indexStamp(t, parts[1])
			if slices.Equal(d.Inputs, lodoInputs) && d.Stamp == stamp {
				d.LODO = !only
				out = append(out, d)
				continue
			}
			t.Logf("%s: cached inputs %v of index %s, want %v of %s: recomputing", file, d.Inputs, d.Stamp, lodoInputs, stamp)
			*d = lodoDomain{Name: name, LODO: !only}
		}
		d.Tune, d.Test = domainExamples(t, parts[1], parts[2])
		d.Inputs, d.Stamp = lodoInputs, indexStamp(t, parts[1])
		if cache != "" {
			os.MkdirAll(cache, 0o755)
			f, err := os.Create(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := gob.NewEncoder(f).Encode(d); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
		out = append(out, d)
	}
	return out
}

// domainExamples scores both halves of dataset with lodoInputs on index
// (no question adapter: the default serves untuned indexes).
func domainExamples(t *testing.T, index, dataset string) (tune, test []fuse.Example) {
	d, e := openDomain(t, index, dataset)
	var rs []rank.Ranker
	dopt := rank.DenseOptions{NoAdapter: true}
	if l := os.Getenv("REQA_DEFAULTS_LAMBDA"); l != "" {
		// The dense inputs with another context weight λ (exact scoring).
		v, err := strconv.ParseFloat(l, 64)
		if err != nil {
			t.Fatal(err)
		}
		dopt.Lambda, dopt.LambdaSet = v, true
	}
	for _, n := range lodoInputs {
		r, err := e.Input(n, rank.Spec{Dense: dopt})
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	half := func(split string) []fuse.Example {
		exs, err := tuningExamples(context.Background(), rs, splitQuestions(t, e, d, split), e.FusionCorpus(), true)
		if err != nil {
			t.Fatal(err)
		}
		return exs
	}
	return half("tune"), half("test")
}

// openDomain reads dataset and opens index (closed when t ends).
func openDomain(t *testing.T, index, dataset string) (*ingest.Dataset, *rank.Index) {
	t.Helper()
	d, err := ingest.ReadDataset(dataset)
	if err != nil {
		t.Fatal(err)
	}
	e, err := rank.Open(index)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return d, e
}

// splitQuestions returns the questions of d's half split with their gold
// candidates' sentence ids in e.
func splitQuestions(t *testing.T, e *rank.Index, d *ingest.Dataset, split string) []Question {
	t.Helper()
	qs, err := d.SplitQuestions(split)
	if err != nil {
		t.Fatal(err)
	}
	var eq []Question
	for _, q := range qs {
		x := Question{ID: q.ID, Text: q.Text}
		for _, g := range q.Gold {
			if id, ok := e.SentenceByExtID(g); ok {
				x.Gold = append(x.Gold, id)
			}
		}
		eq = append(eq, x)
	}
	return eq
}

// lodoInputs are the inputs of the cached examples: the re-ranker's six
// and the stemmed BM25 field's two forms (indexes built with "stem").
var lodoInputs = append(slices.Clone(rank.RerankInputs), "bm25-stem", "bm25-stem/sent")

// project keeps the inputs at idx of examples (sharing their slices).
func project(exs []fuse.Example, idx []int) []fuse.Example {
	out := make([]fuse.Example, len(exs))
	for i, ex := range exs {
		p := fuse.Example{Pool: ex.Pool, Gold: ex.Gold, SentPos: ex.SentPos, SentLen: ex.SentLen, Question: ex.Question}
		for _, r := range idx {
			p.Scores = append(p.Scores, ex.Scores[r])
			p.Stats = append(p.Stats, ex.Stats[r])
			p.Ranks = append(p.Ranks, ex.Ranks[r])
			p.Pos = append(p.Pos, ex.Pos[r])
			if ex.CtxMax != nil {
				p.CtxMax = append(p.CtxMax, ex.CtxMax[r])
			}
		}
		out[i] = p
	}
	return out
}

func inputIdx(names []string) []int {
	var idx []int
	for _, n := range names {
		for i, m := range lodoInputs {
			if m == n {
				idx = append(idx, i)
			}
		}
	}
	return idx
}

// design is one candidate default: fit on the training domains' tune halves.
type design struct {
	name string
	fit  func(train [][]fuse.Example) (fuse.Params, error)
}

var three = []string{"bm25-wpm", "bm25-word", "dense"}

// The stemmed designs' inputs (bm25-wpm first: gridDesign's baseline).
var (
	stemThree = []string{"bm25-wpm", "bm25-stem", "dense"}
	stemFour  = []string{"bm25-wpm", "bm25-word", "bm25-stem", "dense"}
	stemSent  = []string{"bm25-wpm", "bm25-stem", "dense", "bm25-stem/sent"}
)

// fixed is a design that fits nothing.
func fixed(name string, p fuse.Params) design {
	return design{name, func([][]fuse.Example) (fuse.Params, error) { return p, nil }}
}

// gridDesign picks convex weights over inputs on the training domains by
// objective: "macro" (mean P@1 over domains) or "maximin" (worst gain over
// bm25-wpm).
func gridDesign(name, method string, inputs []string, steps int, objective string) design {
	return gridDesignOpt(name, method, inputs, steps, objective, false)
}

// gridDesignOpt is gridDesign; demote sets Params.DemoteQuestions (during
// the search too).
func gridDesignOpt(name, method string, inputs []string, steps int, objective string, demote bool) design {
	return design{name, func(train [][]fuse.Example) (fuse.Params, error) {
		idx := inputIdx(inputs)
		var sets [][]fuse.Example
		var base []float64
		for _, tr := range train {
			pr := project(capped(tr, 1000), idx)
			sets = append(sets, pr)
			w := make([]float64, len(inputs))
			w[0] = 1
			b, _, _ := fuse.Evaluate(fuse.Params{Name: "b", Method: "zscore", Inputs: inputs, Weights: w}, pr)
			base = append(base, b)
		}
		best, bestM := math.Inf(-1), math.Inf(-1)
		var bw []float64
		for _, w := range fuse.Simplex(len(inputs), steps) {
			p := fuse.Params{Name: "fusion-" + method, Method: method, Inputs: inputs, Weights: w, DemoteQuestions: demote}
			obj, m := 0.0, 0.0
			if objective == "maximin" {
				obj = math.Inf(1)
			}
			for k, s := range sets {
				p1, mrr, err := fuse.Evaluate(p, s)
				if err != nil {
					return p, err
				}
				m += mrr / float64(len(sets))
				if objective == "maximin" {
					obj = math.Min(obj, p1-base[k])
				} else {
					obj += p1 / float64(len(sets))
				}
			}
			if obj > best || (obj == best && m > bestM) {
				best, bestM, bw = obj, m, w
			}
		}
		return fuse.Params{Name: "fusion-" + method, Method: method, Inputs: inputs, Weights: bw, DemoteQuestions: demote}, nil
	}}
}

// demoted is d with DemoteQuestions set on what it fits.
func demoted(d design) design {
	return design{d.name + "+q", func(train [][]fuse.Example) (fuse.Params, error) {
		p, err := d.fit(train)
		p.DemoteQuestions = true
		return p, err
	}}
}

// capped keeps at most n examples, evenly spaced (deterministic).
func capped(exs []fuse.Example, n int) []fuse.Example {
	if len(exs) <= n {
		return exs
	}
	out := make([]fuse.Example, n)
	for i := range out {
		out[i] = exs[i*len(exs)/n]
	}
	return out
}

// balanced is the union of the training halves with every domain weighing
// about per examples (small domains repeated, large ones thinned).
func balanced(train [][]fuse.Example, per int) []fuse.Example {
	var out []fuse.Example
	for _, tr := range train {
		if len(tr) == 0 {
			continue
		}
		c := capped(tr, per)
		for k := 0; k < max(1, per/len(c)); k++ {
			out = append(out, c...)
		}
	}
	return out
}

// tunedDesign trains method with fuse.Tune on the balanced union.
func tunedDesign(name, method string, inputs []string, rr *fuse.Reranker, per int) design {
	return design{name, func(train [][]fuse.Example) (fuse.Params, error) {
		idx := inputIdx(inputs)
		var pr [][]fuse.Example
		for _, tr := range train {
			pr = append(pr, project(tr, idx))
		}
		p, _, err := fuse.Tune(method, inputs, balanced(pr, per), fuse.TuneOptions{Rerank: rr, Label: name})
		return p, err
	}}
}

// rerankSmall is a re-ranker over domain-independent evidence only: ranks,
// z-scores, context best and gap, agreement, sentence position.
func rerankSmall(l2 float64) *fuse.Reranker {
	return &fuse.Reranker{
		Depth:      50,
		PoolInputs: []string{"bm25-wpm", "bm25-word", "dense"},
		Features: []string{"z:bm25-wpm", "z:bm25-word", "z:bm25-wpm/sent", "z:dense", "z:dense/sent",
			"cmz:bm25-wpm", "crel:bm25-wpm", "cmz:dense", "crel:dense",
			"lr:bm25-wpm", "lr:bm25-word", "lr:dense", "top:bm25-wpm", "top:dense", "pos0"},
		QFeatures: []string{"1", "agree:bm25-wpm:dense"},
		L2:        l2,
		Iters:     300,
	}
}

// rerankZQ is a query-adaptive z-score fusion: each input's z-score weighted
// by a linear function of the question's score distributions (margins,
// first-place z-scores, agreement).
func rerankZQ(l2 float64, sent bool) *fuse.Reranker {
	r := &fuse.Reranker{
		Depth:      50,
		PoolInputs: []string{"bm25-wpm", "bm25-word", "dense"},
		Features:   []string{"z:bm25-wpm", "z:bm25-word", "z:dense"},
		QFeatures:  []string{"1", "m:bm25-wpm", "mz:bm25-wpm", "mz:dense", "t1z:bm25-wpm", "t1z:dense", "agree:bm25-wpm:dense"},
		L2:         l2,
		Iters:      300,
	}
	if sent {
		r.Features = append(r.Features, "z:bm25-wpm/sent", "z:dense/sent")
	}
	return r
}

func defaultRR(l2 float64) *fuse.Reranker {
	r := fuse.DefaultReranker()
	r.L2 = l2
	return &r
}

func lodoDesigns() []design {
	old := fuse.Params{Name: "fusion-zscore", Method: "zscore", Inputs: three, Weights: []float64{0.5, 0.1, 0.4}}
	// The weights shipped in rank/builtin.json (fitted on every tune half).
	shipped := fuse.Params{Name: "fusion-zscore", Method: "zscore", Inputs: stemFour, Weights: []float64{0, 0.1, 0.5, 0.4}}
	ds := []design{
		fixed("bm25-wpm", fuse.Params{Name: "fusion-zscore", Method: "zscore", Inputs: three, Weights: []float64{1, 0, 0}}),
		fixed("old-default-zscore", old),
		gridDesign("zscore3-macro", "zscore", three, 20, "macro"),
		gridDesign("zscore3-maximin", "zscore", three, 20, "maximin"),
		gridDesign("minmax3-macro", "minmax", three, 20, "macro"),
		gridDesign("minmax3-maximin", "minmax", three, 20, "maximin"),
		gridDesign("zscore6-macro", "zscore", rank.RerankInputs, 5, "macro"),
		tunedDesign("learned3-bal", "learned", three, nil, 300),
		tunedDesign("adaptive3-bal", "adaptive", three, nil, 300),
		tunedDesign("rerank-default-bal", "rerank", rank.RerankInputs, defaultRR(1e-4), 300),
		tunedDesign("rerank-default-bal-l2", "rerank", rank.RerankInputs, defaultRR(1e-2), 300),
		tunedDesign("rerank-small-bal", "rerank", rank.RerankInputs, rerankSmall(1e-4), 300),
		tunedDesign("zq3-bal", "rerank", rank.RerankInputs, rerankZQ(1e-4, false), 300),
		tunedDesign("zq5-bal", "rerank", rank.RerankInputs, rerankZQ(1e-4, true), 300),
		tunedDesign("zq3-bal-l2", "rerank", rank.RerankInputs, rerankZQ(1e-2, false), 300),
		tunedDesign("rerank-small-bal-l2", "rerank", rank.RerankInputs, rerankSmall(1e-2), 300),
		// The stemmed BM25 field: in place of bm25-word, beside it, with
		// its sentence-only form; grid fits and the old weights.
		fixed("stem-for-word-0.5/0.1/0.4", fuse.Params{Name: "fusion-zscore", Method: "zscore", Inputs: stemThree, Weights: []float64{0.5, 0.1, 0.4}}),
		gridDesign("zscore-stem3-macro", "zscore", stemThree, 20, "macro"),
		gridDesign("zscore-stem3-maximin", "zscore", stemThree, 20, "maximin"),
		gridDesign("minmax-stem3-macro", "minmax", stemThree, 20, "macro"),
		gridDesign("minmax-stem3-maximin", "minmax", stemThree, 20, "maximin"),
		gridDesign("zscore-stem4-macro", "zscore", stemFour, 10, "macro"),
		gridDesign("zscore-stem4-maximin", "zscore", stemFour, 10, "maximin"),
		gridDesign("minmax-stem4-maximin", "minmax", stemFour, 10, "maximin"),
		gridDesign("zscore-stem4-maximin-20", "zscore", stemFour, 20, "maximin"),
		gridDesign("zscore-stem4-macro-20", "zscore", stemFour, 20, "macro"),
		gridDesign("zscore-stemsent-macro", "zscore", stemSent, 10, "macro"),
		gridDesign("zscore-stemsent-maximin", "zscore", stemSent, 10, "maximin"),
		tunedDesign("learned-stem3-bal", "learned", stemThree, nil, 300),
		tunedDesign("learned-stem4-bal", "learned", stemFour, nil, 300),
		// Questions demoted (a question is not an answer): the shipped
		// default's weights as they are, and searched with demotion.
		demoted(fixed("stem4-0/0.1/0.5/0.4", shipped)),
		fixed("stem4-0/0.1/0.5/0.4", shipped),
		gridDesignOpt("zscore-stem4-maximin+qs", "zscore", stemFour, 10, "maximin", true),
		gridDesignOpt("zscore-stem4-macro+qs", "zscore", stemFour, 10, "macro", true),
		gridDesignOpt("zscore-stem4-maximin-20+qs", "zscore", stemFour, 20, "maximin", true),
		gridDesignOpt("zscore-stem3-maximin+qs", "zscore", stemThree, 20, "maximin", true),
		gridDesignOpt("minmax-stem4-maximin+qs", "minmax", stemFour, 10, "maximin", true),
		gridDesignOpt("zscore3-maximin+qs", "zscore", three, 20, "maximin", true),
		gridDesignOpt("zscore-stemsent-maximin+qs", "zscore", stemSent, 10, "maximin", true),
		demoted(tunedDesign("rerank-small-bal-l2", "rerank", rank.RerankInputs, rerankSmall(1e-2), 300)),
		demoted(tunedDesign("learned-stem4-bal", "learned", stemFour, nil, 300)),
	}
	for i, in := range lodoInputs[1:] {
		w := make([]float64, len(lodoInputs))
		w[i+1] = 1
		ds = append(ds, fixed(in, fuse.Params{Name: "fusion-zscore", Method: "zscore", Inputs: lodoInputs, Weights: w}))
	}
	if only := os.Getenv("REQA_DEFAULTS_ONLY"); only != "" {
		var keep []design
		for _, d := range ds {
			if d.name == "bm25-wpm" || strings.Contains(","+only+",", ","+d.name+",") {
				keep = append(keep, d)
			}
		}
		ds = keep
	}
	return ds
}

// TestDefaultsLODO prints the leave-one-domain-out table (held-out tune and
// test halves), then every design fitted on all domains' tune halves,
// scored on every test half; REQA_DEFAULTS_OUT names the file to write
// the chosen design's parameters to (REQA_DEFAULTS_PICK: its name).
func TestDefaultsLODO(t *testing.T) {
	doms := lodoDomains(t)
	if k, _ := strconv.Atoi(os.Getenv("REQA_DEFAULTS_TOPK")); k > 0 {
		// Statistics over each input's best k candidates instead of all.
		for _, d := range doms {
			d.Tune, d.Test = topStats(d.Tune, k), topStats(d.Test, k)
		}
	}
	for _, d := range doms {
		t.Logf("domain %s: %d tune, %d test questions", d.Name, len(d.Tune), len(d.Test))
	}
	designs := lodoDesigns()
	type cell struct{ p1, mrr float64 }
	eval := func(p fuse.Params, exs []fuse.Example) cell {
		idx := inputIdx(p.Inputs)
		p1, mrr, err := fuse.Evaluate(p, project(exs, idx))
		if err != nil {
			t.Fatal(err)
		}
		return cell{p1, mrr}
	}
	// Leave one domain out.
	var lodo []*lodoDomain
	for _, d := range doms {
		if d.LODO {
			lodo = append(lodo, d)
		}
	}
	held := map[string][]cell{} // design → per held-out domain: tune half, test half
	for _, h := range lodo {
		var train [][]fuse.Example
		for _, d := range lodo {
			if d != h {
				train = append(train, d.Tune)
			}
		}
		t.Logf("holding out %s", h.Name)
		for _, ds := range designs {
			p, err := ds.fit(train)
			if err != nil {
				t.Fatalf("%s without %s: %v", ds.name, h.Name, err)
			}
			held[ds.name] = append(held[ds.name], eval(p, h.Tune), eval(p, h.Test))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nLODO: held-out domain's tune half | test half, P@1 (gain over bm25-wpm)\n%-32s", "design")
	for _, h := range lodo {
		fmt.Fprintf(&b, " %-26s", h.Name)
	}
	fmt.Fprintf(&b, " %-14s %-14s\n", "worst(tune)", "worst(test)")
	base := held["bm25-wpm"]
	type row struct {
		name             string
		worstTu, worstTe float64
	}
	var rows []row
	for _, ds := range designs {
		cs := held[ds.name]
		fmt.Fprintf(&b, "%-32s", ds.name)
		wtu, wte := math.Inf(1), math.Inf(1)
		for k := range lodo {
			tu, te := cs[2*k], cs[2*k+1]
			gtu, gte := tu.p1-base[2*k].p1, te.p1-base[2*k+1].p1
			wtu, wte = math.Min(wtu, gtu), math.Min(wte, gte)
			fmt.Fprintf(&b, " %5.1f(%+5.1f)|%5.1f(%+5.1f)", tu.p1, gtu, te.p1, gte)
		}
		fmt.Fprintf(&b, " %+6.1f         %+6.1f\n", wtu, wte)
		rows = append(rows, row{ds.name, wtu, wte})
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].worstTu > rows[j].worstTu })
	fmt.Fprintf(&b, "by worst held-out tune-half gain: ")
	for _, r := range rows {
		fmt.Fprintf(&b, "%s %+.1f; ", r.name, r.worstTu)
	}
	var all [][]fuse.Example
	for _, d := range lodo {
		all = append(all, d.Tune)
	}
	fitAll(t, &b, designs, all, doms)
	t.Log(b.String())
}

// fitAll fits every design on all training halves and writes each one's
// test-half scores on every domain to b; REQA_DEFAULTS_PICK names a design
// whose parameters go to REQA_DEFAULTS_OUT.
func fitAll(t *testing.T, b *strings.Builder, designs []design, all [][]fuse.Example, doms []*lodoDomain) {
	fmt.Fprintf(b, "\n\nfitted on every tune half; test halves P@1/MRR\n%-32s", "design")
	for _, d := range doms {
		fmt.Fprintf(b, " %-13s", d.Name)
	}
	b.WriteString("\n")
	pick := os.Getenv("REQA_DEFAULTS_PICK")
	for _, ds := range designs {
		p, err := ds.fit(all)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(b, "%-32s", ds.name)
		for _, d := range doms {
			p1, mrr, err := fuse.Evaluate(p, project(d.Test, inputIdx(p.Inputs)))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(b, " %5.1f/%5.1f  ", p1, mrr)
		}
		fmt.Fprintf(b, " %s %v %.3g\n", p.Method, p.Inputs, p.Weights)
		if ds.name == pick {
			if out := os.Getenv("REQA_DEFAULTS_OUT"); out != "" {
				raw, _ := json.MarshalIndent(p, "", " ")
				if err := os.WriteFile(out, raw, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// topStats replaces every example's statistics of each input by those of
// the input's best k scores (the pool holds every input's best 50).
func topStats(exs []fuse.Example, k int) []fuse.Example {
	out := make([]fuse.Example, len(exs))
	for i, ex := range exs {
		ex.Stats = slices.Clone(ex.Stats)
		for r, sc := range ex.Scores {
			top := slices.Clone(sc)
			sort.Sort(sort.Reverse(sort.Float64Slice(top)))
			ex.Stats[r] = fuse.Describe(top[:min(k, len(top))])
		}
		out[i] = ex
	}
	return out
}

// expDomain is one domain of an experiment: a name, its index and dataset.
type expDomain struct{ Name, Index, Dataset string }

// experimentDomains reads the domains of an experiment run by hand from
// env ("name=INDEX=DATASET;…") and the half to score from env_SPLIT
// (default tune); it skips t when env is not set.
func experimentDomains(t *testing.T, env string) ([]expDomain, string) {
	t.Helper()
	spec := os.Getenv(env)
	if spec == "" {
		// May skip in CI: an experiment (tag experiment) run by hand with its variable set.
		t.Skipf("set %s='name=INDEX=DATASET;…'", env)
	}
	split := os.Getenv(env + "_SPLIT")
	if split == "" {
		split = "tune"
	}
	var out []expDomain
	for _, item := range strings.Split(spec, ";") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		parts := strings.Split(item, "=")
		if len(parts) != 3 {
			t.Fatalf("%s: domain %q: want name=index=dataset", env, item)
		}
		out = append(out, expDomain{parts[0], parts[1], parts[2]})
	}
	return out, split
}
