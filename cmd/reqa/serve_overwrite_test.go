package main

import (
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The questions the overwrite tests ask: one whose answer differs between
// the two indexes.
const overwriteQuestion = "When does the ferry return?"

// overwriteFixture is two BM25 indexes of different corpora and sizes,
// with the bodies /v1/ask answers overwriteQuestion with from each.
type overwriteFixture struct {
	idx       [2]string
	bytes     [2][]byte
	body      [2]string
	sentences [2]int
}

// overwriteCorpus writes a corpus of n paragraphs whose ferry returns at
// when.
func overwriteCorpus(t *testing.T, dir, name string, n int, when string) string {
	t.Helper()
	rng := rand.New(rand.NewSource(int64(n)))
	words := strings.Fields("amber basalt cedar delta ember fjord granite harbour indigo juniper kelp lantern meadow nickel orchard pewter quarry river saffron timber umber violet willow yarrow zinc")
	var b strings.Builder
	fmt.Fprintf(&b, "The ferry returns at %s. It leaves from the %s pier.\n\n", when, name)
	for i := range n {
		fmt.Fprintf(&b, "Ledger %d of the %s: the %s keeper stores %d crates of %s in bay %d. ", i, name,
			words[rng.Intn(len(words))], rng.Intn(500), words[rng.Intn(len(words))], rng.Intn(90))
		fmt.Fprintf(&b, "The %s wagon carries %s to the %s mill.\n\n", words[rng.Intn(len(words))], words[rng.Intn(len(words))], words[rng.Intn(len(words))])
	}
	return writeFile(t, dir, name+".txt", b.String())
}

// newOverwriteFixture builds the two indexes and asks each, in process,
// what the server must answer from it.
func newOverwriteFixture(t *testing.T) *overwriteFixture {
	t.Helper()
	dir := t.TempDir()
	fx := &overwriteFixture{}
	for i, c := range []struct {
		name string
		n    int
		when string
	}{{"old", 1500, "noon"}, {"new", 2600, "midnight"}} {
		in := overwriteCorpus(t, dir, c.name, c.n, c.when)
		fx.idx[i] = filepath.Join(dir, c.name+".reqa")
		if code, _, errs := reqa(t, "index", "--quiet", "--dense=false", "--out", fx.idx[i], in); code != 0 {
			t.Fatalf("index: exit %d: %s", code, errs)
		}
		var err error
		if fx.bytes[i], err = os.ReadFile(fx.idx[i]); err != nil {
			t.Fatal(err)
		}
		s, ts := newTestServer(t, fx.idx[i], serverOptions{})
		resp, body := get(t, ts, "GET", "/v1/ask?k=3&q="+url.QueryEscape(overwriteQuestion))
		if resp.StatusCode != 200 || !strings.Contains(string(body), c.when) {
			t.Fatalf("%s: %d %s", c.name, resp.StatusCode, body)
		}
		fx.body[i] = string(body)
		_, fx.sentences[i], _, _, _ = s.Index()
	}
	return fx
}

// overwriteTrial says how one trial copies one index over the other.
type overwriteTrial struct {
	from       int           // the index served first (0 or 1); the other is copied over it
	delay      time.Duration // after the load starts, before the copy
	minChunk   int           // bytes per write, from minChunk to maxChunk
	maxChunk   int
	maxPause   time.Duration // between writes, from 0 to maxPause
	noTruncate bool          // write over the old bytes (dd conv=notrunc), truncate at the end
	// termDuring, if not zero, sends SIGTERM this long after the copy
	// began (instead of once the new index is served).
	termDuring time.Duration
	seed       int64
}

// observation is one request the clients made.
type observation struct {
	start, end time.Time
	path       string
	status     int
	body       string
	err        error
}

// runOverwriteTrial serves a copy of fx.idx[tr.from] with `reqa serve`,
// asks it from several clients at once and polls /healthz while the other
// index is copied over the served file in place, then checks: no request
// took more than a few seconds or failed other than 503; every answer is
// the old index's or the new one's, never the old one after the copy
// began; /healthz never said 200 for the old index after the copy began;
// the new index is served afterwards; the log did not grow a line per
// request; and SIGTERM stops the process.
func runOverwriteTrial(t *testing.T, fx *overwriteFixture, tr overwriteTrial) {
	t.Helper()
	rng := rand.New(rand.NewSource(tr.seed))
	to := 1 - tr.from
	live := filepath.Join(t.TempDir(), "live.reqa")
	if err := os.WriteFile(live, fx.bytes[tr.from], 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "serve", "--index", live, "--addr", "127.0.0.1:0", "--reload-every", "100ms", "--max-concurrent", "3")
	cmd.Env = append(os.Environ(), "REQA_RUN_MAIN=1")
	base, head, lines := startServe(t, cmd)
	var logMu sync.Mutex
	logText := head.String()
	logDone := make(chan struct{})
	go func() {
		defer close(logDone)
		for lines.Scan() {
			logMu.Lock()
			logText += lines.Text() + "\n"
			logMu.Unlock()
		}
	}()
	type exit struct {
		err error
		at  time.Time
	}
	exited := make(chan exit, 1)
	go func() {
		<-logDone // cmd.Wait closes stderr: read it all first
		err := cmd.Wait()
		exited <- exit{err, time.Now()}
	}()
	client := &http.Client{Timeout: 30 * time.Second}
	ask := "/v1/ask?k=3&q=" + url.QueryEscape(overwriteQuestion)

	var mu sync.Mutex
	var obs []observation
	stop := make(chan struct{})
	var wg sync.WaitGroup
	loop := func(path string, pause time.Duration) {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			o := observation{start: time.Now(), path: path}
			resp, err := client.Get(base + path)
			if err == nil {
				b, rerr := io.ReadAll(resp.Body)
				resp.Body.Close()
				o.status, o.body, err = resp.StatusCode, string(b), rerr
			}
			o.end, o.err = time.Now(), err
			mu.Lock()
			obs = append(obs, o)
			mu.Unlock()
			time.Sleep(pause)
		}
	}
	for range 5 {
		wg.Add(1)
		go loop(ask, 0)
	}
	wg.Add(1)
	go loop("/healthz", 2*time.Millisecond)

	time.Sleep(tr.delay)
	termed := make(chan time.Time, 1)
	if tr.termDuring > 0 {
		go func() {
			time.Sleep(tr.termDuring)
			termed <- time.Now()
			cmd.Process.Signal(syscall.SIGTERM)
		}()
	}
	copyStart := copyOver(t, live, fx.bytes[to], tr, rng)
	copyEnd := time.Now()

	// The new index is served (a deadline for a hang, not a speed
	// requirement).
	served := tr.termDuring > 0
	for deadline := time.Now().Add(60 * time.Second); !served && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		for _, o := range obs {
			served = served || (o.path == ask && o.status == 200 && o.body == fx.body[to])
		}
		mu.Unlock()
	}
	if tr.termDuring == 0 {
		time.Sleep(100 * time.Millisecond) // a little load on the new index
		termed <- time.Now()
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
	}

	// SIGTERM stops it within the grace period.
	termAt := <-termed
	var ex exit
	select {
	case ex = <-exited:
	case <-time.After(15*time.Second - time.Since(termAt)):
		cmd.Process.Kill()
		ex = <-exited
		t.Errorf("serve did not stop within 15 s of SIGTERM")
	}
	stopped := ex.at.Sub(termAt)
	close(stop)
	wg.Wait()
	if ex.err != nil {
		t.Errorf("serve after SIGTERM: %v", ex.err)
	}

	var counts = map[string]int{}
	var slowest time.Duration
	sawNew := false
	for _, o := range obs {
		d := o.end.Sub(o.start)
		slowest = max(slowest, d)
		if d > 5*time.Second {
			t.Errorf("%s took %s", o.path, d.Round(time.Millisecond))
		}
		afterStart := o.start.After(copyStart)
		switch {
		case o.err != nil && o.end.After(termAt):
			counts["after SIGTERM"]++ // refused: the server is gone
		case o.err != nil:
			t.Errorf("%s: %v", o.path, o.err)
		case o.path == ask && o.status == 200 && o.body == fx.body[to]:
			counts["new"]++
			sawNew = true
		case o.path == ask && o.status == 200 && o.body == fx.body[tr.from]:
			counts["old"]++
			if afterStart {
				t.Errorf("answered from the old index in a request started %s after the copy began", o.start.Sub(copyStart))
			}
		case o.status == 503 && strings.Contains(o.body, "being replaced in place"):
			counts[o.path+" 503"]++
		case o.path == "/healthz" && o.status == 200:
			counts["healthz 200"]++
			if afterStart && strings.Contains(o.body, `"sentences":`+strconv.Itoa(fx.sentences[tr.from])+`}`) {
				t.Errorf("/healthz said 200 for the old index %s after the copy began: %s", o.start.Sub(copyStart), o.body)
			}
		default:
			t.Errorf("%s: %d %.300s", o.path, o.status, o.body)
		}
	}
	if tr.termDuring == 0 && (!served || !sawNew) {
		t.Errorf("the new index was never served")
	}
	logMu.Lock()
	logLines := strings.Count(logText, "\n")
	logMu.Unlock()
	if logLines > 40 {
		t.Errorf("%d log lines for %d requests:\n%s", logLines, len(obs), logText)
	}
	if t.Failed() || os.Getenv("REQA_SHOW_LOG") != "" {
		t.Logf("log:\n%s", logText)
	}
	t.Logf("trial %+v: copy of %d bytes took %s; %d requests, slowest %s: %v; %d log lines; stopped %s after SIGTERM",
		tr, len(fx.bytes[to]), copyEnd.Sub(copyStart).Round(time.Millisecond), len(obs), slowest.Round(time.Millisecond), counts, logLines,
		stopped.Round(time.Millisecond))
}

// copyOver writes b over the file at path in place, like cp (truncate,
// then write in chunks) or, with tr.noTruncate, like dd conv=notrunc
// (write over the old bytes, then cut the file to length). It returns
// when the file had first changed: a request sent after that must not be
// answered from the old bytes.
func copyOver(t *testing.T, path string, b []byte, tr overwriteTrial, rng *rand.Rand) (changed time.Time) {
	t.Helper()
	flags := os.O_WRONLY | os.O_TRUNC
	if tr.noTruncate {
		flags = os.O_WRONLY
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !tr.noTruncate {
		changed = time.Now()
	}
	for off := 0; off < len(b); {
		n := min(tr.minChunk+rng.Intn(tr.maxChunk-tr.minChunk+1), len(b)-off)
		if _, err := f.Write(b[off : off+n]); err != nil {
			t.Fatal(err)
		}
		off += n
		if changed.IsZero() {
			changed = time.Now()
		}
		if tr.maxPause > 0 {
			time.Sleep(time.Duration(rng.Int63n(int64(tr.maxPause))))
		}
	}
	if tr.noTruncate {
		if err := f.Truncate(int64(len(b))); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return changed
}

// TestServeOverwrite copies another index over the served file in place,
// as cp does, under concurrent load (see runOverwriteTrial).
func TestServeOverwrite(t *testing.T) {
	fx := newOverwriteFixture(t)
	runOverwriteTrial(t, fx, overwriteTrial{from: 0, delay: 200 * time.Millisecond, minChunk: 32 << 10, maxChunk: 32 << 10,
		maxPause: 5 * time.Millisecond, seed: 1})
}

// TestHostileOverwrite runs REQA_HOSTILE_TRIALS (default 2) overwrite
// trials at random moments of the load, with random chunk sizes and pauses,
// in both directions (a larger and a smaller file copied over), truncating
// first like cp or writing over the old bytes like dd conv=notrunc; then a
// quarter as many (at least one) that send SIGTERM at a random moment of
// the copy.
func TestHostileOverwrite(t *testing.T) {
	trials := 2
	if s := os.Getenv("REQA_HOSTILE_TRIALS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("REQA_HOSTILE_TRIALS=%q: want a positive number", s)
		}
		trials = n
	}
	fx := newOverwriteFixture(t)
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	for i := range trials {
		minChunk := 1 << (10 + rng.Intn(6)) // 1 KiB … 32 KiB
		tr := overwriteTrial{from: i % 2, delay: time.Duration(rng.Intn(400)) * time.Millisecond,
			minChunk: minChunk, maxChunk: minChunk * (1 + rng.Intn(8)), maxPause: time.Duration(rng.Intn(20)) * time.Millisecond,
			noTruncate: rng.Intn(2) == 1, seed: rng.Int63()}
		t.Run(strconv.Itoa(i), func(t *testing.T) { runOverwriteTrial(t, fx, tr) })
	}
	// SIGTERM in the middle of a copy, with requests in flight.
	for i := range max(1, trials/4) {
		tr := overwriteTrial{from: i % 2, delay: time.Duration(rng.Intn(200)) * time.Millisecond, minChunk: 4 << 10, maxChunk: 16 << 10,
			maxPause: 3 * time.Millisecond, noTruncate: rng.Intn(2) == 1, termDuring: time.Duration(1+rng.Intn(300)) * time.Millisecond, seed: rng.Int63()}
		t.Run("term-"+strconv.Itoa(i), func(t *testing.T) { runOverwriteTrial(t, fx, tr) })
	}
}
