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

	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/eval"
	"github.com/reqa/reqa/rank/eval/report"
	"github.com/reqa/reqa/rank/fuse"
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
	if len(indexes) > 0 {
		// The BM25 flags say how eval builds its temporary index; an index
		// given was built with its own, which eval cannot change.
		for _, f := range []string{"bm25", "k1", "b", "tokenizer"} {
			if c.IsSet(f) {
				return usagef("eval: --%s says how eval builds a temporary index, and --index %s is built already (with its own BM25 parameters and tokenizers): drop --%s, or drop --index, or rebuild the index with `reqa index --%s`", f, indexes[0], f, f)
			}
		}
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
	fmt.Fprintf(w, "dataset %s  split %s  questions %d  candidates %d  document %s  index %s\n\n",
		rep.Dataset, rep.Split, rep.Questions, rep.Candidates, rep.Document, rep.Engine)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "ranker\tP@1\tMRR\tP@5\tR@10\t")
	for _, r := range rep.Results {
		label := r.Ranker
		if label == rep.defaultRow && !strings.HasPrefix(label, rank.DefaultName+" (") {
			label += " (default)"
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.2f\t%.2f\t\n", label, r.PAt1, r.MRR, r.PAt5, r.RecallAt10)
	}
	return tw.Flush()
}

// printSideBySide prints P@1 / MRR of every ranker on every dataset.
func printSideBySide(w io.Writer, reps []evalReport) error {
	fmt.Fprintln(w, "side by side: P@1 / MRR")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "ranker\t")
	seen := map[string]int{}
	for _, rep := range reps {
		seen[rep.Dataset]++
	}
	for _, rep := range reps {
		if seen[rep.Dataset] > 1 { // one dataset through several indexes
			fmt.Fprintf(tw, "%s [%s]\t", rep.Dataset, rep.Engine)
			continue
		}
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

func evalCommand() *cli.Command {
	return &cli.Command{
		Name:      "eval",
		Usage:     "evaluate rankers on ReQA datasets (P@1, MRR, P@5, R@10), side by side when there are several",
		ArgsUsage: "DATASET_DIR...",
		Flags: append([]cli.Flag{
			&cli.GenericFlag{Name: "index", Aliases: []string{"i"}, Value: &pathList{}, Usage: "index built from DATASET_DIR (default: build a temporary one, with the BM25 flags below); with several datasets, one --index per dataset in the same order"},
			&cli.StringSliceFlag{Name: "ranker", Aliases: []string{"r"}, Usage: "ranker to evaluate, repeatable; \"default\" is the index's default ranker, what ask uses (default: every ranker the index answers with, then the default, labelled \"default (NAME)\" unless one of them is it)"},
			&cli.StringFlag{Name: "params-from", Usage: "measure transfer: answer with the fusion parameters and question adapter learned for another index (OTHER.reqa) or with the fusion parameters of a JSON file (reqa fuse --json's or reqa eval --json's output), instead of the index's own"},
			&cli.BoolFlag{Name: "no-context", Usage: "sentence-only ablation: documents are the sentence alone"},
			&cli.StringFlag{Name: "split", Value: "all", Usage: "questions to evaluate: all, tune or test (split.json)"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			&cli.StringFlag{Name: "report", Usage: "also write the full report (report.md, report.json, sweep.svg: analyses, ablation, every ranker paired with the first (sign test), every question's gold ranks, failures) into this directory (one subdirectory per dataset when there are several)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress output"},
			&cli.Float64Flag{Name: "lambda", Value: defaultLambda, Usage: "dense: context weight λ (default: the index's)"},
			&cli.BoolFlag{Name: "no-adapter", Usage: "dense: ignore the question adapter stored by reqa tune"},
			&cli.IntFlag{Name: "threads", Usage: "ONNX Runtime threads (0: one per core)"},
			&cli.BoolFlag{Name: "fast-start", Usage: "embed questions as ask does, with the built-in encoder's Go network instead of ONNX Runtime (slower over many questions; to measure what ask answers)"},
			&cli.BoolFlag{Name: "ann", Usage: "rank as ask and serve do: dense over the ANN graph, fusions over each input's best candidates (pooled) where the index allows; without it every candidate is scored"},
		}, append(bm25Flags, engineAuthFlags()...)...),
		OnUsageError: onUsage,
		Action:       evalAction,
	}
}

// evalReport is `reqa eval --json`'s output.
type evalReport struct {
	report.Header
	Results []eval.Result `json:"results"`
	Fusions []fuse.Params `json:"fusions,omitempty"`
	// Engine is where the index's data lives: "embedded" (the file) or
	// the engine's weaviate:// URL.
	Engine string `json:"engine"`
	// defaultRow is the row measuring the index's default ranker (the
	// table marks it).
	defaultRow string
}

// evalQuestions maps dataset questions to the index's sentence ids.
func evalQuestions(e *rank.Index, qs []ingest.Question, indexPath string) ([]eval.Question, error) {
	ls := make([]eval.Labeled, len(qs))
	for i, q := range qs {
		ls[i] = eval.Labeled{ID: q.ID, Text: q.Text, Gold: q.Gold}
	}
	eqs, err := eval.Golds(e, ls)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	return eqs, nil
}
