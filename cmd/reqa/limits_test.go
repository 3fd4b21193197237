package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// longQuestion returns a question of n characters made of words from the
// serve corpus and filler, with non-ASCII letters and markup among them.
func longQuestion(n int) string {
	words := strings.Fields(serveCorpus + " zyzzyva qwerty ünïcödé <b>bold</b> & \"quoted\"")
	rng := rand.New(rand.NewSource(1))
	var b strings.Builder
	for b.Len() < 2*n {
		b.WriteString(words[rng.Intn(len(words))])
		b.WriteByte(' ')
	}
	return string([]rune(b.String())[:n])
}

// TestLongQuestion asks a question of 100,000 characters: ask answers it
// with every ranker (BM25 tokenizes all of it; the encoder reads what fits
// its input), and serve refuses it with 414 (query string too long) — or
// 400 for a question under the byte limit but over the character limit —
// never crashing, and keeps answering.
func TestLongQuestion(t *testing.T) {
	idx, dense := serveIndex(t, true)
	q := longQuestion(100_000)
	rankers := []string{"bm25-wpm", "bm25-word"}
	if dense {
		rankers = append(rankers, "dense", "fusion-zscore")
	} else {
		t.Log("dense encoder not embedded in this build (run via make): the dense ranker is not asked")
	}
	for _, r := range rankers {
		code, out, errs := reqa(t, "ask", "--index", idx, "--ranker", r, "--json", "--k", "2", q)
		if code != 0 {
			t.Fatalf("ask --ranker %s, 100,000 characters: exit %d: %.300s", r, code, errs)
		}
		var res struct {
			Question string
			Answers  []struct{ Sentence string }
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Answers) != 2 || res.Question != q {
			t.Fatalf("ask --ranker %s: %v, %d answers", r, err, len(res.Answers))
		}
		t.Logf("%s: %q", r, res.Answers[0].Sentence)
	}

	_, ts := newTestServer(t, idx, serverOptions{})
	resp, body := get(t, ts, "GET", "/v1/ask?q="+url.QueryEscape(q))
	var e struct{ Error string }
	if resp.StatusCode != http.StatusRequestURITooLong || json.Unmarshal(body, &e) != nil || !strings.Contains(e.Error, "query string of") {
		t.Fatalf("serve, 100,000 characters: %d %.300s", resp.StatusCode, body)
	}
	// Under the byte limit, over the character limit: 400 naming it.
	short := longQuestion(maxQuestionChars + 1)
	resp, body = get(t, ts, "GET", "/v1/ask?q="+url.QueryEscape(short))
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), fmt.Sprintf("at most %d", maxQuestionChars)) {
		t.Fatalf("serve, %d characters: %d %.300s", maxQuestionChars+1, resp.StatusCode, body)
	}
	// As a request body: refused without being read.
	req, _ := http.NewRequest("GET", ts.URL+"/v1/ask", strings.NewReader("q="+url.QueryEscape(q)))
	r2, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("serve, question in a body: %d", r2.StatusCode)
	}
	// The longest question allowed is answered, by the dense ranker too.
	longest := longQuestion(maxQuestionChars)
	for _, r := range rankers {
		resp, body := get(t, ts, "GET", "/v1/ask?q="+url.QueryEscape(longest)+"&k=1&ranker="+r)
		if resp.StatusCode != 200 {
			t.Fatalf("serve, %d characters, %s: %d %.300s", maxQuestionChars, r, resp.StatusCode, body)
		}
	}
}
