package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestAsk(t *testing.T) {
	idx := serveIndex(t)
	_, ts := newTestServer(t, idx, Options{})
	long := strings.Repeat("é", MaxQuestionChars)
	tests := []struct {
		name   string
		method string
		path   string
		status int
		// errWant is a substring of the error message (error responses).
		errWant string
		check   func(t *testing.T, r askReply)
	}{
		{name: "answer", path: "/v1/ask?q=" + url.QueryEscape("What returns at noon?") + "&k=2&ranker=bm25-wpm", status: 200,
			check: func(t *testing.T, r askReply) {
				if r.Ranker != "bm25-wpm" || r.K != 2 || len(r.Answers) != 2 || r.Answers[0].Sentence != "It returns at noon." {
					t.Fatalf("reply %+v", r)
				}
				for i, a := range r.Answers {
					if a.Rank != i+1 || a.Context[a.Start:a.End] != a.Sentence || a.Title != "notes" || !strings.Contains(a.Source, "notes.txt") {
						t.Errorf("answer %d: %+v", i, a)
					}
					if len(a.Scores) != 1 || a.Scores["bm25-wpm"] != a.Score || a.Score <= 0 {
						t.Errorf("answer %d: score %v, scores %v: want {bm25-wpm: score}", i, a.Score, a.Scores)
					}
				}
				if r.Answers[0].Score < r.Answers[1].Score {
					t.Errorf("answers not best first: %v < %v", r.Answers[0].Score, r.Answers[1].Score)
				}
			}},
		{name: "default ranker and k", path: "/v1/ask?q=kiosk+ticket", status: 200,
			check: func(t *testing.T, r askReply) {
				if r.Ranker != "bm25-wpm" || r.K != DefaultK || len(r.Answers) == 0 || len(r.Answers) > DefaultK {
					t.Fatalf("reply %+v", r)
				}
			}},
		{name: "other ranker", path: "/v1/ask?q=ferry&ranker=bm25-word&k=1", status: 200,
			check: func(t *testing.T, r askReply) {
				if r.Ranker != "bm25-word" || len(r.Answers) != 1 || !strings.Contains(r.Answers[0].Sentence, "ferry") || r.Answers[0].Scores["bm25-word"] == 0 {
					t.Fatalf("reply %+v", r)
				}
			}},
		{name: "byte offsets after non-ASCII text", path: "/v1/ask?q=where+is+it+sold&k=1", status: 200,
			check: func(t *testing.T, r askReply) {
				a := r.Answers[0]
				if a.Sentence != "It is sold at the kiosk." || a.Context[a.Start:a.End] != a.Sentence || a.Start != len("Über café: the naïve résumé costs €5. ") {
					t.Fatalf("answer %+v", a)
				}
			}},
		{name: "question trimmed", path: "/v1/ask?q=" + url.QueryEscape("  ferry  ") + "&k=1", status: 200,
			check: func(t *testing.T, r askReply) {
				if r.Question != "ferry" {
					t.Fatalf("question %q", r.Question)
				}
			}},
		{name: "no match is empty, not null", path: "/v1/ask?q=zyzzyva+qwerty", status: 200,
			check: func(t *testing.T, r askReply) {
				if r.Answers == nil || len(r.Answers) != 0 {
					t.Fatalf("answers %#v", r.Answers)
				}
			}},
		{name: "longest question", path: "/v1/ask?q=" + url.QueryEscape(long), status: 200},
		{name: "HEAD", method: "HEAD", path: "/v1/ask?q=ferry", status: 200},
		{name: "question too long", path: "/v1/ask?q=" + url.QueryEscape(long+"x"), status: 400, errWant: "at most 2000"},
		{name: "missing q", path: "/v1/ask", status: 400, errWant: "missing question"},
		{name: "blank q", path: "/v1/ask?q=+++", status: 400, errWant: "missing question"},
		{name: "q twice", path: "/v1/ask?q=a&q=b", status: 400, errWant: "given 2 times"},
		{name: "bad UTF-8", path: "/v1/ask?q=%ff%fe", status: 400, errWant: "UTF-8"},
		{name: "malformed escape", path: "/v1/ask?q=%zz", status: 400, errWant: "malformed"},
		{name: "k zero", path: "/v1/ask?q=ferry&k=0", status: 400, errWant: "from 1 to 100"},
		{name: "k too large", path: "/v1/ask?q=ferry&k=101", status: 400, errWant: "from 1 to 100"},
		{name: "k negative", path: "/v1/ask?q=ferry&k=-3", status: 400, errWant: "from 1 to 100"},
		{name: "k not a number", path: "/v1/ask?q=ferry&k=five", status: 400, errWant: "from 1 to 100"},
		{name: "unknown ranker", path: "/v1/ask?q=ferry&ranker=magic", status: 400, errWant: "unknown ranker"},
		{name: "dense without embeddings", path: "/v1/ask?q=ferry&ranker=dense", status: 400, errWant: "unknown ranker"},
		{name: "fusion without embeddings", path: "/v1/ask?q=ferry&ranker=fusion-rrf", status: 400, errWant: "unknown ranker"},
		{name: "ranker name too long", path: "/v1/ask?q=ferry&ranker=" + strings.Repeat("x", 100), status: 400, errWant: "not a ranker"},
		{name: "query string too long", path: "/v1/ask?q=ferry&pad=" + strings.Repeat("x", maxQueryBytes), status: 414, errWant: "query string"},
		{name: "POST", method: "POST", path: "/v1/ask?q=ferry", status: 405, errWant: "not allowed"},
		{name: "DELETE", method: "DELETE", path: "/v1/stats", status: 405, errWant: "not allowed"},
		{name: "unknown path", path: "/v1/nothing", status: 404, errWant: "not found"},
		{name: "no directory listing", path: "/web/", status: 404, errWant: "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := tt.method
			if method == "" {
				method = "GET"
			}
			resp, body := get(t, ts, method, tt.path)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			checkSecurityHeaders(t, tt.name, resp)
			if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			if method == "HEAD" {
				if len(body) != 0 {
					t.Errorf("HEAD returned a body of %d bytes", len(body))
				}
				return
			}
			var r askReply
			if err := json.Unmarshal(body, &r); err != nil {
				t.Fatalf("body is not JSON: %v\n%s", err, body)
			}
			if tt.status != 200 {
				if !strings.Contains(r.Error, tt.errWant) {
					t.Fatalf("error %q, want it to mention %q", r.Error, tt.errWant)
				}
				if resp.StatusCode == 405 && resp.Header.Get("Allow") != "GET, HEAD" {
					t.Errorf("405 without Allow: GET, HEAD")
				}
				return
			}
			if r.Error != "" {
				t.Fatalf("200 with an error: %s", r.Error)
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}

func TestHealthAndStats(t *testing.T) {
	idx := serveIndex(t)
	_, ts := newTestServer(t, idx, Options{MaxConcurrent: 3})
	resp, body := get(t, ts, "GET", "/healthz")
	if resp.StatusCode != 200 || strings.TrimSpace(string(body)) != `{"status":"ok","index":"notes.reqa","contexts":3,"sentences":7}` {
		t.Fatalf("healthz: %d %s", resp.StatusCode, body)
	}
	get(t, ts, "GET", "/v1/ask?q=ferry")
	resp, body = get(t, ts, "GET", "/v1/stats")
	if resp.StatusCode != 200 {
		t.Fatalf("stats: %d %s", resp.StatusCode, body)
	}
	var st struct {
		Index         string
		Contexts      int
		Sentences     int
		SizeBytes     int64 `json:"size_bytes"`
		Rankers       []string
		DefaultRanker string `json:"default_ranker"`
		Dense         *struct{}
		Fields        []struct{ Name string }
		Limits        map[string]int
		Server        struct{ Answered int }
	}
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("stats: %v\n%s", err, body)
	}
	want := []string{"bm25-word", "bm25-wpm", "bm25-stem"}
	if st.Index != "notes.reqa" || st.Contexts != 3 || st.Sentences != 7 || st.SizeBytes <= 0 || !reflect.DeepEqual(st.Rankers, want) ||
		st.DefaultRanker != "bm25-wpm" || st.Dense != nil || len(st.Fields) != 6 {
		t.Fatalf("stats %+v", st)
	}
	if st.Limits["max_k"] != MaxK || st.Limits["max_question_chars"] != MaxQuestionChars || st.Limits["max_concurrent"] != 3 {
		t.Fatalf("limits %v", st.Limits)
	}
	if st.Server.Answered != 1 {
		t.Fatalf("answered %d, want 1", st.Server.Answered)
	}
}

// TestEscaping checks that markup in the corpus leaves the API as
// JSON-escaped text and that the page can only ever treat it as text.
func TestEscaping(t *testing.T) {
	idx := serveIndex(t)
	_, ts := newTestServer(t, idx, Options{})
	resp, body := get(t, ts, "GET", "/v1/ask?q="+url.QueryEscape("<script>alert(1)</script> ticket")+"&k=1")
	if resp.StatusCode != 200 {
		t.Fatalf("ask: %d %s", resp.StatusCode, body)
	}
	if strings.ContainsAny(string(body), "<>") {
		t.Fatalf("raw markup in the JSON body: %s", body)
	}
	if !strings.Contains(string(body), `\u003cscript\u003ealert(1)\u003c/script\u003e`) {
		t.Fatalf("script tag not JSON-escaped: %s", body)
	}
	var r askReply
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	if r.Question != "<script>alert(1)</script> ticket" || !strings.Contains(r.Answers[0].Sentence, "<script>alert(1)</script>") {
		t.Fatalf("the markup did not round-trip as text: %+v", r)
	}

	// The page and its files.
	files := map[string]string{"/": "text/html; charset=utf-8", "/app.js": "text/javascript; charset=utf-8", "/style.css": "text/css; charset=utf-8"}
	got := map[string]string{}
	for p, ct := range files {
		resp, body := get(t, ts, "GET", p)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != ct {
			t.Fatalf("%s: %d %q", p, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		checkSecurityHeaders(t, p, resp)
		got[p] = string(body)
		// A second request with the validator is answered 304.
		req, _ := http.NewRequest("GET", ts.URL+p, nil)
		req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
		r2, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r2.Body.Close()
		if resp.Header.Get("ETag") == "" || r2.StatusCode != http.StatusNotModified {
			t.Errorf("%s: ETag %q, revalidation status %d", p, resp.Header.Get("ETag"), r2.StatusCode)
		}
	}
	// The page loads its script from itself, runs nothing inline and
	// fetches nothing from elsewhere (no CDN).
	for _, m := range regexp.MustCompile(`(?i)<script[^>]*>`).FindAllString(got["/"], -1) {
		if !strings.Contains(m, `src="/app.js"`) {
			t.Errorf("inline or foreign script: %s", m)
		}
	}
	for p, body := range got {
		if regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}`).MatchString(body) {
			t.Errorf("%s refers to another host", p)
		}
	}
	// The script builds the DOM from text only.
	for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"} {
		if strings.Contains(got["/app.js"], bad) {
			t.Errorf("app.js uses %s", bad)
		}
	}
	if !strings.Contains(got["/app.js"], "textContent") {
		t.Errorf("app.js does not set textContent")
	}
}

// TestConcurrent answers many questions at once and checks every reply
// against the one given alone.
func TestConcurrent(t *testing.T) {
	idx := serveIndex(t)
	_, ts := newTestServer(t, idx, Options{MaxConcurrent: 2})
	paths := []string{
		"/v1/ask?q=ferry+return&k=3",
		"/v1/ask?q=ferry+return&k=3&ranker=bm25-word",
		"/v1/ask?q=ticket+price&k=2",
		"/v1/ask?q=kiosk&k=5&ranker=bm25-word",
		"/v1/ask?q=caf%C3%A9&k=1",
		"/v1/ask?q=nothing+matches+zyzzyva",
	}
	want := map[string]string{}
	for _, p := range paths {
		resp, body := get(t, ts, "GET", p)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", p, resp.StatusCode, body)
		}
		want[p] = string(body)
	}
	const workers, each = 24, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				p := paths[(w+i)%len(paths)]
				resp, err := ts.Client().Get(ts.URL + p)
				if err != nil {
					errs <- err
					continue
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 || string(body) != want[p] {
					errs <- fmt.Errorf("%s: status %d, err %v, body %s", p, resp.StatusCode, err, body)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestClientDisconnect has a client leave while its question waits for
// a slot: the server drops it without answering, keeps its slots straight
// and goes on serving. A client that leaves halfway through sending its
// request does no harm either.
func TestClientDisconnect(t *testing.T) {
	idx := serveIndex(t)
	s, ts := newTestServer(t, idx, Options{MaxConcurrent: 1})
	s.slots <- struct{}{} // every slot busy
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/v1/ask?q=ferry", nil)
		resp, err := ts.Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	waitUntil(t, "the request to wait for a slot", func() bool { return s.waiting.Load() == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("client: %v, want context.Canceled", err)
	}
	waitUntil(t, "the server to drop the abandoned request", func() bool { return s.abandoned.Load() == 1 && s.waiting.Load() == 0 })
	<-s.slots // free the slot again
	if len(s.slots) != 0 {
		t.Fatalf("%d slots still taken", len(s.slots))
	}

	// Half a request, then the connection closes.
	c, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "GET /v1/ask?q=ferry HTTP/1.1\r\nHost: x\r\n")
	c.Close()

	resp, body := get(t, ts, "GET", "/v1/ask?q=ferry&k=1")
	if resp.StatusCode != 200 || !strings.Contains(string(body), "ferry") {
		t.Fatalf("after the disconnects: %d %s", resp.StatusCode, body)
	}
	if s.answered.Load() != 1 || s.abandoned.Load() != 1 {
		t.Fatalf("answered %d abandoned %d, want 1 and 1", s.answered.Load(), s.abandoned.Load())
	}
}

// TestBusy fills every slot: a question that cannot get one within
// the queue wait is answered 503 with Retry-After, and once a slot frees
// questions are answered again.
func TestBusy(t *testing.T) {
	idx := serveIndex(t)
	s, ts := newTestServer(t, idx, Options{MaxConcurrent: 1})
	s.queueWait = time.Millisecond
	s.slots <- struct{}{}
	resp, body := get(t, ts, "GET", "/v1/ask?q=ferry")
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "busy") {
		t.Fatalf("all slots taken: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	<-s.slots
	if resp, body := get(t, ts, "GET", "/v1/ask?q=ferry"); resp.StatusCode != 200 {
		t.Fatalf("slot free again: %d %s", resp.StatusCode, body)
	}
	if s.busy.Load() != 1 || s.waiting.Load() != 0 || len(s.slots) != 0 {
		t.Fatalf("busy %d waiting %d slots taken %d", s.busy.Load(), s.waiting.Load(), len(s.slots))
	}
}

// TestServeGraceful cancels the serving context while a request is in
// flight: the listener closes at once, the request still gets its answer,
// and Serve returns nil.
func TestServeGraceful(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		writeAPI(w, 200, map[string]string{"status": "finished"})
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, h, log.New(io.Discard, "", 0)) }()
	type result struct {
		body string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/slow")
		if err != nil {
			got <- result{err: err}
			return
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- result{string(b), err}
	}()
	<-entered
	cancel()
	waitUntil(t, "the listener to close", func() bool {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	close(release)
	if r := <-got; r.err != nil || !strings.Contains(r.body, "finished") {
		t.Fatalf("request in flight during shutdown: %q, %v", r.body, r.err)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// startServe starts cmd, a `reqa serve` process, and reads its stderr up
// to the line saying where it listens: it returns that base URL, the lines
// read so far and the scanner over the rest. The process is killed when the
// test ends.
func TestJSONFloat(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{1.5, "1.5"}, {0, "0"}, {-2e-9, "-2e-09"}, {math.NaN(), "null"}, {math.Inf(1), "null"}, {math.Inf(-1), "null"},
	}
	for _, tt := range tests {
		b, err := json.Marshal(map[string]jsonFloat{"x": jsonFloat(tt.in)})
		if err != nil || string(b) != `{"x":`+tt.want+`}` {
			t.Errorf("%v: %s, %v; want %s", tt.in, b, err, tt.want)
		}
	}
}

// BenchmarkAsk answers one question through the whole handler (perimeter,
// file check, the question's own goroutine, JSON), without the network.
func BenchmarkAsk(b *testing.B) {
	s := newServer(b, serveIndex(b), Options{})
	h := s.Handler()
	req := httptest.NewRequest("GET", "http://127.0.0.1/v1/ask?k=3&q="+url.QueryEscape("When does the ferry return?"), nil)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%d %s", rec.Code, rec.Body.String())
		}
	}
}
