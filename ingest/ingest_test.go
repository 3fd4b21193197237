package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reqa/reqa/store"
)

func TestReadCorpusDirectory(t *testing.T) {
	c, err := ReadInputs([]string{"testdata/corpus"})
	if err != nil {
		t.Fatal(err)
	}
	var texts, titles []string
	for _, s := range c.Sentences {
		ctx := c.Contexts[s.ContextID]
		texts = append(texts, s.Text(ctx))
		titles = append(titles, ctx.Title)
	}
	joined := strings.Join(texts, "|")
	for _, want := range []string{
		"Suspension bridges hang their deck from cables.",
		"The cables rest on tall towers.", // lines of one paragraph joined
		"A hive can hold 50,000 bees.",
		"Ants live in colonies.",
		"Dr. Smith kept the Bell Rock light for 20 years.",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("missing sentence %q in %q", want, joined)
		}
	}
	if strings.Contains(joined, "code block") || strings.Contains(joined, "# Keepers") {
		t.Errorf("Markdown code or heading indexed as text: %q", joined)
	}
	found := false
	for i, tx := range texts {
		if strings.HasPrefix(tx, "A keeper") {
			found = true
			if titles[i] != "Keepers" {
				t.Errorf("Markdown heading not used as title: %q", titles[i])
			}
		}
	}
	if !found {
		t.Error("keeper paragraph missing")
	}
	for _, ctx := range c.Contexts {
		if ctx.Source == "" || !strings.Contains(ctx.Source, ":") {
			t.Errorf("context without file:line source: %+v", ctx)
		}
	}
}

func TestReadDataset(t *testing.T) {
	d, err := ReadDataset("testdata/dataset")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Corpus.Sentences) != 4 || len(d.Questions) != 3 || d.Corpus.Digest == "" {
		t.Fatalf("got %d sentences, %d questions", len(d.Corpus.Sentences), len(d.Questions))
	}
	s := d.Corpus.Sentences[3]
	if got := s.Text(d.Corpus.Contexts[s.ContextID]); got != "It lies in the Himalayas." || s.ExtID != "c3" {
		t.Fatalf("sentence 3 = %q (%s)", got, s.ExtID)
	}
	test, err := d.SplitQuestions("test")
	if err != nil || len(test) != 2 {
		t.Fatalf("test split: %d questions, %v", len(test), err)
	}
	if _, err := d.SplitQuestions("dev"); err == nil {
		t.Fatal("unknown split accepted")
	}
}

// TestBadInput checks every kind of bad input gets an *InputError naming
// the file, the line and (where it applies) the field.
func TestBadInput(t *testing.T) {
	cases := []struct {
		name, file, content string
		wantLine            int
		wantField, wantMsg  string
	}{
		{"malformed json", "a.jsonl", "{\"text\": \"ok.\"}\n{\"text\": \"broken\n", 2, "", "malformed JSON"},
		{"not an object", "a.jsonl", "[1,2]\n", 1, "", "expected a JSON object"},
		{"missing text", "a.jsonl", "{\"text\": \"ok.\"}\n\n{\"title\": \"x\"}\n", 3, "text", "missing"},
		{"text not string", "a.jsonl", "{\"text\": 5}\n", 1, "text", "want a string"},
		{"invalid utf8 jsonl", "a.jsonl", "{\"text\": \"ok.\"}\n{\"text\": \"\xff\xfe\"}\n", 2, "", "invalid UTF-8"},
		{"invalid utf8 text", "a.txt", "fine line.\n\nbad \xc3\x28 line.\n", 3, "", "invalid UTF-8"},
		{"empty text", "a.txt", "", 0, "", "empty"},
		{"blank text", "a.md", "\n\n   \n", 0, "", "empty"},
		{"empty jsonl", "a.jsonl", "\n\n", 0, "", "empty"},
		{"blank texts jsonl", "a.jsonl", "{\"text\": \"  \"}\n{\"text\": \"\\n\"}\n", 0, "", "empty file (no sentences)"},
		{"squad not squad", "a.json", "{\"version\": \"1\"}", 0, "data", "missing"},
		{"squad malformed", "a.json", "{\"data\": [\n{\"title\": 3}]}", 2, "data.title", "want string"},
		{"bad gzip", "a.jsonl.gz", "not gzip", 0, "", "not a gzip file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, tc.file)
			os.WriteFile(p, []byte(tc.content), 0o644)
			_, err := ReadInputs([]string{p})
			var ie *InputError
			if !errors.As(err, &ie) || !errors.Is(err, ErrBadInput) {
				t.Fatalf("want *InputError, got %v", err)
			}
			if ie.File != p || ie.Line != tc.wantLine || ie.Field != tc.wantField || !strings.Contains(ie.Msg, tc.wantMsg) {
				t.Fatalf("got %q (file %s line %d field %q), want line %d field %q msg ~%q", err, ie.File, ie.Line, ie.Field, tc.wantLine, tc.wantField, tc.wantMsg)
			}
		})
	}
}

func TestBadDataset(t *testing.T) {
	good := map[string]string{}
	for _, f := range []string{"contexts.jsonl", "candidates.jsonl", "questions.jsonl"} {
		b, _ := os.ReadFile(filepath.Join("testdata/dataset", f))
		good[f] = string(b)
	}
	cases := []struct {
		name, file, old, new string
		wantLine             int
		wantField            string
	}{
		{"span out of range", "candidates.jsonl", `"start": 33, "end": 58`, `"start": 33, "end": 99`, 4, "end"},
		{"text mismatch", "candidates.jsonl", `"It lies in the Himalayas."`, `"It lies in the Alps."`, 4, "text"},
		{"unknown context", "candidates.jsonl", `"candidate_id": "c3", "context_id": 1`, `"candidate_id": "c3", "context_id": 9`, 4, "context_id"},
		{"missing start", "candidates.jsonl", `"start": 22, `, ``, 2, "start"},
		{"unknown gold", "questions.jsonl", `["c3"]`, `["c9"]`, 2, "gold_candidate_ids"},
		{"no gold", "questions.jsonl", `["c2"]`, `[]`, 3, "gold_candidate_ids"},
		{"missing question", "questions.jsonl", `"question": "Where is Everest?", `, ``, 2, "question"},
		{"duplicate context", "contexts.jsonl", `"context_id": 1`, `"context_id": 0`, 2, "context_id"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for f, content := range good {
				if f == tc.file {
					if !strings.Contains(content, tc.old) {
						t.Fatalf("fixture lacks %q", tc.old)
					}
					content = strings.Replace(content, tc.old, tc.new, 1)
				}
				os.WriteFile(filepath.Join(dir, f), []byte(content), 0o644)
			}
			_, err := ReadDataset(dir)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("want *InputError, got %v", err)
			}
			if filepath.Base(ie.File) != tc.file || ie.Line != tc.wantLine || ie.Field != tc.wantField {
				t.Fatalf("got %q, want %s line %d field %q", err, tc.file, tc.wantLine, tc.wantField)
			}
		})
	}
}

func TestBuildAndCancel(t *testing.T) {
	c, err := ReadInputs([]string{"testdata/corpus"})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "x.reqa")
	meta, err := Build(context.Background(), c, out, Options{Tokenizers: []string{"word"}})
	if err != nil {
		t.Fatal(err)
	}
	if meta.Sentences != len(c.Sentences) || len(meta.Fields) != 2 {
		t.Fatalf("meta %+v", meta)
	}
	before, _ := os.ReadFile(out)
	// A cancelled build must leave the existing index byte-identical and no
	// temporary file behind.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Build(ctx, c, out, Options{Tokenizers: []string{"word"}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled build: %v", err)
	}
	after, _ := os.ReadFile(out)
	if string(before) != string(after) {
		t.Fatal("cancelled build changed the existing index")
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".*")); len(m) != 0 {
		t.Fatalf("temporary files left: %v", m)
	}
	r, err := store.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
}
