package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzServeAsk sends arbitrary query strings to GET /v1/ask of a server
// over a tiny BM25-only index: either q, k and ranker encoded properly
// (raw == false) or the fuzzed bytes as the raw query string. The server
// never panics and never fails with a 5xx; every reply is JSON; an error
// reply says what is wrong; an answer reply holds at most k answers, ranked
// by falling score, each sentence the marked span of its context.
func FuzzServeAsk(f *testing.F) {
	s := newServer(f, buildIndex(f, f.TempDir(), "notes.txt", serveCorpus), Options{})
	h := s.Handler()

	for _, c := range []struct{ q, k, ranker string }{
		{"When does the ferry return?", "2", "bm25-wpm"},
		{"ferry", "", ""},
		{"<script>alert(1)</script>", "100", "bm25-word"},
		{"café résumé", "1", "dense"},
		{"  ", "5", ""},
		{"x", "0", ""}, {"x", "101", ""}, {"x", "-1", ""}, {"x", "1e2", ""}, {"x", "0x10", ""}, {"x", " 3", ""},
		{"x", "99999999999999999999", ""},
		{"x", "", "fusion-zscore"}, {"x", "", "bm25-"}, {"x", "", "BM25-WPM"}, {"x", "", strings.Repeat("r", 65)},
		{"\xff\xfe", "", ""}, {"a\x00b", "", ""}, {strings.Repeat("é", MaxQuestionChars), "", ""},
		{strings.Repeat("é", MaxQuestionChars+1), "", ""}, {"\u202e\u200b\ufeff", "", ""},
	} {
		f.Add(c.q, c.k, c.ranker, false)
	}
	for _, raw := range []string{
		"q=ferry&q=boat", "q=%zz", "q=a;b", "q=ferry&k=2&k=3", "q", "=&=&", "q=%E2%82", "q=+&k=+",
		"q=ferry&ranker=%00", "q=" + strings.Repeat("%F0%9F%98%80", MaxQuestionChars), "q=" + strings.Repeat("a", maxQueryBytes+1),
	} {
		f.Add(raw, "", "", true)
	}
	f.Fuzz(func(t *testing.T, q, k, ranker string, raw bool) {
		rawQuery := q
		if !raw {
			v := url.Values{"q": {q}}
			if k != "" {
				v.Set("k", k)
			}
			if ranker != "" {
				v.Set("ranker", ranker)
			}
			rawQuery = v.Encode()
		}
		req := &http.Request{Method: "GET", URL: &url.URL{Path: "/v1/ask", RawQuery: rawQuery}, Header: http.Header{},
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Host: "127.0.0.1", RequestURI: "/v1/ask?" + rawQuery}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		code, body := rec.Code, rec.Body.Bytes()
		if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
			t.Fatalf("status %d, Content-Type %q", code, ct)
		}
		if strings.ContainsAny(string(body), "<>") {
			t.Fatalf("raw markup in a JSON reply: %s", body)
		}
		switch code {
		case http.StatusOK:
		case http.StatusBadRequest, http.StatusRequestURITooLong:
			var e struct{ Error string }
			if err := json.Unmarshal(body, &e); err != nil || e.Error == "" {
				t.Fatalf("status %d without an error message: %s (%v)", code, body, err)
			}
			return
		default:
			t.Fatalf("query %q: status %d: %s", rawQuery, code, body)
		}
		var r askReply
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatalf("reply is not JSON: %v: %s", err, body)
		}
		if r.K < 1 || r.K > MaxK || len(r.Answers) > r.K || !utf8.ValidString(r.Question) ||
			r.Question == "" || utf8.RuneCountInString(r.Question) > MaxQuestionChars {
			t.Fatalf("query %q: reply k=%d, %d answers, question %q", rawQuery, r.K, len(r.Answers), r.Question)
		}
		if !raw && k != "" && strconv.Itoa(r.K) != strings.TrimPrefix(k, "+") {
			if n, err := strconv.Atoi(k); err != nil || n != r.K {
				t.Fatalf("k=%q answered as k=%d", k, r.K)
			}
		}
		if r.Ranker != "bm25-wpm" && r.Ranker != "bm25-word" {
			t.Fatalf("ranker %q", r.Ranker)
		}
		for i, a := range r.Answers {
			if a.Rank != i+1 || a.Start < 0 || a.Start > a.End || a.End > len(a.Context) || a.Context[a.Start:a.End] != a.Sentence {
				t.Fatalf("answer %d inconsistent: %+v", i, a)
			}
			if i > 0 && a.Score > r.Answers[i-1].Score {
				t.Fatalf("answers out of order: %+v", r.Answers)
			}
		}
	})
}
