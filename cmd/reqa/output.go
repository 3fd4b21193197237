package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/reqa/reqa/internal/display"
	"github.com/urfave/cli/v2"
)

func onUsage(c *cli.Context, err error, _ bool) error {
	return usagef("%s: %v (see reqa %s --help)", c.Command.Name, err, c.Command.Name)
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressPrinter returns a progress callback for stderr: on a terminal it
// redraws one line; written to a file or a pipe (a log), it prints a line
// every 30 seconds of a stage that runs that long, and the stage's last
// line then. It prints nothing with --quiet, or when stderr is not a file.
func progressPrinter(c *cli.Context) func(stage string, done, total int) {
	f, ok := c.App.ErrWriter.(*os.File)
	if !ok || c.Bool("quiet") {
		return nil
	}
	term := isTerminal(f)
	every := 100 * time.Millisecond
	if !term {
		every = logProgressEvery
	}
	start := time.Now()
	last := time.Time{}
	lastStage := ""
	var mu sync.Mutex // tokenizer workers report concurrently
	return func(stage string, done, total int) {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		if stage != lastStage {
			start, lastStage = now, stage
			last = now
			if term {
				last = time.Time{}
			}
		}
		if done < total && now.Sub(last) < every || !term && done >= total && last.Equal(start) {
			return
		}
		last = now
		// A rate and an ETA only once the stage has run long enough for
		// them to mean something (a first report came out as "+Inf/s").
		speed := ""
		if secs := now.Sub(start).Seconds(); secs >= 0.2 && done > 0 {
			rate := float64(done) / secs
			speed = fmt.Sprintf(" (%.0f/s)", rate)
			if done < total {
				speed += fmt.Sprintf(" ETA %s", (time.Duration(float64(total-done)/rate) * time.Second).Round(time.Second))
			}
		}
		if !term {
			fmt.Fprintf(f, "%s %d/%d%s\n", stage, done, total, speed)
			return
		}
		fmt.Fprintf(f, "\r\033[K%s %d/%d%s", stage, done, total, speed)
		if done >= total {
			fmt.Fprintln(f)
		}
	}
}

// logProgressEvery is how often progress goes to a log (a stderr that is
// not a terminal).
var logProgressEvery = 30 * time.Second

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// jsonFlag is every command's --json.
func jsonFlag(usage string) cli.Flag { return &cli.BoolFlag{Name: "json", Usage: usage} }

// quietFlag is every command's --quiet: no progress or notes on stderr
// (warnings and errors still go there).
func quietFlag() cli.Flag {
	return &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress output"}
}

// safeName shows a file name (or any name from outside) in a message: control
// characters escaped, so a hostile name cannot act on the terminal.
func safeName(s string) string { return display.Escape(s, false) }
