package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// TestServeDefaultAddrLoopback checks that serve listens on loopback unless
// told otherwise, and warns when told to listen beyond it.
func TestServeDefaultAddrLoopback(t *testing.T) {
	var addr string
	for _, f := range serveCommand().Flags {
		if sf, ok := f.(*cli.StringFlag); ok && sf.Name == "addr" {
			addr = sf.Value
		}
	}
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		t.Fatalf("serve --addr defaults to %q, not a loopback address", addr)
	}

	idx, _ := serveIndex(t, false)
	cmd := exec.Command(os.Args[0], "serve", "--index", idx, "--addr", "0.0.0.0:0")
	cmd.Env = append(os.Environ(), "REQA_RUN_MAIN=1")
	_, head, _ := startServe(t, cmd)
	cmd.Process.Kill()
	cmd.Wait()
	if !strings.Contains(head.String(), "beyond loopback; reqa has no authentication") {
		t.Fatalf("no warning when listening on every interface:\n%s", head.String())
	}
}

// snapshotTree lists every file under dir with its size and modification
// time ("" when dir does not exist).
func snapshotTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, fmt.Sprintf("%s %s %s %d", rel, info.Mode(), info.ModTime().Format(time.RFC3339Nano), info.Size()))
		return nil
	})
	sort.Strings(out)
	return out
}

// TestServeWritesNoFiles runs `reqa serve` with its own working directory,
// HOME, cache directory and TMPDIR, asks every endpoint — good requests,
// bad ones, paths that try to climb out — and shuts it down: the index
// and its directory are untouched and no file appears anywhere we can see.
// On Linux that includes the ONNX Runtime library, loaded from a memfd;
// elsewhere the embedded library is extracted once to
// $XDG_CACHE_HOME/reqa/ort-HASH/ (package ortlib), which is allowed.
func TestServeWritesNoFiles(t *testing.T) {
	idx, dense := serveIndex(t, true)
	idxDir := filepath.Dir(idx)
	root := t.TempDir()
	dirs := map[string]string{}
	for _, d := range []string{"cwd", "home", "cache", "tmp"} {
		dirs[d] = filepath.Join(root, d)
		if err := os.Mkdir(dirs[d], 0o755); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshotTree(t, idxDir)
	cmd := exec.Command(os.Args[0], "serve", "--index", idx, "--addr", "127.0.0.1:0")
	cmd.Dir = dirs["cwd"]
	cmd.Env = []string{"REQA_RUN_MAIN=1", "HOME=" + dirs["home"], "XDG_CACHE_HOME=" + dirs["cache"], "TMPDIR=" + dirs["tmp"], "PATH=" + os.Getenv("PATH")}
	base, _, lines := startServe(t, cmd)
	go io.Copy(io.Discard, stderrRest(lines))
	paths := []string{
		"/", "/app.js", "/style.css", "/healthz", "/v1/stats",
		"/v1/ask?q=ferry&k=3", "/v1/ask?q=ferry&ranker=bm25-word", "/v1/ask?q=" + url.QueryEscape("<script>x</script>"),
		"/v1/ask", "/v1/ask?q=x&k=0", "/v1/ask?q=x&ranker=nope",
		"/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/web/index.html", "/index.html", "/.git/config",
		"/v1/ask?q=x&index=/etc/passwd", "/app.js/../../notes.reqa",
	}
	if dense {
		paths = append(paths, "/v1/ask?q=ferry&ranker=dense", "/v1/ask?q=ferry&ranker=fusion-rrf")
	}
	for _, p := range paths {
		for _, m := range []string{"GET", "HEAD", "POST", "PUT", "DELETE"} {
			req, _ := http.NewRequest(m, base+p, strings.NewReader("body=1"))
			if m == "GET" || m == "HEAD" {
				req.Body, req.ContentLength = nil, 0
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("%s %s: %v", m, p, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if strings.Contains(string(body), "root:") || strings.Contains(string(body), "[core]") {
				t.Fatalf("%s %s served a file from outside: %.200s", m, p, body)
			}
			if m != "GET" && m != "HEAD" && resp.StatusCode != http.StatusMethodNotAllowed {
				t.Fatalf("%s %s: %d", m, p, resp.StatusCode)
			}
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve after SIGTERM: %v", err)
	}
	if after := snapshotTree(t, idxDir); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("the index directory changed:\nbefore %q\nafter  %q", before, after)
	}
	for _, d := range []string{"cwd", "home", "tmp", "cache"} {
		var unexpected []string
		for _, f := range snapshotTree(t, dirs[d]) {
			// The verified ONNX Runtime library cache (dense indexes
			// only, and not on Linux).
			if dense && runtime.GOOS != "linux" && d == "cache" && regexp.MustCompile(`^reqa(/ort-[0-9a-f]{16}(/libonnxruntime\.so[.0-9]*)?)? `).MatchString(f) {
				continue
			}
			unexpected = append(unexpected, f)
		}
		if len(unexpected) != 0 {
			t.Errorf("serve wrote into %s: %q", d, unexpected)
		}
	}
	if !dense {
		t.Log("no embeddings in this build: the ONNX Runtime cache was not exercised")
	} else {
		t.Logf("files written with a dense index: %q", snapshotTree(t, dirs["cache"]))
	}
}

// stderrRest drains what is left of serve's stderr.
func stderrRest(s *bufio.Scanner) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		for s.Scan() {
			pw.Write([]byte(s.Text() + "\n"))
		}
		pw.Close()
	}()
	return pr
}

// TestServeEscapesEverything indexes a corpus whose titles, file names,
// text and ids are markup, then checks that every API response — answers,
// stats, error messages that echo the request — carries it as JSON-escaped
// text only (no raw < or >), and that it round-trips unchanged.
func TestServeEscapesEverything(t *testing.T) {
	dir := t.TempDir()
	evil := `<img src=x onerror=alert(1)>`
	// Markdown reads raw HTML as HTML (its tags are not text): the markup
	// that must come back as text is written in code spans.
	md := writeFile(t, dir, "notes.md", "# Title `"+evil+"`\n\nThe lighthouse keeper `<script>alert('k')</script>` lit the lamp at dusk. "+
		"Then &lt;b&gt; entities &amp; \"quotes\" and 'apostrophes' and `ticks` stay text.\n")
	jl := writeFile(t, dir, "x.jsonl", `{"id": "<svg onload=alert(3)>", "title": "</script><script>alert(4)</script>", "text": "The ferry <iframe src=javascript:alert(5)> leaves at nine."}`+"\n")
	idx := filepath.Join(dir, "<b>evil<i>.reqa")
	if code, _, errs := reqa(t, "index", "--quiet", "--dense=false", "--out", idx, md, jl); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	_, ts := newTestServer(t, idx, serverOptions{})
	check := func(what string, body []byte) {
		t.Helper()
		if strings.ContainsAny(string(body), "<>") {
			t.Fatalf("%s: raw markup in a JSON reply: %s", what, body)
		}
		if !json.Valid(body) {
			t.Fatalf("%s: not JSON: %s", what, body)
		}
	}
	found := map[string]bool{}
	for _, q := range []string{"lighthouse keeper lamp", "ferry leaves nine"} {
		resp, body := get(t, ts, "GET", "/v1/ask?k=5&q="+url.QueryEscape(q+" "+evil))
		if resp.StatusCode != 200 {
			t.Fatalf("ask: %d %s", resp.StatusCode, body)
		}
		check("ask", body)
		var r askReply
		json.Unmarshal(body, &r)
		if r.Question != q+" "+evil || len(r.Answers) == 0 {
			t.Fatalf("reply %+v", r)
		}
		for _, a := range r.Answers {
			switch {
			case strings.Contains(a.Sentence, "lighthouse"):
				found["lighthouse"] = true
				if a.Title != "Title "+evil || !strings.Contains(a.Sentence, "<script>alert('k')</script>") {
					t.Fatalf("markup did not round-trip as text: %+v", a)
				}
			case strings.Contains(a.Sentence, "ferry"):
				found["ferry"] = true
				if a.Title != "</script><script>alert(4)</script>" || !strings.Contains(a.Sentence, "<iframe src=javascript:alert(5)>") {
					t.Fatalf("markup did not round-trip as text: %+v", a)
				}
			}
		}
	}
	if !found["lighthouse"] || !found["ferry"] {
		t.Fatalf("answers missing: %v", found)
	}
	resp, body := get(t, ts, "GET", "/v1/stats")
	check("stats", body)
	var st struct{ Index string }
	json.Unmarshal(body, &st)
	if resp.StatusCode != 200 || st.Index != "<b>evil<i>.reqa" {
		t.Fatalf("stats: %d %s", resp.StatusCode, body)
	}
	// Error messages echo what was asked: escaped too.
	for _, p := range []string{
		"/v1/ask?q=x&ranker=" + url.QueryEscape("<script>alert(6)</script>"),
		"/v1/ask?q=x&k=" + url.QueryEscape("<b>7</b>"),
		"/v1/ask?q=x&" + url.QueryEscape("<i>") + "=1&" + url.QueryEscape("<i>") + "=2",
		"/" + url.PathEscape("<script>alert(8)</script>"),
	} {
		resp, body := get(t, ts, "GET", p)
		if resp.StatusCode < 400 {
			t.Fatalf("%s: %d", p, resp.StatusCode)
		}
		check(p, body)
		checkSecurityHeaders(t, p, resp)
	}
}
