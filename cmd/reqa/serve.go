package main

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/store"
)

// web holds the single-page UI served at /: no file is fetched from
// anywhere but the binary.
//
//go:embed web/index.html web/app.js web/style.css
var web embed.FS

// Limits of the HTTP API.
const (
	// maxQuestionChars bounds a question's length in characters.
	maxQuestionChars = 2000
	// maxK bounds the number of answers one request may ask for.
	maxK = 100
	// defaultK is the number of answers when k is not given.
	defaultK = 5
	// maxQueryBytes bounds the raw query string (a question of
	// maxQuestionChars four-byte characters, percent-encoded, fits).
	maxQueryBytes = 28 << 10
	// maxHeaderBytes bounds the request line plus headers.
	maxHeaderBytes = 32 << 10
	// queueWait is how long a question waits for a free slot before the
	// server answers 503 (busy).
	queueWait = 30 * time.Second
	// shutdownGrace is how long a graceful shutdown waits for requests in
	// flight before closing their connections.
	shutdownGrace = 10 * time.Second
)

// contentSecurityPolicy allows the page its own script, style and API and
// nothing else: no inline script, no other origin, no framing.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "answer questions over HTTP: a JSON API (/v1/ask, /v1/stats, /healthz) and a web page at /",
		Description: "Serves one index until SIGINT or SIGTERM, then shuts down gracefully (requests in flight finish).\n" +
			"GET /v1/ask?q=QUESTION&k=5&ranker=NAME answers a question; GET /v1/stats describes the index and\n" +
			"its rankers; GET /healthz reports liveness. It listens on loopback by default and has no\n" +
			"authentication: put it behind a proxy before exposing it. When the index file is replaced\n" +
			"(reqa index, reqa index --append) it switches to the new one; requests in flight finish on\n" +
			"the old one, and a replacement that cannot be opened is logged and not served.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "index", Aliases: []string{"i"}, Required: true, Usage: "index file"},
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:8080", Usage: "address to listen on (host:port; port 0 picks a free one)"},
			&cli.IntFlag{Name: "max-concurrent", Usage: "questions answered at once; more wait (0: one per core)"},
			&cli.IntFlag{Name: "threads", Usage: "ONNX Runtime threads per question embedding (0: 1)"},
			&cli.DurationFlag{Name: "reload-every", Value: 2 * time.Second, Usage: "check this often whether the index file was replaced (reqa index, reqa index --append) and switch to the new one without dropping a request (0: never)"},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON line on stdout when listening ({\"event\":\"listening\",\"addr\":…}) and one when shut down; the log stays on stderr"},
		},
		OnUsageError: onUsage,
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usagef("serve: unexpected argument %q (the index is given with --index)", c.Args().First())
			}
			if c.Int("max-concurrent") < 0 {
				return usagef("serve: --max-concurrent %d: want ≥ 0", c.Int("max-concurrent"))
			}
			e, err := openServed(c.String("index"))
			if err != nil {
				return err
			}
			logger := log.New(c.App.ErrWriter, "reqa: ", log.LstdFlags)
			s, err := newServer(e, serverOptions{
				MaxConcurrent: c.Int("max-concurrent"),
				Threads:       c.Int("threads"),
				Log:           logger,
			})
			if err != nil {
				e.Close()
				return err
			}
			defer s.close()
			if iv := c.Duration("reload-every"); iv > 0 {
				wctx, cancel := context.WithCancel(c.Context)
				defer cancel()
				go s.watch(wctx, iv)
			}
			g := s.cur.Load()
			ln, err := net.Listen("tcp", c.String("addr"))
			if err != nil {
				return fmt.Errorf("serve: %w", err)
			}
			if host, _, err := net.SplitHostPort(c.String("addr")); err == nil {
				if ip := net.ParseIP(host); (ip == nil && host != "localhost") || (ip != nil && !ip.IsLoopback()) {
					logger.Printf("warning: listening on %s, beyond loopback; reqa has no authentication", ln.Addr())
				}
			}
			logger.Printf("serving %s (%d sentences, default ranker %s) on http://%s/", c.String("index"),
				e.Meta().Sentences, g.defaultRanker, ln.Addr())
			if c.Bool("json") {
				err := writeJSONLine(c.App.Writer, serveEvent{Event: "listening", Addr: ln.Addr().String(),
					URL: "http://" + ln.Addr().String() + "/", Index: c.String("index"), Sentences: e.Meta().Sentences,
					DefaultRanker: g.defaultRanker, Rankers: g.rankers})
				if err != nil {
					ln.Close()
					return fmt.Errorf("serve: %w", err)
				}
			}
			if err := serveUntil(c.Context, ln, s.handler(), logger); err != nil {
				return err
			}
			logger.Printf("shut down")
			if c.Bool("json") {
				return writeJSONLine(c.App.Writer, serveEvent{Event: "shutdown", Addr: ln.Addr().String(),
					Index: c.String("index"), Answered: ptr(s.answered.Load())})
			}
			return nil
		},
	}
}

// serveEvent is one line of `reqa serve --json`: "listening" once the
// socket is open (Addr is the real address, useful with port 0) and
// "shutdown" after a graceful shutdown.
type serveEvent struct {
	Event         string   `json:"event"`
	Addr          string   `json:"addr"`
	URL           string   `json:"url,omitempty"`
	Index         string   `json:"index"`
	Sentences     int      `json:"sentences,omitempty"`
	DefaultRanker string   `json:"default_ranker,omitempty"`
	Rankers       []string `json:"rankers,omitempty"`
	Answered      *int64   `json:"answered,omitempty"`
}

func ptr[T any](v T) *T { return &v }

// writeJSONLine writes v as one line of JSON.
func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// newHTTPServer returns the server for h with reqa's timeouts and limits.
func newHTTPServer(h http.Handler, logger *log.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          logger,
	}
}

// serveUntil serves h on ln until ctx is cancelled, then shuts down
// gracefully: it stops accepting, lets requests in flight finish (for up
// to shutdownGrace) and returns nil. It returns early with the error if
// serving fails.
func serveUntil(ctx context.Context, ln net.Listener, h http.Handler, logger *log.Logger) error {
	srv := newHTTPServer(h, logger)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Printf("shutting down: finishing requests in flight")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// serverOptions configure a server.
type serverOptions struct {
	// MaxConcurrent bounds the questions answered at once (0: GOMAXPROCS).
	MaxConcurrent int
	// Threads is the ONNX Runtime threads per question embedding (0: 1).
	Threads int
	// Log receives server errors; nil discards them.
	Log *log.Logger
}

// server answers questions over HTTP from one index, reopened when the
// file is replaced (see watch). It is safe for concurrent use.
type server struct {
	// cur is the index generation new requests use.
	cur     atomic.Pointer[servedIndex]
	threads int
	log     *log.Logger
	static  map[string]staticFile
	// reloads counts index generations loaded after the first.
	reloads atomic.Int64

	// slots bounds the questions answered at once; a question waits at
	// most queueWait for one.
	slots     chan struct{}
	queueWait time.Duration

	// Counters, reported by /v1/stats.
	answered  atomic.Int64 // questions answered
	abandoned atomic.Int64 // requests whose client left before the answer
	waiting   atomic.Int64 // requests waiting for a slot now
	busy      atomic.Int64 // requests turned away after waiting queueWait
}

// servedIndex is one open generation of the served index: its engine, the
// file it was opened from, and the rankers built over it. Requests hold
// use shared while they work; a replaced generation is closed once they are
// done.
type servedIndex struct {
	e             *rank.Engine
	path          string
	file          os.FileInfo
	index         string
	rankers       []string
	defaultRanker string
	threads       int

	mu    sync.Mutex
	cache map[string]rank.Ranker

	use    sync.RWMutex
	closed bool
}

// newServedIndex prepares a generation over e; it loads the default ranker
// (and so the dense encoder, when the index has embeddings) so that a
// broken model is reported now, not at the first question.
func newServedIndex(e *rank.Engine, threads int) (*servedIndex, error) {
	g := &servedIndex{e: e, path: e.Store().Path(), index: filepath.Base(e.Store().Path()), threads: threads, cache: map[string]rank.Ranker{}}
	g.file, _ = os.Stat(g.path)
	r, err := g.ranker("", defaultK)
	if err != nil {
		return nil, fmt.Errorf("serve: default ranker: %w", err)
	}
	g.defaultRanker = r.Name()
	g.rankers = e.Rankers()
	if e.Meta().Dense != nil {
		stored, err := e.StoredFusions()
		if err != nil {
			return nil, fmt.Errorf("serve: %w", err)
		}
		seen := map[string]bool{}
		for _, p := range stored {
			if !seen[p.Name] {
				seen[p.Name] = true
				g.rankers = append(g.rankers, p.Name)
			}
		}
		for _, name := range []string{"fusion-zscore", "fusion-rrf"} {
			if !seen[name] {
				g.rankers = append(g.rankers, name)
			}
		}
	}
	return g, nil
}

// acquire returns the current generation, held for use; call release.
func (s *server) acquire() *servedIndex {
	for {
		g := s.cur.Load()
		g.use.RLock()
		if !g.closed {
			return g
		}
		g.use.RUnlock() // retired under us: the new one is already in cur
	}
}

func (g *servedIndex) release() { g.use.RUnlock() }

// retire closes g once the requests using it are done.
func (g *servedIndex) retire() {
	g.use.Lock()
	defer g.use.Unlock()
	if !g.closed {
		g.closed = true
		g.e.Close()
	}
}

// close closes the current generation (at shutdown).
func (s *server) close() { s.cur.Load().retire() }

// watch reopens the index when its file is replaced — by `reqa index` or
// `reqa index --append`, which rename a complete new file into place — and
// switches new requests to it; requests in flight finish on the old one,
// which is then closed. A replacement that cannot be opened (damaged, a
// model that fails to load) is logged and the previous index keeps
// serving. It checks every interval until ctx is done.
func (s *server) watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	var failed os.FileInfo // the replacement that failed to load, not retried
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cur := s.cur.Load()
		st, err := os.Stat(cur.path)
		if err != nil || (cur.file != nil && os.SameFile(st, cur.file)) || (failed != nil && os.SameFile(st, failed)) {
			continue
		}
		if err := s.reload(cur, st); err != nil {
			failed = st
			s.log.Printf("reload %s: %v; still serving the previous index", cur.path, err)
		}
	}
}

// openServed opens an index for serve after checking its pages
// (store.CheckPages reads the whole file once): bbolt trusts its pages,
// and a damaged one could stop a long-running server for good, where a
// refused file leaves it serving, or not starting, with the reason.
func openServed(path string) (*rank.Engine, error) {
	if err := store.CheckPages(path); err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	return rank.Open(path)
}

// reload opens the file now at cur.path (st) and makes it current.
func (s *server) reload(cur *servedIndex, st os.FileInfo) error {
	e, err := openServed(cur.path)
	if err != nil {
		return err
	}
	g, err := newServedIndex(e, s.threads)
	if err != nil {
		e.Close()
		return err
	}
	g.file = st
	s.cur.Store(g)
	s.reloads.Add(1)
	s.log.Printf("reloaded %s: %d sentences from %d contexts (was %d)", g.path, e.Meta().Sentences, e.Meta().Contexts, cur.e.Meta().Sentences)
	go cur.retire()
	return nil
}

// staticFile is one embedded UI file with its validator.
type staticFile struct {
	name string
	body []byte
	etag string
}

// newServer prepares a server over e; it loads the default ranker (and so
// the dense encoder, when the index has embeddings) so that a broken model
// is reported now, not at the first question. The caller keeps e until
// the server replaces it (watch), after which the server closes it.
func newServer(e *rank.Engine, opt serverOptions) (*server, error) {
	n := opt.MaxConcurrent
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	logger := opt.Log
	if logger == nil {
		logger = log.New(io.Discard, "", 0)
	}
	s := &server{threads: opt.Threads, log: logger,
		slots: make(chan struct{}, n), queueWait: queueWait, static: map[string]staticFile{}}
	g, err := newServedIndex(e, opt.Threads)
	if err != nil {
		return nil, err
	}
	s.cur.Store(g)
	err = fs.WalkDir(web, "web", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := web.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		name := path.Base(p)
		s.static["/"+name] = staticFile{name: name, body: b, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("serve: embedded web page: %w", err)
	}
	s.static["/"] = s.static["/index.html"]
	delete(s.static, "/index.html")
	return s, nil
}

// ranker returns the ranker called name ("" for the default), built once
// per generation and shared: every rank.Ranker is safe for concurrent Score
// calls.
func (s *servedIndex) ranker(name string, k int) (rank.Ranker, error) {
	key := name
	if name == "dense" {
		// The ANN search returns exactly k answers.
		key = name + "/" + strconv.Itoa(k)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.cache[key]; ok {
		return r, nil
	}
	r, err := resolveRanker(s.e, name, true, rank.DenseOptions{ANN: true, K: k, Threads: s.threads})
	if err != nil {
		return nil, err
	}
	s.cache[key] = r
	return r, nil
}

// handler returns the HTTP handler: the API, the page and its files.
func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/ask", s.handleAsk)
	mux.HandleFunc("/v1/stats", s.handleStats)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		writeAPI(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("/", s.handleStatic)
	return guard(mux)
}

// guard adds the security headers to every response and refuses what no
// endpoint accepts: methods other than GET and HEAD, request bodies and
// oversized query strings.
func guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		switch {
		case r.Method != http.MethodGet && r.Method != http.MethodHead:
			h.Set("Allow", "GET, HEAD")
			writeError(w, http.StatusMethodNotAllowed, "method %s not allowed (use GET)", r.Method)
		case r.ContentLength != 0:
			writeError(w, http.StatusRequestEntityTooLarge, "request bodies are not accepted")
		case len(r.URL.RawQuery) > maxQueryBytes:
			writeError(w, http.StatusRequestURITooLong, "query string of %d bytes: at most %d", len(r.URL.RawQuery), maxQueryBytes)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// handleStatic serves the embedded page and its script and style sheet.
func (s *server) handleStatic(w http.ResponseWriter, r *http.Request) {
	f, ok := s.static[r.URL.Path]
	if !ok {
		writeError(w, http.StatusNotFound, "not found")
		return
	}
	w.Header().Set("ETag", f.etag)
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, f.name, time.Time{}, strings.NewReader(string(f.body)))
}

// askResponse is the body of GET /v1/ask.
type askResponse struct {
	Question string      `json:"question"`
	Ranker   string      `json:"ranker"`
	K        int         `json:"k"`
	Answers  []apiAnswer `json:"answers"`
}

// apiAnswer is one answer of GET /v1/ask. Start and End are the byte
// offsets of Sentence in Context (UTF-8).
type apiAnswer struct {
	Rank        int                  `json:"rank"`
	Sentence    string               `json:"sentence"`
	Context     string               `json:"context"`
	Title       string               `json:"title,omitempty"`
	Source      string               `json:"source,omitempty"`
	CandidateID string               `json:"candidate_id,omitempty"`
	Score       jsonFloat            `json:"score"`
	Scores      map[string]jsonFloat `json:"scores"`
	Start       int                  `json:"start"`
	End         int                  `json:"end"`
}

// jsonFloat is a float64 that encodes NaN and ±Inf as null instead of
// failing the whole response.
type jsonFloat float64

// MarshalJSON implements json.Marshaler.
func (f jsonFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

// askParams are the validated parameters of GET /v1/ask.
type askParams struct {
	question string
	k        int
	ranker   string
}

// parseAsk validates the query string of GET /v1/ask.
func parseAsk(rawQuery string) (askParams, error) {
	vals, err := url.ParseQuery(rawQuery)
	if err != nil {
		return askParams{}, fmt.Errorf("malformed query string: %v", err)
	}
	for name, vs := range vals {
		if len(vs) > 1 {
			return askParams{}, fmt.Errorf("parameter %q given %d times", name, len(vs))
		}
	}
	p := askParams{question: strings.TrimSpace(vals.Get("q")), k: defaultK, ranker: vals.Get("ranker")}
	switch n := utf8.RuneCountInString(p.question); {
	case !utf8.ValidString(p.question):
		return askParams{}, errors.New("q is not valid UTF-8")
	case n == 0:
		return askParams{}, errors.New("missing question: give it as q=…")
	case n > maxQuestionChars:
		return askParams{}, fmt.Errorf("question of %d characters: at most %d", n, maxQuestionChars)
	}
	if ks := vals.Get("k"); ks != "" {
		k, err := strconv.Atoi(ks)
		if err != nil || k < 1 || k > maxK {
			return askParams{}, fmt.Errorf("k=%q: want a whole number from 1 to %d", ks, maxK)
		}
		p.k = k
	}
	if len(p.ranker) > 64 || !utf8.ValidString(p.ranker) {
		return askParams{}, errors.New("ranker: not a ranker name")
	}
	return p, nil
}

// handleAsk answers GET /v1/ask?q=…&k=…&ranker=….
func (s *server) handleAsk(w http.ResponseWriter, r *http.Request) {
	p, err := parseAsk(r.URL.RawQuery)
	if err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	g := s.acquire()
	defer g.release()
	rk, err := g.ranker(p.ranker, p.k)
	if errors.Is(err, rank.ErrUnknownRanker) {
		writeError(w, http.StatusBadRequest, "%v; this server offers: %s", err, strings.Join(g.rankers, ", "))
		return
	}
	if err != nil {
		s.log.Printf("ask: ranker %q: %v", p.ranker, err)
		writeError(w, http.StatusInternalServerError, "ranker %s: %v", p.ranker, err)
		return
	}
	ctx := r.Context()
	s.waiting.Add(1)
	busy := time.NewTimer(s.queueWait)
	select {
	case s.slots <- struct{}{}:
		s.waiting.Add(-1)
		busy.Stop()
	case <-ctx.Done():
		// The client left (or the server is closing) while waiting.
		s.waiting.Add(-1)
		s.abandoned.Add(1)
		busy.Stop()
		return
	case <-busy.C:
		s.waiting.Add(-1)
		s.busy.Add(1)
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, "busy: %d questions being answered, more waiting; try again", cap(s.slots))
		return
	}
	answers, err := g.e.Ask(rk, p.question, p.k)
	<-s.slots
	if err != nil {
		s.log.Printf("ask %q with %s: %v", p.question, rk.Name(), err)
		writeError(w, http.StatusInternalServerError, "answering with %s: %v", rk.Name(), err)
		return
	}
	if ctx.Err() != nil {
		s.abandoned.Add(1)
		return
	}
	s.answered.Add(1)
	resp := askResponse{Question: p.question, Ranker: rk.Name(), K: p.k, Answers: make([]apiAnswer, 0, len(answers))}
	for _, a := range answers {
		x := apiAnswer{Rank: a.Rank, Sentence: a.Sentence, Context: a.Context, Title: a.Title, Source: a.Source,
			CandidateID: a.CandidateID, Score: jsonFloat(a.Score), Start: a.Start, End: a.End,
			Scores: map[string]jsonFloat{}}
		if len(a.Scores) == 0 {
			x.Scores[rk.Name()] = jsonFloat(a.Score)
		}
		for n, v := range a.Scores {
			x.Scores[n] = jsonFloat(v)
		}
		resp.Answers = append(resp.Answers, x)
	}
	writeAPI(w, http.StatusOK, resp)
}

// statsResponse is the body of GET /v1/stats.
type statsResponse struct {
	Index         string          `json:"index"`
	FormatVersion int             `json:"format_version"`
	Builder       string          `json:"builder"`
	Created       time.Time       `json:"created"`
	Contexts      int             `json:"contexts"`
	Sentences     int             `json:"sentences"`
	SizeBytes     int64           `json:"size_bytes"`
	Dataset       string          `json:"dataset,omitempty"`
	Rankers       []string        `json:"rankers"`
	DefaultRanker string          `json:"default_ranker"`
	Dense         json.RawMessage `json:"dense"`
	Fields        json.RawMessage `json:"fields"`
	Limits        map[string]int  `json:"limits"`
	Server        map[string]any  `json:"server"`
}

// handleStats describes the index, its rankers and the server's counters.
func (s *server) handleStats(w http.ResponseWriter, r *http.Request) {
	g := s.acquire()
	defer g.release()
	m := g.e.Meta()
	dense, err := json.Marshal(m.Dense)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "stats: %v", err)
		return
	}
	fields, err := json.Marshal(m.Fields)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "stats: %v", err)
		return
	}
	writeAPI(w, http.StatusOK, statsResponse{
		Index: g.index, FormatVersion: m.FormatVersion, Builder: m.Builder, Created: m.Created,
		Contexts: m.Contexts, Sentences: m.Sentences, SizeBytes: g.e.Store().SizeBytes(), Dataset: m.Dataset,
		Rankers: g.rankers, DefaultRanker: g.defaultRanker, Dense: dense, Fields: fields,
		Limits: map[string]int{"max_question_chars": maxQuestionChars, "max_k": maxK, "default_k": defaultK,
			"max_concurrent": cap(s.slots)},
		Server: map[string]any{"version": version, "answered": s.answered.Load(), "abandoned": s.abandoned.Load(),
			"waiting": s.waiting.Load(), "busy": s.busy.Load(), "reloads": s.reloads.Load()},
	})
}

// writeAPI writes v as JSON with status code. HTML-significant characters
// are escaped (\u003c…), so the body is inert even if mistaken for HTML.
func writeAPI(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		b, _ = json.Marshal(map[string]string{"error": "encoding the response: " + err.Error()})
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

// writeError writes {"error": message} with status code.
func writeError(w http.ResponseWriter, code int, format string, args ...any) {
	writeAPI(w, code, map[string]string{"error": fmt.Sprintf(format, args...)})
}
