package mrqa_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/reqa/reqa/ingest/mrqa"
)

// Convert a HotpotQA file in the MRQA format: every document becomes a
// context, titled, and a question whose answer is only in a title is
// dropped.
func ExampleConvert() {
	dir, err := os.MkdirTemp("", "mrqa-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	rep, err := mrqa.Convert(context.Background(), []string{filepath.Join("testdata", "hotpotqa.jsonl")},
		filepath.Join(dir, "hotpotqa"), mrqa.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	d := rep.Datasets[0]
	fmt.Printf("%s: %d input context → %d contexts, %d candidates\n", d.Name, d.InputContexts, d.Contexts, d.Candidates)
	fmt.Printf("%d of %d questions kept; dropped: %v\n", d.Questions, d.InputQuestions, d.Dropped)
	// Output:
	// HotpotQA: 1 input context → 2 contexts, 4 candidates
	// 2 of 3 questions kept; dropped: map[answer only in titles:1]
}

// ParseLine reads one MRQA line; its inclusive char_spans become code point
// spans with an exclusive end.
func ExampleParseLine() {
	line := `{"context": "Café Noir opened in 1921.", "qas": [{"qid": "q1", "question": "When did Café Noir open?",
		"answers": ["1921"], "detected_answers": [{"text": "1921", "char_spans": [[20, 23]]}]}]}`
	ln, err := mrqa.ParseLine([]byte(line))
	if err != nil {
		fmt.Println(err)
		return
	}
	q := ln.Context.QAs[0]
	fmt.Println(q.QID, q.Spans, len(ln.Problems))
	// Output: q1 [{20 24}] 0
}
