package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/reqa/reqa/index/tokenize"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/eval"
	"github.com/reqa/reqa/rank/eval/report"
	"github.com/reqa/reqa/rank/fuse"
)

// evalFullReport writes eval's full report (--report) into dir: the runs,
// the sentence-only ablation of every non-fusion row, the questions and
// the fusion-weight sweep.
func evalFullReport(c *cli.Context, e *rank.Index, ds *ingest.Dataset, qs []ingest.Question, eqs []eval.Question,
	runs []evalRun, rruns []report.Run, rep evalReport, indexPath, dir string) error {
	in := report.Input{Dataset: ds.Name, Split: rep.Split, Document: rep.Document, Candidates: rep.Candidates, Runs: rruns, Fusions: rep.Fusions, Sparse: "bm25-wpm", Dense: "dense"}
	opt := evalSpec(c)
	if !opt.SentenceOnly {
		for _, run := range runs {
			if run.spec.Kind == rank.KindFusion || run.isDefault && run.label != run.spec.Name {
				continue
			}
			run.spec.SentenceOnly = true
			rr, err := evalOne(c, e, run, eqs)
			if err != nil {
				return err
			}
			in.Ablation = append(in.Ablation, rr)
		}
	}
	if err := fillReportQuestions(e, ds, qs, eqs, &in); err != nil {
		return err
	}
	if err := sweep(c, e, ds, eqs, opt, indexPath, &in); err != nil {
		return err
	}
	if err := writeReport(dir, report.Build(in)); err != nil {
		return err
	}
	if !c.Bool("quiet") {
		fmt.Fprintf(c.App.ErrWriter, "reqa: report written to %s\n", safeName(dir))
	}
	return nil
}

// fillReportQuestions adds question texts, gold sentences and
// question–answer token overlaps to the report input.
func fillReportQuestions(e *rank.Index, ds *ingest.Dataset, qs []ingest.Question, eqs []eval.Question, in *report.Input) error {
	tok, err := tokenize.Get("wpm")
	if err != nil {
		return err
	}
	text := func(id uint32) string {
		t, _ := e.SentenceText(id)
		return t
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
func sweep(c *cli.Context, e *rank.Index, ds *ingest.Dataset, eqs []eval.Question, opt rank.Spec, indexPath string, in *report.Input) error {
	if e.Meta().Dense == nil || ds.Split == nil {
		return nil
	}
	var rs []rank.Ranker
	for _, n := range []string{"bm25-wpm", "dense"} {
		s, err := rank.ParseSpec(n)
		if err != nil {
			return err
		}
		s.SentenceOnly, s.Dense = opt.SentenceOnly, opt.Dense
		r, err := e.Resolve(s)
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
		qs    []eval.Question
	}{{"tune split", tune}, {in.Split + " split", eqs}} {
		exs, err := eval.TuningExamples(c.Context, rs, set.qs)
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
