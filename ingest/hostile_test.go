package ingest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The TestHostile* tests try inputs a hostile user or an unlucky operator
// gives: decompression bombs, /dev/zero, endless streams, FIFOs. Each runs
// its trials in child processes (this test binary, re-executed with
// REQA_INGEST_CHILD set: see hostileChild), which measure peak RSS and
// receive real signals. REQA_HOSTILE_TRIALS sets the number of trials
// (default 1; `make test-hostile` runs more).

// hostileLimit is the memory limit of the memory trials (the issue's
// reproduction used --memory-limit 1G).
const hostileLimit = 1 << 30

func hostileTrials(t *testing.T) int {
	n := 1
	if v := os.Getenv("REQA_HOSTILE_TRIALS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("REQA_HOSTILE_TRIALS=%q: want a positive count", v)
		}
	}
	return n
}

// childOutcome classifies the error of a read for the parent.
func childOutcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, ErrMemoryLimit):
		return "memory"
	case errors.Is(err, ErrDecompressionBomb):
		return "bomb"
	case errors.Is(err, ErrBinary):
		return "binary"
	case errors.Is(err, ErrNotRegular):
		return "notregular"
	}
	return "other"
}

// hostileChild runs in a child process: it reads REQA_CHILD_INPUT (a path
// or "-") with the limits of REQA_CHILD_LIMIT and REQA_CHILD_RATIO,
// stopping on SIGINT or SIGTERM, and prints "outcome: CLASS MESSAGE".
func hostileChild() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	opt := ReadOptions{StdinKind: os.Getenv("REQA_CHILD_KIND")}
	opt.MemoryLimit, _ = strconv.ParseInt(os.Getenv("REQA_CHILD_LIMIT"), 10, 64)
	opt.MaxDecompressionRatio, _ = strconv.ParseFloat(os.Getenv("REQA_CHILD_RATIO"), 64)
	fmt.Println("reading")
	_, err := ReadInputsContext(ctx, strings.Split(os.Getenv("REQA_CHILD_INPUT"), ","), opt)
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	fmt.Printf("outcome: %s %s\n", childOutcome(err), msg)

	return 0
}

// childRun is the outcome of one child process.
type childRun struct {
	outcome, msg string
	maxRSS       int64         // peak resident set size
	afterSignal  time.Duration // from the signal to the exit, when one was sent
}

// runChild reads input in a child process with stdin as its standard
// input; signalAfter > 0 sends SIGTERM that long after the child says it
// is reading.
func runChild(t *testing.T, input string, env []string, stdin any, signalAfter time.Duration) childRun {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"REQA_INGEST_CHILD=1", "REQA_CHILD_INPUT=" + input}, env...)...)
	switch s := stdin.(type) {
	case *os.File:
		cmd.Stdin = s
	case interface{ Read([]byte) (int, error) }:
		cmd.Stdin = s
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var run childRun
	signalled := make(chan time.Time, 1)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "reading" && signalAfter > 0 {
			go func(after time.Duration) {
				time.Sleep(after)
				signalled <- time.Now()
				cmd.Process.Signal(syscall.SIGTERM)
			}(signalAfter)
			signalAfter = 0
		}
		if rest, ok := strings.CutPrefix(line, "outcome: "); ok {
			run.outcome, run.msg, _ = strings.Cut(rest, " ")
		}
	}
	err = cmd.Wait()
	end := time.Now()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
	select {
	case at := <-signalled:
		run.afterSignal = end.Sub(at)
	default:
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		run.maxRSS = ru.Maxrss << 10
	}
	return run
}

var baselineOnce struct {
	sync.Once
	rss int64
}

// baselineRSS is the peak RSS of a child reading a small file.
func baselineRSS(t *testing.T) int64 {
	baselineOnce.Do(func() {
		p, _ := filepath.Abs("testdata/corpus/bridges.txt")
		r := runChild(t, p, nil, nil, 0)
		if r.outcome != "ok" {
			t.Fatalf("baseline child: %s %s", r.outcome, r.msg)
		}
		baselineOnce.rss = r.maxRSS
	})
	return baselineOnce.rss
}

// gzipBomb writes a gzip file of n MiB of the byte b, as concatenated
// members of 1 MiB each (about 1 KB per member).
func gzipBomb(t *testing.T, name string, b byte, mib int) string {
	t.Helper()
	member := gzipped(t, bytes.Repeat([]byte{b}, 1<<20))
	p := filepath.Join(t.TempDir(), name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for range mib {
		w.Write(member)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

// checkRSS fails when a memory trial's peak RSS exceeds 1.5× the limit
// plus the baseline.
func checkRSS(t *testing.T, what string, run childRun) {
	t.Helper()
	base := baselineRSS(t)
	bound := hostileLimit*3/2 + base
	t.Logf("%s: %s; peak RSS %s (bound %s = 1.5 × %s + baseline %s)", what, run.outcome, HumanBytes(run.maxRSS), HumanBytes(bound), HumanBytes(hostileLimit), HumanBytes(base))
	if run.maxRSS > bound && !raceEnabled {
		t.Errorf("%s: peak RSS %s over %s", what, HumanBytes(run.maxRSS), HumanBytes(bound))
	}
}

// TestHostileGzipBomb reads a 2 MB gzip file expanding to 2 GiB of one
// byte under a 1 GiB memory limit: refused by the ratio guard, and with
// the guard off by the memory limit, in bounded memory; a bomb of NULs is
// refused as binary.
func TestHostileGzipBomb(t *testing.T) {
	bomb := gzipBomb(t, "bomb.txt.gz", 'a', 2048)
	zeros := gzipBomb(t, "zeros.txt.gz", 0, 2048)
	st, _ := os.Stat(bomb)
	t.Logf("bomb: %s expanding to 2 GiB", HumanBytes(st.Size()))
	limit := "REQA_CHILD_LIMIT=" + strconv.Itoa(hostileLimit)
	for i := range hostileTrials(t) {
		r := runChild(t, bomb, []string{limit}, nil, 0)
		if r.outcome != "bomb" {
			t.Fatalf("trial %d, guard on: %s %s", i, r.outcome, r.msg)
		}
		checkRSS(t, "gzip bomb, ratio guard", r)
		r = runChild(t, bomb, []string{limit, "REQA_CHILD_RATIO=-1"}, nil, 0)
		if r.outcome != "memory" {
			t.Fatalf("trial %d, ratio guard off: %s %s", i, r.outcome, r.msg)
		}
		checkRSS(t, "gzip bomb, memory limit", r)
		r = runChild(t, zeros, []string{limit}, nil, 0)
		if r.outcome != "binary" {
			t.Fatalf("trial %d, NUL bomb: %s %s", i, r.outcome, r.msg)
		}
		checkRSS(t, "gzip bomb of NULs", r)
	}
}

// TestHostileDevZero reads /dev/zero named (refused: a device), as
// standard input (refused: binary) and an endless text stream on standard
// input under a 1 GiB memory limit (refused in bounded memory).
func TestHostileDevZero(t *testing.T) {
	limit := "REQA_CHILD_LIMIT=" + strconv.Itoa(hostileLimit)
	for i := range hostileTrials(t) {
		r := runChild(t, "/dev/zero", []string{limit}, nil, 0)
		if r.outcome != "notregular" {
			t.Fatalf("trial %d, /dev/zero named: %s %s", i, r.outcome, r.msg)
		}
		zero, err := os.Open("/dev/zero")
		if err != nil {
			t.Fatal(err)
		}
		r = runChild(t, "-", []string{limit}, zero, 0)
		zero.Close()
		if r.outcome != "binary" {
			t.Fatalf("trial %d, - < /dev/zero: %s %s", i, r.outcome, r.msg)
		}
		checkRSS(t, "- < /dev/zero", r)
		r = runChild(t, "-", []string{limit, "REQA_CHILD_KIND=txt"}, &endless{}, 0)
		if r.outcome != "memory" {
			t.Fatalf("trial %d, endless text on stdin: %s %s", i, r.outcome, r.msg)
		}
		checkRSS(t, "endless text on stdin", r)
	}
}

// TestHostileFIFO checks a FIFO never hangs a read: named, it is refused
// at once; in a directory, skipped; as standard input with no writer
// writing, the read stops within 2 s of SIGTERM.
func TestHostileFIFO(t *testing.T) {
	for i := range hostileTrials(t) {
		fifo := mkfifo(t, filepath.Join(t.TempDir(), "pipe.txt"))
		r := runChild(t, fifo, nil, nil, 0)
		if r.outcome != "notregular" {
			t.Fatalf("trial %d, FIFO named: %s %s", i, r.outcome, r.msg)
		}
		dir := writeFiles(t, map[string]string{"a.txt": "Some text."})
		mkfifo(t, filepath.Join(dir, "b.txt"))
		if r = runChild(t, dir, nil, nil, 0); r.outcome != "ok" {
			t.Fatalf("trial %d, FIFO in a directory: %s %s", i, r.outcome, r.msg)
		}
		// Opened read-write, the FIFO has a writer that never writes: a
		// read from it blocks.
		f, err := os.OpenFile(fifo, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("The first words arrive, then nothing.\n"))
		for _, kind := range []string{"txt", "jsonl", ""} {
			r = runChild(t, "-", []string{"REQA_CHILD_KIND=" + kind}, f, 100*time.Millisecond)
			t.Logf("- < FIFO (kind %q): %s %.1f ms after SIGTERM", kind, r.outcome, r.afterSignal.Seconds()*1000)
			if r.outcome != "canceled" || r.afterSignal > 2*time.Second {
				t.Fatalf("trial %d, - < FIFO (kind %q): %s %s, %v after SIGTERM", i, kind, r.outcome, r.msg, r.afterSignal)
			}
		}
		f.Close()
	}
}
