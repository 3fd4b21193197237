package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"testing"
)

// TestServeKEveryRanker is the regression test of a served ranker that
// fixed k when it was built: on an index built with --lambda 0, dense/sent
// searched the ANN graph (built for λ = 0) for the k of the first request
// it answered, and the server's ranker cache kept it, so that k=1 then k=5
// gave one answer both times. Every ranker, asked k=1 then k=5 (then 1
// again) by one server, returns k answers each time.
func TestServeKEveryRanker(t *testing.T) {
	requireDense(t)
	dir := t.TempDir()
	in := writeFile(t, dir, "notes.txt", serveCorpus)
	idx := filepath.Join(dir, "notes.reqa")
	if code, _, errs := reqa(t, "index", "--quiet", "--lambda", "0", "--out", idx, in); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	_, ts := newTestServer(t, idx, serverOptions{})
	_, body := get(t, ts, "GET", "/v1/stats")
	var st struct{ Rankers []string }
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatal(err)
	}
	rankers := append(st.Rankers, "", "dense/sent", "bm25-wpm/sent", "bm25-word/sent", "ctxmax:dense", "ctxrel:bm25-wpm")
	// Every sentence of serveCorpus shares a word with the question, so
	// that BM25 ranks at least five of them.
	q := url.QueryEscape("Is the ticket sold at the kiosk for the ferry in euros at nine, and it returns at noon?")
	for _, name := range rankers {
		for _, k := range []int{1, 5, 1} {
			resp, body := get(t, ts, "GET", fmt.Sprintf("/v1/ask?q=%s&k=%d&ranker=%s", q, k, url.QueryEscape(name)))
			var r askReply
			if err := json.Unmarshal(body, &r); err != nil || resp.StatusCode != 200 {
				t.Fatalf("ranker %q k=%d: %d %s", name, k, resp.StatusCode, body)
			}
			if len(r.Answers) != k {
				t.Errorf("ranker %q (%s) k=%d: %d answers", name, r.Ranker, k, len(r.Answers))
			}
		}
	}
}
