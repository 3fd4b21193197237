package server

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestAllowHost(t *testing.T) {
	tests := []struct {
		name  string
		p     Perimeter
		hosts map[string]bool
	}{
		{"loopback", Perimeter{Listen: "127.0.0.1:8080"}, map[string]bool{
			"": true, "127.0.0.1:8080": true, "127.0.0.1": true, "localhost:8080": true, "LOCALHOST": true, "localhost.:8080": true,
			"[::1]:8080": true, "[::1]": true, "127.0.0.2:8080": true,
			"attacker.example": false, "attacker.example:8080": false, "localhost.attacker.example": false, "10.0.0.5:8080": false,
			"127.0.0.1.nip.io": false, "[::1": false, ":8080": false, "local host": false, "xn--localhost": false,
		}},
		{"a name and allowed hosts", Perimeter{Listen: "10.0.0.5:8080", Hosts: []string{"Reqa.Example", "box"}}, map[string]bool{
			"10.0.0.5:8080": true, "reqa.example": true, "REQA.example.:443": true, "box": true, "localhost": true,
			"10.0.0.6": false, "other.example": false, "example": false,
		}},
		{"every interface", Perimeter{Listen: "0.0.0.0:8080"}, map[string]bool{
			"192.168.1.7:8080": true, "[fe80::1]:8080": true, "localhost": true, "attacker.example": false, "host.local": false,
		}},
		{"listening on a name", Perimeter{Listen: "box.lan:8080"}, map[string]bool{
			"box.lan:8080": true, "box.lan": true, "127.0.0.1": true, "attacker.example": false,
		}},
	}
	for _, tt := range tests {
		g := newHostGuard(tt.p)
		for host, want := range tt.hosts {
			if got := g.allowHost(host); got != want {
				t.Errorf("%s: Host %q: allowed %v, want %v", tt.name, host, got, want)
			}
		}
	}
}

func TestCheckExposure(t *testing.T) {
	const token = "0123456789abcdef"
	tests := []struct {
		addr, token string
		noAuth      bool
		want        error
	}{
		{"127.0.0.1:8080", "", false, nil},
		{"localhost:8080", "", false, nil},
		{"[::1]:8080", "", false, nil},
		{"127.0.0.1:8080", token, false, nil},
		{"0.0.0.0:8080", "", false, ErrNeedsAuth},
		{":8080", "", false, ErrNeedsAuth},
		{"[::]:8080", "", false, ErrNeedsAuth},
		{"192.168.1.7:8080", "", false, ErrNeedsAuth},
		{"box.lan:8080", "", false, ErrNeedsAuth},
		{"0.0.0.0:8080", token, false, nil},
		{"0.0.0.0:8080", "", true, nil},
		{"0.0.0.0:8080", token, true, ErrAuthConflict},
		{"0.0.0.0:8080", "short", false, ErrShortToken},
		{"127.0.0.1:8080", "short", false, ErrShortToken},
	}
	for _, tt := range tests {
		err := CheckExposure(tt.addr, tt.token, tt.noAuth)
		if (tt.want == nil) != (err == nil) || (tt.want != nil && !errors.Is(err, tt.want)) {
			t.Errorf("CheckExposure(%q, %q, %v) = %v, want %v", tt.addr, tt.token, tt.noAuth, err, tt.want)
		}
	}
}

// TestPerimeter sends requests through the whole handler: a foreign Host
// is refused on every path (421), /v1/ without the token is refused (401),
// the page and /healthz need no token.
func TestPerimeter(t *testing.T) {
	const token = "correct-horse-battery-staple-42"
	_, ts := newTestServer(t, serveIndex(t), Options{Perimeter: Perimeter{Token: token, Hosts: []string{"reqa.example"}}})
	tests := []struct {
		path, host, auth string
		code             int
	}{
		{"/v1/ask?q=ferry", "", "Bearer " + token, 200},
		{"/v1/ask?q=ferry", "", "bearer  " + token + " ", 200},
		{"/v1/stats", "reqa.example", "Bearer " + token, 200},
		{"/v1/ask?q=ferry", "", "", 401},
		{"/v1/ask?q=ferry", "", "Bearer", 401},
		{"/v1/ask?q=ferry", "", "Bearer " + token[:len(token)-1], 401},
		{"/v1/ask?q=ferry", "", "Bearer " + token + "x", 401},
		{"/v1/ask?q=ferry", "", "Basic " + token, 401},
		{"/v1/ask?q=ferry", "", token, 401},
		{"/v1/stats", "", "", 401},
		{"/v1/nothing", "", "", 401},
		{"/", "", "", 200},
		{"/app.js", "", "", 200},
		{"/healthz", "", "", 200},
		{"/v1/ask?q=ferry", "attacker.example", "Bearer " + token, 421},
		{"/", "attacker.example", "", 421},
		{"/healthz", "attacker.example:80", "", 421},
	}
	for _, tt := range tests {
		resp, body := get(t, ts, "GET", tt.path, "Host", tt.host, "Authorization", tt.auth)
		if resp.StatusCode != tt.code {
			t.Errorf("%s Host %q Authorization %q: %d, want %d: %s", tt.path, tt.host, tt.auth, resp.StatusCode, tt.code, body)
			continue
		}
		checkSecurityHeaders(t, tt.path, resp)
		if tt.code == 401 && resp.Header.Get("WWW-Authenticate") != `Bearer realm="reqa"` {
			t.Errorf("%s: 401 with WWW-Authenticate %q", tt.path, resp.Header.Get("WWW-Authenticate"))
		}
		if tt.code >= 400 && (!strings.Contains(string(body), `"error"`) || strings.Contains(string(body), token)) {
			t.Errorf("%s: %d body %s", tt.path, tt.code, body)
		}
	}
}

// FuzzServeAuth sends arbitrary Host and Authorization headers and paths
// through the perimeter of a server with a token: it never panics, and a
// request gets through exactly when its Host is one of the server's and,
// on /v1/, it carries the token.
func FuzzServeAuth(f *testing.F) {
	const token = "correct-horse-battery-staple-42"
	s := newServer(f, serveIndex(f), Options{Perimeter: Perimeter{Listen: "127.0.0.1:8080", Token: token, Hosts: []string{"reqa.example"}}})
	h := s.Handler()
	for _, c := range []struct{ host, auth, path string }{
		{"127.0.0.1:8080", "Bearer " + token, "/v1/stats"},
		{"localhost", "bearer " + token, "/v1/ask"},
		{"reqa.example.", "Bearer  " + token, "/v1/stats"},
		{"attacker.example", "Bearer " + token, "/v1/stats"},
		{"[::1]:8080", "Bearer " + token[:5], "/v1/stats"},
		{"127.0.0.1", "", "/"},
		{"", "Basic Zm9vOmJhcg==", "/healthz"},
		{"\x00", "Bearer \x00", "/v1/"},
		{"[::ffff:127.0.0.1]", "Bearer " + token + "\t", "/v1/stats"},
		{"127.1", "Bearer", "/V1/stats"},
		{"localhost:]", "", "/"},
		{"[::1]:abc", "", "/"},
	} {
		f.Add(c.host, c.auth, c.path)
	}
	f.Fuzz(func(t *testing.T, host, auth, path string) {
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		req := httptest.NewRequest("GET", "http://127.0.0.1:8080/", nil)
		req.URL.Path, req.URL.RawQuery, req.Host = path, "", host
		req.Header.Set("Authorization", auth)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		wantHost := hostOK(host)
		scheme, cred, _ := strings.Cut(req.Header.Get("Authorization"), " ")
		wantToken := !strings.HasPrefix(path, "/v1/") || (strings.EqualFold(scheme, "bearer") && strings.TrimSpace(cred) == token)
		switch {
		case !wantHost:
			if rec.Code != http.StatusMisdirectedRequest {
				t.Fatalf("Host %q: %d, want 421", host, rec.Code)
			}
		case !wantToken:
			if rec.Code != http.StatusUnauthorized {
				t.Fatalf("Host %q Authorization %q path %q: %d, want 401", host, auth, path, rec.Code)
			}
		default:
			if rec.Code == http.StatusMisdirectedRequest || rec.Code == http.StatusUnauthorized {
				t.Fatalf("Host %q Authorization %q path %q: %d", host, auth, path, rec.Code)
			}
		}
		if strings.Contains(rec.Body.String(), token) {
			t.Fatalf("the token leaked into a reply: %s", rec.Body.String())
		}
	})
}

// hostOK is the rule FuzzServeAuth's server must follow, written out
// independently of allowHost: no Host, or (without port, brackets,
// trailing dot, case) localhost, reqa.example, or a loopback or
// 127.0.0.1-listening address.
func hostOK(host string) bool {
	if host == "" {
		return true
	}
	h := strings.ToLower(host)
	if i := strings.LastIndex(h, ":"); i >= 0 && !strings.HasSuffix(h, "]") && strings.Count(h, ":") == 1 && !strings.ContainsAny(h[i:], "[]") {
		h = h[:i]
	} else if strings.HasPrefix(h, "[") {
		// "[addr]" or "[addr]:port"; a port holds no colon or bracket
		// ("[::1]::" and "[::1]:]" are malformed).
		if j := strings.Index(h, "]"); j >= 0 && (j == len(h)-1 || h[j+1] == ':' && !strings.ContainsAny(h[j+2:], ":[]")) {
			h = h[1:j]
		}
	}
	h = strings.TrimSuffix(h, ".")
	switch h {
	case "localhost", "reqa.example":
		return true
	}
	ip := parseIP(h)
	return ip != nil && ip.IsLoopback()
}
