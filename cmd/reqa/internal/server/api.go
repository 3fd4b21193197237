package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/store"
)

// contentSecurityPolicy allows the page its own script, style and API and
// nothing else: no inline script, no other origin, no framing.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Handler returns the HTTP handler: the API, the page and its files,
// behind the perimeter.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/ask", s.handleAsk)
	mux.HandleFunc("/v1/stats", s.handleStats)
	mux.HandleFunc("/healthz", s.handleHealth)
	mux.HandleFunc("/", s.handleStatic)
	return securityHeaders(s.perimeter.wrap(guard(mux)))
}

// securityHeaders adds the security headers to every response.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

// guard refuses what no endpoint accepts: methods other than GET and HEAD,
// request bodies and oversized query strings.
func guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method != http.MethodGet && r.Method != http.MethodHead:
			w.Header().Set("Allow", "GET, HEAD")
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
func (s *Server) handleStatic(w http.ResponseWriter, r *http.Request) {
	f, ok := s.static[r.URL.Path]
	if !ok {
		writeError(w, http.StatusNotFound, "not found")
		return
	}
	w.Header().Set("ETag", f.etag)
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, f.name, time.Time{}, strings.NewReader(string(f.body)))
}

// handleHealth answers 200 while the index can be read and 503 while its
// file is being replaced in place.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	g := s.acquire()
	defer g.drop()
	if !s.trusted(g) {
		w.Header().Set("Retry-After", "1")
		writeAPI(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "error": unavailableMessage(g)})
		return
	}
	m := g.e.Meta()
	writeAPI(w, http.StatusOK, health{Status: "ok", Index: g.name, Contexts: m.Contexts, Sentences: m.Sentences})
}

// health is the body of a 200 from /healthz: what is being served.
type health struct {
	Status    string `json:"status"`
	Index     string `json:"index"`
	Contexts  int    `json:"contexts"`
	Sentences int    `json:"sentences"`
}

// unavailableMessage says why g is not answered from.
func unavailableMessage(g *generation) string {
	return fmt.Sprintf("the index file %s is being replaced in place; answers resume once the new file is complete and checks out", g.name)
}

// refuse answers 503 because g's file changed in place.
func (s *Server) refuse(w http.ResponseWriter, g *generation) {
	s.unavailable.Add(1)
	w.Header().Set("Retry-After", "1")
	writeError(w, http.StatusServiceUnavailable, "%s", unavailableMessage(g))
}

// askResponse is the body of GET /v1/ask.
type askResponse struct {
	Question string      `json:"question"`
	Ranker   string      `json:"ranker"`
	K        int         `json:"k"`
	Answers  []apiAnswer `json:"answers"`
}

// apiAnswer is one answer of GET /v1/ask. Start and End are the byte
// offsets of Sentence in Context (UTF-8); ID is the record's id in its
// source (a JSONL "id", a dataset's context id), if it has one.
type apiAnswer struct {
	Rank        int                  `json:"rank"`
	Sentence    string               `json:"sentence"`
	Context     string               `json:"context"`
	Title       string               `json:"title,omitempty"`
	Source      string               `json:"source,omitempty"`
	Kind        string               `json:"kind,omitempty"`
	ID          string               `json:"id,omitempty"`
	CandidateID string               `json:"candidate_id,omitempty"`
	Score       jsonFloat            `json:"score"`
	Scores      map[string]jsonFloat `json:"scores"`
	Start       int                  `json:"start"`
	End         int                  `json:"end"`
	// Also lists the sources of lower-ranked candidates with the same
	// sentence, left out of the answers (rank.Answer.Also).
	Also []string `json:"also,omitempty"`
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
	p := askParams{question: strings.TrimSpace(vals.Get("q")), k: DefaultK, ranker: vals.Get("ranker")}
	switch n := utf8.RuneCountInString(p.question); {
	case !utf8.ValidString(p.question):
		return askParams{}, errors.New("q is not valid UTF-8")
	case n == 0:
		return askParams{}, errors.New("missing question: give it as q=…")
	case n > MaxQuestionChars:
		return askParams{}, fmt.Errorf("question of %d characters: at most %d", n, MaxQuestionChars)
	}
	if ks := vals.Get("k"); ks != "" {
		k, err := strconv.Atoi(ks)
		if err != nil || k < 1 || k > MaxK {
			return askParams{}, fmt.Errorf("k=%q: want a whole number from 1 to %d", ks, MaxK)
		}
		p.k = k
	}
	if len(p.ranker) > 64 || !utf8.ValidString(p.ranker) {
		return askParams{}, errors.New("ranker: not a ranker name")
	}
	return p, nil
}

// askResult is what answering one question gave.
type askResult struct {
	ranker  string
	answers []rank.Answer
	err     error
}

// answer answers p from g. Run in a goroutine of its own: reading a
// mapping whose file was truncated can fault (made a panic, recovered
// here) and leave bbolt's locks held, so that the next reader never
// returns.
func (s *Server) answer(g *generation, p askParams) (res askResult) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if x := recover(); x != nil {
			res.err = fmt.Errorf("unreadable index (%v): %w", x, store.ErrCorrupt)
		}
	}()
	rk, err := g.ranker(p.ranker)
	if err != nil {
		return askResult{ranker: p.ranker, err: err}
	}
	res.ranker = rk.Name()
	res.answers, res.err = g.e.Ask(context.Background(), rk, p.question, p.k)
	return res
}

// takeSlot waits for a free slot: false when the request was answered
// (busy, or the index became unavailable) or its client left.
func (s *Server) takeSlot(w http.ResponseWriter, ctx context.Context, g *generation) bool {
	s.waiting.Add(1)
	defer s.waiting.Add(-1)
	busy := time.NewTimer(s.queueWait)
	defer busy.Stop()
	select {
	case s.slots <- struct{}{}:
		return true
	case <-ctx.Done():
		// The client left (or the server is closing) while waiting.
		s.abandoned.Add(1)
	case <-g.poisoned:
		s.refuse(w, g)
	case <-busy.C:
		s.busy.Add(1)
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, "busy: %d questions being answered, more waiting; try again", cap(s.slots))
	}
	return false
}

// handleAsk answers GET /v1/ask?q=…&k=…&ranker=…. It never waits without
// bound: the question is answered in its own goroutine while the request
// waits for it, for the index file to change under it (then 503), or for
// askTimeout (503).
func (s *Server) handleAsk(w http.ResponseWriter, r *http.Request) {
	p, err := parseAsk(r.URL.RawQuery)
	if err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	g := s.acquire()
	defer g.drop()
	if !s.trusted(g) {
		s.refuse(w, g)
		return
	}
	ctx := r.Context()
	if !s.takeSlot(w, ctx, g) {
		return
	}
	res := make(chan askResult, 1)
	g.addUse() // the worker's own use: it may outlive this request
	go func() {
		defer g.drop()
		res <- s.answer(g, p)
	}()
	out, ok := s.await(ctx, g, res)
	<-s.slots
	switch {
	case !ok && g.isPoisoned():
		s.refuse(w, g)
	case !ok:
		s.errs.Printf("timeout", "ask: a question took longer than %s; answered 503", s.askTimeout)
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, "the question took longer than %s; try again", s.askTimeout)
	default:
		s.reply(w, r, g, p, out)
	}
}

// await waits for the answer; false if g was poisoned or askTimeout passed
// first. A client that leaves does not end the wait: the slot stays taken
// until the work is done or abandoned.
func (s *Server) await(ctx context.Context, g *generation, res <-chan askResult) (askResult, bool) {
	timeout := time.NewTimer(s.askTimeout)
	defer timeout.Stop()
	tick := time.NewTicker(s.checkEvery)
	defer tick.Stop()
	for {
		select {
		case out := <-res:
			return out, true
		case <-g.poisoned:
			return askResult{}, false
		case <-tick.C:
			s.trusted(g)
		case <-timeout.C:
			return askResult{}, false
		}
	}
}

// reply writes the answer to a question, or why there is none.
func (s *Server) reply(w http.ResponseWriter, r *http.Request, g *generation, p askParams, out askResult) {
	if errors.Is(out.err, rank.ErrUnknownRanker) {
		writeError(w, http.StatusBadRequest, "%v; this server offers: %s", out.err, strings.Join(g.rankers, ", "))
		return
	}
	// Bytes read while the file changed may be the new file's: drop them.
	if !s.trusted(g) {
		s.refuse(w, g)
		return
	}
	if out.err != nil {
		msg := strings.ReplaceAll(out.err.Error(), g.path, g.name)
		key := "ask " + out.ranker + ": " + msg
		if errors.Is(out.err, store.ErrCorrupt) {
			key = "ask " + out.ranker + ": damaged"
		}
		s.errs.Printf(key, "ask with %s: %s", out.ranker, msg)
		writeError(w, http.StatusInternalServerError, "answering with %s: %s", out.ranker, msg)
		return
	}
	if r.Context().Err() != nil {
		s.abandoned.Add(1)
		return
	}
	s.answered.Add(1)
	resp := askResponse{Question: p.question, Ranker: out.ranker, K: p.k, Answers: make([]apiAnswer, 0, len(out.answers))}
	for _, a := range out.answers {
		x := apiAnswer{Rank: a.Rank, Sentence: a.Sentence, Context: a.Context, Title: a.Title, Source: a.Source, Kind: a.Kind,
			ID: a.ID, CandidateID: a.CandidateID, Score: jsonFloat(a.Score), Start: a.Start, End: a.End,
			Scores: map[string]jsonFloat{}, Also: a.Also}
		if len(a.Scores) == 0 {
			x.Scores[out.ranker] = jsonFloat(a.Score)
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
	Server        serverStats     `json:"server"`
	// Sync is how the index follows its source files (serve --watch).
	Sync any `json:"sync,omitempty"`
	// VectorCache is the cache the answer vectors are read through
	// (serve --vector-cache), once a question has needed them.
	VectorCache *store.CacheStats `json:"vector_cache,omitempty"`
}

// serverStats is the server part of GET /v1/stats.
type serverStats struct {
	Version string `json:"version"`
	Counters
}

// handleStats describes the index (by its file name, never its path), its
// rankers and the server's counters.
func (s *Server) handleStats(w http.ResponseWriter, r *http.Request) {
	g := s.acquire()
	defer g.drop()
	if !s.trusted(g) {
		s.refuse(w, g)
		return
	}
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
	var vc *store.CacheStats
	if st, ok := g.e.VectorCache(); ok {
		vc = &st
	}
	writeAPI(w, http.StatusOK, statsResponse{
		Index: g.name, FormatVersion: m.FormatVersion, Builder: m.Builder, Created: m.Created,
		Contexts: m.Contexts, Sentences: m.Sentences, SizeBytes: g.opened.size, Dataset: m.Dataset,
		Rankers: g.rankers, DefaultRanker: g.defaultRanker, Dense: dense, Fields: fields,
		Limits: map[string]int{"max_question_chars": MaxQuestionChars, "max_k": MaxK, "default_k": DefaultK,
			"max_concurrent": cap(s.slots)},
		Server:      serverStats{Version: s.version, Counters: s.Counters()},
		Sync:        syncStatus(s.sync),
		VectorCache: vc,
	})
}

// syncStatus is what f says, nil without f.
func syncStatus(f func() any) any {
	if f == nil {
		return nil
	}
	return f()
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
