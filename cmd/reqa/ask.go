package main

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/reqa/reqa/internal/display"
	"github.com/reqa/reqa/rank"
	"github.com/urfave/cli/v2"
)

func askCommand() *cli.Command {
	return &cli.Command{
		Name:      "ask",
		Usage:     "answer a question from an index",
		ArgsUsage: "QUESTION",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "index", Aliases: []string{"i"}, Required: true, Usage: "index file"},
			&cli.IntFlag{Name: "k", Value: 5, Usage: "number of answers"},
			&cli.StringFlag{Name: "ranker", Aliases: []string{"r"}, Usage: "ranker: " + strings.Join(rank.Names(), ", ") + " (default: the index's best fusion when it has embeddings, else bm25-wpm; reqa stats lists the ones an index has)"},
			&cli.BoolFlag{Name: "exact", Usage: "dense: score every candidate instead of searching the ANN graph"},
			&cli.BoolFlag{Name: "no-adapter", Usage: "dense: ignore the question adapter stored by reqa tune"},
			&cli.IntFlag{Name: "threads", Usage: "ONNX Runtime threads per run (0: 1; with --runtime or a --model index)"},
			&cli.BoolFlag{Name: "runtime", Usage: "embed the question through ONNX Runtime, as serve and eval do, instead of the built-in encoder's Go network (about 180 ms and 105 MB more to start; the same answers up to int8 rounding)"},
			&cli.BoolFlag{Name: "no-context", Usage: "score the sentence alone, not sentence + context"},
			jsonFlag("print answers as JSON"),
			quietFlag(),
		}, engineAuthFlags()...),
		OnUsageError: onUsage,
		Action:       askAction,
	}
}

func askAction(c *cli.Context) error {
	q := strings.Join(c.Args().Slice(), " ")
	switch {
	case c.NArg() == 0:
		return usagef("ask: no QUESTION given")
	case strings.TrimSpace(q) == "":
		return usagef("ask: the QUESTION is empty")
	case c.Int("k") < 1:
		return usagef("ask: --k %d: want at least 1", c.Int("k"))
	}
	spec, err := rank.ParseSpec(c.String("ranker"))
	if err != nil {
		return usagef("ask: --ranker: %v", err)
	}
	spec.SentenceOnly = c.Bool("no-context")
	spec.Dense = rank.DenseOptions{ANN: !c.Bool("exact"), Threads: c.Int("threads"), NoAdapter: c.Bool("no-adapter")}
	e, err := openIndex(c, c.String("index"), !c.Bool("runtime"))
	if err != nil {
		return err
	}
	defer e.Close()
	r, err := e.Resolve(spec)
	if isRankerUsage(err) {
		return usagef("ask: %v", err)
	}
	if err != nil {
		return err
	}
	answers, err := e.Ask(c.Context, r, q, c.Int("k"))
	if err != nil {
		return err
	}
	if c.Bool("json") {
		if answers == nil {
			answers = []rank.Answer{}
		}
		return writeJSON(c.App.Writer, map[string]any{"question": q, "ranker": r.Name(), "answers": answers})
	}
	printAnswers(c.App.Writer, q, r.Name(), answers)
	return nil
}

// isRankerUsage reports whether err is the user's choice of ranker being
// wrong (an unknown ranker, a fusion the index holds no parameters for):
// a usage error.
func isRankerUsage(err error) bool {
	return errors.Is(err, rank.ErrUnknownRanker) || errors.Is(err, rank.ErrNoTunedParams)
}

// printAnswers prints answers for people. Text from the corpus goes
// through display.Escape: a document cannot retitle or recolour the
// terminal.
func printAnswers(w io.Writer, q, ranker string, answers []rank.Answer) {
	if len(answers) == 0 {
		fmt.Fprintf(w, "no answer: no candidate shares a term with %q (%s)\n", q, ranker)
		return
	}
	for _, a := range answers {
		fmt.Fprintf(w, "%d. [%s %.3f%s] %s\n", a.Rank, ranker, a.Score, inputScores(a), display.Escape(a.Sentence, true))
		where := a.Title
		if a.Source != "" {
			if where != "" {
				where += " — "
			}
			where += a.Source
		}
		if a.ID != "" {
			where += " (id " + a.ID + ")"
		}
		if where != "" {
			fmt.Fprintf(w, "   from: %s\n", display.Escape(where, false))
		}
		if len(a.Also) > 0 {
			fmt.Fprintf(w, "   also in: %s\n", display.Escape(strings.Join(a.Also, ", "), false))
		}
		fmt.Fprintf(w, "   context: %s\n\n", display.Escape(markSentence(a), true))
	}
}

// inputScores formats a fused answer's per-ranker scores.
func inputScores(a rank.Answer) string {
	if len(a.Scores) == 0 {
		return ""
	}
	names := make([]string, 0, len(a.Scores))
	for n := range a.Scores {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, " | %s %.3f", n, a.Scores[n])
	}
	return b.String()
}

// markSentence returns the context with the answer sentence between ⟦ and ⟧.
func markSentence(a rank.Answer) string {
	if a.Start < 0 || a.End > len(a.Context) || a.Start > a.End {
		return a.Context
	}
	return a.Context[:a.Start] + "⟦" + a.Context[a.Start:a.End] + "⟧" + a.Context[a.End:]
}
