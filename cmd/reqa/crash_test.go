package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// synthCorpus writes n paragraphs of generated prose (seeded, so every run
// writes the same text) to path.
func synthCorpus(t *testing.T, path string, n int, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	adj := []string{"quiet", "northern", "copper", "ancient", "narrow", "bright", "hollow", "frozen", "busy", "green"}
	noun := []string{"harbour", "mill", "orchard", "bridge", "tower", "market", "valley", "canal", "forge", "garden"}
	verb := []string{"supplies", "overlooks", "replaced", "feeds", "guards", "connects", "shelters", "outlived"}
	place := []string{"river", "station", "square", "cliffs", "abbey", "quarry", "lake", "border"}
	var b strings.Builder
	for i := 0; i < n; i++ {
		for j := 0; j < 3+r.IntN(3); j++ {
			fmt.Fprintf(&b, "The %s %s %s the %s %s near the %s in %d. ", pick(adj), pick(noun), pick(verb), pick(adj), pick(noun), pick(place), 1700+r.IntN(300))
		}
		b.WriteString("\n\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// crashQuestions are asked after every kill.
var crashQuestions = []string{"which copper mill feeds the harbour", "what guards the frozen bridge near the abbey", "the narrow canal in 1850"}

// answersOf returns the JSON answers of every crash question through every
// ranker the index has: the index's observable state.
func answersOf(t *testing.T, idx string, dense bool) string {
	t.Helper()
	var all strings.Builder
	rankers := []string{"bm25-word", "bm25-wpm"}
	if dense {
		rankers = append(rankers, "dense")
	}
	for _, r := range rankers {
		for _, q := range crashQuestions {
			code, out, errs := reqa(t, "ask", "--index", idx, "-r", r, "--exact", "--json", "--k", "5", q)
			if code != 0 {
				t.Fatalf("ask %s %q on %s: exit %d: %s", r, q, idx, code, errs)
			}
			all.WriteString(out)
		}
	}
	return all.String()
}

func fileHash(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func copyIndexFile(t *testing.T, dst, src string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestKillTrials kills `reqa index` and `reqa index --append` with SIGKILL
// at random moments. After every kill the previous index must be
// byte-identical and answer exactly as before (or, when the kill came after
// the commit, be the complete new index, answering as a clean run does), and the next successful run must
// leave no temporary file behind. REQA_CRASH_TRIALS sets the number of
// trials of each kind (default 1; `make test-crash` runs 20 of each).
func TestKillTrials(t *testing.T) {
	if testing.Short() {
		// May skip in CI: -short is a mode; make test and CI run without it.
		t.Skip("kill trials skipped in -short mode")
	}
	trials := 1
	if s := os.Getenv("REQA_CRASH_TRIALS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			t.Fatalf("REQA_CRASH_TRIALS=%q: want a count", s)
		}
		trials = n
	}
	dir := t.TempDir()
	base, extra := filepath.Join(dir, "base.txt"), filepath.Join(dir, "extra.txt")
	synthCorpus(t, base, 60, 1)
	synthCorpus(t, extra, 90, 2)
	golden := filepath.Join(dir, "golden.reqa")
	if code, _, errs := reqa(t, "index", "--out", golden, base); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	var stats struct {
		Meta struct {
			Dense *struct{} `json:"dense"`
		} `json:"meta"`
	}
	if _, st, _ := reqa(t, "stats", "--json", golden); json.Unmarshal([]byte(st), &stats) != nil {
		t.Fatalf("stats --json: %s", st)
	}
	dense := stats.Meta.Dense != nil
	if !dense {
		t.Log("the dense encoder is not embedded in this build: BM25-only trials")
	}
	before := answersOf(t, golden, dense)
	beforeHash := fileHash(t, golden)

	// The states a finished run reaches, for runs that beat the kill.
	rebuilt := filepath.Join(dir, "rebuilt.reqa")
	t0 := time.Now()
	if code, _, errs := reqa(t, "index", "--out", rebuilt, base, extra); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	rebuildTime := time.Since(t0)
	afterRebuild := answersOf(t, rebuilt, dense)
	appended := filepath.Join(dir, "appended.reqa")
	copyIndexFile(t, appended, golden)
	start := time.Now()
	if code, _, errs := reqa(t, "index", "--append", "--out", appended, extra); code != 0 {
		t.Fatalf("append: exit %d: %s", code, errs)
	}
	runTime := time.Since(start)
	afterAppend := answersOf(t, appended, dense)
	if afterAppend != afterRebuild {
		t.Fatal("append and rebuild answer differently")
	}

	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	idx := filepath.Join(dir, "trial.reqa")
	killedMidway, committed, finished := 0, 0, 0
	for i := 0; i < 2*trials; i++ {
		kind := "index"
		args := []string{"index", "--quiet", "--out", idx, base, extra}
		if i%2 == 1 {
			kind = "append"
			args = []string{"index", "--quiet", "--append", "--out", idx, extra}
		}
		copyIndexFile(t, idx, golden)
		// Half the kills anywhere from process start to a little past a
		// whole run (the subprocess also pays its start-up), half near the
		// end of a run, where the file is written, synced and renamed.
		span := runTime
		if kind == "index" {
			span = rebuildTime
		}
		delay := time.Duration(r.Int64N(int64(span*3/2) + int64(50*time.Millisecond)))
		if (i/2)%2 == 1 {
			delay = span*7/10 + time.Duration(r.Int64N(int64(span*5/10)))
		}
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "REQA_RUN_MAIN=1")
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var werr error
		select {
		case werr = <-done:
		case <-time.After(delay):
			cmd.Process.Signal(syscall.SIGKILL)
			werr = <-done
		}
		outcome := ""
		if werr == nil {
			finished++
			outcome = "finished first"
			if got := answersOf(t, idx, dense); got != afterRebuild {
				t.Fatalf("trial %d (%s): finished run answers differently from a clean one", i, kind)
			}
		} else {
			if ee, ok := werr.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("trial %d (%s): %v\n%s", i, kind, werr, errb.String())
			}
			// The rename is atomic: the index is either the old file,
			// byte for byte, or — when the kill came after the commit but
			// before the process exited — the complete new index.
			if fileHash(t, idx) == beforeHash {
				killedMidway++
				outcome = "killed; index unchanged"
				if got := answersOf(t, idx, dense); got != before {
					t.Fatalf("trial %d (%s) killed after %v: the index answers differently", i, kind, delay)
				}
			} else {
				committed++
				outcome = "killed after the commit; index complete"
				if got := answersOf(t, idx, dense); got != afterRebuild {
					t.Fatalf("trial %d (%s) killed after %v: the index changed and is not the complete new index", i, kind, delay)
				}
			}
		}
		t.Logf("trial %d: %-6s kill at %-8v → %s", i, kind, delay.Round(time.Millisecond), outcome)
		// The next successful run leaves no temporary file behind.
		copyIndexFile(t, idx, golden)
		if code, _, errs := reqa(t, "index", "--quiet", "--append", "--out", idx, extra); code != 0 {
			t.Fatalf("append after trial %d: exit %d: %s", i, code, errs)
		}
		if m, _ := filepath.Glob(filepath.Join(dir, ".trial.reqa.*")); len(m) != 0 {
			t.Fatalf("after trial %d and a successful append: temporary files left: %v", i, m)
		}
	}
	t.Logf("%d trials: %d killed mid-run (index byte-identical every time), %d killed between commit and exit (index complete), %d finished before the kill; append run time %v",
		2*trials, killedMidway, committed, finished, runTime.Round(time.Millisecond))
}
