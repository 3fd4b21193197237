package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestServeDisconnectStorm has many clients leave mid-request in every way
// a client can — cancelling while the question waits for a slot or is being
// answered, closing the connection right after sending the request, reading
// half of a large reply, sending half a request — while well-behaved
// clients keep asking. Every well-behaved client gets the right answer, the
// server's slots and counters come back to rest, and once the clients are
// gone no goroutine is left behind.
func TestServeDisconnectStorm(t *testing.T) {
	idx, dense := serveIndex(t, true)
	s, ts := newTestServer(t, idx, serverOptions{MaxConcurrent: 2})
	good := []string{
		"/v1/ask?q=ferry+return&k=3&ranker=bm25-wpm",
		"/v1/ask?q=ticket+price&k=2&ranker=bm25-word",
		"/v1/ask?q=kiosk&k=5",
	}
	if dense {
		good = append(good, "/v1/ask?q="+url.QueryEscape("When does the ferry come back?")+"&k=2&ranker=dense")
	}
	want := map[string]string{}
	for _, p := range good {
		resp, body := get(t, ts, "GET", p)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", p, resp.StatusCode, body)
		}
		want[p] = string(body)
	}
	answeredBefore := s.Counters().Answered
	ts.Client().CloseIdleConnections()
	runtime.GC()
	baseline := runtime.NumGoroutine()

	// A big reply, for the clients that read half of it.
	big := "/v1/ask?q=" + url.QueryEscape("the ferry tickets kiosk café noon nine euros") + "&k=100"
	addr := ts.Listener.Addr().String()
	badTransport := &http.Transport{}
	badClient := &http.Client{Transport: badTransport}
	goodTransport := &http.Transport{}
	goodClient := &http.Client{Transport: goodTransport}

	const badClients, goodClients, each = 48, 8, 12
	var wg sync.WaitGroup
	errs := make(chan error, goodClients*each+badClients*each)
	for c := range badClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(c)))
			for i := range each {
				p := good[(c+i)%len(good)]
				switch (c + i) % 4 {
				case 0: // cancel after a random short while
					ctx, cancel := context.WithCancel(context.Background())
					req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+p, nil)
					wait := time.Duration(rng.Intn(3000)) * time.Microsecond // rng is this goroutine's only
					go func() {
						time.Sleep(wait)
						cancel()
					}()
					if resp, err := badClient.Do(req); err == nil {
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
					cancel()
				case 1: // send the whole request, close without reading
					conn, err := net.Dial("tcp", addr)
					if err != nil {
						errs <- err
						continue
					}
					fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", p)
					conn.Close()
				case 2: // read a little of a large reply, then close
					conn, err := net.Dial("tcp", addr)
					if err != nil {
						errs <- err
						continue
					}
					fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", big)
					br := bufio.NewReader(conn)
					br.ReadString('\n')
					conn.Close()
				case 3: // half a request
					conn, err := net.Dial("tcp", addr)
					if err != nil {
						errs <- err
						continue
					}
					fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHo", p)
					conn.Close()
				}
			}
		}()
	}
	for c := range goodClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				p := good[(c+i)%len(good)]
				resp, err := goodClient.Get(ts.URL + p)
				if err != nil {
					errs <- fmt.Errorf("good client %s: %v", p, err)
					continue
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 || string(body) != want[p] {
					errs <- fmt.Errorf("good client %s: status %d, err %v, body %.200s", p, resp.StatusCode, err, body)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	badTransport.CloseIdleConnections()
	goodTransport.CloseIdleConnections()

	// The server comes back to rest: no question waiting or holding a
	// slot, and every well-behaved question counted as answered.
	waitFor(t, func() bool {
		return s.Counters().Waiting == 0 && s.Counters().InFlight == 0
	})
	if got := s.Counters().Answered - answeredBefore; got < goodClients*each {
		t.Errorf("%d questions answered, want at least the %d of the well-behaved clients", got, goodClients*each)
	}
	// Still serving.
	if resp, body := get(t, ts, "GET", good[0]); resp.StatusCode != 200 || string(body) != want[good[0]] {
		t.Fatalf("after the storm: %d %s", resp.StatusCode, body)
	}
	ts.Client().CloseIdleConnections()
	// No goroutine left behind (a little slack for runtime helpers); the
	// bound on waiting only turns a leak into a failure instead of a hang.
	const slack = 4
	n := 0
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		runtime.GC()
		if n = runtime.NumGoroutine(); n <= baseline+slack || time.Now().After(deadline) {
			break
		}
	}
	if n > baseline+slack {
		stacks := make([]byte, 1<<20)
		stacks = stacks[:runtime.Stack(stacks, true)]
		t.Fatalf("%d goroutines left, %d before the storm:\n%s", n, baseline, stacks)
	}
	t.Logf("goroutines: %d before, %d after; answered %d, abandoned %d", baseline, n, s.Counters().Answered-answeredBefore, s.Counters().Abandoned)
}
