package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/reqa/reqa/cmd/reqa/internal/server"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/store"
)

// serveCorpus has plain answers, markup that must stay text, and non-ASCII
// text before an answer (the API's offsets count bytes).
const serveCorpus = "The ferry leaves at nine. It returns at noon.\n\n" +
	"Tickets cost five euros. Beware: <script>alert(1)</script> is not a ticket. <img src=x onerror=alert(2)> marks the kiosk.\n\n" +
	"Über café: the naïve résumé costs €5. It is sold at the kiosk.\n"

// serveIndex builds an index of serveCorpus; withDense asks for embeddings
// and reports whether the index got them (the encoder is embedded only in
// builds made by make).
func serveIndex(t *testing.T, withDense bool) (string, bool) {
	t.Helper()
	dir := t.TempDir()
	in := writeFile(t, dir, "notes.txt", serveCorpus)
	idx := filepath.Join(dir, "notes.reqa")
	args := []string{"index", "--quiet", "--out", idx, in}
	if !withDense {
		args = []string{"index", "--quiet", "--dense=false", "--out", idx, in}
	}
	if code, _, errs := reqa(t, args...); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	_, out, _ := reqa(t, "stats", idx)
	return idx, strings.Contains(out, "\ndense ")
}

// newTestServer opens idx and returns its server and an httptest server
// running its handler.
func newTestServer(t *testing.T, idx string, opt serverOptions) (*testServer, *httptest.Server) {
	t.Helper()
	if opt.Open.VectorCache == 0 {
		opt.Open.VectorCache = rank.DefaultVectorCache // as reqa serve opens it
	}
	e, err := rank.OpenWith(idx, opt.Open)
	if err != nil {
		t.Fatal(err)
	}
	if opt.Log == nil {
		opt.Log = log.New(io.Discard, "", 0)
	}
	s, err := newServer(e, opt)
	if err != nil {
		e.Close()
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ts := httptest.NewServer(s.handler())
	t.Cleanup(ts.Close)
	return s, ts
}

// serverOptions, newServer, handler and serveUntil let the tests of other
// commands (corrupt, limits, browser) start the server as `reqa serve`
// does: with serve's ranker chooser.
type serverOptions = server.Options

type testServer struct{ *server.Server }

func newServer(e *rank.Index, opt serverOptions) (*testServer, error) {
	if opt.Ranker == nil {
		opt.Ranker = serveRanker
	}
	s, err := server.New(e, opt)
	if err != nil {
		return nil, err
	}
	return &testServer{s}, nil
}

func (s *testServer) handler() http.Handler { return s.Handler() }

func serveUntil(ctx context.Context, ln net.Listener, h http.Handler, logger *log.Logger) error {
	return server.Serve(ctx, ln, h, logger)
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
func get(t *testing.T, ts *httptest.Server, method, path string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
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
func checkSecurityHeaders(t *testing.T, what string, resp *http.Response) {
	t.Helper()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("%s: Content-Security-Policy %q", what, csp)
	}
	if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("%s: X-Content-Type-Options %q", what, got)
	}
}

// TestServeDense checks the fused default ranker and the dense ranker on an
// index with embeddings.
func TestServeDense(t *testing.T) {
	idx, dense := serveIndex(t, true)
	if !dense {
		skipUnlessCI(t, "dense encoder not embedded in this build (run via make): dense serving not tested")
	}
	_, ts := newTestServer(t, idx, serverOptions{})
	_, body := get(t, ts, "GET", "/v1/stats")
	var st struct {
		Rankers       []string
		DefaultRanker string `json:"default_ranker"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatal(err)
	}
	if want := []string{"bm25-word", "bm25-wpm", "bm25-stem", "dense", "fusion-zscore", "fusion-rrf"}; !reflect.DeepEqual(st.Rankers, want) || st.DefaultRanker != "fusion-zscore" {
		t.Fatalf("rankers %v default %s", st.Rankers, st.DefaultRanker)
	}
	tests := []struct {
		path, ranker string
		answers      int
		scores       []string
	}{
		{"/v1/ask?q=When+does+the+ferry+return&k=3", "fusion-zscore", 3, []string{"bm25-stem", "bm25-word", "dense"}}, // bm25-wpm weighs 0: not computed
		{"/v1/ask?q=When+does+the+ferry+return&k=2&ranker=dense", "dense", 2, []string{"dense"}},
		{"/v1/ask?q=When+does+the+ferry+return&k=7&ranker=dense", "dense", 7, []string{"dense"}},
	}
	want := map[string]string{}
	for _, tt := range tests {
		resp, body := get(t, ts, "GET", tt.path)
		var r askReply
		if err := json.Unmarshal(body, &r); resp.StatusCode != 200 || err != nil {
			t.Fatalf("%s: %d %v %s", tt.path, resp.StatusCode, err, body)
		}
		if r.Ranker != tt.ranker || len(r.Answers) != tt.answers {
			t.Fatalf("%s: ranker %s, %d answers", tt.path, r.Ranker, len(r.Answers))
		}
		want[tt.path] = sentences(r)
		for _, a := range r.Answers {
			var names []string
			for n := range a.Scores {
				names = append(names, n)
			}
			if len(names) != len(tt.scores) {
				t.Fatalf("%s: scores %v, want %v", tt.path, a.Scores, tt.scores)
			}
			for _, n := range tt.scores {
				if _, ok := a.Scores[n]; !ok {
					t.Fatalf("%s: scores %v, want %v", tt.path, a.Scores, tt.scores)
				}
			}
		}
	}

	// The fused and dense rankers answer concurrent questions as they
	// answer them one at a time.
	var wg sync.WaitGroup
	errs := make(chan error, 8*len(tests))
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range tests {
				p := tests[(w+i)%len(tests)].path
				resp, err := ts.Client().Get(ts.URL + p)
				if err != nil {
					errs <- err
					continue
				}
				var r askReply
				err = json.NewDecoder(resp.Body).Decode(&r)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 || sentences(r) != want[p] {
					errs <- fmt.Errorf("%s: status %d, err %v, answers %s, want %s", p, resp.StatusCode, err, sentences(r), want[p])
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

// sentences lists a reply's answer sentences in order.
func sentences(r askReply) string {
	var b strings.Builder
	for _, a := range r.Answers {
		b.WriteString(a.Sentence + "|")
	}
	return b.String()
}

// startServe starts cmd, a `reqa serve` process, and reads its stderr up
// to the line saying where it listens: it returns that base URL, the lines
// read so far and the scanner over the rest. The process is killed when the
// test ends.
func startServe(t *testing.T, cmd *exec.Cmd) (string, *strings.Builder, *bufio.Scanner) {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	lines := bufio.NewScanner(stderr)
	var base string
	head := &strings.Builder{}
	listening := regexp.MustCompile(`serving .* on (http://[^/ ]+)/`)
	for base == "" && lines.Scan() {
		head.WriteString(lines.Text() + "\n")
		if m := listening.FindStringSubmatch(lines.Text()); m != nil {
			base = m[1]
		}
	}
	if base == "" {
		t.Fatalf("serve did not say where it listens:\n%s", head.String())
	}
	return base, head, lines
}

// TestServeCommand runs `reqa serve` as its own process, asks it a
// question, and stops it with SIGTERM: it must shut down and exit 0.
func TestServeCommand(t *testing.T) {
	idx, _ := serveIndex(t, false)
	cmd := exec.Command(os.Args[0], "serve", "--index", idx, "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "REQA_RUN_MAIN=1")
	base, head, lines := startServe(t, cmd)
	rest := make(chan string, 1)
	go func() {
		var b strings.Builder
		for lines.Scan() {
			b.WriteString(lines.Text() + "\n")
		}
		rest <- b.String()
	}()
	for _, p := range []string{"/healthz", "/v1/ask?q=ferry+return&k=1", "/"} {
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", p, resp.StatusCode)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	tail := <-rest
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve after SIGTERM: %v\n%s%s", err, head.String(), tail)
	}
	if !strings.Contains(tail, "shut down") {
		t.Fatalf("no shutdown message:\n%s", tail)
	}
}

// TestServeVectorCache: serve reads the answer vectors through its cache
// (as reqa serve does by default), answers as a server reading them in
// place does, byte for byte, and reports the cache in /v1/stats: its
// size, the rows it holds, and hits that grow when a question is asked
// again.
func TestServeVectorCache(t *testing.T) {
	idx, dense := serveIndex(t, true)
	if !dense {
		t.Fatal("no embeddings in this build: run `make assets`")
	}
	_, cached := newTestServer(t, idx, serverOptions{})
	_, inPlace := newTestServer(t, idx, serverOptions{Open: rank.OpenOptions{VectorCache: -1}})
	stats := func(ts *httptest.Server) *store.CacheStats {
		resp, body := get(t, ts, "GET", "/v1/stats")
		var st struct {
			VectorCache *store.CacheStats `json:"vector_cache"`
		}
		if resp.StatusCode != 200 || json.Unmarshal(body, &st) != nil {
			t.Fatalf("stats: %d %s", resp.StatusCode, body)
		}
		return st.VectorCache
	}
	asks := []string{
		"/v1/ask?q=" + url.QueryEscape("When does the ferry come back?") + "&k=3&ranker=dense",
		"/v1/ask?q=" + url.QueryEscape("How much is a ticket?") + "&k=3",
	}
	var before *store.CacheStats
	for round := range 2 {
		for _, p := range asks {
			ra, a := get(t, cached, "GET", p)
			rb, b := get(t, inPlace, "GET", p)
			if ra.StatusCode != 200 || rb.StatusCode != 200 || string(a) != string(b) {
				t.Fatalf("%s: through the cache\n%s\nin place\n%s", p, a, b)
			}
		}
		st := stats(cached)
		if st == nil || st.Bytes <= 0 || st.Rows <= 0 || st.Misses <= 0 || (round == 1 && st.Hits <= before.Hits) {
			t.Fatalf("round %d: vector cache %+v (before %+v)", round, st, before)
		}
		before = st
	}
	if st := stats(inPlace); st != nil {
		t.Fatalf("in place: vector cache %+v, want none", st)
	}
}

func TestServeUsage(t *testing.T) {
	idx, _ := serveIndex(t, false)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"serve"}, 2, "index"},
		{[]string{"serve", "--index", idx, "extra"}, 2, "unexpected argument"},
		{[]string{"serve", "--index", idx, "--max-concurrent", "-1"}, 2, "max-concurrent"},
		{[]string{"serve", "--index", idx, "--vector-cache", "lots"}, 2, `--vector-cache "lots"`},
		{[]string{"serve", "--index", idx, "--vector-cache", "-1M"}, 2, "--vector-cache"},
		{[]string{"serve", "--index", filepath.Join(t.TempDir(), "missing.reqa")}, 1, "missing.reqa"},
		{[]string{"serve", "--index", idx, "--addr", busy.Addr().String()}, 1, "address already in use"},
		{[]string{"serve", "--index", idx, "--addr", "nonsense"}, 1, "serve"},
	}
	for _, tt := range tests {
		code, _, errs := reqa(t, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("reqa %s: exit %d, want %d with %q:\n%s", strings.Join(tt.args, " "), code, tt.code, tt.want, errs)
		}
	}
}

// maxQuestionChars is the API's limit on a question, for the tests of
// other commands.
const maxQuestionChars = server.MaxQuestionChars
