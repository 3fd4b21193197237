package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestSyncKillTrials kills `reqa index --sync` with SIGKILL at random
// moments, like TestKillTrials: after every kill the index is the
// previous one, byte for byte, or — killed after the commit — the
// complete synced index, answering as a fresh build of the tree does; and
// the next successful sync leaves no temporary file behind.
// REQA_CRASH_TRIALS sets the number of trials (default 2).
func TestSyncKillTrials(t *testing.T) {
	if testing.Short() {
		// May skip in CI: -short only (make test does not pass it).
		t.Skip("kill trials skipped in -short mode")
	}
	trials := 2
	if s := os.Getenv("REQA_CRASH_TRIALS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			t.Fatalf("REQA_CRASH_TRIALS=%q: want a count", s)
		}
		trials = n
	}
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	if err := os.Mkdir(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	// Enough files that the sync keeps most sentences and so updates the
	// ANN graph instead of building it again (both write paths are killed).
	for i, name := range []string{"a.txt", "b.txt", "c.txt", "d.txt", "f.txt", "g.txt", "h.txt", "i.txt"} {
		synthCorpus(t, filepath.Join(tree, name), 25, uint64(10+i))
	}
	golden := filepath.Join(dir, "golden.reqa")
	if code, _, errs := reqa(t, "index", "--quiet", "--out", golden, tree); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	dense := stateHasDense(t, golden)
	before := answersOf(t, golden, dense)
	beforeHash := fileHash(t, golden)

	// The tree changes: one file rewritten, one removed, one added.
	synthCorpus(t, filepath.Join(tree, "b.txt"), 30, 20)
	os.Remove(filepath.Join(tree, "c.txt"))
	synthCorpus(t, filepath.Join(tree, "e.txt"), 30, 21)
	fresh := filepath.Join(dir, "fresh.reqa")
	if code, _, errs := reqa(t, "index", "--quiet", "--out", fresh, tree); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	afterFresh := answersOf(t, fresh, dense)
	synced := filepath.Join(dir, "synced.reqa")
	copyIndexFile(t, synced, golden)
	start := time.Now()
	code, out, errs := reqa(t, "index", "--sync", "--out", synced, tree)
	if code != 0 {
		t.Fatalf("sync: exit %d: %s", code, errs)
	}
	runTime := time.Since(start)
	t.Logf("clean sync: %s", out)
	if got := answersOf(t, synced, dense); got != afterFresh {
		t.Fatal("the synced index and a fresh build answer differently")
	}

	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3))
	idx := filepath.Join(dir, "trial.reqa")
	killedMidway, committed, finished := 0, 0, 0
	for i := 0; i < trials; i++ {
		copyIndexFile(t, idx, golden)
		delay := time.Duration(r.Int64N(int64(runTime*3/2) + int64(50*time.Millisecond)))
		if i%2 == 1 {
			delay = runTime*7/10 + time.Duration(r.Int64N(int64(runTime*5/10)))
		}
		cmd := exec.Command(os.Args[0], "index", "--quiet", "--sync", "--out", idx, tree)
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
		switch {
		case werr == nil:
			finished++
			outcome = "finished first"
			if got := answersOf(t, idx, dense); got != afterFresh {
				t.Fatalf("trial %d: finished sync answers differently from a fresh build", i)
			}
		case fileHash(t, idx) == beforeHash:
			if ee, ok := werr.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("trial %d: %v\n%s", i, werr, errb.String())
			}
			killedMidway++
			outcome = "killed; index unchanged"
			if got := answersOf(t, idx, dense); got != before {
				t.Fatalf("trial %d killed after %v: the index answers differently", i, delay)
			}
		default:
			if ee, ok := werr.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("trial %d: %v\n%s", i, werr, errb.String())
			}
			committed++
			outcome = "killed after the commit; index complete"
			if got := answersOf(t, idx, dense); got != afterFresh {
				t.Fatalf("trial %d killed after %v: the index changed and is not the complete synced index", i, delay)
			}
		}
		t.Logf("trial %d: sync kill at %-8v → %s", i, delay.Round(time.Millisecond), outcome)
		copyIndexFile(t, idx, golden)
		if code, _, errs := reqa(t, "index", "--quiet", "--sync", "--out", idx, tree); code != 0 {
			t.Fatalf("sync after trial %d: exit %d: %s", i, code, errs)
		}
		if m, _ := filepath.Glob(filepath.Join(dir, ".trial.reqa.*")); len(m) != 0 {
			t.Fatalf("after trial %d and a successful sync: temporary files left: %v", i, m)
		}
	}
	t.Logf("%d sync trials: %d killed mid-run (index byte-identical every time), %d killed between commit and exit (index complete), %d finished before the kill; sync run time %v",
		trials, killedMidway, committed, finished, runTime.Round(time.Millisecond))
}

// stateHasDense says whether the index at path has embeddings.
func stateHasDense(t *testing.T, path string) bool {
	t.Helper()
	_, st, _ := reqa(t, "stats", "--json", path)
	return bytes.Contains([]byte(st), []byte(`"dense":{`))
}
