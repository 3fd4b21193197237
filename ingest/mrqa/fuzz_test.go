package mrqa_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reqa/reqa/ingest/mrqa"
)

// FuzzParseLine feeds arbitrary lines to the MRQA line parser: it never
// panics; what it accepts is consistent (ids usable in candidate ids, spans
// inside the context and matching an answer text); and a context it
// accepts, written back in the MRQA format, parses to the same thing.
func FuzzParseLine(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if p, err := sharedPath("mrqa-sample", "NewsQA_sample.jsonl"); err == nil {
		files = append(files, p)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			f.Add([]byte(line))
		}
	}
	for _, s := range strings.Split(badMRQA, "\n") {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"context": "é😀 x", "qas": [{"qid": "a", "question": "q", "detected_answers": [{"text": "😀", "char_spans": [[1, 1]]}]}]}`))
	f.Add([]byte(`{"context": "Ab", "qas": [{"qid": 7, "question": "q", "detected_answers": [{"text": "ab", "char_spans": [[0, 1], [1, 0], [-1, 0]]}]}]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		ln, err := mrqa.ParseLine(line)
		if err != nil {
			if ln.Context != nil || ln.Header != nil {
				t.Fatalf("error %v with a result", err)
			}
			return
		}
		if (ln.Header == nil) == (ln.Context == nil) {
			t.Fatalf("want exactly one of header and context: %+v", ln)
		}
		if ln.Context == nil {
			return
		}
		c := ln.Context
		runes := []rune(c.Text)
		seen := map[string]bool{}
		for _, id := range c.QIDs {
			if id == "" || strings.ContainsAny(id, "/ \t\n") || seen[id] {
				t.Fatalf("bad or duplicate qid %q", id)
			}
			seen[id] = true
		}
		for _, q := range c.QAs {
			if !seen[q.QID] || strings.TrimSpace(q.Question) == "" {
				t.Fatalf("question %+v", q)
			}
			for _, sp := range q.Spans {
				if sp.Start < 0 || sp.End <= sp.Start || sp.End > len(runes) {
					t.Fatalf("span %v outside %d code points", sp, len(runes))
				}
				if !utf8.ValidString(string(runes[sp.Start:sp.End])) {
					t.Fatalf("span %v not valid text", sp)
				}
			}
		}
		// Round trip: write the accepted context back and parse it again.
		type det struct {
			Text  string   `json:"text"`
			Spans [][2]int `json:"char_spans"`
		}
		type qa struct {
			QID      string   `json:"qid"`
			Question string   `json:"question"`
			Answers  []string `json:"answers"`
			Detected []det    `json:"detected_answers"`
		}
		qas := []qa{}
		for _, q := range c.QAs {
			x := qa{QID: q.QID, Question: q.Question, Answers: q.Answers, Detected: []det{}}
			for _, sp := range q.Spans {
				x.Detected = append(x.Detected, det{Text: string(runes[sp.Start:sp.End]), Spans: [][2]int{{sp.Start, sp.End - 1}}})
			}
			qas = append(qas, x)
		}
		b, err := json.Marshal(map[string]any{"context": c.Text, "qas": qas})
		if err != nil {
			t.Fatal(err)
		}
		ln2, err := mrqa.ParseLine(b)
		if err != nil || len(ln2.Problems) > 0 {
			t.Fatalf("round trip of %s: %v %v", b, err, ln2.Problems)
		}
		if ln2.Context.Text != c.Text || len(ln2.Context.QAs) != len(c.QAs) {
			t.Fatalf("round trip changed the context: %q → %q", c.Text, ln2.Context.Text)
		}
		for i, q := range ln2.Context.QAs {
			o := c.QAs[i]
			if q.QID != o.QID || q.Question != o.Question || len(q.Spans) != len(o.Spans) {
				t.Fatalf("round trip changed question %d: %+v → %+v", i, o, q)
			}
			for j := range q.Spans {
				if q.Spans[j] != o.Spans[j] {
					t.Fatalf("round trip changed span %v → %v", o.Spans[j], q.Spans[j])
				}
			}
		}
	})
}
