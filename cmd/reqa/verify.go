package main

import (
	"errors"
	"fmt"
	"github.com/reqa/reqa/index"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/reqa/reqa/internal/display"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/store"
)

// errDamaged is verify's error when it found damage (exit status 1).
var errDamaged = errors.New("index is damaged")

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "check a whole index for damage: every record, postings list, vector, graph and model",
		Description: "Reads every page of the index and checks every checksum, term dictionary, postings list, document\n" +
			"lengths, the embeddings, the ANN graph, the model's hash, the question adapter and the fusion\n" +
			"parameters. Run it on an index copied to another machine before relying on it: asking reads only\n" +
			"the parts a question needs. Exit status 1 when anything is damaged.",
		ArgsUsage:    "INDEX",
		Flags:        []cli.Flag{jsonFlag("print the report as JSON"), quietFlag()},
		OnUsageError: onUsage,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("verify: want exactly one INDEX file")
			}
			path := c.Args().First()
			rep, err := index.Verify(path, index.VerifyOptions{Fusions: rank.CheckFusions})
			if err != nil {
				return err
			}
			problems := make([]string, len(rep.Problems))
			for i, p := range rep.Problems {
				problems[i] = p.Error()
			}
			if c.Bool("json") {
				if err := writeJSON(c.App.Writer, map[string]any{"index": path, "ok": rep.OK(), "records": rep.Records, "bytes": rep.Bytes,
					"postings_lists": rep.Postings, "parts": rep.Parts, "problems": problems}); err != nil {
					return err
				}
			} else if rep.OK() {
				fmt.Fprintf(c.App.Writer, "%s: ok — %d records (%s), %d postings lists; checked %s\n",
					safeName(path), rep.Records, display.Bytes(rep.Bytes), rep.Postings, strings.Join(rep.Parts, ", "))
			}
			if rep.OK() {
				return nil
			}
			if !c.Bool("json") {
				for _, p := range problems {
					fmt.Fprintf(c.App.ErrWriter, "reqa: verify: %s\n", p)
				}
				if len(problems) == store.MaxProblems {
					fmt.Fprintf(c.App.ErrWriter, "reqa: verify: (at most %d problems are listed)\n", store.MaxProblems)
				}
			}
			noun := "problems"
			if len(problems) == 1 {
				noun = "problem"
			}
			return fmt.Errorf("verify %s: %d %s: %w", path, len(problems), noun, errDamaged)
		},
	}
}
