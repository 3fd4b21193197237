package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestServeReloadsReplacedIndex: while serve answers a stream of questions,
// another writer appends to the index; the server switches to the new file
// without failing a request, answers from the appended text, and keeps
// serving the previous index when a replacement is damaged.
func TestServeReloadsReplacedIndex(t *testing.T) {
	idx, _ := serveIndex(t, false)
	var logs bytes.Buffer
	var logMu sync.Mutex
	logger := log.New(writerFunc(func(p []byte) (int, error) {
		logMu.Lock()
		defer logMu.Unlock()
		return logs.Write(p)
	}), "", 0)
	s, ts := newTestServer(t, idx, serverOptions{Log: logger})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Watch(ctx, 10*time.Millisecond)

	// A steady stream of questions across the switch: none may fail.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var failures []string
	var fmu sync.Mutex
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := ts.Client().Get(ts.URL + "/v1/ask?q=when+does+the+ferry+return&ranker=bm25-wpm")
				if err == nil {
					resp.Body.Close()
				}
				if err != nil || resp.StatusCode != http.StatusOK {
					fmu.Lock()
					failures = append(failures, func() string {
						if err != nil {
							return err.Error()
						}
						return resp.Status
					}())
					fmu.Unlock()
				}
			}
		}()
	}

	more := writeFile(t, t.TempDir(), "more.txt", "The lighthouse keeper rings a bell at dawn.\n\nOwls hunt mice in the barn at night.\n")
	if code, _, errs := reqa(t, "index", "--quiet", "--append", "--out", idx, more); code != 0 {
		t.Fatalf("append: exit %d: %s", code, errs)
	}
	waitFor(t, func() bool { return s.Counters().Reloads == 1 })
	var rep askReply
	_, body := get(t, ts, "GET", "/v1/ask?q=what+do+owls+hunt&k=1&ranker=bm25-wpm")
	if err := json.Unmarshal(body, &rep); err != nil || len(rep.Answers) != 1 || !strings.Contains(rep.Answers[0].Sentence, "Owls") {
		t.Fatalf("after the append: %s (%v)", body, err)
	}
	var st struct{ Sentences int }
	_, body = get(t, ts, "GET", "/v1/stats")
	json.Unmarshal(body, &st)
	if st.Sentences != 7+2 {
		t.Errorf("stats after the append: %s", body)
	}

	// A damaged replacement: logged, not served.
	junk := filepath.Join(filepath.Dir(idx), "junk")
	if err := os.WriteFile(junk, bytes.Repeat([]byte("not an index "), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(junk, idx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		logMu.Lock()
		defer logMu.Unlock()
		return strings.Contains(logs.String(), "still serving the previous index")
	})
	close(stop)
	wg.Wait()
	_, body = get(t, ts, "GET", "/v1/ask?q=what+do+owls+hunt&k=1&ranker=bm25-wpm")
	if err := json.Unmarshal(body, &rep); err != nil || len(rep.Answers) != 1 || !strings.Contains(rep.Answers[0].Sentence, "Owls") {
		t.Fatalf("after a damaged replacement: %s (%v)", body, err)
	}
	if s.Counters().Reloads != 1 {
		t.Errorf("%d reloads, want 1", s.Counters().Reloads)
	}
	if len(failures) > 0 {
		t.Errorf("%d requests failed across the switch, first: %s", len(failures), failures[0])
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// waitFor polls cond for up to a minute (a deadline for a hung test, not a
// speed requirement).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not reached within a minute")
}
