package weaviate

import (
	"context"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestNoRedirects: a node answering a redirect to another server gets the
// call refused with ErrRedirect naming the Location; the other server
// sees no request at all (no body, no headers, no API key).
func TestNoRedirects(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		io.Copy(io.Discard, r.Body)
	}))
	defer other.Close()
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		var asked atomic.Int32
		node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked.Add(1)
			http.Redirect(w, r, other.URL+r.URL.Path, status)
		}))
		c, err := New(node.URL, WithRetry(testRetry), WithAPIKey("s3cret-key"))
		if err != nil {
			t.Fatal(err)
		}
		calls := map[string]func() error{
			"Version": func() error { _, err := c.Version(context.Background()); return err },
			"Import": func() error {
				return c.Import(context.Background(), ImportSpec{Collection: "Squad", ModelHash: "h", Dim: 2, Count: 1}, nil)
			},
			"batch": func() error {
				return c.batch(context.Background(), []batchObject{{Class: "Squad", ID: ObjectID("Squad", 0)}})
			},
			"Drop": func() error { return c.Drop(context.Background(), "Squad") },
		}
		for name, call := range calls {
			err := call()
			if !errors.Is(err, ErrRedirect) || !strings.Contains(err.Error(), other.URL) {
				t.Errorf("HTTP %d, %s: %v, want ErrRedirect naming %s", status, name, err, other.URL)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Errorf("HTTP %d, %s: the error shows the API key: %v", status, name, err)
			}
		}
		if n := asked.Load(); n != int32(len(calls)) {
			t.Errorf("HTTP %d: the redirecting node got %d requests, want %d (a redirect is not retried)", status, n, len(calls))
		}
		node.Close()
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the redirect target got %d requests, want none", n)
	}
}

// TestDeadlines: a node that sends its answer one byte at a time, or
// never answers, fails the call within the call deadline, with
// ErrDeadline; without a node to move to it does not wait out the retries.
func TestDeadlines(t *testing.T) {
	trickle := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		for _, b := range []byte(`{"version":"1.35.2"                                                   }`) {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			w.Write([]byte{b})
			w.(http.Flusher).Flush()
		}
	}))
	defer trickle.Close()
	// A raw TCP server that accepts and never writes a byte.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(io.Discard, conn); conn.Close() }()
		}
	}()
	for _, tc := range []struct {
		name string
		addr string
		d    Deadlines
	}{
		{"trickle, request deadline", trickle.URL, Deadlines{Request: 300 * time.Millisecond, Call: 2 * time.Second}},
		{"trickle, call deadline", trickle.URL, Deadlines{Request: 10 * time.Second, Call: time.Second}},
		{"silent, request deadline", ln.Addr().String(), Deadlines{Request: 300 * time.Millisecond, Call: 2 * time.Second}},
		{"silent, call deadline", ln.Addr().String(), Deadlines{Request: 10 * time.Second, Call: time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(tc.addr, WithRetry(Retry{Attempts: 7, Base: 10 * time.Millisecond, Max: 50 * time.Millisecond}), WithDeadlines(tc.d))
			if err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			_, err = c.Version(context.Background())
			took := time.Since(t0)
			if !errors.Is(err, ErrDeadline) {
				t.Errorf("err = %v, want ErrDeadline", err)
			}
			if took > tc.d.Call+500*time.Millisecond {
				t.Errorf("failed after %v, want within the call deadline %v", took, tc.d.Call)
			}
		})
	}
}

// TestAPIKey: the key goes in the Authorization header of every request
// and nowhere else; a 401 or 403 is ErrAuth, not retried, and says where
// the key goes without showing it.
func TestAPIKey(t *testing.T) {
	const key = "k3y-Z9"
	var reqs atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqs.Add(1)
		switch r.Header.Get("Authorization") {
		case "Bearer " + key:
			if strings.Contains(r.URL.String(), key) {
				t.Errorf("the key is in the URL %s", r.URL)
			}
			w.Write([]byte(`{"version":"1.35.2"}`))
		case "":
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"code":401,"message":"anonymous access not enabled, please provide an auth scheme such as OIDC"}`))
		default:
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"code":401,"message":"invalid api key"}`))
		}
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name string
		opts []Option
		ok   bool
		hint string
	}{
		{"with the key", []Option{WithAPIKey(key)}, true, ""},
		{"without a key", nil, false, "--engine-key-file"},
		{"with another key", []Option{WithAPIKey("wrong-one")}, false, "refused the API key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reqs.Store(0)
			c, err := New(srv.URL, append(tc.opts, WithRetry(testRetry))...)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Version(context.Background())
			if tc.ok {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), tc.hint) || strings.Contains(err.Error(), "wrong-one") {
				t.Errorf("err = %v, want ErrAuth saying %q, without the key", err, tc.hint)
			}
			if n := reqs.Load(); n != 1 {
				t.Errorf("%d requests, want 1 (a refusal is not retried)", n)
			}
		})
	}
}

// TestKeyNotInURL: credentials written into an engine URL or address are
// refused, and the error does not repeat them.
func TestKeyNotInURL(t *testing.T) {
	for _, s := range []string{"weaviate://admin:s3cret@127.0.0.1:8080/Docs", "weaviate://s3cret@h1:8080,h2:8080/Docs",
		"weaviate+https://u:s3cret@h:443/Docs"} {
		_, err := ParseTarget(s)
		if err == nil || !strings.Contains(err.Error(), "--engine-key-file") || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("ParseTarget(%q) = %v; want a refusal saying where the key goes, without the key", s, err)
		}
	}
	for _, a := range []string{"http://admin:s3cret@127.0.0.1:8080", "s3cret@127.0.0.1:8080"} {
		_, err := New(a)
		if err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("New(%q) = %v; want a refusal without the key", a, err)
		}
	}
}

func TestCredentials(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good, empty, two := write("key", "  abc-123\n"), write("empty", "\n"), write("two", "a\nb\n")
	t.Setenv(EnvAPIKey, "from-env")
	for _, tc := range []struct {
		name    string
		cr      Credentials
		wantKey string
		wantErr string
	}{
		{"key file", Credentials{KeyFile: good}, "abc-123", ""},
		{"environment", Credentials{}, "from-env", ""},
		{"empty file", Credentials{KeyFile: empty}, "", "empty"},
		{"two lines", Credentials{KeyFile: two}, "", "more than one line"},
		{"missing file", Credentials{KeyFile: filepath.Join(dir, "none")}, "", "API key file"},
		{"CA not PEM", Credentials{CAFile: good}, "", "no PEM certificate"},
		{"certificate without key", Credentials{CertFile: good}, "", "both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts, err := tc.cr.Options()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c, err := New("127.0.0.1:1", opts...)
			if err != nil {
				t.Fatal(err)
			}
			if c.apiKey != tc.wantKey {
				t.Errorf("key %q, want %q", c.apiKey, tc.wantKey)
			}
		})
	}
	// TLS settings need https nodes.
	if _, err := New("http://127.0.0.1:1", WithTLS(nil)); err == nil {
		t.Error("TLS settings with an http node accepted")
	}
}

// TestTLSWithCA: an https node whose certificate only the given CA file
// vouches for is reached with --engine-ca's file, and refused without it.
func TestTLSWithCA(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"version":"1.35.2"}`))
	}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	opts, err := Credentials{CAFile: ca}.Options()
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(srv.URL, append(opts, WithRetry(testRetry))...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Version(context.Background()); err != nil {
		t.Errorf("with the CA: %v", err)
	}
	c, err = New(srv.URL, WithRetry(Retry{Attempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Version(context.Background()); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("without the CA: %v, want a certificate error", err)
	}
}
