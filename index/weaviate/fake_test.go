package weaviate

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeServer is an in-memory stand-in for the parts of Weaviate's API this
// package uses, recording every request. Hooks inject failures.
type fakeServer struct {
	mu      sync.Mutex
	version string
	classes map[string]json.RawMessage
	objects map[string]map[string]map[string]any // class → id → properties
	order   []string                             // ids of sentence objects in the order received
	reqs    []fakeRequest

	// fail, if set, may answer a request instead of the fake (status ≠ 0).
	fail func(r fakeRequest) (status int, body string)
	// objectError, if set, returns a per-object batch error message.
	objectError func(id string) string
	// get answers GraphQL Get queries.
	get func(query string) any
	// countDelta is added to Aggregate counts (to fake a lost object).
	countDelta int
}

type fakeRequest struct {
	Method, Path, Query string
	Body                []byte
}

var (
	aggregateRE = regexp.MustCompile(`Aggregate \{ (\w+) \{`)
	getRE       = regexp.MustCompile(`Get \{ (\w+)\(`)
)

// testRetry keeps the unit tests' backoff short.
var testRetry = Retry{Attempts: 3, Base: time.Millisecond, Max: 2 * time.Millisecond}

// startFake serves a new fake on a loopback port.
func startFake() (*fakeServer, *httptest.Server) {
	f := &fakeServer{version: TestedVersion, classes: map[string]json.RawMessage{}, objects: map[string]map[string]map[string]any{}}
	return f, httptest.NewServer(f)
}

func newFake(t *testing.T) (*fakeServer, *Client) {
	t.Helper()
	f, srv := startFake()
	t.Cleanup(srv.Close)
	c, err := New(srv.URL, WithRetry(testRetry))
	if err != nil {
		t.Fatal(err)
	}
	return f, c
}

func (f *fakeServer) requests(method, path string) []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fakeRequest
	for _, r := range f.reqs {
		if r.Method == method && (path == "" || r.Path == path) {
			out = append(out, r)
		}
	}
	return out
}

func (f *fakeServer) manifest(collection string) (map[string]any, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, ok := f.objects[MetaCollection][manifestID(collection)]
	return m, ok
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func errorBody(msg string) map[string]any {
	return map[string]any{"error": []map[string]string{{"message": msg}}}
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := fakeRequest{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: body}
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	fail := f.fail
	f.mu.Unlock()
	if fail != nil {
		if status, msg := fail(req); status != 0 {
			writeJSON(w, status, errorBody(msg))
			return
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	path := r.URL.Path
	switch {
	case r.Method == http.MethodGet && path == "/v1/meta":
		writeJSON(w, 200, map[string]any{"version": f.version, "hostname": "http://[::]:8080", "modules": map[string]any{}})
	case r.Method == http.MethodPost && path == "/v1/schema":
		var c struct {
			Class string `json:"class"`
		}
		if json.Unmarshal(body, &c) != nil || c.Class == "" {
			writeJSON(w, 422, errorBody("bad class"))
			return
		}
		if _, ok := f.classes[c.Class]; ok {
			writeJSON(w, 422, errorBody("class name "+c.Class+" already exists"))
			return
		}
		f.classes[c.Class] = body
		f.objects[c.Class] = map[string]map[string]any{}
		w.Write(body)
	case strings.HasPrefix(path, "/v1/schema/"):
		name := strings.TrimPrefix(path, "/v1/schema/")
		c, ok := f.classes[name]
		switch {
		case !ok && r.Method == http.MethodDelete:
			w.WriteHeader(200) // Weaviate answers 200 for a missing class too
		case !ok:
			w.WriteHeader(404)
		case r.Method == http.MethodGet:
			w.Write(c)
		case r.Method == http.MethodDelete:
			delete(f.classes, name)
			delete(f.objects, name)
			w.WriteHeader(200)
		}
	case strings.HasPrefix(path, "/v1/objects/"):
		parts := strings.Split(strings.TrimPrefix(path, "/v1/objects/"), "/")
		if len(parts) != 2 {
			writeJSON(w, 400, errorBody("bad path"))
			return
		}
		props, ok := f.objects[parts[0]][parts[1]]
		switch {
		case !ok:
			w.WriteHeader(404)
		case r.Method == http.MethodGet:
			writeJSON(w, 200, map[string]any{"class": parts[0], "id": parts[1], "properties": props})
		case r.Method == http.MethodDelete:
			delete(f.objects[parts[0]], parts[1])
			w.WriteHeader(204)
		}
	case r.Method == http.MethodPost && path == "/v1/batch/objects":
		var b struct {
			Objects []struct {
				Class      string         `json:"class"`
				ID         string         `json:"id"`
				Properties map[string]any `json:"properties"`
				Vector     []float32      `json:"vector"`
			} `json:"objects"`
		}
		if err := json.Unmarshal(body, &b); err != nil {
			writeJSON(w, 422, errorBody(err.Error()))
			return
		}
		var answer []map[string]any
		for _, o := range b.Objects {
			res := map[string]any{}
			msg := ""
			if f.objectError != nil {
				msg = f.objectError(o.ID)
			}
			if _, ok := f.classes[o.Class]; !ok {
				msg = fmt.Sprintf("class %q not found in schema", o.Class)
			}
			if msg != "" {
				res["errors"] = errorBody(msg)
			} else {
				f.objects[o.Class][o.ID] = o.Properties
				if o.Class != MetaCollection {
					f.order = append(f.order, o.ID)
				}
			}
			answer = append(answer, map[string]any{"class": o.Class, "id": o.ID, "result": res})
		}
		writeJSON(w, 200, answer)
	case r.Method == http.MethodPost && path == "/v1/graphql":
		var q struct {
			Query string `json:"query"`
		}
		json.Unmarshal(body, &q)
		if m := aggregateRE.FindStringSubmatch(q.Query); m != nil {
			if _, ok := f.classes[m[1]]; !ok {
				writeJSON(w, 200, map[string]any{"errors": []map[string]string{{"message": "Cannot query field " + m[1]}}})
				return
			}
			n := len(f.objects[m[1]]) + f.countDelta
			writeJSON(w, 200, map[string]any{"data": map[string]any{"Aggregate": map[string]any{m[1]: []any{map[string]any{"meta": map[string]any{"count": n}}}}}})
			return
		}
		if m := getRE.FindStringSubmatch(q.Query); m != nil && f.get != nil {
			writeJSON(w, 200, map[string]any{"data": map[string]any{"Get": map[string]any{m[1]: f.get(q.Query)}}})
			return
		}
		writeJSON(w, 200, map[string]any{"errors": []map[string]string{{"message": "unsupported query"}}})
	default:
		writeJSON(w, 404, errorBody("no route "+path))
	}
}
