package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
)

// MinTokenLen is the shortest bearer token accepted.
const MinTokenLen = 16

// Errors of [CheckExposure], for errors.Is.
var (
	// ErrNeedsAuth reports an address beyond loopback with neither a token
	// nor an explicit choice of no authentication.
	ErrNeedsAuth = errors.New("listening beyond loopback needs a token or an explicit choice of no authentication")
	// ErrAuthConflict reports a token given together with no authentication.
	ErrAuthConflict = errors.New("a token and no authentication were both asked for")
	// ErrShortToken reports a token shorter than MinTokenLen.
	ErrShortToken = errors.New("token too short")
)

// Perimeter is what a request must show before it is served.
type Perimeter struct {
	// Listen is the address the server listens on (host:port, as the
	// listener reports it); its host is accepted in the Host header.
	Listen string
	// Hosts are further host names (or addresses) accepted in the Host
	// header, e.g. the name a proxy forwards.
	Hosts []string
	// Token, when not empty, must be sent as "Authorization: Bearer
	// TOKEN" with every /v1/ request.
	Token string
}

// IsLoopback reports whether the host of a listening address (host:port or
// a bare host) only reaches this machine: a loopback IP or "localhost". An
// empty host (":8080") listens on every interface.
func IsLoopback(addr string) bool {
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CheckExposure decides whether addr may be served with the given token
// ("" for none) and noAuth (the operator's explicit choice of no
// authentication). Loopback needs neither; beyond it exactly one is
// required.
func CheckExposure(addr, token string, noAuth bool) error {
	switch {
	case token != "" && noAuth:
		return ErrAuthConflict
	case token != "" && len(token) < MinTokenLen:
		return fmt.Errorf("%w: %d characters, at least %d", ErrShortToken, len(token), MinTokenLen)
	case token == "" && !noAuth && !IsLoopback(addr):
		return ErrNeedsAuth
	}
	return nil
}

// hostGuard accepts the Host headers of a perimeter.
type hostGuard struct {
	names       map[string]bool // lower case, no trailing dot
	listenIP    net.IP          // nil when listening on a name or nothing
	anyIP       bool            // listening on every interface: any IP literal
	tokenSHA256 [32]byte
	token       bool
}

func newHostGuard(p Perimeter) *hostGuard {
	g := &hostGuard{names: map[string]bool{"localhost": true}}
	for _, h := range p.Hosts {
		if n := normalHost(h); n != "" {
			g.names[n] = true
		}
	}
	if p.Listen != "" {
		host := p.Listen
		if h, _, err := net.SplitHostPort(p.Listen); err == nil {
			host = h
		}
		if ip := net.ParseIP(host); ip != nil {
			g.listenIP = ip
			g.anyIP = ip.IsUnspecified()
		} else if host == "" {
			g.anyIP = true
		} else {
			g.names[normalHost(host)] = true
		}
	}
	if p.Token != "" {
		g.token = true
		g.tokenSHA256 = sha256.Sum256([]byte(p.Token))
	}
	return g
}

// normalHost returns the host of a Host header value without its port,
// brackets and trailing dot, in lower case ("" if it has none).
func normalHost(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	} else if strings.HasPrefix(h, "[") {
		if !strings.HasSuffix(h, "]") {
			return ""
		}
		h = h[1 : len(h)-1]
	}
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// allowHost reports whether a request's Host header names this server. An
// absent Host (HTTP/1.0) is allowed: browsers always send one, and a
// rebinding attack works only through a browser.
func (g *hostGuard) allowHost(hostHeader string) bool {
	if hostHeader == "" {
		return true
	}
	h := normalHost(hostHeader)
	if h == "" {
		return false
	}
	if ip := net.ParseIP(h); ip != nil {
		// An address in the Host header is the browser's origin: a page
		// can only send it from that address itself.
		return ip.IsLoopback() || g.anyIP || (g.listenIP != nil && g.listenIP.Equal(ip))
	}
	return g.names[h]
}

// allowToken reports whether an Authorization header carries the token
// (always true without one). Hashing both sides first makes the comparison
// constant-time in the length too.
func (g *hostGuard) allowToken(authorization string) bool {
	if !g.token {
		return true
	}
	scheme, cred, ok := strings.Cut(authorization, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(cred)))
	return subtle.ConstantTimeCompare(sum[:], g.tokenSHA256[:]) == 1
}

// guardPerimeter refuses requests whose Host is not this server's (421) and
// /v1/ requests without the token (401).
func (g *hostGuard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.allowHost(r.Host) {
			writeError(w, http.StatusMisdirectedRequest, "host %q is not served here (give it to reqa serve with --allow-host)", r.Host)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/v1/") && !g.allowToken(r.Header.Get("Authorization")) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="reqa"`)
			writeError(w, http.StatusUnauthorized, "this server needs its token: send Authorization: Bearer TOKEN")
			return
		}
		next.ServeHTTP(w, r)
	})
}
