package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/ingest/mrqa"
)

func mrqaFixture(name string) string {
	return filepath.Join("..", "..", "ingest", "mrqa", "testdata", name)
}

func TestConvertCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "searchqa")
	code, stdout, errs := reqa(t, "convert", "--out", out, mrqaFixture("searchqa.jsonl"))
	if code != 0 {
		t.Fatalf("convert: exit %d: %s", code, errs)
	}
	for _, want := range []string{"wrote " + out + ": 3 contexts, 5 candidates, 2 questions", "SearchQA", mrqa.DropOnlyInTitles} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if _, err := ingest.ReadDataset(out); err != nil {
		t.Fatal(err)
	}
	// Again: the output exists, so --force is needed.
	code, _, errs = reqa(t, "convert", "--out", out, mrqaFixture("searchqa.jsonl"))
	if code != 1 || !strings.Contains(errs, "--force") {
		t.Errorf("second convert: exit %d: %s", code, errs)
	}
	code, stdout, errs = reqa(t, "convert", "--force", "--json", "--gold", "start", "--out", out, mrqaFixture("searchqa.jsonl"))
	if code != 0 {
		t.Fatalf("convert --force --json: exit %d: %s", code, errs)
	}
	var rep mrqa.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, stdout)
	}
	if rep.Gold != mrqa.GoldStart || len(rep.Datasets) != 1 || rep.Datasets[0].Questions != 3 {
		t.Errorf("report %+v", rep)
	}
	// --stats DIR, as a table and as JSON.
	code, stdout, errs = reqa(t, "convert", "--stats", out)
	if code != 0 || !strings.Contains(stdout, "SearchQA") || !strings.Contains(stdout, "q–a overlap") {
		t.Errorf("--stats: exit %d: %s%s", code, stdout, errs)
	}
	code, stdout, errs = reqa(t, "convert", "--stats", out, "--json")
	if code != 0 {
		t.Fatalf("--stats --json: exit %d: %s", code, errs)
	}
	var st mrqa.Stats
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatalf("--stats --json: %v\n%s", err, stdout)
	}
	if len(st.Datasets) != 1 || st.Datasets[0].Questions != 3 || st.Datasets[0].Candidates != 5 || st.Tokenizer != "word" {
		t.Errorf("stats %+v", st)
	}
}

func TestConvertUsage(t *testing.T) {
	dir := t.TempDir()
	in := mrqaFixture("squad.jsonl")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"convert", "--out", filepath.Join(dir, "a")}, "no INPUT"},
		{[]string{"convert", in}, "--out"},
		{[]string{"convert", "--out", filepath.Join(dir, "b"), "--gold", "middle", in}, "--gold"},
		{[]string{"convert", "--stats", dir, in}, "--stats"},
		{[]string{"convert", "--out", filepath.Join(dir, "c"), "--mrqa-ids", in, in}, "--boundaries"},
		{[]string{"convert", "--stats", dir, "--tokenizer", "bpe"}, "--tokenizer"},
		{[]string{"convert", "--bogus"}, "bogus"},
	}
	for _, tt := range tests {
		code, _, errs := reqa(t, tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, errs, tt.want)
		}
	}
}

func TestConvertBadRecordsExit(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(mrqaFixture("squad.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	in := writeFile(t, dir, "squad-bad.jsonl", string(good)+"{\"context\": \"x\", \"qas\": [\n")
	out := filepath.Join(dir, "out")
	code, _, errs := reqa(t, "convert", "--out", out, in)
	if code != exitBadRecords || !strings.Contains(errs, "bad record: "+in+":3: malformed JSON") {
		t.Errorf("exit %d, stderr %q; want %d and the bad record", code, errs, exitBadRecords)
	}
	if _, err := ingest.ReadDataset(out); err != nil {
		t.Errorf("the dataset was not written: %v", err)
	}
	strict := filepath.Join(dir, "strict")
	code, _, errs = reqa(t, "convert", "--strict", "--out", strict, in)
	if code != 1 || !strings.Contains(errs, in+":3") {
		t.Errorf("--strict: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(strict); !os.IsNotExist(err) {
		t.Errorf("--strict failure left %s", strict)
	}
}

func TestConvertRefusesAndSplits(t *testing.T) {
	dir := t.TempDir()
	body := `{"context": "Ada left at dawn.", "qas": [{"qid": "n1", "question": "When did she leave?", "answers": ["dawn"], "detected_answers": [{"text": "dawn", "char_spans": [[12, 15]]}]}]}` + "\n"
	news := writeFile(t, dir, "NewsQA-dev.jsonl", body)
	code, _, errs := reqa(t, "convert", "--out", filepath.Join(dir, "n"), news)
	if code != 1 || !strings.Contains(errs, "NewsQA is not converted") || !strings.Contains(errs, "underspecified") {
		t.Errorf("NewsQA: exit %d, stderr %q", code, errs)
	}
	// --split writes split.json; --dataset names a headerless file.
	split := writeFile(t, dir, "split.json", `{"tune": [], "test": ["Nowhere"]}`)
	mine := writeFile(t, dir, "mine.jsonl", body)
	out := filepath.Join(dir, "mine")
	code, _, errs = reqa(t, "convert", "--dataset", "TextbookQA", "--split", split, "--out", out, mine)
	if code != 0 || !strings.Contains(errs, `no context has title "Nowhere"`) {
		t.Fatalf("--split: exit %d, stderr %q", code, errs)
	}
	d, err := ingest.ReadDataset(out)
	if err != nil {
		t.Fatal(err)
	}
	if d.Split == nil || len(d.Split["test"]) != 1 || d.Questions[0].Gold[0] != "TextbookQA_n1/_0" {
		t.Errorf("dataset %+v", d)
	}
}

// TestDatasetStatsCommand runs `reqa dataset-stats`, which main.go may
// register beside convert.
func TestDatasetStatsCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "hp")
	if code, _, errs := reqa(t, "convert", "--out", out, mrqaFixture("hotpotqa.jsonl")); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, errs)
	}
	var stdout, stderr bytes.Buffer
	app := newApp(&stdout, &stderr)
	app.Commands = append(app.Commands, datasetStatsCommand())
	if err := app.Run([]string{"reqa", "dataset-stats", out, out}); err != nil {
		t.Fatalf("dataset-stats: %v: %s", err, stderr.String())
	}
	if strings.Count(stdout.String(), "HotpotQA") != 2 {
		t.Errorf("dataset-stats output:\n%s", stdout.String())
	}
}
