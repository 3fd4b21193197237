package mrqa_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/ingest/mrqa"
)

// badMRQA is an MRQA file with one fault of each kind; want lists the
// bad records it holds, as "line: field" (field "" for a whole line).
var badMRQA = strings.Join([]string{
	`{"header": {"dataset": "SQuAD", "split": "dev"}}`,
	`{"context": "Ada left at dawn. She came back at dusk.", "qas": [{"qid": "g1", "question": "When did she come back?", "answers": ["dusk"], "detected_answers": [{"text": "dusk", "char_spans": [[35, 38]]}]}]}`,
	`{"context": "x", "qas": [`,
	`{"qas": []}`,
	`{"context": "Nothing here."}`,
	`{"context": "Ada left at dawn. She came back at dusk.", "qas": [` + strings.Join([]string{
		`{"question": "No id?", "detected_answers": []}`,
		`{"qid": "b1", "detected_answers": []}`,
		`{"qid": "b2", "question": "No answers?"}`,
		`{"qid": "b3", "question": "Out of range?", "detected_answers": [{"text": "dusk", "char_spans": [[100, 103]]}]}`,
		`{"qid": "b4", "question": "Wrong text?", "detected_answers": [{"text": "dawn", "char_spans": [[35, 38]]}]}`,
		`{"qid": "b5", "question": "Not a pair?", "detected_answers": [{"text": "dusk", "char_spans": ["a"]}]}`,
		`{"qid": "b6", "question": "When did she leave?", "answers": ["dawn"], "detected_answers": [{"text": "dawn", "char_spans": [[12, 15]]}]}`,
		`{"qid": "g1", "question": "A duplicate id?", "detected_answers": [{"text": "dawn", "char_spans": [[12, 15]]}]}`,
		`{"qid": "b8", "question": 5, "detected_answers": []}`,
	}, ", ") + `]}`,
	`[1, 2, 3]`,
	"{\"context\": \"bad \xff byte\", \"qas\": []}",
	``,
}, "\n")

var badWant = []string{
	"3: ", "4: context", "5: qas",
	"6: qas[0].qid", "6: qas[1].question", "6: qas[2].detected_answers",
	"6: qas[3].detected_answers[0].char_spans[0]", "6: qas[4].detected_answers[0].char_spans[0]",
	"6: qas[5].detected_answers[0].char_spans[0]", "6: qas[7].qid", "6: qas[8].question",
	"7: ", "8: ",
}

func TestBadRecordsSkipped(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(in, []byte(badMRQA), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	rep, err := mrqa.Convert(context.Background(), []string{in}, out, mrqa.Options{MaxExamples: 100})
	if !errors.Is(err, mrqa.ErrBadRecords) {
		t.Fatalf("err = %v, want ErrBadRecords", err)
	}
	if rep.BadRecords != len(badWant) {
		t.Errorf("%d bad records, want %d:\n%s", rep.BadRecords, len(badWant), strings.Join(rep.BadExamples, "\n"))
	}
	for _, w := range badWant {
		line, field, _ := strings.Cut(w, ": ")
		prefix := fmt.Sprintf("%s:%s: ", in, line)
		if field != "" {
			prefix += fmt.Sprintf("field %q: ", field)
		}
		found := false
		for _, e := range rep.BadExamples {
			if strings.HasPrefix(e, prefix) {
				found = true
			}
		}
		if !found {
			t.Errorf("no bad record %q in:\n%s", prefix, strings.Join(rep.BadExamples, "\n"))
		}
	}
	// The dataset is written all the same, with the good questions.
	d, err := ingest.ReadDataset(out)
	if err != nil {
		t.Fatalf("read output: %v", err)
	}
	var ids []string
	for _, q := range d.Questions {
		ids = append(ids, q.ID)
	}
	if strings.Join(ids, " ") != "g1 b6" {
		t.Errorf("questions %v, want g1 b6", ids)
	}
	r := rep.Datasets[0]
	if r.Dropped[mrqa.DropNoValidSpan] != 3 || r.Dropped[mrqa.DropDuplicateQID] != 1 {
		t.Errorf("dropped %v", r.Dropped)
	}
	// Only the first MaxExamples are kept, all are counted.
	rep2, _ := mrqa.Convert(context.Background(), []string{in}, filepath.Join(dir, "out2"), mrqa.Options{MaxExamples: 2})
	if rep2.BadRecords != len(badWant) || len(rep2.BadExamples) != 2 {
		t.Errorf("MaxExamples 2: %d records, %d examples", rep2.BadRecords, len(rep2.BadExamples))
	}
}

func TestBadRecordsStrict(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(in, []byte(badMRQA), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	_, err := mrqa.Convert(context.Background(), []string{in}, out, mrqa.Options{Strict: true})
	var ie *ingest.InputError
	if !errors.As(err, &ie) || !errors.Is(err, ingest.ErrBadInput) {
		t.Fatalf("err = %v, want an *ingest.InputError", err)
	}
	if ie.File != in || ie.Line != 3 || !strings.Contains(ie.Msg, "malformed JSON") {
		t.Errorf("error %+v, want %s line 3, malformed JSON", *ie, in)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("strict failure left %s behind", out)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temporary files left in %s: %v", dir, ents)
	}
}

// TestBadSQuADAnswers checks SQuAD JSON answers that do not fit their
// paragraph.
func TestBadSQuADAnswers(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "tiny.json")
	doc := `{"version": "1.1", "data": [{"title": "Ada", "paragraphs": [{"context": "Ada left at dawn. She came back at dusk.", "qas": [
		{"id": "q1", "question": "When did she come back?", "answers": [{"text": "dusk", "answer_start": 35}, {"text": "dusk", "answer_start": 90}]},
		{"id": "q2", "question": "When did she leave?", "answers": [{"text": "dawn", "answer_start": 35}]},
		{"id": "", "question": "Who?", "answers": [{"text": "Ada", "answer_start": 0}]}]}]}]}`
	if err := os.WriteFile(in, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := mrqa.Convert(context.Background(), []string{in}, filepath.Join(dir, "out"), mrqa.Options{MaxExamples: 10})
	if !errors.Is(err, mrqa.ErrBadRecords) || rep.BadRecords != 3 {
		t.Fatalf("err = %v, report %+v", err, rep)
	}
	for _, f := range []string{"data[0].paragraphs[0].qas[0].answers[1].answer_start", "data[0].paragraphs[0].qas[1].answers[0].answer_start", "data[0].paragraphs[0].qas[2].id"} {
		if !strings.Contains(strings.Join(rep.BadExamples, "\n"), fmt.Sprintf("field %q", f)) {
			t.Errorf("no bad record for %s in %q", f, rep.BadExamples)
		}
	}
	if rep.Datasets[0].Questions != 1 || rep.Datasets[0].Dropped[mrqa.DropNoValidSpan] != 1 {
		t.Errorf("report %+v", *rep.Datasets[0])
	}
}

// TestOutputDirectory checks that an existing, non-empty output is kept
// unless Force is set, and replaced whole when it is.
func TestOutputDirectory(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := mrqa.Convert(context.Background(), []string{fixture("squad.jsonl")}, out, mrqa.Options{})
	if err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("err = %v, want a refusal to overwrite", err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "keep.txt")); string(b) != "mine" {
		t.Fatal("existing output touched")
	}
	if _, err := mrqa.Convert(context.Background(), []string{fixture("squad.jsonl")}, out, mrqa.Options{Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "keep.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Error("--force kept the old directory's files")
	}
	if _, err := ingest.ReadDataset(out); err != nil {
		t.Error(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temporary directories left: %v", ents)
	}
	// An empty existing directory is fine.
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	if _, err := mrqa.Convert(context.Background(), []string{fixture("squad.jsonl")}, empty, mrqa.Options{}); err != nil {
		t.Error(err)
	}
	// A cancelled conversion writes nothing.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	gone := filepath.Join(dir, "cancelled")
	if _, err := mrqa.Convert(ctx, []string{fixture("squad.jsonl")}, gone, mrqa.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	if _, err := os.Stat(gone); !errors.Is(err, os.ErrNotExist) {
		t.Error("cancelled conversion left its output")
	}
}

// TestDuplicateInputs converts the same file twice over: the second copy's
// questions and candidates repeat ids and are left out, reported as bad
// records, and the output stays a valid dataset.
func TestDuplicateInputs(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(fixture("squad.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(dir, "again.jsonl")
	if err := os.WriteFile(again, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	rep, err := mrqa.Convert(context.Background(), []string{fixture("squad.jsonl"), again}, out, mrqa.Options{})
	if !errors.Is(err, mrqa.ErrBadRecords) {
		t.Fatalf("err = %v", err)
	}
	if rep.BadRecords != 6 {
		t.Errorf("%d bad records, want 6 (3 questions, 3 candidates):\n%s", rep.BadRecords, strings.Join(rep.BadExamples, "\n"))
	}
	for _, e := range rep.BadExamples {
		if !strings.HasPrefix(e, again+":2: ") {
			t.Errorf("bad record %q not in the second file", e)
		}
	}
	d, err := ingest.ReadDataset(out)
	if err != nil {
		t.Fatalf("output: %v", err)
	}
	r := rep.Datasets[0]
	if len(d.Questions) != 3 || len(d.Corpus.Sentences) != 3 || r.Questions != 3 || r.Candidates != 3 || r.Dropped[mrqa.DropDuplicateQID] != 3 || r.MultiGold != 1 {
		t.Errorf("%d questions, %d candidates; report %+v", len(d.Questions), len(d.Corpus.Sentences), *r)
	}
}
