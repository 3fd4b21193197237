package main

import (
	"fmt"
	"github.com/reqa/reqa/index"
	"slices"
	"strings"

	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/eval"
	"github.com/reqa/reqa/rank/fuse"
	"github.com/urfave/cli/v2"
)

func fuseCommand() *cli.Command {
	return &cli.Command{
		Name:      "fuse",
		Usage:     "learn fusion weights on a dataset's tune split and store them in its index",
		ArgsUsage: "DATASET_DIR",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "index", Aliases: []string{"i"}, Required: true, Usage: "index built from DATASET_DIR, with embeddings"},
			&cli.StringSliceFlag{Name: "method", Usage: "fusion methods (rrf, minmax, zscore, adaptive, learned, rerank); default all"},
			&cli.StringSliceFlag{Name: "input", Usage: "rankers to fuse (also NAME/sent for the sentence-only form, ctxmax:NAME, ctxrel:NAME); default bm25-wpm, bm25-word and dense"},
			&cli.Float64Flag{Name: "rrf-k", Value: 60, Usage: "reciprocal-rank fusion's k"},
			&cli.IntFlag{Name: "threads", Usage: "ONNX Runtime threads per run (0: 1)"},
			jsonFlag("print the learned parameters as JSON"),
			quietFlag(),
		},
		OnUsageError: onUsage,
		Action:       fuseAction,
	}
}

func fuseAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("fuse: want exactly one DATASET_DIR")
	}
	if c.Float64("rrf-k") <= 0 {
		return usagef("fuse: --rrf-k %v: want > 0", c.Float64("rrf-k"))
	}
	methods := c.StringSlice("method")
	if len(methods) == 0 {
		methods = rank.FusionMethods
	}
	for _, m := range methods {
		if !slices.Contains(rank.FusionMethods, m) {
			return usagef("fuse: unknown method %q (rrf, minmax, zscore, adaptive, learned, rerank)", m)
		}
	}
	inputs := c.StringSlice("input")
	if len(inputs) == 0 {
		inputs = rank.DefaultFusionInputs
	}
	for _, in := range inputs {
		if s, err := rank.ParseSpec(in); err != nil || s.Kind == rank.KindFusion || s.Kind == rank.KindDefault {
			return usagef("fuse: --input %q: not a ranker to fuse (%s, NAME/sent, ctxmax:NAME, ctxrel:NAME)", in, strings.Join(rank.InputNames(), ", "))
		}
	}
	path := c.String("index")
	ds, e, err := openDenseDatasetIndex("fuse", c.Args().First(), path)
	if err != nil {
		return err
	}
	tune, res, err := fuseTune(c, ds, e, path, methods, inputs)
	e.Close()
	if err != nil {
		return err
	}
	var ps []fuse.Params
	for _, r := range res {
		if r.Params.Method == "rrf" {
			r.Params.K = c.Float64("rrf-k")
		}
		ps = append(ps, r.Params)
	}
	raw, err := rank.EncodeFusions(ps)
	if err != nil {
		return err
	}
	if err := index.SaveFusions(path, raw); err != nil {
		return err
	}
	if c.Bool("json") {
		return writeJSON(c.App.Writer, ps)
	}
	fmt.Fprintf(c.App.Writer, "learned on %d tune questions of %s; stored in %s (ask uses %s by default)\n", tune, ds.Name, safeName(path), ps[0].Name)
	for _, p := range ps {
		cv := ""
		if p.CVP1 > 0 {
			cv = fmt.Sprintf("  cross-validated %.2f", p.CVP1)
		}
		fmt.Fprintf(c.App.Writer, "  %-16s tune P@1 %.2f%s  inputs %s  %s\n", p.Name, p.TuneP1, cv, strings.Join(p.Inputs, "+"), describeParams(p))
	}
	return nil
}

// fuseTune learns methods over inputs on the dataset's tune split; it
// returns the number of tuning questions and the results, best first.
func fuseTune(c *cli.Context, ds *ingest.Dataset, e *rank.Index, path string, methods, inputs []string) (int, []eval.TuneResult, error) {
	tqs, err := ds.SplitQuestions("tune")
	if err != nil {
		return 0, nil, err
	}
	tune, err := evalQuestions(e, tqs, path)
	if err != nil {
		return 0, nil, err
	}
	if !c.Bool("quiet") {
		fmt.Fprintf(c.App.ErrWriter, "reqa: tuning %s on the %d questions of %s's tune split\n", strings.Join(methods, ", "), len(tune), ds.Name)
	}
	opt := rank.Spec{Dense: rank.DenseOptions{Threads: c.Int("threads")}}
	res, err := eval.TuneFusions(c.Context, e, methods, inputs, tune, opt, ds.Name+" tune split")
	return len(tune), res, err
}

// describeParams summarises learned fusion parameters.
func describeParams(p fuse.Params) string {
	switch p.Method {
	case "rrf":
		return fmt.Sprintf("k=%g", p.K)
	case "adaptive":
		return fmt.Sprintf("margin bounds %.3g, weights %v", p.Bounds, p.BucketWeights)
	case "rerank":
		if p.Rerank != nil {
			return fmt.Sprintf("re-ranker: %d candidate × %d question features over the top %d of %s",
				len(p.Rerank.Features), len(p.Rerank.QFeatures), p.Rerank.Depth, strings.Join(p.Rerank.PoolInputs, ", "))
		}
	}
	return fmt.Sprintf("weights %v", p.Weights)
}

// openDenseDatasetIndex reads a dataset and opens the index built from it,
// which must have embeddings (for fuse and tune).
func openDenseDatasetIndex(cmd, dir, path string) (*ingest.Dataset, *rank.Index, error) {
	ds, err := ingest.ReadDataset(dir)
	if err != nil {
		return nil, nil, err
	}
	e, err := rank.Open(path)
	if err != nil {
		return nil, nil, err
	}
	if e.Meta().DatasetDigest != ds.Corpus.Digest {
		e.Close()
		return nil, nil, fmt.Errorf("%s: index %s was not built from dataset %s", cmd, path, ds.Dir)
	}
	if e.Meta().Dense == nil {
		e.Close()
		return nil, nil, fmt.Errorf("%s: index %s has no embeddings; rebuild it with `reqa index --dense`", cmd, path)
	}
	return ds, e, nil
}
