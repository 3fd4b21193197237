package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReadWhileAnotherProcessAppends: while one process appends to an index
// (and a second append waits for it), readers in this process answer from
// the last committed index without waiting; afterwards they see both
// appends. This is the documented behaviour: readers read the last
// committed state, writers take turns and say so.
func TestReadWhileAnotherProcessAppends(t *testing.T) {
	dir := t.TempDir()
	base, extra1, extra2 := filepath.Join(dir, "base.txt"), filepath.Join(dir, "extra1.txt"), filepath.Join(dir, "extra2.txt")
	synthCorpus(t, base, 20, 11)
	synthCorpus(t, extra1, 400, 12) // big enough that the append takes a while
	if err := os.WriteFile(extra2, []byte("Owls hunt mice in the barn at night.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(dir, "x.reqa")
	if code, _, errs := reqa(t, "index", "--quiet", "--dense=false", "--out", idx, base); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	sentences := func() int {
		t.Helper()
		code, out, errs := reqa(t, "stats", "--json", idx)
		var st struct {
			Meta struct{ Sentences int } `json:"meta"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
			t.Fatalf("stats during the append: exit %d: %s %s", code, out, errs)
		}
		return st.Meta.Sentences
	}
	before := sentences()

	start := func(in string) (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.Command(os.Args[0], "index", "--quiet", "--append", "--out", idx, in)
		cmd.Env = append(os.Environ(), "REQA_RUN_MAIN=1")
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &errb
	}
	first, _ := start(extra1)
	time.Sleep(50 * time.Millisecond)
	second, secondErr := start(extra2)

	// Read while the writers work: answers come from the committed index.
	reads := 0
	done := make(chan error, 1)
	go func() { done <- first.Wait() }()
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("first append: %v", err)
			}
			running = false
		default:
			if n := sentences(); n != before {
				// The first append committed between the checks.
				if n < before {
					t.Fatalf("reader saw %d sentences, fewer than %d", n, before)
				}
			}
			code, _, errs := reqa(t, "ask", "-i", idx, "-r", "bm25-wpm", "--k", "1", "which mill feeds the harbour")
			if code != 0 {
				t.Fatalf("ask during the append: exit %d: %s", code, errs)
			}
			reads++
		}
	}
	if err := second.Wait(); err != nil {
		t.Fatalf("second append: %v\n%s", err, secondErr)
	}
	if reads == 0 {
		t.Log("note: the append finished before a read could run")
	}
	if !strings.Contains(secondErr.String(), "waiting for another reqa writing") {
		t.Logf("note: the second append did not have to wait (stderr %q)", secondErr.String())
	}
	code, out, errs := reqa(t, "ask", "-i", idx, "-r", "bm25-wpm", "--k", "1", "what do owls hunt")
	if code != 0 || !strings.Contains(out, "Owls hunt mice") {
		t.Fatalf("after both appends: exit %d: %s %s", code, out, errs)
	}
	after := sentences()
	if after <= before+1 {
		t.Fatalf("after both appends: %d sentences (before %d): an append was lost", after, before)
	}
	t.Logf("%d reads during the appends; %d → %d sentences", reads, before, after)
}
