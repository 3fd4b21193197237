package server

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
)

// serveCorpus has plain answers, markup that must stay text, and non-ASCII
// text before an answer (the API's offsets count bytes).
const serveCorpus = "The ferry leaves at nine. It returns at noon.\n\n" +
	"Tickets cost five euros. Beware: <script>alert(1)</script> is not a ticket. <img src=x onerror=alert(2)> marks the kiosk.\n\n" +
	"Über café: the naïve résumé costs €5. It is sold at the kiosk.\n"

// buildIndex writes text to dir/name (a .txt, .md or .jsonl file) and
// indexes it (BM25 only) into dir/BASE.reqa.
func buildIndex(t testing.TB, dir, name, text string) string {
	t.Helper()
	in := filepath.Join(dir, name)
	if err := os.WriteFile(in, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ingest.ReadInputs([]string{in})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, strings.TrimSuffix(name, filepath.Ext(name))+".reqa")
	if _, err := index.Build(context.Background(), c, out, index.Options{Builder: "server test"}); err != nil {
		t.Fatal(err)
	}
	return out
}

// serveIndex builds an index of serveCorpus, notes.reqa from notes.txt.
func serveIndex(t testing.TB) string {
	t.Helper()
	return buildIndex(t, t.TempDir(), "notes.txt", serveCorpus)
}

// testRanker is the tests' ranker chooser: bm25-wpm by default.
func testRanker(e *rank.Index, name string, _ rank.DenseOptions) (rank.Ranker, error) {
	if name == "" {
		name = "bm25-wpm"
	}
	return e.Ranker(name)
}

// newServer opens idx and returns its server, with testRanker and a
// discarding log unless opt says otherwise.
func newServer(t testing.TB, idx string, opt Options) *Server {
	t.Helper()
	e, err := Open(idx)
	if err != nil {
		t.Fatal(err)
	}
	if opt.Log == nil {
		opt.Log = log.New(io.Discard, "", 0)
	}
	if opt.Ranker == nil {
		opt.Ranker = testRanker
	}
	s, err := New(e, opt)
	if err != nil {
		e.Close()
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// newTestServer opens idx and returns its server and an httptest server
// running its handler.
func newTestServer(t testing.TB, idx string, opt Options) (*Server, *httptest.Server) {
	t.Helper()
	s := newServer(t, idx, opt)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return s, ts
}

// askReply decodes GET /v1/ask.
type askReply struct {
	Question string
	Ranker   string
	K        int
	Answers  []struct {
		Rank                                 int
		Sentence, Context, Title, Source, ID string
		Score                                float64
		Scores                               map[string]float64
		Start, End                           int
	}
	Error string
}

// get fetches path from ts and returns the response and its body.
func get(t testing.TB, ts *httptest.Server, method, path string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
		} else {
			req.Header.Set(header[i], header[i+1])
		}
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	return resp, b
}

// checkSecurityHeaders fails unless resp carries the headers every
// response must have.
func checkSecurityHeaders(t testing.TB, what string, resp *http.Response) {
	t.Helper()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("%s: Content-Security-Policy %q", what, csp)
	}
	if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("%s: X-Content-Type-Options %q", what, got)
	}
}

// waitUntil polls cond until it holds; it fails the test if it never does
// within a generous bound (a hang, not a timing assertion).
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// parseIP is net.ParseIP, for tests that restate the server's rules.
func parseIP(s string) net.IP { return net.ParseIP(s) }
