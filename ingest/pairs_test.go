package ingest_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest"
)

func TestReadPairs(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "pairs.jsonl")
	os.WriteFile(good, []byte(`{"question":"who rings the bell","answer_id":"c-7"}
{"question":"what do owls hunt","answer_ids":["c-1",12],"group":"barn"}

{"question":"when is the market closed","answer":"  The market closes on Sundays.  ","answers":["It reopens on Monday."]}
`), 0o644)
	ps, err := ingest.ReadPairs(good)
	if err != nil {
		t.Fatal(err)
	}
	want := []ingest.Pair{
		{Question: "who rings the bell", AnswerIDs: []string{"c-7"}, Line: 1},
		{Question: "what do owls hunt", AnswerIDs: []string{"c-1", "12"}, Group: "barn", Line: 2},
		{Question: "when is the market closed", AnswerTexts: []string{"The market closes on Sundays.", "It reopens on Monday."}, Line: 4},
	}
	if !reflect.DeepEqual(ps, want) {
		t.Fatalf("got  %+v\nwant %+v", ps, want)
	}

	for _, c := range []struct{ name, text, want string }{
		{"no answer", `{"question":"q"}`, `:1: field "answer_id": missing`},
		{"no question", `{"answer_id":"x"}`, `:1: field "question": missing`},
		{"empty question", `{"question":"  ","answer_id":"x"}`, `:1: field "question": empty`},
		{"bad id", "{\"question\":\"q\",\"answer_id\":\"x\"}\n{\"question\":\"q\",\"answer_id\":1.5}", `:2: field "answer_id": want a string or an integer`},
		{"bad ids", `{"question":"q","answer_ids":"x"}`, `:1: field "answer_ids": want a list`},
		{"bad id in list", `{"question":"q","answer_ids":[true]}`, `:1: field "answer_ids": want a string or an integer`},
		{"bad answers", `{"question":"q","answers":[1]}`, `:1: field "answers": want a list of strings`},
		{"malformed", `{"question":`, `:1: malformed JSON`},
		{"empty file", ``, `empty file`},
	} {
		p := filepath.Join(dir, "bad.jsonl")
		os.WriteFile(p, []byte(c.text), 0o644)
		_, err := ingest.ReadPairs(p)
		if err == nil || !errors.Is(err, ingest.ErrBadInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want …%s", c.name, err, c.want)
		}
	}
}

// FuzzReadPairs: any file yields pairs with a question and an answer each,
// or an *InputError; never a panic.
func FuzzReadPairs(f *testing.F) {
	f.Add([]byte(`{"question":"q","answer_id":"a"}`))
	f.Add([]byte(`{"question":"q","answer_ids":[1,"b"],"answers":["x"],"group":3}` + "\n\n{}"))
	f.Add([]byte("{\"question\":\"\xff\",\"answer\":\"a\"}"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "p.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ps, err := ingest.ReadPairs(p)
		if err != nil {
			var ie *ingest.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error is not an InputError: %v", err)
			}
			return
		}
		for _, x := range ps {
			if strings.TrimSpace(x.Question) == "" || len(x.AnswerIDs)+len(x.AnswerTexts) == 0 {
				t.Fatalf("pair without question or answer: %+v", x)
			}
		}
	})
}
