package main

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKillIndexBuild kills `reqa index` with SIGKILL at random moments while
// it rebuilds an existing index from other input: after every kill the
// previous index is byte-identical and answers exactly as before, and the
// next successful build leaves no temporary file behind. REQA_CRASH_TRIALS
// sets the number of builds killed (default 4).
func TestKillIndexBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("kill trials skipped in -short mode")
	}
	trials := 4
	if s := os.Getenv("REQA_CRASH_TRIALS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("REQA_CRASH_TRIALS=%q", s)
		}
		trials = n
	}
	dir := t.TempDir()
	idx, dense := serveIndex(t, true)
	// Keep the index in a directory of its own, as a user would.
	target := filepath.Join(dir, "notes.reqa")
	orig, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	rankers := []string{"bm25-wpm", "bm25-word"}
	if dense {
		rankers = append(rankers, "dense", "fusion-zscore")
	}
	askAll := func() string {
		var b strings.Builder
		for _, r := range rankers {
			code, out, errs := reqa(t, "ask", "--index", target, "--ranker", r, "--json", "--k", "3", "When does the ferry return?")
			fmt.Fprintf(&b, "%s %d %s %s\n", r, code, out, errs)
		}
		return b.String()
	}
	want := askAll()
	if strings.Count(want, `"sentence"`) < 3*len(rankers) {
		t.Fatalf("the index does not answer:\n%s", want)
	}

	// Other input, large enough that the build takes a while.
	var in strings.Builder
	for i := range 120 {
		fmt.Fprintf(&in, "Paragraph %d tells of the ferry %d. It leaves at %d and returns at noon. Tickets cost %d euros.\n\n", i, i%37, i%12+1, i%9+2)
	}
	src := writeFile(t, dir, "other.txt", in.String())
	build := func(out string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "index", "--quiet", "--out", out, src)
		cmd.Env = append(os.Environ(), "REQA_RUN_MAIN=1")
		return cmd
	}
	// How long a whole build takes, to kill within it.
	start := time.Now()
	if out, err := build(filepath.Join(t.TempDir(), "timing.reqa")).CombinedOutput(); err != nil {
		t.Fatalf("a full build failed: %v\n%s", err, out)
	}
	full := time.Since(start)

	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	killed, finished, staleSeen := 0, 0, 0
	// Count only builds actually killed; one that finishes first shortens
	// the estimate of a build's length.
	for i := 0; killed < trials; i++ {
		if i >= 4*trials {
			t.Fatalf("only %d of %d attempts were killed before finishing", killed, i)
		}
		cmd := build(target)
		began := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Half the kills anywhere in the build, half near its end, where
		// the index file is written and committed.
		delay := time.Duration(rng.Int63n(int64(full) * 11 / 10))
		if i%2 == 1 {
			delay = full*7/10 + time.Duration(rng.Int63n(int64(full)*4/10))
		}
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		if err == nil {
			// The build finished first: put the old index back.
			finished++
			full = min(full, time.Since(began))
			if err := os.WriteFile(target+".restore", orig, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(target+".restore", target); err != nil {
				t.Fatal(err)
			}
			continue
		}
		killed++
		got, err := os.ReadFile(target)
		if err != nil || !bytes.Equal(got, orig) {
			t.Fatalf("trial %d (killed after %v of ~%v): the previous index changed (%v)", i, delay, full, err)
		}
		if after := askAll(); after != want {
			t.Fatalf("trial %d (killed after %v): the previous index answers differently:\n%s\nwant\n%s", i, delay, after, want)
		}
		if m, _ := filepath.Glob(filepath.Join(dir, ".notes.reqa.reqa-build-*")); len(m) > 0 {
			staleSeen++
		}
	}
	// The next successful build clears what the killed ones left.
	if code, _, errs := reqa(t, "index", "--quiet", "--dense=false", "--out", target, src); code != 0 {
		t.Fatalf("build after the kills: exit %d: %s", code, errs)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) != 0 {
		t.Fatalf("temporary files left after a successful build: %v", m)
	}
	t.Logf("%d builds killed at random moments (a full build takes about %v), %d finished first; %d kills left a temporary file, removed by the next build",
		killed, full.Round(time.Millisecond), finished, staleSeen)
}
