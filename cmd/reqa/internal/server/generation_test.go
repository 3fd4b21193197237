package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reqa/reqa/store"
)

// lockedBuffer is a log destination safe for concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// rewrite writes b over the file at path in place, as cp does.
func rewrite(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	for off := 0; off < len(b); off += 8 << 10 {
		if _, err := f.Write(b[off:min(off+8<<10, len(b))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestInPlaceRewrite rewrites the served file in place, first with bytes
// that are not an index, then with another index, while clients ask: the
// server stops answering from the old mapping at once (503 from /v1/ask,
// /v1/stats and /healthz, with a clear error), logs the change once however
// many requests it refuses, refuses the junk after it settles, and serves
// the new index once it is complete — with its records' ids — without
// Watch's periodic checks (interval 0: the requests wake it).
func TestInPlaceRewrite(t *testing.T) {
	dir := t.TempDir()
	old := buildIndex(t, dir, "old.txt", serveCorpus)
	next := buildIndex(t, dir, "next.jsonl",
		`{"id": "faq-7", "title": "Ferry", "text": "The ferry returns at midnight. It is late."}`+"\n"+
			`{"id": "faq-8", "title": "Owls", "text": "Owls hunt mice in the barn at night."}`+"\n")
	live := filepath.Join(dir, "live.reqa")
	oldBytes, _ := os.ReadFile(old)
	nextBytes, _ := os.ReadFile(next)
	if err := os.WriteFile(live, oldBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	var logs lockedBuffer
	s, ts := newTestServer(t, live, Options{Settle: 50 * time.Millisecond, Log: log.New(&logs, "", 0)})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Watch(ctx, 0)
	ask := "/v1/ask?k=1&q=" + url.QueryEscape("When does the ferry return?")
	if resp, body := get(t, ts, "GET", ask); resp.StatusCode != 200 || !strings.Contains(string(body), "noon") {
		t.Fatalf("before: %d %s", resp.StatusCode, body)
	}

	// Junk in place: refused at once, everywhere, and after it settles.
	rewrite(t, live, bytes.Repeat([]byte("not an index "), 5000))
	for _, p := range []string{ask, "/v1/stats", "/healthz", ask} {
		resp, body := get(t, ts, "GET", p)
		var e struct{ Status, Error string }
		if resp.StatusCode != 503 || json.Unmarshal(body, &e) != nil || !strings.Contains(e.Error, "live.reqa is being replaced in place") ||
			resp.Header.Get("Retry-After") == "" || strings.Contains(e.Error, dir) {
			t.Fatalf("%s after junk was written over the index: %d %s", p, resp.StatusCode, body)
		}
	}
	waitUntil(t, "the junk to be refused", func() bool {
		return strings.Contains(logs.String(), "answering 503 until the file is replaced by an index")
	})
	for range 200 {
		if resp, body := get(t, ts, "GET", ask); resp.StatusCode != 503 {
			t.Fatalf("junk served: %d %s", resp.StatusCode, body)
		}
	}

	// The next index in place, under load: every answer is the old
	// index's (none here: it was poisoned), the next one's or 503.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[string]int{}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := ts.Client().Get(ts.URL + ask)
				if err != nil {
					t.Error(err)
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var r askReply
				json.Unmarshal(body, &r)
				what := fmt.Sprint(resp.StatusCode)
				if resp.StatusCode == 200 && len(r.Answers) == 1 {
					what = r.Answers[0].Sentence + " id=" + r.Answers[0].ID
				}
				mu.Lock()
				seen[what]++
				mu.Unlock()
			}
		}()
	}
	rewrite(t, live, nextBytes)
	waitUntil(t, "the next index to be served", func() bool { return s.Counters().Reloads == 1 })
	time.Sleep(50 * time.Millisecond)
	close(stop)
	wg.Wait()
	for what := range seen {
		if what != "503" && what != "The ferry returns at midnight. id=faq-7" {
			t.Errorf("answered %q during the rewrite: %v", what, seen)
		}
	}
	resp, body := get(t, ts, "GET", "/healthz")
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"index":"live.reqa","contexts":2,"sentences":3`) {
		t.Fatalf("healthz after the rewrite: %d %s", resp.StatusCode, body)
	}
	var r askReply
	if _, body := get(t, ts, "GET", ask); json.Unmarshal(body, &r) != nil || len(r.Answers) != 1 || r.Answers[0].ID != "faq-7" ||
		r.Answers[0].Title != "Ferry" || !strings.Contains(r.Answers[0].Source, "next.jsonl:1") {
		t.Fatalf("after the rewrite: %s", body)
	}
	if n := strings.Count(logs.String(), "\n"); n > 6 || strings.Count(logs.String(), "being replaced in place") != 1 {
		t.Errorf("%d log lines for %d refused requests:\n%s", n, s.Counters().Unavailable, logs.String())
	}
	t.Logf("%v; counters %+v; log:\n%s", seen, s.Counters(), logs.String())
}

// TestReplacedByRename replaces the served file by renaming another index
// over it (as reqa index does): the old generation is not poisoned, so no
// request is refused, and the new file is served once it has settled.
func TestReplacedByRename(t *testing.T) {
	dir := t.TempDir()
	live := buildIndex(t, dir, "live.txt", serveCorpus)
	next := buildIndex(t, dir, "next.txt", "Owls hunt mice in the barn at night.\n")
	s, ts := newTestServer(t, live, Options{Settle: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Watch(ctx, 5*time.Millisecond)
	if err := os.Rename(next, live); err != nil {
		t.Fatal(err)
	}
	for s.Counters().Reloads == 0 {
		if resp, body := get(t, ts, "GET", "/v1/ask?q=ferry"); resp.StatusCode != 200 {
			t.Fatalf("during the switch: %d %s", resp.StatusCode, body)
		}
	}
	if _, body := get(t, ts, "GET", "/v1/ask?q=owls"); !strings.Contains(string(body), "Owls hunt mice") {
		t.Fatalf("after the switch: %s", body)
	}
	if n := s.Counters().Unavailable; n != 0 {
		t.Fatalf("%d requests refused across a rename", n)
	}
}

// TestReplyHidesPath: an error from the index names its file, never the
// directory it is in.
func TestReplyHidesPath(t *testing.T) {
	idx := serveIndex(t)
	s := newServer(t, idx, Options{})
	g := s.acquire()
	defer g.drop()
	for i := range 3 {
		rec := httptest.NewRecorder()
		err := fmt.Errorf("index %s: unreadable page (boom): %w", idx, store.ErrCorrupt)
		s.reply(rec, httptest.NewRequest("GET", "/v1/ask?q=x", nil), g, askParams{question: "x", k: 1}, askResult{ranker: "bm25-wpm", err: err})
		if rec.Code != http.StatusInternalServerError || strings.Contains(rec.Body.String(), filepath.Dir(idx)) ||
			!strings.Contains(rec.Body.String(), "index notes.reqa: unreadable page") {
			t.Fatalf("reply %d: %d %s", i, rec.Code, rec.Body.String())
		}
	}
}

func TestOnceLog(t *testing.T) {
	var b bytes.Buffer
	l := &onceLog{log: log.New(&b, "", 0)}
	for range 5 {
		l.Printf("damaged", "index damaged")
	}
	l.Printf("other", "something else")
	l.Printf("other", "something else")
	l.Flush()
	l.Flush()
	got := regexpReplace(b.String())
	want := "index damaged\nindex damaged (repeated 4 more times in Xs)\nsomething else\nsomething else (repeated 1 more times in Xs)\n"
	if got != want {
		t.Fatalf("log:\n%s\nwant:\n%s", got, want)
	}
}

// regexpReplace replaces durations in s with Xs.
func regexpReplace(s string) string {
	var out []string
	for _, line := range strings.SplitAfter(s, "\n") {
		if i := strings.LastIndex(line, " in "); i >= 0 && strings.HasSuffix(line, ")\n") {
			line = line[:i] + " in Xs)\n"
		}
		out = append(out, line)
	}
	return strings.Join(out, "")
}
