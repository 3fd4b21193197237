// Command mkdocsqa builds the docs QA benchmark: a ReQA dataset directory
// made from pinned documentation sets and questions written for them.
//
// It reads each source document through reqa's own readers
// (ingest.ReadInputs), so the candidates are whatever the readers of this
// build make of the documents, resolves every question's gold answer (an
// exact substring of the answering sentence) to the candidate ids of the
// named file that contain it, and writes
//
//	OUT/docsqa/         every document set: contexts.jsonl, candidates.jsonl,
//	                    questions.jsonl, split.json, domains.json, LICENSES/
//	OUT/docsqa-SET/     the same for one document set alone
//
// The Makefile (`make docsqa`) fetches the sources, pinned, and runs
//
//	go run ./cmd/mkdocsqa -src third_party/docsqa/src -out third_party/docsqa
//
// A question whose answer is nowhere in its file is an error in the
// question. A question whose answer is in the file but in no single
// candidate (the reader cut the sentence, or refused the file) is an error
// too, unless -allow-missing, which drops it and lists it in missing.json:
// to measure readers that lose text, count those questions as misses.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/reqa/reqa/ingest"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("mkdocsqa", flag.ContinueOnError)
	src := fs.String("src", "third_party/docsqa/src", "directory holding the fetched document sets (one subdirectory per set)")
	out := fs.String("out", "third_party/docsqa", "directory to write the datasets into")
	qdir := fs.String("questions", "cmd/mkdocsqa/questions", "directory holding sources.json (or the blind benchmark's SOURCES.tsv and split.json) and the questions (*.jsonl)")
	textDir := fs.String("text", "", "directory of independent renderings SET.txt that answers must be in (the blind benchmark)")
	name := fs.String("name", "docsqa", "name of the datasets written: OUT/NAME/ and OUT/NAME-SET/")
	allowMissing := fs.Bool("allow-missing", false, "drop (and list in missing.json) questions whose answer no candidate holds, instead of failing")
	choice := fs.String("context", "", "context choice for documents: "+strings.Join(ingest.ContextChoices, ", ")+" (default: ingest's, "+ingest.DefaultContext+")")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: mkdocsqa [-src DIR] [-out DIR] [-questions DIR] [-context CHOICE] [-allow-missing]")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg := Config{SrcDir: *src, QuestionsDir: *qdir, OutDir: *out, Name: *name, TextDir: *textDir, AllowMissing: *allowMissing, Context: *choice, Log: os.Stderr}
	if err := ingest.CheckContext(*choice); err != nil {
		fmt.Fprintln(os.Stderr, "mkdocsqa:", err)
		return 2
	}
	sum, err := Build(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkdocsqa:", err)
		if errors.Is(err, context.Canceled) {
			return 130
		}
		return 1
	}
	for _, d := range sum.Domains {
		held := ""
		if d.HeldOut {
			held = " (held out: docsqa-" + d.Name + " only)"
		}
		fmt.Fprintf(os.Stderr, "mkdocsqa: %-10s %3d files %5d contexts %6d candidates %4d questions (tune %d, test %d; %d paraphrases), %d missing%s\n",
			d.Name, d.Files, d.Contexts, d.Candidates, d.Questions, d.Tune, d.Test, d.Paraphrases, d.Missing, held)
	}
	if len(sum.Missing) > 0 {
		fmt.Fprintf(os.Stderr, "mkdocsqa: %d questions dropped: the readers keep no sentence holding their answer (listed in %s/missing.json; count them as misses)\n", len(sum.Missing), sum.Dirs[0])
	}
	fmt.Fprintf(os.Stderr, "mkdocsqa: wrote %s\n", sum.Dirs[0])
	return 0
}
