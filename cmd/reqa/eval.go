package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/reqa/reqa/index/tokenize"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/fuse"
	"github.com/reqa/reqa/rank/report"
)

func evalAction(c *cli.Context) error {
	if c.NArg() < 1 {
		return usagef("eval: want one or more DATASET_DIRs")
	}
	if split := c.String("split"); split != "all" && split != "tune" && split != "test" {
		return usagef("eval: --split %q: want all, tune or test", split)
	}
	dirs := c.Args().Slice()
	var indexes []string
	if p, ok := c.Generic("index").(*pathList); ok {
		indexes = *p
	}
	if len(indexes) > 0 && len(indexes) != len(dirs) {
		return usagef("eval: %d --index for %d datasets: give one per DATASET_DIR, in the same order, or none", len(indexes), len(dirs))
	}
	// Every dataset is looked at before any is evaluated: a typo in the
	// last one should not cost the others' work.
	for _, dir := range dirs {
		if st, err := os.Stat(dir); err != nil {
			return fmt.Errorf("eval: %w", err)
		} else if !st.IsDir() || !ingest.IsDataset(dir) {
			return fmt.Errorf("eval: %s is not a ReQA dataset directory (contexts, candidates, questions .jsonl[.gz])", dir)
		}
	}
	start := time.Now()
	var reps []evalReport
	taken := map[string]bool{}
	for i, dir := range dirs {
		idx := ""
		if len(indexes) > 0 {
			idx = indexes[i]
		}
		reportDir := c.String("report")
		if reportDir != "" && len(dirs) > 1 {
			// One report per dataset, in a directory named after it.
			base := "dataset"
			if abs, err := filepath.Abs(dir); err == nil && filepath.Base(abs) != string(filepath.Separator) {
				base = filepath.Base(abs)
			}
			name := base
			for n := 2; taken[name]; n++ {
				name = fmt.Sprintf("%s-%d", base, n)
			}
			taken[name] = true
			reportDir = filepath.Join(reportDir, name)
		}
		rep, err := evalDataset(c, dir, idx, reportDir)
		if err != nil {
			return err
		}
		reps = append(reps, rep)
	}
	if !c.Bool("quiet") {
		fmt.Fprintf(c.App.ErrWriter, "reqa: eval took %.2fs in all\n", time.Since(start).Seconds())
	}
	if c.Bool("json") {
		if len(reps) == 1 {
			return writeJSON(c.App.Writer, reps[0])
		}
		return writeJSON(c.App.Writer, multiEvalReport{Datasets: reps, SideBySide: sideBySide(reps)})
	}
	for i, rep := range reps {
		if i > 0 {
			fmt.Fprintln(c.App.Writer)
		}
		if err := printEvalReport(c.App.Writer, rep); err != nil {
			return err
		}
	}
	if len(reps) > 1 {
		fmt.Fprintln(c.App.Writer)
		return printSideBySide(c.App.Writer, reps)
	}
	return nil
}

// pathList is a repeatable flag of paths, which, unlike a string slice
// flag, does not split its values at commas.
type pathList []string

// pathListMark starts pathList's String: urfave/cli copies a flag's value
// to its aliases by Set(String()), which must replace the list, not add
// to it.
const pathListMark = "\x00paths:"

// Set implements flag.Value.
func (p *pathList) Set(v string) error {
	if rest, ok := strings.CutPrefix(v, pathListMark); ok {
		return json.Unmarshal([]byte(rest), p)
	}
	*p = append(*p, v)
	return nil
}

// String implements flag.Value.
func (p *pathList) String() string {
	if p == nil || len(*p) == 0 {
		return ""
	}
	b, _ := json.Marshal([]string(*p))
	return pathListMark + string(b)
}

// multiEvalReport is `reqa eval --json`'s output for several datasets.
type multiEvalReport struct {
	Datasets   []evalReport `json:"datasets"`
	SideBySide []sideRow    `json:"side_by_side"`
}

// sideRow is one ranker's P@1 and MRR on every dataset (null where the
// ranker was not run), in the order of the datasets.
type sideRow struct {
	Ranker string     `json:"ranker"`
	PAt1   []*float64 `json:"p_at_1"`
	MRR    []*float64 `json:"mrr"`
}

// sideBySide lays the reports' results out as the paper's tables do: a row
// per ranker (in order of first appearance), a column per dataset.
func sideBySide(reps []evalReport) []sideRow {
	var rows []sideRow
	at := map[string]int{}
	for d, rep := range reps {
		for _, r := range rep.Results {
			i, ok := at[r.Ranker]
			if !ok {
				i = len(rows)
				at[r.Ranker] = i
				rows = append(rows, sideRow{Ranker: r.Ranker, PAt1: make([]*float64, len(reps)), MRR: make([]*float64, len(reps))})
			}
			p, m := r.PAt1, r.MRR
			rows[i].PAt1[d], rows[i].MRR[d] = &p, &m
		}
	}
	return rows
}

// printEvalReport prints one dataset's results as a table.
func printEvalReport(w io.Writer, rep evalReport) error {
	fmt.Fprintf(w, "dataset %s  split %s  questions %d  candidates %d  document %s\n\n",
		rep.Dataset, rep.Split, rep.Questions, rep.Candidates, rep.Document)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "ranker\tP@1\tMRR\tP@5\tR@10\t")
	for _, r := range rep.Results {
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.2f\t%.2f\t\n", r.Ranker, r.PAt1, r.MRR, r.PAt5, r.RecallAt10)
	}
	return tw.Flush()
}

// printSideBySide prints P@1 / MRR of every ranker on every dataset.
func printSideBySide(w io.Writer, reps []evalReport) error {
	fmt.Fprintln(w, "side by side: P@1 / MRR")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "ranker\t")
	for _, rep := range reps {
		fmt.Fprintf(tw, "%s\t", rep.Dataset)
	}
	fmt.Fprintln(tw)
	for _, row := range sideBySide(reps) {
		fmt.Fprintf(tw, "%s\t", row.Ranker)
		for d := range reps {
			if row.PAt1[d] == nil {
				fmt.Fprint(tw, "—\t")
				continue
			}
			fmt.Fprintf(tw, "%.2f / %.2f\t", *row.PAt1[d], *row.MRR[d])
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// evalDataset evaluates the rankers on the ReQA dataset in dir, with the
// index at indexPath (built into a temporary file when empty), and writes
// the full report into reportDir when it is set.
func evalDataset(c *cli.Context, dir, indexPath, reportDir string) (evalReport, error) {
	split := c.String("split")
	st, err := os.Stat(dir)
	if err != nil {
		return evalReport{}, fmt.Errorf("eval: %w", err)
	}
	if !st.IsDir() || !ingest.IsDataset(dir) {
		return evalReport{}, fmt.Errorf("eval: %s is not a ReQA dataset directory (contexts, candidates, questions .jsonl[.gz])", dir)
	}
	ds, err := ingest.ReadDataset(dir)
	if err != nil {
		return evalReport{}, err
	}
	qs, err := ds.SplitQuestions(split)
	if err != nil {
		return evalReport{}, err
	}
	if len(qs) == 0 {
		return evalReport{}, fmt.Errorf("eval: dataset %s has no questions for split %s", dir, split)
	}
	if indexPath == "" {
		opt, err := buildOptions(c)
		if err != nil {
			return evalReport{}, err
		}
		for _, r := range c.StringSlice("ranker") {
			if r == "dense" || strings.HasPrefix(r, "fusion-") {
				if err := withEncoder(c, &opt); err != nil {
					return evalReport{}, err
				}
				defer opt.Encoder.Close()
				break
			}
		}
		tmp, err := os.MkdirTemp("", "reqa-eval-*")
		if err != nil {
			return evalReport{}, err
		}
		defer os.RemoveAll(tmp)
		indexPath = filepath.Join(tmp, "eval.reqa")
		if _, err := ingest.Build(c.Context, ds.Corpus, indexPath, opt); err != nil {
			return evalReport{}, err
		}
	}
	e, err := rank.Open(indexPath)
	if err != nil {
		return evalReport{}, err
	}
	defer e.Close()
	if m := e.Meta(); m.DatasetDigest != ds.Corpus.Digest {
		return evalReport{}, fmt.Errorf("eval: index %s was not built from dataset %s (its candidates differ); rebuild it with `reqa index --out %s %s` or drop --index",
			indexPath, dir, indexPath, dir)
	}
	eqs, err := evalQuestions(e, qs, indexPath)
	if err != nil {
		return evalReport{}, err
	}
	rankers := c.StringSlice("ranker")
	if len(rankers) == 0 {
		rankers = e.Rankers()
		if e.Meta().Dense != nil {
			for _, m := range rank.FusionMethods {
				rankers = append(rankers, "fusion-"+m)
			}
		}
	}
	withContext := !c.Bool("no-context")
	rep := evalReport{Header: report.Header{Dataset: ds.Name, Split: split, Document: "sentence+context", Questions: len(eqs), Candidates: len(e.Sentences())}}
	if !withContext {
		rep.Document = "sentence"
	}
	dopt := rank.DenseOptions{Lambda: c.Float64("lambda"), LambdaSet: c.IsSet("lambda"), Threads: c.Int("threads"), NoAdapter: c.Bool("no-adapter")}
	fusions, err := fusionParams(c, e, ds, rankers, indexPath, dopt)
	if err != nil {
		return evalReport{}, err
	}
	for _, name := range rankers {
		if p, ok := fusions[name]; ok {
			rep.Fusions = append(rep.Fusions, p)
		}
	}
	progress := progressPrinter(c)
	evalOne := func(name string, withContext bool) (report.Run, error) {
		var r rank.Ranker
		var err error
		switch {
		case name == "dense":
			r, err = e.DenseRanker(withContext, dopt)
		case strings.HasPrefix(name, "fusion-"):
			r, err = e.Fused(fusions[name], withContext, dopt)
		default:
			r, err = e.Ranker(name, withContext)
		}
		if err != nil {
			return report.Run{}, err
		}
		var pf func(int, int)
		if progress != nil {
			pf = func(d, t int) { progress("eval "+name, d, t) }
		}
		t0 := time.Now()
		rs, err := rank.Run(c.Context, r, eqs, 0, pf)
		if err != nil {
			return report.Run{}, err
		}
		if !c.Bool("quiet") {
			fmt.Fprintf(c.App.ErrWriter, "reqa: %s: %d questions in %.2fs\n", name, len(eqs), time.Since(t0).Seconds())
		}
		return report.Run{Name: name, Results: rs, Summary: rank.Summarize(name, eqs, rs)}, nil
	}
	var runs []report.Run
	for _, name := range rankers {
		run, err := evalOne(name, withContext)
		if errorsIsUnknown(err) {
			return evalReport{}, usagef("eval: %v", err)
		}
		if err != nil {
			return evalReport{}, err
		}
		runs = append(runs, run)
		rep.Results = append(rep.Results, run.Summary)
	}
	if dirOut := reportDir; dirOut != "" {
		in := report.Input{Dataset: ds.Name, Split: split, Document: rep.Document, Candidates: rep.Candidates, Runs: runs, Fusions: rep.Fusions, Sparse: "bm25-wpm", Dense: "dense"}
		if withContext {
			for _, name := range rankers {
				if strings.HasPrefix(name, "fusion-") {
					continue
				}
				run, err := evalOne(name, false)
				if err != nil {
					return evalReport{}, err
				}
				in.Ablation = append(in.Ablation, run)
			}
		}
		if err := fillReportQuestions(e, ds, qs, eqs, &in); err != nil {
			return evalReport{}, err
		}
		if err := sweep(c, e, ds, eqs, withContext, dopt, indexPath, &in); err != nil {
			return evalReport{}, err
		}
		if err := writeReport(dirOut, report.Build(in)); err != nil {
			return evalReport{}, err
		}
		if !c.Bool("quiet") {
			fmt.Fprintf(c.App.ErrWriter, "reqa: report written to %s\n", dirOut)
		}
	}
	return rep, nil
}

func errorsIsUnknown(err error) bool {
	return err != nil && strings.Contains(err.Error(), rank.ErrUnknownRanker.Error())
}

// fillReportQuestions adds question texts, gold sentences and
// question–answer token overlaps to the report input.
func fillReportQuestions(e *rank.Engine, ds *ingest.Dataset, qs []ingest.Question, eqs []rank.EvalQuestion, in *report.Input) error {
	tok, err := tokenize.Get("wpm")
	if err != nil {
		return err
	}
	text := func(id uint32) string {
		s := e.Sentences()[id]
		c, err := e.Store().Context(s.ContextID)
		if err != nil {
			return ""
		}
		return s.Text(c)
	}
	in.TopText = text
	for i, q := range eqs {
		rq := report.Question{ID: q.ID, Text: q.Text}
		if len(q.Gold) > 0 {
			rq.Gold = text(q.Gold[0])
			have := map[string]bool{}
			for _, t := range tok.Tokenize(rq.Gold) {
				have[t] = true
			}
			qt := tok.Tokenize(q.Text)
			hit := 0
			for _, t := range qt {
				if have[t] {
					hit++
				}
			}
			if len(qt) > 0 {
				rq.Overlap = float64(hit) / float64(len(qt))
			}
		}
		_ = qs[i]
		in.Questions = append(in.Questions, rq)
	}
	return nil
}

// sweep adds the z-score fusion-weight sweep of BM25 (wpm) against dense,
// on the tune split and on the evaluated questions.
func sweep(c *cli.Context, e *rank.Engine, ds *ingest.Dataset, eqs []rank.EvalQuestion, withContext bool, dopt rank.DenseOptions, indexPath string, in *report.Input) error {
	if e.Meta().Dense == nil || ds.Split == nil {
		return nil
	}
	var rs []rank.Ranker
	for _, n := range []string{"bm25-wpm", "dense"} {
		var r rank.Ranker
		var err error
		if n == "dense" {
			r, err = e.DenseRanker(withContext, dopt)
		} else {
			r, err = e.Ranker(n, withContext)
		}
		if err != nil {
			return err
		}
		rs = append(rs, r)
	}
	tqs, err := ds.SplitQuestions("tune")
	if err != nil {
		return err
	}
	tune, err := evalQuestions(e, tqs, indexPath)
	if err != nil {
		return err
	}
	for _, set := range []struct {
		label string
		qs    []rank.EvalQuestion
	}{{"tune split", tune}, {in.Split + " split", eqs}} {
		exs, err := rank.TuningExamples(c.Context, rs, set.qs)
		if err != nil {
			return err
		}
		in.Sweep = append(in.Sweep, report.SweepSeries{Label: "z-score, " + set.label, Points: fuse.Sweep("zscore", len(rs), exs, 20)})
	}
	return nil
}

func writeReport(dir string, r report.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for name, data := range map[string][]byte{"report.json": r.JSON(), "report.md": r.Markdown("sweep.svg"), "sweep.svg": r.SVG()} {
		tmp := filepath.Join(dir, "."+name+".tmp")
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	return nil
}
