package weaviate

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
)

func TestCheckVersion(t *testing.T) {
	for _, tc := range []struct {
		v  string
		ok bool
	}{
		{"1.35.2", true},
		{"1.30.0", true},
		{"v1.31.4", true},
		{"1.32.0-rc.1", true},
		{"1.29.9", false},
		{"1.9.0", false},
		{"2.0.0", false},
		{"0.99.0", false},
		{"", false},
		{"1.35", false},
		{"one.two.three", false},
		{"1.-3.0", false},
	} {
		err := checkVersion(tc.v)
		if tc.ok && err != nil {
			t.Errorf("checkVersion(%q) = %v, want nil", tc.v, err)
		}
		if !tc.ok && !errors.Is(err, ErrVersion) {
			t.Errorf("checkVersion(%q) = %v, want ErrVersion", tc.v, err)
		}
	}
}

func TestVersionFromServer(t *testing.T) {
	f, c := newFake(t)
	if v, err := c.Version(context.Background()); err != nil || v != TestedVersion {
		t.Fatalf("Version = %q, %v", v, err)
	}
	f.version = "1.24.0"
	if _, err := c.Version(context.Background()); !errors.Is(err, ErrVersion) {
		t.Fatalf("old server: %v, want ErrVersion", err)
	}
	// Every entry point checks it.
	if _, err := c.Open(context.Background(), "Squad", "h"); !errors.Is(err, ErrVersion) {
		t.Fatalf("Open on an old server: %v, want ErrVersion", err)
	}
	if err := c.Import(context.Background(), ImportSpec{Collection: "Squad", ModelHash: "h", Dim: 2}, nil); !errors.Is(err, ErrVersion) {
		t.Fatalf("Import on an old server: %v, want ErrVersion", err)
	}
}

func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	c, err := New(addr, WithRetry(testRetry))
	if err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func() error{
		"Version": func() error { _, err := c.Version(context.Background()); return err },
		"Open":    func() error { _, err := c.Open(context.Background(), "Squad", "h"); return err },
		"Import": func() error {
			return c.Import(context.Background(), ImportSpec{Collection: "Squad", ModelHash: "h", Dim: 2, Count: 1}, nil)
		},
		"Drop": func() error { return c.Drop(context.Background(), "Squad") },
		"Check": func() error {
			return c.Check(context.Background(), ImportSpec{Collection: "Squad", ModelHash: "h", Dim: 2, Count: 1})
		},
	} {
		if err := call(); !errors.Is(err, ErrUnreachable) {
			t.Errorf("%s: %v, want ErrUnreachable", name, err)
		}
	}
}

func TestRetries(t *testing.T) {
	for _, tc := range []struct {
		name     string
		failures int // answers with status before the fake answers
		status   int
		wantErr  bool
		wantReqs int
	}{
		{"503 then ok", 2, http.StatusServiceUnavailable, false, 3},
		{"500 always", 10, http.StatusInternalServerError, true, testRetry.Attempts},
		{"422 not retried", 10, http.StatusUnprocessableEntity, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, c := newFake(t)
			n := 0
			f.fail = func(r fakeRequest) (int, string) {
				if n < tc.failures {
					n++
					return tc.status, "injected"
				}
				return 0, ""
			}
			_, err := c.Version(context.Background())
			if got := len(f.requests(http.MethodGet, "/v1/meta")); got != tc.wantReqs {
				t.Errorf("%d requests, want %d", got, tc.wantReqs)
			}
			if !tc.wantErr {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var he *HTTPError
			if !errors.As(err, &he) || he.Status != tc.status || he.Message != "injected" {
				t.Fatalf("err = %v, want HTTPError %d", err, tc.status)
			}
		})
	}
}

func TestRetryStopsOnCancel(t *testing.T) {
	f, c := newFake(t)
	c.retry = Retry{Attempts: 100, Base: 1 << 40, Max: 1 << 40} // would wait for hours
	ctx, cancel := context.WithCancel(context.Background())
	f.fail = func(fakeRequest) (int, string) { cancel(); return 503, "busy" }
	if _, err := c.Version(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		addr, want string
		ok         bool
	}{
		{"127.0.0.1:8080", "http://127.0.0.1:8080", true},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080", true},
		{"https://w.example:443", "https://w.example:443", true},
		{"ftp://x:1", "", false},
		{"http://", "", false},
		{"http://[::1", "", false},
	} {
		c, err := New(tc.addr)
		if !tc.ok {
			if err == nil {
				t.Errorf("New(%q) accepted", tc.addr)
			}
			continue
		}
		if err != nil || c.Addr() != tc.want {
			t.Errorf("New(%q) = %v, %v; want %s", tc.addr, c, err, tc.want)
		}
	}
	if _, err := New("x:1", WithConsistency("MOST")); err == nil {
		t.Error("consistency MOST accepted")
	}
}

func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"1.35.2", "v1.30.0-rc", "2.0.0+meta", "", "1..2", "9999999999999999999999.0.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := parseVersion(s)
		err := checkVersion(s)
		if !ok && !errors.Is(err, ErrVersion) {
			t.Fatalf("unparsable %q: %v", s, err)
		}
		if ok && err == nil && (v[0] != 1 || v[1] < 30) {
			t.Fatalf("%q accepted as %v", s, v)
		}
	})
}

func TestFailoverToNextNode(t *testing.T) {
	f, good := newFake(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	c, err := New(dead+", "+good.Addr(), WithRetry(testRetry))
	if err != nil {
		t.Fatal(err)
	}
	if want := "http://" + dead + "," + good.Addr(); c.Addr() != want {
		t.Errorf("Addr = %s, want %s", c.Addr(), want)
	}
	for i := 0; i < 3; i++ {
		if _, err := c.Version(context.Background()); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	// The dead node was tried once, then the client stayed on the live one.
	if n := len(f.requests(http.MethodGet, "/v1/meta")); n != 3 {
		t.Errorf("%d requests reached the live node, want 3", n)
	}
	if _, err := New("127.0.0.1:1,ftp://x", WithRetry(testRetry)); err == nil {
		t.Error("a bad second address was accepted")
	}
}
