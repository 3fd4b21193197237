package weaviate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Sentinel errors; every failure that means one of these wraps it.
var (
	// ErrUnreachable: no answer from the engine (connection refused, reset,
	// timed out), after the retries.
	ErrUnreachable = errors.New("weaviate: engine unreachable")
	// ErrNoCollection: the collection does not exist.
	ErrNoCollection = errors.New("weaviate: collection missing")
	// ErrOtherModel: the collection was built with another model (its
	// manifest holds another model hash).
	ErrOtherModel = errors.New("weaviate: collection built by another model")
	// ErrIncomplete: the collection's import never finished (or it has no
	// manifest saying it did).
	ErrIncomplete = errors.New("weaviate: import incomplete")
	// ErrVersion: the server's version is not one this package supports.
	ErrVersion = errors.New("weaviate: server version unsupported")
	// ErrSchema: the collection exists with a schema or a manifest that
	// this import cannot reuse (another tokenization, dimension, count).
	ErrSchema = errors.New("weaviate: collection schema differs")
	// ErrRedirect: the engine answered with a redirect. The client follows
	// none (a redirect could send the corpus, the vectors and the API key
	// to another host); point reqa at the address the engine names.
	ErrRedirect = errors.New("weaviate: engine redirected the request")
	// ErrAuth: the engine refused the request's credentials (HTTP 401 or
	// 403): no API key, a wrong one, or one without the permission.
	ErrAuth = errors.New("weaviate: engine refused the credentials")
	// ErrDeadline: one request or one call (its retries included) ran out
	// of its time ([Deadlines]).
	ErrDeadline = errors.New("weaviate: deadline exceeded")
)

// MinVersion is the oldest server version accepted (major 1 only); the
// package is tested against TestedVersion.
const (
	MinVersion    = "1.30.0"
	TestedVersion = "1.35.2"
)

// HTTPError is an answer with an unexpected status that is not a retryable
// server error (or still one after the retries).
type HTTPError struct {
	Method, Path string
	Status       int
	Message      string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("weaviate: %s %s: HTTP %d: %s", e.Method, e.Path, e.Status, e.Message)
}

// Retry says how often and how patiently a request is retried on a
// connection error or a 5xx answer.
type Retry struct {
	Attempts int           // total tries, ≥ 1
	Base     time.Duration // first backoff; doubled on each retry
	Max      time.Duration // backoff cap
}

// DefaultRetry retries 6 times over about 6 seconds.
var DefaultRetry = Retry{Attempts: 7, Base: 100 * time.Millisecond, Max: 2 * time.Second}

// Deadlines bound the time the client waits on the engine.
type Deadlines struct {
	// Request bounds one HTTP exchange: connecting, sending the request
	// and reading the whole answer. A node that answers too slowly (or
	// trickles its answer) counts as unreachable and the next node is
	// tried.
	Request time.Duration
	// Call bounds one call of the client (one query, one import batch, one
	// schema or manifest read), its retries and backoff included.
	Call time.Duration
}

// DefaultDeadlines: 30 s per request, 60 s per call with its retries.
var DefaultDeadlines = Deadlines{Request: 30 * time.Second, Call: 60 * time.Second}

// Client talks to a Weaviate node (any node of a cluster answers for all);
// given several, it moves to the next one when a node stops answering. It
// is safe for concurrent use.
type Client struct {
	nodes []*url.URL
	cur   atomic.Uint32 // index of the node in use
	http  *http.Client
	retry Retry
	// consistency is Weaviate's consistency level for reads and writes
	// ("ONE", "QUORUM", "ALL"); empty leaves the server's default.
	consistency string
	// apiKey, when set, is sent as "Authorization: Bearer KEY".
	apiKey    string
	deadlines Deadlines
	tls       bool // a TLS configuration was given (WithTLS)
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the HTTP client (default: http.DefaultTransport's
// settings). Its CheckRedirect is replaced — the client follows no
// redirect ([ErrRedirect]) — and its Timeout ignored ([Deadlines] bound
// every request).
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithAPIKey sends key as "Authorization: Bearer KEY" on every request
// (Weaviate's API-key authentication). The key appears in no error and no
// URL; [Credentials] reads it from a file or the environment.
func WithAPIKey(key string) Option { return func(c *Client) { c.apiKey = key } }

// WithDeadlines sets the request and call deadlines (default
// [DefaultDeadlines]; a zero field keeps its default).
func WithDeadlines(d Deadlines) Option {
	return func(c *Client) {
		if d.Request > 0 {
			c.deadlines.Request = d.Request
		}
		if d.Call > 0 {
			c.deadlines.Call = d.Call
		}
	}
}

// WithRetry sets the retry policy (default [DefaultRetry]).
func WithRetry(r Retry) Option { return func(c *Client) { c.retry = r } }

// WithConsistency sets the consistency level of reads and writes on a
// replicated collection: "ONE", "QUORUM" or "ALL".
func WithConsistency(level string) Option { return func(c *Client) { c.consistency = level } }

// New returns a client for the engine at addr, "http://HOST:PORT" (a bare
// "HOST:PORT" means http), or at several nodes of one cluster separated by
// commas, tried in turn when one does not answer.
func New(addr string, opts ...Option) (*Client, error) {
	c := &Client{http: &http.Client{}, retry: DefaultRetry, deadlines: DefaultDeadlines}
	for _, a := range strings.Split(addr, ",") {
		a = strings.TrimSpace(a)
		if !strings.Contains(a, "://") {
			a = "http://" + a
		}
		if hasUserinfo(a) {
			return nil, fmt.Errorf("weaviate: address %s: %w", redact(a), errKeyInURL)
		}
		u, err := url.Parse(a)
		if err != nil {
			return nil, fmt.Errorf("weaviate: address %q: %w", a, err)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("weaviate: address %q: want http://HOST:PORT", a)
		}
		u.Path = strings.TrimSuffix(u.Path, "/")
		c.nodes = append(c.nodes, u)
	}
	for _, o := range opts {
		o(c)
	}
	if c.retry.Attempts < 1 {
		c.retry.Attempts = 1
	}
	// Never follow a redirect: the answer is returned as it is, and do
	// reports it (ErrRedirect) without a second request anywhere.
	h := *c.http
	h.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	h.Timeout = 0 // the request deadline bounds each exchange
	c.http = &h
	for _, u := range c.nodes {
		if c.tls && u.Scheme != "https" {
			return nil, fmt.Errorf("weaviate: node %s: TLS settings (a CA, a client certificate) need an https node (weaviate+https://…)", u.Host)
		}
	}
	switch c.consistency {
	case "", "ONE", "QUORUM", "ALL":
	default:
		return nil, fmt.Errorf("weaviate: consistency level %q: want ONE, QUORUM or ALL", c.consistency)
	}
	return c, nil
}

// Addr returns the engine's base URLs, separated by commas.
func (c *Client) Addr() string {
	s := make([]string, len(c.nodes))
	for i, u := range c.nodes {
		s[i] = u.String()
	}
	return strings.Join(s, ",")
}

// do sends one request (body marshalled to JSON unless nil) and decodes a
// 2xx answer into out (unless nil). It retries connection errors and 5xx
// answers with exponential backoff. notFound, if non-nil, is returned
// (wrapped) for a 404.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body, out any, notFound error) error {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return fmt.Errorf("weaviate: %s %s: encode request: %w", method, path, err)
		}
	}
	var last error
	parent := ctx
	ctx, cancel := context.WithTimeoutCause(ctx, c.deadlines.Call,
		fmt.Errorf("%w: %s %s: no answer within the call deadline of %v (retries included)", ErrDeadline, method, path, c.deadlines.Call))
	defer cancel()
	// stopped is the error of a call whose context ended: the caller's
	// cancellation, or the call deadline.
	stopped := func() error {
		if parent.Err() != nil {
			return fmt.Errorf("weaviate: %s %s: %w", method, path, context.Cause(parent))
		}
		if last != nil {
			return fmt.Errorf("%w (last error: %v)", context.Cause(ctx), last)
		}
		return context.Cause(ctx)
	}
	for attempt := 0; attempt < c.retry.Attempts; attempt++ {
		cur := c.cur.Load()
		if attempt > 0 {
			if err := sleep(ctx, c.backoff(attempt)); err != nil {
				return stopped()
			}
		}
		u := *c.nodes[int(cur)%len(c.nodes)]
		u.Path += path
		u.RawQuery = query.Encode()
		var rd io.Reader
		if payload != nil {
			rd = bytes.NewReader(payload)
		}
		resp, data, err := c.exchange(ctx, method, u.String(), rd, payload != nil)
		if err != nil {
			if ctx.Err() != nil {
				return stopped()
			}
			last = fmt.Errorf("%w: %s %s: %v", ErrUnreachable, method, u.Host, err)
			c.cur.CompareAndSwap(cur, cur+1) // try the next node
			continue
		}
		switch {
		case resp.StatusCode >= 300 && resp.StatusCode < 400:
			loc := resp.Header.Get("Location")
			if loc == "" {
				loc = "(no Location)"
			} else if hasUserinfo(loc) {
				loc = redact(loc)
			}
			return fmt.Errorf("%w: %s %s on %s: HTTP %d to %s; reqa follows no redirects: give the engine's own address",
				ErrRedirect, method, path, u.Host, resp.StatusCode, loc)
		case resp.StatusCode == http.StatusUnauthorized:
			return fmt.Errorf("%w: %s %s on %s: HTTP 401 %s: %s", ErrAuth, method, path, u.Host, errorMessage(data), c.keyHint())
		case resp.StatusCode == http.StatusForbidden:
			return fmt.Errorf("%w: %s %s on %s: HTTP 403 %s: the API key lacks the permission", ErrAuth, method, path, u.Host, errorMessage(data))
		case resp.StatusCode >= 200 && resp.StatusCode < 300:
			if out == nil || len(bytes.TrimSpace(data)) == 0 {
				return nil
			}
			if err := json.Unmarshal(data, out); err != nil {
				return fmt.Errorf("weaviate: %s %s: decode answer: %w", method, path, err)
			}
			return nil
		case resp.StatusCode == http.StatusNotFound && notFound != nil:
			return fmt.Errorf("%s %s: %w", method, path, notFound)
		case resp.StatusCode >= 500:
			last = &HTTPError{Method: method, Path: path, Status: resp.StatusCode, Message: errorMessage(data)}
			continue
		default:
			return &HTTPError{Method: method, Path: path, Status: resp.StatusCode, Message: errorMessage(data)}
		}
	}
	return last
}

// exchange sends one request within the request deadline and reads its
// whole answer (at most 256 MiB).
func (c *Client) exchange(ctx context.Context, method, u string, body io.Reader, isJSON bool) (*http.Response, []byte, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, c.deadlines.Request,
		fmt.Errorf("%w: no whole answer within the request deadline of %v", ErrDeadline, c.deadlines.Request))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, nil, err
	}
	if isJSON {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil && context.Cause(ctx) != nil {
			err = context.Cause(ctx)
		}
		return nil, nil, err
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	resp.Body.Close()
	if err != nil {
		if ctx.Err() != nil && context.Cause(ctx) != nil {
			err = context.Cause(ctx)
		}
		return nil, nil, fmt.Errorf("reading the answer: %w", err)
	}
	return resp, data, nil
}

// keyHint says where an API key goes (or that the one given was refused).
func (c *Client) keyHint() string {
	if c.apiKey == "" {
		return "the engine wants an API key: put it in a file named by --engine-key-file or in $" + EnvAPIKey
	}
	return "the engine refused the API key given"
}

func (c *Client) backoff(attempt int) time.Duration {
	d := c.retry.Base << (attempt - 1)
	if d <= 0 || (c.retry.Max > 0 && d > c.retry.Max) {
		d = c.retry.Max
	}
	return d
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// errorMessage extracts Weaviate's {"error":[{"message":…}]} text, or the
// start of the body.
func errorMessage(data []byte) string {
	var e struct {
		Error []struct {
			Message string `json:"message"`
		} `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(data, &e) == nil {
		var ms []string
		for _, m := range e.Error {
			ms = append(ms, m.Message)
		}
		if e.Message != "" {
			ms = append(ms, e.Message)
		}
		if len(ms) > 0 {
			return strings.Join(ms, "; ")
		}
	}
	s := strings.TrimSpace(string(data))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// Version returns the server's version (GET /v1/meta) and checks it:
// an unparsable version, another major than 1 or one older than
// [MinVersion] wraps [ErrVersion].
func (c *Client) Version(ctx context.Context) (string, error) {
	var meta struct {
		Version string `json:"version"`
	}
	if err := c.do(ctx, http.MethodGet, "/v1/meta", nil, nil, &meta, nil); err != nil {
		return "", err
	}
	if err := checkVersion(meta.Version); err != nil {
		return meta.Version, err
	}
	return meta.Version, nil
}

func checkVersion(v string) error {
	got, ok := parseVersion(v)
	if !ok {
		return fmt.Errorf("%w: server reports version %q", ErrVersion, v)
	}
	want, _ := parseVersion(MinVersion)
	if got[0] != want[0] || got[1] < want[1] || (got[1] == want[1] && got[2] < want[2]) {
		return fmt.Errorf("%w: server is %s, reqa needs 1.x ≥ %s (tested with %s)", ErrVersion, v, MinVersion, TestedVersion)
	}
	return nil
}

// parseVersion reads "MAJOR.MINOR.PATCH" with an optional "v" prefix and a
// "-suffix" ignored.
func parseVersion(v string) ([3]int, bool) {
	var out [3]int
	v = strings.TrimPrefix(v, "v")
	if i := strings.IndexAny(v, "-+"); i >= 0 {
		v = v[:i]
	}
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return out, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return out, false
		}
		out[i] = n
	}
	return out, true
}
