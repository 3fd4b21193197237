package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/index/weaviate"
	"github.com/reqa/reqa/index/weaviate/weaviatetest"
)

// TestEngineCheckedBeforeEmbedding: `reqa index --engine` asks the engine
// first. An engine that does not answer, redirects, wants an API key or
// runs an unsupported version fails the build before a single sentence
// is embedded (no "embed" progress stage), and leaves no --out file.
func TestEngineCheckedBeforeEmbedding(t *testing.T) {
	requireDense(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	serve := func(h http.HandlerFunc) string {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return strings.TrimPrefix(srv.URL, "http://")
	}
	elsewhere := serve(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the redirect was followed: %s %s", r.Method, r.URL)
	})
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		host string
		want error
	}{
		{"closed port", closed, weaviate.ErrUnreachable},
		{"redirect", serve(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://"+elsewhere+r.URL.Path, http.StatusTemporaryRedirect)
		}), weaviate.ErrRedirect},
		{"API key wanted", serve(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"code":401,"message":"anonymous access not enabled"}`, http.StatusUnauthorized)
		}), weaviate.ErrAuth},
		{"old version", serve(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"version":"1.20.0"}`)) }), weaviate.ErrVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target, corpus, opt := engineDemoImport(t, tc.host, "Demo")
			var mu sync.Mutex
			var stages []string
			opt.Progress = func(stage string, done, total int) {
				mu.Lock()
				defer mu.Unlock()
				if len(stages) == 0 || stages[len(stages)-1] != stage {
					stages = append(stages, stage)
				}
			}
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".reqa")
			checked := false
			t0 := time.Now()
			_, err := index.BuildEngine(context.Background(), corpus, out, opt, index.EngineSpec{Target: target, Checked: func() { checked = true }})
			took := time.Since(t0)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if checked {
				t.Error("the pre-flight passed")
			}
			for _, s := range stages {
				if strings.HasPrefix(s, "embed") {
					t.Errorf("embedding began (%q) before the engine failed: stages %q", s, stages)
				}
			}
			if took > 20*time.Second {
				t.Errorf("failed after %v; want the pre-flight's few seconds of retries", took)
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("--out after a failed pre-flight: %v", err)
			}
		})
	}
	// The command line, too: it exits with the engine's error, and the
	// key never shows in a URL.
	code, _, errs := reqa(t, "index", "--engine", "weaviate://"+closed+"/Demo", "--out", filepath.Join(dir, "cli.reqa"), "democorpus")
	if code == 0 || !strings.Contains(errs, "unreachable") || strings.Contains(errs, "embed") {
		t.Errorf("index --engine on a closed port: exit %d: %s", code, errs)
	}
	code, _, errs = reqa(t, "index", "--engine", "weaviate://reqa:s3cret@"+closed+"/Demo", "--out", filepath.Join(dir, "cli.reqa"), "democorpus")
	if code == 0 || !strings.Contains(errs, "--engine-key-file") || strings.Contains(errs, "s3cret") {
		t.Errorf("index --engine with a key in the URL: exit %d: %s", code, errs)
	}
}

// TestEngineWeaviateAPIKey: a Weaviate node that admits only an API key
// (anonymous access off). index, ask, eval and an append through it work
// with the key — from --engine-key-file or $REQA_WEAVIATE_API_KEY — and
// fail without it, or with another, saying where the key goes; the key is
// in no index file.
func TestEngineWeaviateAPIKey(t *testing.T) {
	requireDense(t)
	const key = "reqa-test-key-7f3a9c"
	nd := weaviatetest.StartEnv(t, weaviatetest.Binary(t, "../.."), weaviatetest.APIKeyEnv(key)...)
	host := strings.TrimPrefix(nd.Addr(), "http://")
	dir := t.TempDir()
	keyFile := writeFile(t, dir, "key", key+"\n")
	wrongFile := writeFile(t, dir, "wrong", "not-the-key\n")
	eng := filepath.Join(dir, "auth.reqa")
	t.Setenv(weaviate.EnvAPIKey, "")

	// Without a key, or with another: refused before embedding, clearly.
	for _, extra := range [][]string{nil, {"--engine-key-file", wrongFile}} {
		args := append([]string{"index", "-q", "--engine", "weaviate://" + host + "/Auth", "--out", eng}, extra...)
		code, _, errs := reqa(t, append(args, "democorpus")...)
		if code == 0 || !strings.Contains(errs, "credentials") || strings.Contains(errs, "not-the-key") {
			t.Errorf("index %q: exit %d, want a refusal of the credentials: %s", extra, code, errs)
		}
	}
	if code, _, errs := reqa(t, "index", "-q", "--engine", "weaviate://"+host+"/Auth", "--engine-key-file", keyFile, "--out", eng, "democorpus"); code != 0 {
		t.Fatalf("index --engine-key-file: exit %d: %s", code, errs)
	}
	if b, err := os.ReadFile(eng); err != nil || strings.Contains(string(b), key) {
		t.Errorf("the index file holds the API key (%v)", err)
	}
	q := "how do I build an index"
	if got := askJSON(t, "--index", eng, "--engine-key-file", keyFile, "-k", "3", q); len(got) == 0 {
		t.Errorf("ask --engine-key-file: no answers")
	}
	code, _, errs := reqa(t, "ask", "--index", eng, q)
	if code == 0 || !strings.Contains(errs, "--engine-key-file") || !strings.Contains(errs, weaviate.EnvAPIKey) {
		t.Errorf("ask without the key: exit %d, want one saying where the key goes: %s", code, errs)
	}
	t.Setenv(weaviate.EnvAPIKey, key)
	if got := askJSON(t, "--index", eng, "-k", "3", q); len(got) == 0 {
		t.Errorf("ask with $%s: no answers", weaviate.EnvAPIKey)
	}
	more := writeFile(t, dir, "more.md", "# Keys\n\nThe engine admits requests that carry its API key.\n")
	if code, _, errs := reqa(t, "index", "-q", "--append", "--out", eng, more); code != 0 {
		t.Errorf("index --append with $%s: exit %d: %s", weaviate.EnvAPIKey, code, errs)
	}
	t.Setenv(weaviate.EnvAPIKey, "")

	// eval over a dataset indexed into the engine.
	tiny := filepath.Join(dir, "tiny.reqa")
	if code, _, errs := reqa(t, "index", "-q", "--engine", "weaviate://"+host+"/Tiny", "--engine-key-file", keyFile, "--out", tiny, "testdata/tinyreqa"); code != 0 {
		t.Fatalf("index tinyreqa: exit %d: %s", code, errs)
	}
	if code, out, errs := reqa(t, "eval", "-q", "--json", "--index", tiny, "--engine-key-file", keyFile, "-r", "default", "testdata/tinyreqa"); code != 0 || !strings.Contains(out, `"results"`) {
		t.Errorf("eval --engine-key-file: exit %d: %s%s", code, out, errs)
	}
	if code, _, errs := reqa(t, "eval", "-q", "--index", tiny, "-r", "default", "testdata/tinyreqa"); code == 0 || !strings.Contains(errs, "credentials") {
		t.Errorf("eval without the key: exit %d, want a refusal of the credentials: %s", code, errs)
	}
}
