package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/reqa/reqa/index/tokenize"
	"github.com/reqa/reqa/ingest/mrqa"
)

// exitBadRecords is the exit status of a conversion that wrote its dataset
// but skipped bad records.
const exitBadRecords = 3

func convertCommand() *cli.Command {
	return &cli.Command{
		Name:  "convert",
		Usage: "turn MRQA or SQuAD JSON files into a MultiReQA sentence-retrieval dataset (or describe one with --stats)",
		Description: `Reads MRQA shared-task files (JSON lines, optionally gzipped: a header line, then one
context per line) and SQuAD JSON files, and writes a ReQA dataset directory: contexts,
candidates and questions (.jsonl.gz), plus split.json with --split. Questions are kept
unchanged; every sentence of every context is a candidate; the sentences holding an
answer span are gold. TriviaQA's [DOC] [TLE] [PAR] tags are removed; every SearchQA
[DOC] snippet and every HotpotQA [PAR] document is its own context, titles excluded
(answers found only in titles do not count). NewsQA, RACE, DROP and DuoRC are refused:
their questions are underspecified out of their context.

Sentences come from reqa's splitter, or with --boundaries from the official MultiReQA
annotations, with their official candidate ids.

Bad records are skipped and counted, the first few shown with file:line and field;
the dataset is still written and the exit status is 3. --strict stops at the first.

reqa convert --stats DIR prints per-dataset statistics of a ReQA dataset directory.`,
		ArgsUsage: "INPUT...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "dataset directory to write (must not exist or be empty, unless --force)"},
			&cli.StringFlag{Name: "dataset", Usage: "dataset of every INPUT (default: the MRQA header, else the file name; SQuAD for SQuAD JSON)"},
			&cli.StringSliceFlag{Name: "boundaries", Usage: "MultiReQA sentence-boundary annotations (candidates.json[l][.gz]); repeatable"},
			&cli.StringSliceFlag{Name: "mrqa-ids", Usage: "MRQA files linking SQuAD ids to MRQA qids, to match SQuAD JSON to --boundaries by question ids; repeatable"},
			&cli.StringFlag{Name: "gold", Value: string(mrqa.GoldContain), Usage: "gold rule: contain (the paper's: spans crossing a sentence boundary are excluded) or start (the sentence holding the span's first character; how squad-multireqa-test was built)"},
			&cli.StringFlag{Name: "split", Usage: `JSON file {"tune": [titles], "test": [titles]} to write as split.json`},
			&cli.BoolFlag{Name: "strict", Usage: "stop at the first bad record (default: skip, count and report)"},
			&cli.BoolFlag{Name: "force", Usage: "replace a non-empty --out directory"},
			&cli.StringFlag{Name: "stats", Usage: "describe the ReQA dataset `DIR` instead of converting"},
			&cli.StringFlag{Name: "tokenizer", Value: "word", Usage: "tokenizer for --stats: word or wpm"},
			&cli.BoolFlag{Name: "json", Usage: "print the report (or the statistics) as JSON"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress output"},
		},
		OnUsageError: onUsage,
		Action:       convertAction,
	}
}

// datasetStatsCommand is `reqa dataset-stats DIR...`, the same as
// `reqa convert --stats DIR` for one or more directories.
func datasetStatsCommand() *cli.Command {
	return &cli.Command{
		Name:      "dataset-stats",
		Usage:     "describe ReQA dataset directories per dataset (the MultiReQA paper's Tables 3-4)",
		ArgsUsage: "DIR...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "tokenizer", Value: "word", Usage: "tokenizer: word or wpm"},
			&cli.BoolFlag{Name: "json", Usage: "print as JSON"},
		},
		OnUsageError: onUsage,
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usagef("dataset-stats: no DIR given (ReQA dataset directories)")
			}
			return printDatasetStats(c, c.Args().Slice())
		},
	}
}

func printDatasetStats(c *cli.Context, dirs []string) error {
	name := c.String("tokenizer")
	if name != "word" && name != "wpm" {
		return usagef("%s: --tokenizer %q: want word or wpm", c.Command.Name, name)
	}
	tok, err := tokenize.Get(name)
	if err != nil {
		return err
	}
	var all []*mrqa.Stats
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("stats: %w", err)
		}
		if !st.IsDir() {
			return fmt.Errorf("stats: %s is not a directory (want a ReQA dataset directory)", d)
		}
		s, err := mrqa.ComputeStats(d, tok)
		if err != nil {
			return err
		}
		all = append(all, s)
	}
	if c.Bool("json") {
		if len(all) == 1 {
			return writeJSON(c.App.Writer, all[0])
		}
		return writeJSON(c.App.Writer, all)
	}
	for i, s := range all {
		if i > 0 {
			fmt.Fprintln(c.App.Writer)
		}
		if err := s.WriteTable(c.App.Writer); err != nil {
			return err
		}
	}
	return nil
}

func convertAction(c *cli.Context) error {
	if dir := c.String("stats"); dir != "" {
		if c.NArg() > 0 || c.IsSet("out") {
			return usagef("convert: --stats DIR describes a dataset; it takes no INPUT and no --out")
		}
		return printDatasetStats(c, []string{dir})
	}
	if c.NArg() == 0 {
		return usagef("convert: no INPUT given (MRQA .jsonl[.gz] or SQuAD .json[.gz] files)")
	}
	out := c.String("out")
	if out == "" {
		return usagef("convert: --out DIR is required")
	}
	gold := mrqa.GoldRule(c.String("gold"))
	if gold != mrqa.GoldContain && gold != mrqa.GoldStart {
		return usagef("convert: --gold %q: want contain or start", gold)
	}
	if len(c.StringSlice("mrqa-ids")) > 0 && len(c.StringSlice("boundaries")) == 0 {
		return usagef("convert: --mrqa-ids only serves to match --boundaries; give --boundaries too")
	}
	opt := mrqa.Options{
		Dataset:    c.String("dataset"),
		Boundaries: c.StringSlice("boundaries"),
		IDLinks:    c.StringSlice("mrqa-ids"),
		Gold:       gold,
		Strict:     c.Bool("strict"),
		Force:      c.Bool("force"),
	}
	if p := c.String("split"); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("convert: --split: %w", err)
		}
		if err := json.Unmarshal(b, &opt.Split); err != nil {
			return fmt.Errorf("convert: --split %s: want {\"tune\": [titles], \"test\": [titles]}: %v", p, err)
		}
	}
	if pr := progressPrinter(c); pr != nil {
		opt.Progress = func(file string, done, total int64) {
			const mb = 1 << 20
			pr("convert "+file+" (MB)", int(done/mb), int(max(total, 1)/mb))
		}
	}
	start := time.Now()
	rep, err := mrqa.Convert(c.Context, c.Args().Slice(), out, opt)
	if rep == nil || (err != nil && !errors.Is(err, mrqa.ErrBadRecords)) {
		return err
	}
	if !c.Bool("quiet") {
		for _, w := range rep.Warnings {
			fmt.Fprintln(c.App.ErrWriter, "reqa: warning:", w)
		}
		for _, e := range rep.BadExamples {
			fmt.Fprintln(c.App.ErrWriter, "reqa: bad record:", e)
		}
		if rep.BadRecords > len(rep.BadExamples) {
			fmt.Fprintf(c.App.ErrWriter, "reqa: … and %d more bad records\n", rep.BadRecords-len(rep.BadExamples))
		}
	}
	if c.Bool("json") {
		if werr := writeJSON(c.App.Writer, rep); werr != nil {
			return werr
		}
	} else {
		printConvertReport(c.App.Writer, rep, time.Since(start))
	}
	if err != nil {
		return cli.Exit(err.Error(), exitBadRecords)
	}
	return nil
}

func printConvertReport(w io.Writer, rep *mrqa.Report, took time.Duration) {
	var ctxs, cands, qs int
	for _, d := range rep.Datasets {
		ctxs += d.Contexts
		cands += d.Candidates
		qs += d.Questions
	}
	fmt.Fprintf(w, "wrote %s: %d contexts, %d candidates, %d questions (sentences: %s, gold rule: %s) in %.1fs\n\n",
		rep.Out, ctxs, cands, qs, rep.Sentences, rep.Gold, took.Seconds())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "dataset\tlayout\tinput contexts\tcontexts\tcandidates\tinput questions\tquestions\tmulti-gold\tspans\tcrossing\tin titles\t")
	for _, d := range rep.Datasets {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", d.Name, d.Layout, d.InputContexts, d.Contexts, d.Candidates,
			d.InputQuestions, d.Questions, d.MultiGold, d.Spans, d.SpansCrossing, d.SpansInTitles)
	}
	tw.Flush()
	for _, d := range rep.Datasets {
		if len(d.Dropped) == 0 {
			continue
		}
		reasons := make([]string, 0, len(d.Dropped))
		for r := range d.Dropped {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		fmt.Fprintf(w, "\n%s: questions dropped:\n", d.Name)
		for _, r := range reasons {
			fmt.Fprintf(w, "  %6d  %s\n", d.Dropped[r], r)
		}
	}
	if b := rep.Boundaries; b != nil {
		fmt.Fprintf(w, "\nboundaries %s: %d annotated contexts, %d matched (%d by question ids, %d by text", strings.Join(b.Files, ", "), b.Annotated, b.Matched, b.ByQID, b.ByText)
		if b.Ambiguous > 0 {
			fmt.Fprintf(w, ", %d ambiguous", b.Ambiguous)
		}
		fmt.Fprintf(w, "), %d input contexts not covered, %d annotated contexts unused, %d annotated sentences not fitting their context\n", b.NotCovered, b.Unused, b.BadSpans)
		for _, x := range b.NotCoveredExamples {
			fmt.Fprintf(w, "  not covered: %s\n", x)
		}
		for _, x := range b.UnusedExamples {
			fmt.Fprintf(w, "  unused: %s\n", x)
		}
		for _, x := range b.BadSpanExamples {
			fmt.Fprintf(w, "  not fitting: %s\n", x)
		}
		if b.TextFitMismatch > 0 {
			fmt.Fprintf(w, "  %d text matches fit poorly (the annotation's sentence ends are not the text's)\n", b.TextFitMismatch)
		}
	}
	if rep.BadRecords > 0 {
		fmt.Fprintf(w, "\n%d bad records skipped\n", rep.BadRecords)
	}
}
