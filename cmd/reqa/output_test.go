package main

import (
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// TestProgressToLog: written to a file, progress is a plain line now and
// then and a stage's last line when it printed one; a stage shorter than
// the interval prints nothing, and --quiet nothing at all.
func TestProgressToLog(t *testing.T) {
	for _, tc := range []struct {
		name  string
		every time.Duration
		quiet bool
		want  string
	}{
		{"long stages", 0, false, "embedding 1/3\nembedding 2/3\nembedding 3/3\n"},
		{"short stages", time.Hour, false, ""},
		{"quiet", 0, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(d time.Duration) { logProgressEvery = d }(logProgressEvery)
			logProgressEvery = tc.every
			f, err := os.Create(t.TempDir() + "/log")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fs := flag.NewFlagSet("index", flag.ContinueOnError)
			fs.Bool("quiet", tc.quiet, "")
			p := progressPrinter(cli.NewContext(&cli.App{ErrWriter: f}, fs, nil))
			if p != nil {
				for i := 1; i <= 3; i++ {
					p("embedding", i, 3)
				}
			}
			b, err := os.ReadFile(f.Name())
			if err != nil {
				t.Fatal(err)
			}
			// Rates depend on timing: compare without them.
			var got []string
			for _, l := range strings.SplitAfter(string(b), "\n") {
				if i := strings.Index(l, " ("); i >= 0 {
					l = l[:i] + "\n"
				}
				got = append(got, l)
			}
			if strings.Join(got, "") != tc.want {
				t.Errorf("log %q, want %q", b, tc.want)
			}
		})
	}
}
