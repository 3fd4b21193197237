package main

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/store"
)

// democorpus is the embedded default corpus: a guide to reqa written for
// this project.
//
//go:embed democorpus/*.md
var democorpus embed.FS

var demoQuestions = []string{
	"Where does the whole index live?",
	"What happens when a build is interrupted?",
	"Which tokenizer does not lowercase?",
	"What values of k1 and b does reqa use?",
	"What does precision at one measure?",
}

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "index the embedded guide to reqa and answer a few questions about it",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "ranker", Aliases: []string{"r"}, Usage: "ranker (default: fusion of BM25 and the dense encoder when the encoder is embedded, else bm25-wpm)"},
			&cli.BoolFlag{Name: "dense", Value: true, Usage: "embed the guide with the dense encoder too"},
			&cli.IntFlag{Name: "threads", Usage: "ONNX Runtime threads per run (0: 1)"},
			&cli.Float64Flag{Name: "lambda", Value: defaultLambda, Usage: "dense context weight"},
			&cli.IntFlag{Name: "k", Value: 1, Usage: "answers per question"},
			jsonFlag("print the index summary and each question's answers as JSON (each answer list shaped like ask --json)"),
			quietFlag(),
		},
		OnUsageError: onUsage,
		Action:       demoAction,
	}
}

func demoAction(c *cli.Context) error {
	spec, err := rank.ParseSpec(c.String("ranker"))
	if err != nil {
		return usagef("demo: --ranker: %v", err)
	}
	spec.Dense = rank.DenseOptions{ANN: true}
	tmp, err := os.MkdirTemp("", "reqa-demo-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	meta, out, err := demoIndex(c, tmp)
	if err != nil {
		return err
	}
	w := c.App.Writer
	asJSON := c.Bool("json")
	if !asJSON {
		fmt.Fprintf(w, "Indexed the embedded guide: %d sentences in %d paragraphs", meta.Sentences, meta.Contexts)
		if meta.Dense != nil {
			fmt.Fprintf(w, ", embedded with %s", meta.Dense.Encoder)
		}
		fmt.Fprint(w, ".\n\n")
	}
	e, err := rank.Open(out)
	if err != nil {
		return err
	}
	defer e.Close()
	r, err := e.Resolve(spec)
	if isRankerUsage(err) {
		return usagef("demo: %v", err)
	}
	if err != nil {
		return err
	}
	res := demoResult{Sentences: meta.Sentences, Contexts: meta.Contexts, Questions: []demoAnswers{}}
	if meta.Dense != nil {
		res.Encoder = meta.Dense.Encoder
	}
	for _, q := range demoQuestions {
		answers, err := e.Ask(c.Context, r, q, c.Int("k"))
		if err != nil {
			return err
		}
		for i := range answers {
			answers[i].Source = filepath.Base(answers[i].Source)
		}
		if asJSON {
			if answers == nil {
				answers = []rank.Answer{}
			}
			res.Questions = append(res.Questions, demoAnswers{Question: q, Ranker: r.Name(), Answers: answers})
			continue
		}
		fmt.Fprintf(w, "Q: %s\n", q)
		for _, a := range answers {
			printAnswers(w, q, r.Name(), []rank.Answer{a})
		}
	}
	if asJSON {
		return writeJSON(w, res)
	}
	return nil
}

// demoIndex writes the embedded guide into dir (so that every answer names
// a real file) and indexes it there; it returns the index's meta and path.
func demoIndex(c *cli.Context, dir string) (store.Meta, string, error) {
	err := fs.WalkDir(democorpus, "democorpus", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := democorpus.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644)
	})
	if err != nil {
		return store.Meta{}, "", fmt.Errorf("demo: %w", err)
	}
	corpus, err := ingest.ReadInputs([]string{dir})
	if err != nil {
		return store.Meta{}, "", err
	}
	out := filepath.Join(dir, "demo.reqa")
	opt := index.Options{Builder: builder()}
	if c.Bool("dense") {
		if err := withEncoder(c, &opt); err != nil {
			if !c.Bool("quiet") {
				fmt.Fprintf(c.App.ErrWriter, "reqa: demo without the dense encoder: %v\n", err)
			}
		} else {
			defer opt.Encoder.Close()
		}
	}
	meta, err := index.Build(c.Context, corpus, out, opt)
	return meta, out, err
}

// demoResult is `reqa demo --json`'s output: what was indexed and, for each
// question, the same object `reqa ask --json` prints.
type demoResult struct {
	Sentences int           `json:"sentences"`
	Contexts  int           `json:"contexts"`
	Encoder   string        `json:"encoder,omitempty"`
	Questions []demoAnswers `json:"questions"`
}

// demoAnswers is one question's answers, shaped like `reqa ask --json`.
type demoAnswers struct {
	Question string        `json:"question"`
	Ranker   string        `json:"ranker"`
	Answers  []rank.Answer `json:"answers"`
}
