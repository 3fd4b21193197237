package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/eval"
	"github.com/reqa/reqa/rank/eval/report"
	"github.com/reqa/reqa/rank/fuse"
)

// evalRun is one row of eval's table: what it is called and the ranker it
// measures.
type evalRun struct {
	label string
	spec  rank.Spec
	// isDefault marks the index's default ranker (what ask answers with).
	isDefault bool
}

// evalDataset evaluates the rankers on the ReQA dataset in dir, with the
// index at indexPath (built into a temporary file when empty), and writes
// the full report into reportDir when it is set.
func evalDataset(c *cli.Context, dir, indexPath, reportDir string) (evalReport, error) {
	split := c.String("split")
	ds, qs, err := readEvalDataset(dir, split)
	if err != nil {
		return evalReport{}, err
	}
	e, indexPath, cleanup, err := evalIndex(c, ds, dir, indexPath)
	if err != nil {
		return evalReport{}, err
	}
	defer cleanup()
	eqs, err := evalQuestions(e, qs, indexPath)
	if err != nil {
		return evalReport{}, err
	}
	opt := evalSpec(c)
	runs, fusions, err := evalRuns(c, e, ds, indexPath, opt)
	if err != nil {
		return evalReport{}, err
	}
	rep := evalReport{Header: report.Header{Dataset: ds.Name, Split: split, Document: "sentence+context", Questions: len(eqs), Candidates: e.Meta().Sentences}, Fusions: fusions,
		Engine: cmp.Or(e.EngineURL(), "embedded")}
	if opt.SentenceOnly {
		rep.Document = "sentence"
	}
	var rruns []report.Run
	for _, run := range runs {
		rr, err := evalOne(c, e, run, eqs)
		if err != nil {
			return evalReport{}, err
		}
		if run.isDefault {
			rep.defaultRow = run.label
		}
		rruns = append(rruns, rr)
		rep.Results = append(rep.Results, rr.Summary)
	}
	if reportDir != "" {
		if err := evalFullReport(c, e, ds, qs, eqs, runs, rruns, rep, indexPath, reportDir); err != nil {
			return evalReport{}, err
		}
	}
	return rep, nil
}

// readEvalDataset reads the dataset in dir and its questions of split.
func readEvalDataset(dir, split string) (*ingest.Dataset, []ingest.Question, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("eval: %w", err)
	}
	if !st.IsDir() || !ingest.IsDataset(dir) {
		return nil, nil, fmt.Errorf("eval: %s is not a ReQA dataset directory (contexts, candidates, questions .jsonl[.gz])", safeName(dir))
	}
	ds, err := ingest.ReadDataset(dir)
	if err != nil {
		return nil, nil, err
	}
	qs, err := ds.SplitQuestions(split)
	if err != nil {
		return nil, nil, err
	}
	if len(qs) == 0 {
		return nil, nil, fmt.Errorf("eval: dataset %s has no questions for split %s", safeName(dir), split)
	}
	return ds, qs, nil
}

// evalIndex opens the index at path, or builds one from ds into a
// temporary file when path is empty (with the dense encoder when a ranker
// asked for needs it), and applies --params-from. cleanup closes and
// removes what it made.
func evalIndex(c *cli.Context, ds *ingest.Dataset, dir, path string) (_ *rank.Index, used string, cleanup func(), err error) {
	var undo []func()
	cleanup = func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	defer func() {
		if err != nil {
			cleanup()
		}
	}()
	var tuned *rank.Tuned
	if from := c.String("params-from"); from != "" {
		if tuned, err = rank.LoadTuned(from); err != nil {
			return nil, "", cleanup, fmt.Errorf("eval: --params-from: %w", err)
		}
	}
	if path == "" {
		tmp, err := os.MkdirTemp("", "reqa-eval-*")
		if err != nil {
			return nil, "", cleanup, err
		}
		undo = append(undo, func() { os.RemoveAll(tmp) })
		path = filepath.Join(tmp, "eval.reqa")
		if err := buildEvalIndex(c, ds, path); err != nil {
			return nil, "", cleanup, err
		}
	}
	e, err := openIndex(c, path, c.Bool("fast-start"))
	if err != nil {
		return nil, "", cleanup, err
	}
	undo = append(undo, func() { e.Close() })
	if e.Meta().DatasetDigest != ds.Corpus.Digest {
		return nil, "", cleanup, fmt.Errorf("eval: index %s was not built from dataset %s (its candidates differ); rebuild it with `reqa index --out %s %s` or drop --index",
			safeName(path), safeName(dir), safeName(path), safeName(dir))
	}
	if tuned != nil {
		if err := e.UseTuned(tuned); err != nil {
			return nil, "", cleanup, fmt.Errorf("eval: --params-from: %w", err)
		}
	}
	return e, path, cleanup, nil
}

// buildEvalIndex builds eval's temporary index of ds at path.
func buildEvalIndex(c *cli.Context, ds *ingest.Dataset, path string) error {
	opt, err := buildOptions(c)
	if err != nil {
		return err
	}
	needDense := c.String("params-from") != ""
	for _, r := range c.StringSlice("ranker") {
		s, err := rank.ParseSpec(r)
		if err != nil {
			return usagef("eval: --ranker: %v", err)
		}
		needDense = needDense || (s.Kind != rank.KindBM25 && s.Kind != rank.KindDefault)
	}
	if needDense {
		if err := withEncoder(c, &opt); err != nil {
			return err
		}
		defer opt.Encoder.Close()
	}
	_, err = index.Build(c.Context, ds.Corpus, path, opt)
	return err
}

// evalSpec holds the options every evaluated ranker shares.
func evalSpec(c *cli.Context) rank.Spec {
	return rank.Spec{SentenceOnly: c.Bool("no-context"), Dense: rank.DenseOptions{Lambda: c.Float64("lambda"), LambdaSet: c.IsSet("lambda"),
		Threads: c.Int("threads"), NoAdapter: c.Bool("no-adapter"), ANN: c.Bool("ann")}}
}

// evalRuns lists what eval measures, with the fusion parameters of every
// fusion row: the rankers asked for, or every ranker the index answers
// with, and the index's default ranker (what ask uses), labelled
// "default (NAME)" unless a row measures exactly the same thing. Fusions
// run with the parameters ask would use (stored, --params-from, built-in);
// a fusion with none of those is tuned now on the dataset's tune split.
func evalRuns(c *cli.Context, e *rank.Index, ds *ingest.Dataset, indexPath string, opt rank.Spec) ([]evalRun, []fuse.Params, error) {
	names := c.StringSlice("ranker")
	explicit := len(names) > 0
	tunable := ds.Split != nil && c.String("params-from") == ""
	if tunable {
		// A dataset whose tune half holds no question (a document split
		// off whole for testing) has nothing to tune on: its fusions run
		// with the parameters ask would use.
		tqs, err := ds.SplitQuestions("tune")
		tunable = err == nil && len(tqs) > 0
	}
	if !explicit {
		var err error
		if names, err = evalDefaultNames(e, tunable); err != nil {
			return nil, nil, err
		}
	}
	var runs []evalRun
	var missing []string
	for _, n := range names {
		run, tuneIt, err := evalRunFor(e, n, opt, tunable)
		if err != nil {
			return nil, nil, err
		}
		if tuneIt {
			missing = append(missing, run.spec.Method)
		}
		runs = append(runs, run)
	}
	if err := tuneMissing(c, e, ds, indexPath, opt, missing, runs); err != nil {
		return nil, nil, err
	}
	if !explicit {
		def, _, err := evalRunFor(e, rank.DefaultName, opt, false)
		if err != nil {
			return nil, nil, err
		}
		runs = addDefaultRun(runs, def)
	}
	var fusions []fuse.Params
	for _, r := range runs {
		if r.spec.Fusion != nil && !r.isDefault {
			fusions = append(fusions, *r.spec.Fusion)
		}
	}
	return runs, fusions, nil
}

// evalDefaultNames is every ranker eval measures when none is named: the
// index's own rankers and the fusions it can answer with, plus, on a
// dataset with a tune split, every fusion method (tuned there when the
// index has no parameters for it).
func evalDefaultNames(e *rank.Index, tunable bool) ([]string, error) {
	names := e.Rankers()
	if e.Meta().Dense == nil {
		return names, nil
	}
	avail, err := e.Available()
	if err != nil {
		return nil, err
	}
	for _, m := range rank.FusionMethods {
		n := "fusion-" + m
		if tunable || slices.Contains(avail, n) {
			names = append(names, n)
		}
	}
	return names, nil
}

// evalRunFor parses one ranker name into a row; tuneIt says its fusion
// parameters are to be learned on the tune split.
func evalRunFor(e *rank.Index, name string, opt rank.Spec, tunable bool) (evalRun, bool, error) {
	s, err := rank.ParseSpec(name)
	if err != nil {
		return evalRun{}, false, usagef("eval: %v", err)
	}
	run := evalRun{label: name, spec: s}
	if s.Kind == rank.KindDefault {
		d, err := e.Default()
		if err != nil {
			return evalRun{}, false, err
		}
		run.label, run.isDefault = "default ("+d+")", true
		if run.spec, err = rank.ParseSpec(d); err != nil {
			return evalRun{}, false, err
		}
	}
	run.spec.SentenceOnly = run.spec.SentenceOnly || opt.SentenceOnly
	run.spec.Dense = opt.Dense
	if run.spec.Kind != rank.KindFusion {
		return run, false, nil
	}
	if e.Meta().Dense == nil {
		return evalRun{}, false, usagef("eval: %s needs an index with embeddings (the dense ranker)", name)
	}
	stored, err := e.StoredFusions()
	if err != nil {
		return evalRun{}, false, err
	}
	for _, p := range stored {
		if p.Name == run.spec.Name {
			run.spec.Fusion = &p
			return run, false, nil
		}
	}
	if tunable && !run.isDefault {
		return run, true, nil
	}
	p, err := e.FusionParams(run.spec.Name)
	if isRankerUsage(err) {
		return evalRun{}, false, usagef("eval: %v", err)
	}
	if err != nil {
		return evalRun{}, false, err
	}
	run.spec.Fusion = &p
	return run, false, nil
}

// addDefaultRun adds the default ranker's row, "default (NAME)". A plain
// ranker already in the table (bm25-wpm on an index without embeddings)
// is not measured twice: its row is marked instead. A default fusion
// always gets its own row, even when another row runs the same parameters,
// so that what ask answers with is always labelled in the report.
func addDefaultRun(runs []evalRun, def evalRun) []evalRun {
	if def.spec.Kind != rank.KindFusion {
		for i, r := range runs {
			if r.spec.Name == def.spec.Name && r.spec.SentenceOnly == def.spec.SentenceOnly {
				runs[i].isDefault = true
				return runs
			}
		}
	}
	return append(runs, def)
}

// tuneMissing learns the fusions methods on the dataset's tune split and
// sets them on their rows.
func tuneMissing(c *cli.Context, e *rank.Index, ds *ingest.Dataset, indexPath string, opt rank.Spec, methods []string, runs []evalRun) error {
	if len(methods) == 0 {
		return nil
	}
	tqs, err := ds.SplitQuestions("tune")
	if err != nil {
		return fmt.Errorf("eval: fusion needs tuned weights: the index has none and %w", err)
	}
	tune, err := evalQuestions(e, tqs, indexPath)
	if err != nil {
		return err
	}
	if !c.Bool("quiet") {
		fmt.Fprintf(c.App.ErrWriter, "reqa: tuning %s on the %d questions of %s's tune split\n", strings.Join(methods, ", "), len(tune), ds.Name)
	}
	res, err := eval.TuneFusions(c.Context, e, methods, rank.DefaultFusionInputs, tune, opt, ds.Name+" tune split")
	if err != nil {
		return err
	}
	for _, r := range res {
		for i := range runs {
			if runs[i].spec.Fusion == nil && runs[i].spec.Name == r.Params.Name {
				p := r.Params
				runs[i].spec.Fusion = &p
			}
		}
	}
	return nil
}

// evalOne measures one row on eqs.
func evalOne(c *cli.Context, e *rank.Index, run evalRun, eqs []eval.Question) (report.Run, error) {
	r, err := e.Resolve(run.spec)
	if isRankerUsage(err) {
		return report.Run{}, usagef("eval: %v", err)
	}
	if err != nil {
		return report.Run{}, err
	}
	var pf func(int, int)
	if progress := progressPrinter(c); progress != nil {
		pf = func(d, t int) { progress("eval "+run.label, d, t) }
	}
	t0 := time.Now()
	rs, err := eval.Run(c.Context, r, eqs, 0, pf)
	if err != nil {
		return report.Run{}, err
	}
	if !c.Bool("quiet") {
		fmt.Fprintf(c.App.ErrWriter, "reqa: %s: %d questions in %.2fs\n", run.label, len(eqs), time.Since(t0).Seconds())
	}
	return report.Run{Name: run.label, Results: rs, Summary: eval.Summarize(run.label, eqs, rs)}, nil
}
