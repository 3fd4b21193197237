package server

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"os"
	"path"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/reqa/reqa/rank"
)

// web holds the single-page UI served at /: no file is fetched from
// anywhere but the binary.
//
//go:embed web/index.html web/app.js web/style.css
var web embed.FS

// Limits and timing of the server.
const (
	// MaxQuestionChars bounds a question's length in characters.
	MaxQuestionChars = 2000
	// MaxK bounds the number of answers one request may ask for.
	MaxK = 100
	// DefaultK is the number of answers when k is not given.
	DefaultK = 5
	// maxQueryBytes bounds the raw query string (a question of
	// MaxQuestionChars four-byte characters, percent-encoded, fits).
	maxQueryBytes = 28 << 10
	// maxHeaderBytes bounds the request line plus headers.
	maxHeaderBytes = 32 << 10
	// queueWait is how long a question waits for a free slot before the
	// server answers 503 (busy).
	queueWait = 30 * time.Second
	// askTimeout bounds the time one question may take before the server
	// answers 503 without waiting for it any longer.
	askTimeout = 30 * time.Second
	// checkEvery is how often a request waiting for its answer looks
	// whether the index file changed under it.
	checkEvery = 100 * time.Millisecond
	// defaultSettle is how long a changed index file must stay unchanged
	// before it is opened.
	defaultSettle = 500 * time.Millisecond
	// ShutdownGrace is how long a graceful shutdown waits for requests in
	// flight before closing their connections.
	ShutdownGrace = 10 * time.Second
)

// RankerFunc returns the ranker a request names ("" for the index's
// default) over e, with the dense options the server uses.
type RankerFunc func(e *rank.Index, name string, opt rank.DenseOptions) (rank.Ranker, error)

// Options configure a server.
type Options struct {
	// MaxConcurrent bounds the questions answered at once (0: GOMAXPROCS).
	MaxConcurrent int
	// Threads is the ONNX Runtime threads per question embedding (0: 1).
	Threads int
	// Log receives server errors; nil discards them.
	Log *log.Logger
	// Ranker chooses a request's ranker; required.
	Ranker RankerFunc
	// Perimeter is what requests must show.
	Perimeter Perimeter
	// Settle is how long a changed index file must stay unchanged before
	// it is opened (0: half a second).
	Settle time.Duration
	// Version is reported by /v1/stats.
	Version string
	// Open is how a replaced index file is opened (an engine's
	// credentials); see OpenWith.
	Open rank.OpenOptions
	// Sync, when set, describes how the index follows its source files
	// (serve --watch): /v1/stats shows it as "sync".
	Sync func() any
}

// Counters are the server's request counts, reported by /v1/stats.
type Counters struct {
	Answered    int64 `json:"answered"`    // questions answered
	Abandoned   int64 `json:"abandoned"`   // requests whose client left before the answer
	Waiting     int64 `json:"waiting"`     // requests waiting for a slot now
	InFlight    int64 `json:"in_flight"`   // questions holding a slot now
	Busy        int64 `json:"busy"`        // requests turned away after waiting for a slot
	Reloads     int64 `json:"reloads"`     // index generations loaded after the first
	Unavailable int64 `json:"unavailable"` // requests answered 503 while the index was being replaced
}

// Server answers questions over HTTP from one index, reopened when the
// file is replaced (see Watch). It is safe for concurrent use.
type Server struct {
	// cur is the index generation new requests use.
	cur       atomic.Pointer[generation]
	threads   int
	open      rank.OpenOptions
	pick      RankerFunc
	log       *log.Logger
	errs      *onceLog
	static    map[string]staticFile
	perimeter *hostGuard
	version   string
	settle    time.Duration
	kick      chan struct{} // wakes Watch
	sync      func() any

	// slots bounds the questions answered at once; a question waits at
	// most queueWait for one.
	slots     chan struct{}
	queueWait time.Duration
	// askTimeout and checkEvery: see the constants.
	askTimeout time.Duration
	checkEvery time.Duration

	answered, abandoned, waiting, busy, reloads, unavailable atomic.Int64
}

// staticFile is one embedded UI file with its validator.
type staticFile struct {
	name string
	body []byte
	etag string
}

// New prepares a server over e, which it owns from then on (it closes e
// when the file is replaced, or at Close). It loads the default ranker
// (and so the dense encoder, when the index has embeddings) so that a
// broken model is reported now, not at the first question.
func New(e *rank.Index, opt Options) (*Server, error) {
	if opt.Ranker == nil {
		return nil, errors.New("serve: no ranker chooser")
	}
	n := opt.MaxConcurrent
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	logger := opt.Log
	if logger == nil {
		logger = log.New(io.Discard, "", 0)
	}
	settle := opt.Settle
	if settle <= 0 {
		settle = defaultSettle
	}
	s := &Server{threads: opt.Threads, open: opt.Open, pick: opt.Ranker, log: logger, errs: &onceLog{log: logger},
		perimeter: newHostGuard(opt.Perimeter), version: opt.Version, settle: settle, kick: make(chan struct{}, 1), sync: opt.Sync,
		slots: make(chan struct{}, n), queueWait: queueWait, askTimeout: askTimeout, checkEvery: checkEvery,
		static: map[string]staticFile{}}
	f, err := os.Open(e.Store().Path())
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("serve: %w", err)
	}
	g, err := newGeneration(e, f, stampOf(fi), opt.Ranker, opt.Threads)
	if err != nil {
		f.Close()
		return nil, err
	}
	s.cur.Store(g)
	if err := s.loadStatic(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Server) loadStatic() error {
	err := fs.WalkDir(web, "web", func(p string, d fs.DirEntry, err error) error {
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
		return fmt.Errorf("serve: embedded web page: %w", err)
	}
	s.static["/"] = s.static["/index.html"]
	delete(s.static, "/index.html")
	return nil
}

// Index describes the index being served now: its file name, sentences
// and contexts, default ranker and rankers.
func (s *Server) Index() (name string, sentences, contexts int, defaultRanker string, rankers []string) {
	g := s.cur.Load()
	m := g.e.Meta()
	return g.name, m.Sentences, m.Contexts, g.defaultRanker, g.rankers
}

// Counters returns the request counts so far.
func (s *Server) Counters() Counters {
	return Counters{Answered: s.answered.Load(), Abandoned: s.abandoned.Load(), Waiting: s.waiting.Load(), InFlight: int64(len(s.slots)),
		Busy: s.busy.Load(), Reloads: s.reloads.Load(), Unavailable: s.unavailable.Load()}
}

// Close retires the current generation and waits a little for it to close;
// a generation that does not close in time (a reader stuck in it) is left
// to the process's exit. It never blocks for long.
func (s *Server) Close() {
	s.errs.Flush()
	g := s.cur.Load()
	g.life.Lock()
	g.retired = true
	idle := g.users == 0
	g.life.Unlock()
	if !idle {
		s.log.Printf("closing: requests still use the index; leaving it to the exit")
		return
	}
	select {
	case <-g.closeSoon():
	case <-time.After(closeWait):
		s.log.Printf("closing: the index did not close within %s; leaving it to the exit", closeWait)
	}
}

// acquire returns the current generation, held; call drop.
func (s *Server) acquire() *generation {
	for {
		g := s.cur.Load()
		if g.hold() {
			return g
		}
		// Retired under us: the new one is already in cur.
	}
}

// Wake asks Watch to look at the index file now (after the file was
// replaced, say, by a sync this process started).
func (s *Server) Wake() { s.wake() }

// wake asks Watch to look at the file now.
func (s *Server) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// trusted reports whether g can still be read; the first to find it
// poisoned logs why and wakes Watch.
func (s *Server) trusted(g *generation) bool {
	if g.intact() {
		return true
	}
	if g.poisonedNoticed.CompareAndSwap(false, true) {
		s.log.Printf("%v: not answering from it (503) until the new file is complete and checks out", g.why)
		s.wake()
	}
	return false
}

// Watch keeps the served index in step with its file until ctx is done.
// Every interval (0: only when a request notices a change) it looks at the
// file: a generation whose file changed in place is poisoned at once; a
// changed or replaced file is opened once it has stayed the same for the
// settle time and passes the page check, and becomes the current
// generation. A replacement that cannot be opened is logged (once) and not
// retried until it changes again; meanwhile the previous index keeps
// serving if its file is intact, and requests are answered 503 if not.
func (s *Server) Watch(ctx context.Context, interval time.Duration) {
	var (
		failed  stamp // the candidate that failed to open
		last    stamp // the candidate seen at the last look
		settled time.Time
	)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-s.kick:
		}
		g := s.acquire()
		pending := s.look(g, &failed, &last, &settled)
		g.drop()
		switch {
		case pending:
			timer.Reset(s.settle / 5)
		case interval > 0:
			timer.Reset(interval)
		}
	}
}

// look is one look of Watch at the file of g; it reports whether a change
// is pending (look again soon).
func (s *Server) look(g *generation, failed, last *stamp, settled *time.Time) bool {
	trusted := s.trusted(g)
	fi, err := os.Stat(g.path)
	if err != nil {
		if !trusted {
			s.errs.Printf("missing "+g.path, "index %s: %v; answering 503 until it is back", g.path, err)
			return true
		}
		return false
	}
	now := stampOf(fi)
	if trusted && now.sameFile(g.opened) {
		return false // nothing changed
	}
	if failed.same(now) {
		return !trusted
	}
	if !last.same(now) {
		*last, *settled = now, time.Now()
		return true
	}
	if time.Since(*settled) < s.settle {
		return true
	}
	if err := s.reload(g, now); err != nil {
		if errors.Is(err, errChangedWhileOpening) {
			*last = stamp{}
			return true
		}
		*failed = now
		// A slow copy can fail several times on the way: logged once,
		// then counted.
		if trusted {
			s.errs.Printf("reload failed, serving", "reload %s: %v; still serving the previous index", g.path, err)
		} else {
			s.errs.Printf("reload failed, 503", "reload %s: %v; answering 503 until the file is replaced by an index", g.path, err)
		}
		return !trusted
	}
	return false
}

// reload opens the file now at cur.path (stamped st) and makes it current.
func (s *Server) reload(cur *generation, st stamp) error {
	g, err := openGeneration(cur.path, &st, s.pick, s.threads, s.open)
	if err != nil {
		return err
	}
	s.cur.Store(g)
	s.reloads.Add(1)
	s.errs.Flush()
	s.log.Printf("reloaded %s: %d sentences from %d contexts (was %d)", g.path, g.e.Meta().Sentences, g.e.Meta().Contexts, cur.e.Meta().Sentences)
	cur.retire()
	return nil
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

// Serve serves h on ln until ctx is cancelled, then shuts down gracefully:
// it stops accepting, lets requests in flight finish (for up to
// ShutdownGrace, then closes their connections) and returns nil. It
// returns early with the error if serving fails.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, logger *log.Logger) error {
	srv := newHTTPServer(h, logger)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Printf("shutting down: finishing requests in flight")
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
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
