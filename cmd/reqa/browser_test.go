package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reqa/reqa/rank"
)

// chromiumPath is Debian's chromium (`make browser-deps` installs it).
const chromiumPath = "/usr/bin/chromium"

// TestBrowser serves an index on a free loopback port and drives the page in
// headless Chromium over the DevTools protocol: it types a question, picks a
// ranker from the menu, submits with Enter, checks the highlighted answer
// and each ranker's score, checks that markup in the corpus stays text, and
// saves a screenshot ($REQA_SCREENSHOT_DIR, else the test's temporary
// directory).
func TestBrowser(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		skipUnlessCI(t, "headless Chromium not installed (%s): `make browser-deps` installs Debian's chromium (as root); browser test skipped", chromiumPath)
	}
	if testing.Short() {
		// May skip in CI: -short is a mode; make test and CI run without it.
		t.Skip("browser test skipped in -short mode")
	}
	if v, err := exec.Command(chromiumPath, "--version").Output(); err == nil {
		t.Logf("browser test runs with %s", strings.TrimSpace(string(v)))
	}
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()

	b := startChromium(t) // starts up while the index is built
	idx, dense := serveIndex(t, true)
	base := startServer(t, idx)
	page := b.openPage(ctx, t)

	page.call(t, "Page.enable", nil)
	page.call(t, "Runtime.enable", nil)
	page.call(t, "Log.enable", nil)
	page.call(t, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 1200, "height": 900, "deviceScaleFactor": 1, "mobile": false})

	// The page loads, fills the ranker menu from /v1/stats and waits.
	page.call(t, "Page.navigate", map[string]any{"url": base + "/"})
	page.waitFor(ctx, t, "the ranker menu", `document.body.dataset.state === "idle" && document.getElementById("ranker").options.length > 0`)
	var menu []string
	page.eval(t, `Array.from(document.getElementById("ranker").options, o => o.value)`, &menu)
	wantMenu := []string{"bm25-word", "bm25-wpm", "bm25-stem"}
	if dense {
		wantMenu = []string{"bm25-word", "bm25-wpm", "bm25-stem", "dense", "fusion-zscore", "fusion-rrf"}
	}
	if strings.Join(menu, ",") != strings.Join(wantMenu, ",") {
		t.Fatalf("ranker menu %v, want %v", menu, wantMenu)
	}

	// Type a question, choose bm25-wpm from the menu, press Enter.
	page.eval(t, `(() => { const s = document.getElementById("ranker"); s.value = "bm25-wpm"; s.dispatchEvent(new Event("change")); document.getElementById("q").focus(); return true })()`, nil)
	page.typeText(t, "What returns at noon?")
	page.pressEnter(t)
	snap := page.results(ctx, t)
	if snap.State != "done" || len(snap.Answers) == 0 {
		t.Fatalf("after typing a question: %+v", snap)
	}
	first := snap.Answers[0]
	if first.Mark != "It returns at noon." || first.Context != "The ferry leaves at nine. It returns at noon." {
		t.Fatalf("first answer highlights %q in %q", first.Mark, first.Context)
	}
	if len(first.Scores) != 1 || first.Scores[0] != "bm25-wpm" {
		t.Fatalf("first answer shows scores %v, want bm25-wpm", first.Scores)
	}
	if u, err := url.Parse(snap.URL); err != nil || u.Query().Get("q") != "What returns at noon?" || u.Query().Get("ranker") != "bm25-wpm" {
		t.Fatalf("submitting did not put the question in the URL: %s", snap.URL)
	}

	// Markup in the corpus is shown as text: no element is made from it and
	// no script runs. This search comes from a shared link (?q=…).
	page.call(t, "Page.navigate", map[string]any{"url": base + "/?ranker=bm25-wpm&k=3&q=" + url.QueryEscape("Beware the <script>alert(1)</script> ticket")})
	snap = page.results(ctx, t)
	if snap.State != "done" || len(snap.Answers) == 0 {
		t.Fatalf("markup question: %+v", snap)
	}
	if got := snap.Answers[0].Mark; got != "Beware: <script>alert(1)</script> is not a ticket." {
		t.Fatalf("markup answer highlighted as %q", got)
	}
	if snap.Question != "Beware the <script>alert(1)</script> ticket" {
		t.Fatalf("question box holds %q", snap.Question)
	}
	if snap.Injected != 0 {
		t.Fatalf("corpus markup became %d script/img/iframe elements in the answers", snap.Injected)
	}

	// A bad ranker in a link is reported on the page.
	page.call(t, "Page.navigate", map[string]any{"url": base + "/?q=ferry&ranker=magic"})
	snap = page.results(ctx, t)
	if snap.State != "error" || !strings.Contains(snap.Status, "unknown ranker") {
		t.Fatalf("bad ranker: %+v", snap)
	}

	// The default ranker (a fusion when the index has embeddings), chosen
	// from the menu and submitted with the button; then the screenshot.
	page.call(t, "Page.navigate", map[string]any{"url": base + "/"})
	page.waitFor(ctx, t, "the ranker menu", `document.body.dataset.state === "idle" && document.getElementById("ranker").options.length > 0`)
	page.eval(t, `document.getElementById("q").focus()`, nil)
	page.typeText(t, "When does the ferry come back?")
	page.eval(t, `document.getElementById("ask").click()`, nil)
	snap = page.results(ctx, t)
	if snap.State != "done" || len(snap.Answers) == 0 {
		t.Fatalf("default ranker: %+v", snap)
	}
	if dense {
		for i, a := range snap.Answers {
			// bm25-wpm weighs 0 in the default: not computed, not shown.
			if strings.Join(a.Scores, ",") != "fusion-zscore,bm25-stem,bm25-word,dense" {
				t.Fatalf("answer %d shows scores %v, want fusion-zscore, bm25-stem, bm25-word and dense", i+1, a.Scores)
			}
		}
	}
	var shot struct {
		Data string `json:"data"`
	}
	page.call(t, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot)
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("screenshot is not a PNG (%d bytes, %v)", len(png), err)
	}
	dir := os.Getenv("REQA_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	shotPath := filepath.Join(dir, "reqa-serve.png")
	if err := os.WriteFile(shotPath, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", shotPath, len(png))

	// Nothing threw, no dialog opened and the security policy refused
	// nothing the page wanted.
	for _, ev := range page.events {
		switch ev.Method {
		case "Runtime.exceptionThrown", "Page.javascriptDialogOpening":
			t.Errorf("page event %s: %s", ev.Method, ev.Params)
		case "Log.entryAdded":
			var e struct {
				Entry struct{ Source, Level, Text string }
			}
			json.Unmarshal(ev.Params, &e)
			if e.Entry.Level == "error" && (e.Entry.Source == "security" || e.Entry.Source == "javascript") {
				t.Errorf("page logged %s error: %s", e.Entry.Source, e.Entry.Text)
			}
		}
	}
}

// startServer serves idx on a free loopback port until the test ends, and
// checks then that the server shut down gracefully.
func startServer(t *testing.T, idx string) string {
	t.Helper()
	e, err := rank.Open(idx)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	var mu sync.Mutex
	logger := log.New(lockedWriter{&mu, &logs}, "", 0)
	s, err := newServer(e, serverOptions{Log: logger})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serveUntil(ctx, ln, s.handler(), logger) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("server: %v", err)
		}
		e.Close()
		mu.Lock()
		defer mu.Unlock()
		// The server logs only failures (and its start and shutdown).
		if strings.Contains(logs.String(), "ask") {
			t.Errorf("server logged failures:\n%s", logs.String())
		}
	})
	return "http://" + ln.Addr().String()
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// browser is a headless Chromium starting up or running.
type browser struct {
	found  chan string   // receives the DevTools endpoint's host:port
	exited chan struct{} // closed when the browser has exited
	mu     sync.Mutex
	stderr strings.Builder
}

// startChromium starts headless Chromium with a fresh profile and stops it
// (and every process it started) when the test ends. It does not wait for
// the browser to be ready: openPage does.
func startChromium(t *testing.T) *browser {
	t.Helper()
	profile := t.TempDir()
	cmd := exec.Command(chromiumPath,
		"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic",
		"--disable-dev-shm-usage", "--mute-audio", "--hide-scrollbars", "--window-size=1200,900",
		"--user-data-dir="+profile, "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
		"about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // one group: the wrapper script, the browser and its helpers
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", chromiumPath, err)
	}
	b := &browser{found: make(chan string, 1), exited: make(chan struct{})}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-b.exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-b.exited
		}
	})
	go func() {
		defer close(b.exited)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			b.mu.Lock()
			b.stderr.WriteString(line + "\n")
			b.mu.Unlock()
			if rest, ok := strings.CutPrefix(line, "DevTools listening on ws://"); ok {
				if host, _, ok := strings.Cut(rest, "/"); ok {
					b.found <- host
				}
			}
		}
		cmd.Wait()
	}()
	return b
}

// openPage waits for the browser and connects to its first page.
func (b *browser) openPage(ctx context.Context, t *testing.T) *cdpPage {
	t.Helper()
	var devtools string
	select {
	case devtools = <-b.found:
	case <-b.exited:
	case <-ctx.Done():
	}
	if devtools == "" {
		b.mu.Lock()
		defer b.mu.Unlock()
		t.Fatalf("chromium did not open its DevTools endpoint:\n%s", b.stderr.String())
	}
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+devtools+"/json/list", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("DevTools target list: %v", err)
	}
	defer resp.Body.Close()
	var targets []struct {
		Type                 string `json:"type"`
		WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&targets); err != nil {
		t.Fatalf("DevTools target list: %v", err)
	}
	for _, tg := range targets {
		if tg.Type == "page" {
			ws, err := dialWebSocket(ctx, tg.WebSocketDebuggerURL)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ws.Close() })
			return &cdpPage{ws: ws}
		}
	}
	t.Fatalf("chromium has no page target: %+v", targets)
	return nil
}

// cdpEvent is a DevTools protocol event.
type cdpEvent struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// cdpPage speaks the DevTools protocol to one page, one call at a time;
// events that arrive meanwhile are kept in events.
type cdpPage struct {
	ws     *wsConn
	nextID int
	events []cdpEvent
}

// call sends method and decodes its result into out (if given).
func (p *cdpPage) call(t *testing.T, method string, params any, out ...any) {
	t.Helper()
	if err := p.tryCall(method, params, out...); err != nil {
		t.Fatal(err)
	}
}

func (p *cdpPage) tryCall(method string, params any, out ...any) error {
	p.nextID++
	id := p.nextID
	if params == nil {
		params = map[string]any{}
	}
	msg, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		return err
	}
	if err := p.ws.writeText(msg); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	for {
		raw, err := p.ws.readMessage()
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
			cdpEvent
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("%s: bad DevTools message: %w", method, err)
		}
		if m.ID == 0 {
			p.events = append(p.events, m.cdpEvent)
			continue
		}
		if m.ID != id {
			continue
		}
		if m.Error != nil {
			return fmt.Errorf("%s: DevTools error %d: %s", method, m.Error.Code, m.Error.Message)
		}
		if len(out) > 0 && out[0] != nil {
			return json.Unmarshal(m.Result, out[0])
		}
		return nil
	}
}

// eval evaluates a JavaScript expression in the page and decodes its value
// into out (if not nil).
func (p *cdpPage) eval(t *testing.T, expr string, out any) {
	t.Helper()
	if err := p.tryEval(expr, out); err != nil {
		t.Fatal(err)
	}
}

func (p *cdpPage) tryEval(expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := p.tryCall("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r); err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("evaluating %s: %s %s", expr, r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	if out != nil {
		return json.Unmarshal(r.Result.Value, out)
	}
	return nil
}

// waitFor polls a JavaScript condition until it holds or ctx ends.
func (p *cdpPage) waitFor(ctx context.Context, t *testing.T, what, cond string) {
	t.Helper()
	for {
		var ok bool
		err := p.tryEval("Boolean("+cond+")", &ok)
		if err == nil && ok {
			return
		}
		select {
		case <-ctx.Done():
			var body string
			p.tryEval(`document.body ? document.body.innerText : ""`, &body)
			t.Fatalf("gave up waiting for %s (last error %v); the page says:\n%s", what, err, body)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// typeText types s into the focused element, one key at a time.
func (p *cdpPage) typeText(t *testing.T, s string) {
	t.Helper()
	for _, r := range s {
		ch := string(r)
		p.call(t, "Input.dispatchKeyEvent", map[string]any{"type": "keyDown", "key": ch, "text": ch, "unmodifiedText": ch})
		p.call(t, "Input.dispatchKeyEvent", map[string]any{"type": "keyUp", "key": ch})
	}
}

// pressEnter presses and releases the Enter key.
func (p *cdpPage) pressEnter(t *testing.T) {
	t.Helper()
	key := map[string]any{"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "nativeVirtualKeyCode": 13}
	down := map[string]any{"type": "keyDown", "text": "\r"}
	for k, v := range key {
		down[k] = v
	}
	up := map[string]any{"type": "keyUp"}
	for k, v := range key {
		up[k] = v
	}
	p.call(t, "Input.dispatchKeyEvent", down)
	p.call(t, "Input.dispatchKeyEvent", up)
}

// pageResults is what the page shows after a search.
type pageResults struct {
	State, Status, URL, Question string
	Answers                      []struct {
		Mark, Context string
		Scores        []string
	}
	// Injected counts script, img and iframe elements inside the answers.
	Injected int
}

// results waits for the current search to finish and reads the page.
func (p *cdpPage) results(ctx context.Context, t *testing.T) pageResults {
	t.Helper()
	p.waitFor(ctx, t, "the search to finish", `["done", "error"].includes(document.body.dataset.state)`)
	var r pageResults
	p.eval(t, `({
		State: document.body.dataset.state,
		Status: document.getElementById("status").textContent,
		URL: location.href,
		Question: document.getElementById("q").value,
		Answers: Array.from(document.querySelectorAll("#answers > li"), li => ({
			Mark: (li.querySelector("mark") || {}).textContent || "",
			Context: li.querySelector(".context").textContent,
			Scores: Array.from(li.querySelectorAll(".scores dt"), dt => dt.textContent),
		})),
		Injected: document.querySelectorAll("#answers script, #answers img, #answers iframe").length,
	})`, &r)
	return r
}

// wsConn is a minimal WebSocket client (RFC 6455): enough for the DevTools
// protocol, which sends unfragmented or fragmented text messages.
type wsConn struct {
	c  net.Conn
	br *bufio.Reader
}

// wsGUID is the RFC 6455 handshake constant.
const wsGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// dialWebSocket opens a WebSocket to a ws:// URL; ctx's deadline bounds
// every later read and write.
func dialWebSocket(ctx context.Context, rawURL string) (*wsConn, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "ws" {
		return nil, fmt.Errorf("websocket %q: want a ws:// URL", rawURL)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return nil, fmt.Errorf("websocket %s: %w", rawURL, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	var nonce [16]byte
	rand.Read(nonce[:])
	key := base64.StdEncoding.EncodeToString(nonce[:])
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
		u.RequestURI(), u.Host, key)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("websocket %s: handshake: %w", rawURL, err)
	}
	sum := sha1.Sum([]byte(key + wsGUID))
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(sum[:]) {
		c.Close()
		return nil, fmt.Errorf("websocket %s: handshake refused: %s", rawURL, resp.Status)
	}
	return &wsConn{c: c, br: br}, nil
}

// Close closes the connection.
func (w *wsConn) Close() error { return w.c.Close() }

// writeFrame sends one final frame with opcode op, masked as a client must.
func (w *wsConn) writeFrame(op byte, payload []byte) error {
	hdr := []byte{0x80 | op}
	switch n := len(payload); {
	case n < 126:
		hdr = append(hdr, 0x80|byte(n))
	case n <= 0xFFFF:
		hdr = append(hdr, 0x80|126)
		hdr = binary.BigEndian.AppendUint16(hdr, uint16(n))
	default:
		hdr = append(hdr, 0x80|127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	var mask [4]byte
	rand.Read(mask[:])
	hdr = append(hdr, mask[:]...)
	buf := append(hdr, payload...)
	for i := range payload {
		buf[len(hdr)+i] ^= mask[i%4]
	}
	_, err := w.c.Write(buf)
	return err
}

// writeText sends a text message.
func (w *wsConn) writeText(p []byte) error { return w.writeFrame(0x1, p) }

// maxMessage bounds one received message (a screenshot is well below).
const maxMessage = 64 << 20

// readMessage returns the next text or binary message, answering pings.
func (w *wsConn) readMessage() ([]byte, error) {
	var msg []byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(w.br, h[:]); err != nil {
			return nil, err
		}
		fin, op := h[0]&0x80 != 0, h[0]&0x0F
		n := uint64(h[1] & 0x7F)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(w.br, b[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(w.br, b[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		var mask []byte
		if h[1]&0x80 != 0 {
			mask = make([]byte, 4)
			if _, err := io.ReadFull(w.br, mask); err != nil {
				return nil, err
			}
		}
		if n > maxMessage || uint64(len(msg))+n > maxMessage {
			return nil, fmt.Errorf("websocket: message over %d bytes", maxMessage)
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(w.br, payload); err != nil {
			return nil, err
		}
		for i := range payload {
			if mask != nil {
				payload[i] ^= mask[i%4]
			}
		}
		switch op {
		case 0x8: // close
			return nil, errors.New("websocket: closed by the browser")
		case 0x9: // ping
			if err := w.writeFrame(0xA, payload); err != nil {
				return nil, err
			}
			continue
		case 0xA: // pong
			continue
		}
		msg = append(msg, payload...)
		if fin {
			return msg, nil
		}
	}
}
