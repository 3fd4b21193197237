// Command reqa is a retrieval question-answering appliance: it indexes a
// corpus into one file and answers questions with the sentence that answers
// them, shown in its context.
//
// Every command takes --json: stdout then carries JSON only (one document;
// for serve, one JSON object per line) and progress, warnings and errors go
// to stderr.
//
// Exit codes: 0 success, 1 error (bad input, damaged index, …), 2 usage
// error (unknown flag or command, missing argument), 3 `reqa convert` wrote
// the dataset but skipped bad records (see its report), 130 interrupted.
//
// The package holds flags, wiring and printing only, one file per command
// (index.go, ask.go, eval*.go, fuse.go, tune.go, stats.go, verify.go,
// convert.go, demo.go, serve.go) and output.go for what they share: ranker
// names and defaults are package rank's (rank.ParseSpec, Engine.Resolve),
// the index's names package store's.
package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/reqa/reqa/index/adapter"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"
)

// version is reqa's version, stamped into every index it builds.
const version = "0.1.0"

func builder() string { return fmt.Sprintf("reqa %s (%s)", version, runtime.Version()) }

// usageError marks errors that should exit with status 2.
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

func main() {
	if len(os.Args) == 2 && os.Args[1] == ingest.ParseWorkerArg {
		// A document parser worker of `reqa index` (hidden; see
		// ingest.Parsers).
		os.Exit(ingest.ServeParseWorker(os.Stdin, os.Stdout))
	}
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	app := newApp(stdout, stderr)
	unknown := ""
	app.CommandNotFound = func(c *cli.Context, name string) { unknown = name }
	args = flagsFirst(app, args)
	err := app.RunContext(ctx, args)
	if unknown != "" && len(args) > 1 && args[1] == unknown {
		fmt.Fprintf(stderr, "reqa: unknown command %q (see reqa --help)\n", unknown)
		return 2
	}
	if err == nil {
		return 0
	}
	var ue usageError
	switch {
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "reqa: interrupted; nothing was changed")
		return 130
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "reqa: %v\n", err)
		return 2
	}
	if ec, ok := err.(cli.ExitCoder); ok && ec.ExitCode() != 0 {
		fmt.Fprintf(stderr, "reqa: %v%s\n", err, advice(err))
		return ec.ExitCode()
	}
	// urfave/cli reports unknown flags and the like as plain errors after
	// printing help; treat flag parsing failures as usage errors.
	if isFlagError(err) {
		fmt.Fprintf(stderr, "reqa: %v\n", err)
		return 2
	}
	fmt.Fprintf(stderr, "reqa: %v%s\n", err, advice(err))
	return 1
}

// advice is what the command line adds to an error the library packages
// report: what to run about it.
func advice(err error) string {
	switch {
	case errors.Is(err, rank.ErrNoEmbeddings):
		return " (rebuild with `reqa index --dense`)"
	case errors.Is(err, rank.ErrNoTunedParams):
		return " (run `reqa fuse --index FILE DATASET_DIR`, or eval --params-from)"
	case errors.Is(err, adapter.ErrEncoderMismatch):
		return " (retrain it with `reqa tune`, or run with --no-adapter)"
	}
	return ""
}

func newApp(stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:    "reqa",
		Usage:   "answer questions with the sentence that answers them",
		Version: shortVersion(),
		Description: "Every command takes --json: stdout then holds JSON only (serve: one object per line), while\n" +
			"progress, warnings and errors go to stderr.\n\n" +
			"Exit codes: 0 success, 1 error (bad input, damaged or foreign index, …), 2 usage error (unknown\n" +
			"flag or command, missing argument), 3 `reqa convert` wrote the dataset but skipped bad records,\n" +
			"130 interrupted (Ctrl-C; an interrupted build leaves any existing index untouched).\n\n" +
			inputsHelp(),
		EnableBashCompletion: true,
		Writer:               stdout,
		ErrWriter:            stderr,
		HideHelpCommand:      true,
		ExitErrHandler:       func(*cli.Context, error) {},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usagef("%v (see reqa --help)", err)
		},
		Commands: []*cli.Command{indexCommand(), askCommand(), evalCommand(), fuseCommand(), tuneCommand(), statsCommand(), verifyCommand(), convertCommand(), demoCommand(), serveCommand(), versionCommand(), completionCommand(), manCommand()},
	}
}

func isFlagError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"flag provided but not defined", "flag needs an argument", "invalid value", "invalid boolean", "Required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// flagsFirst moves the command's flags written after its arguments
// (`reqa ask -i x.reqa "question" -k 3`) in front of them, where the flag
// parser looks for them; without this the flags would silently become part
// of the question. Only the command's own flag names move (with their
// value); "--" ends the flags, and everything after it stays an argument.
func flagsFirst(app *cli.App, args []string) []string {
	if len(args) < 3 {
		return args
	}
	var cmd *cli.Command
	for _, c := range app.Commands {
		if c.HasName(args[1]) {
			cmd = c
		}
	}
	if cmd == nil {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		tv := true
		if v, ok := f.(interface{ TakesValue() bool }); ok {
			tv = v.TakesValue()
		}
		for _, n := range f.Names() {
			takesValue[n] = tv
		}
	}
	takesValue["help"], takesValue["h"] = false, false
	var flags, rest []string
	seenArg := false
	for i := 2; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name := strings.TrimLeft(a, "-")
		if eq := strings.IndexByte(name, '='); eq >= 0 {
			name = name[:eq]
		}
		tv, known := takesValue[name]
		if !strings.HasPrefix(a, "-") || a == "-" || !known {
			rest = append(rest, a)
			seenArg = true
			continue
		}
		flags = append(flags, a)
		if tv && !strings.Contains(a, "=") && i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	if !seenArg {
		return args
	}
	out := append([]string{args[0], args[1]}, flags...)
	return append(out, rest...)
}
