package ingest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reqa/reqa/index/sentence"
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
			if titles[i] != "Lighthouses › Keepers" {
				t.Errorf("Markdown heading path not used as title: %q", titles[i])
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
		{"squad malformed", "a.json", "{\"data\": [\n{\"title\": 3}]}", 2, "data.title", "want a string, got a number"},
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

// TestLongPassageCut checks the bounds on free-text contexts and sentences:
// a long paragraph becomes consecutive contexts of whole sentences, a
// sentence without ends is cut at white space (or a character boundary),
// nothing is lost and each cut is reported.
func TestLongPassageCut(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 100_000; i++ {
		fmt.Fprintf(&b, "Sentence number %d tells of ferry %d and its kiosk. ", i, i%97)
	}
	para := strings.TrimSpace(b.String())
	words := strings.Repeat("word ", 2000)           // 10,000 bytes, no sentence end
	runes := strings.Repeat("é", 3000)               // 6,000 bytes, no white space
	short := "A short paragraph. It stays as it is." // untouched
	dir := t.TempDir()
	p := filepath.Join(dir, "long.txt")
	os.WriteFile(p, []byte(para+"\n\n"+words+"\n\n"+runes+"\n\n"+short+"\n"), 0o644)
	c, err := ReadInputs([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	var wantSents []string
	for _, sp := range sentence.English.Split(para) {
		wantSents = append(wantSents, para[sp.Start:sp.End])
	}
	var got []string
	var paraCtx, wordCtx, runeCtx []store.Context
	var wordPieces, runePieces []string
	for _, s := range c.Sentences {
		ctx := c.Contexts[s.ContextID]
		text := s.Text(ctx)
		if text == "" || !utf8.ValidString(text) || len(text) > MaxSentenceBytes || len(ctx.Text) > MaxContextBytes {
			t.Fatalf("sentence %d of %d bytes (%q…) in a context of %d bytes", s.ID, len(text), truncate(text, 20), len(ctx.Text))
		}
		switch {
		case strings.HasPrefix(text, "Sentence number"):
			got = append(got, text)
			if len(paraCtx) == 0 || paraCtx[len(paraCtx)-1].ID != ctx.ID {
				paraCtx = append(paraCtx, ctx)
			}
		case strings.HasPrefix(text, "word"):
			wordPieces = append(wordPieces, text)
			wordCtx = append(wordCtx, ctx)
		case strings.HasPrefix(text, "é"):
			runePieces = append(runePieces, text)
			runeCtx = append(runeCtx, ctx)
		}
	}
	if !reflect.DeepEqual(got, wantSents) {
		t.Fatalf("the long paragraph's sentences changed: %d, want %d", len(got), len(wantSents))
	}
	if n := len(paraCtx); n < 100_000/MaxContextBytes || n > 2*100_000/MaxContextBytes+1 {
		t.Fatalf("the long paragraph became %d contexts", n)
	}
	if !strings.HasSuffix(paraCtx[1].Source, "(part 2 of "+strconv.Itoa(len(paraCtx))+")") || !strings.HasPrefix(paraCtx[1].Source, p+":1 ") {
		t.Fatalf("part source %q", paraCtx[1].Source)
	}
	if strings.Join(wordPieces, " ") != strings.TrimSpace(words) || len(wordPieces) != 5 {
		t.Fatalf("a 10,000-byte sentence became %d pieces that do not join back", len(wordPieces))
	}
	if strings.Join(runePieces, "") != runes || len(runePieces) != 3 {
		t.Fatalf("a 6,000-byte run of é became %d pieces that do not join back", len(runePieces))
	}
	// The 10,000- and 6,000-byte paragraphs are also over MaxContextBytes:
	// their pieces fill consecutive contexts that join back into them.
	joinCtx := func(cs []store.Context, sep string) string {
		var texts []string
		for i, x := range cs {
			if i == 0 || x.ID != cs[i-1].ID {
				texts = append(texts, x.Text)
			}
		}
		return strings.Join(texts, sep)
	}
	if joinCtx(wordCtx, " ") != strings.TrimSpace(words) || joinCtx(runeCtx, "") != runes {
		t.Fatal("the contexts of the pieces of long sentences do not join back into their paragraphs")
	}
	last := c.Sentences[len(c.Sentences)-1]
	if last.Text(c.Contexts[last.ContextID]) != "It stays as it is." || c.Contexts[last.ContextID].Text != short {
		t.Fatalf("short paragraph changed: %+v", c.Contexts[last.ContextID])
	}
	warnings := strings.Join(c.Warnings, "\n")
	for _, w := range []string{"passage of 1000", "contexts of at most 4096 bytes", "1 sentences over 2048 bytes cut"} {
		if !strings.Contains(warnings, w) {
			t.Errorf("no warning %q in:\n%s", w, warnings)
		}
	}
}
