package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeDataset writes a small ReQA dataset of its own (ferries and
// lighthouses) into dir/name.
func writeDataset(t *testing.T, dir, name string) string {
	t.Helper()
	d := filepath.Join(dir, name)
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"contexts.jsonl": `{"context_id": 0, "title": "Ferry", "text": "The ferry leaves at nine. It returns at noon."}
{"context_id": 1, "title": "Lighthouse", "text": "The lighthouse lamp burns oil. Its light is seen from far away."}
`,
		"candidates.jsonl": `{"candidate_id": "f0", "context_id": 0, "start": 0, "end": 25, "text": "The ferry leaves at nine."}
{"candidate_id": "f1", "context_id": 0, "start": 26, "end": 45, "text": "It returns at noon."}
{"candidate_id": "l0", "context_id": 1, "start": 0, "end": 30, "text": "The lighthouse lamp burns oil."}
{"candidate_id": "l1", "context_id": 1, "start": 31, "end": 63, "text": "Its light is seen from far away."}
`,
		"questions.jsonl": `{"question_id": "a", "question": "When does the ferry leave?", "answers": ["nine"], "gold_candidate_ids": ["f0"]}
{"question_id": "b", "question": "What does the lighthouse lamp burn?", "answers": ["oil"], "gold_candidate_ids": ["l0"]}
{"question_id": "c", "question": "How far away is the light seen?", "answers": ["far"], "gold_candidate_ids": ["l1"]}
`,
	}
	for f, text := range files {
		if err := os.WriteFile(filepath.Join(d, f), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// TestEvalSideBySide evaluates two datasets in one run: each dataset's
// results equal those of evaluating it alone, the side-by-side rows hold
// them in dataset order, a ranker run on only one dataset is left empty on
// the other, and --report writes one report per dataset.
func TestEvalSideBySide(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join("..", "..", "ingest", "testdata", "dataset")
	second := writeDataset(t, dir, "ferries")
	alone := map[string]evalReport{}
	for _, ds := range []string{first, second} {
		code, out, errs := reqa(t, "eval", "--json", "--quiet", "-r", "bm25-word", "-r", "bm25-wpm", ds)
		if code != 0 {
			t.Fatalf("eval %s: exit %d: %s", ds, code, errs)
		}
		var rep evalReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		alone[ds] = rep
	}
	reportDir := filepath.Join(dir, "reports")
	code, out, errs := reqa(t, "eval", "--json", "--quiet", "-r", "bm25-word", "-r", "bm25-wpm", "--report", reportDir, first, second)
	if code != 0 {
		t.Fatalf("eval of two datasets: exit %d: %s", code, errs)
	}
	var multi multiEvalReport
	if err := json.Unmarshal([]byte(out), &multi); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(multi.Datasets) != 2 || len(multi.SideBySide) != 2 {
		t.Fatalf("report of %d datasets, %d side-by-side rows", len(multi.Datasets), len(multi.SideBySide))
	}
	for d, ds := range []string{first, second} {
		got, want := multi.Datasets[d], alone[ds]
		if got.Dataset != want.Dataset || got.Questions != want.Questions || len(got.Results) != len(want.Results) {
			t.Fatalf("dataset %d: %+v, alone %+v", d, got.Header, want.Header)
		}
		for i, r := range got.Results {
			if r != want.Results[i] {
				t.Fatalf("dataset %s ranker %s: %+v, alone %+v", ds, r.Ranker, r, want.Results[i])
			}
			row := multi.SideBySide[i]
			if row.Ranker != r.Ranker || row.PAt1[d] == nil || *row.PAt1[d] != r.PAt1 || *row.MRR[d] != r.MRR {
				t.Fatalf("side-by-side row %d for dataset %d: %+v, want %s %.2f/%.2f", i, d, row, r.Ranker, r.PAt1, r.MRR)
			}
		}
		if _, err := os.Stat(filepath.Join(reportDir, filepath.Base(ds), "report.md")); err != nil {
			t.Fatalf("report of %s: %v", ds, err)
		}
	}

	// Text: both tables, then the side-by-side table naming both datasets.
	code, out, _ = reqa(t, "eval", "--quiet", "-r", "bm25-word", first, second)
	if code != 0 || !strings.Contains(out, "side by side: P@1 / MRR") || !strings.Contains(out, "dataset dataset") || !strings.Contains(out, "dataset ferries") {
		t.Fatalf("text output: exit %d:\n%s", code, out)
	}
	// One --index per dataset or none.
	if code, _, errs := reqa(t, "eval", "--index", filepath.Join(dir, "x.reqa"), first, second); code != 2 || !strings.Contains(errs, "one per DATASET_DIR") {
		t.Fatalf("one --index for two datasets: exit %d: %s", code, errs)
	}
}

// TestEvalIndexPathsAndReports: --index (or -i) takes paths with commas
// whole, one per dataset; report directories of datasets with one base
// name never overwrite each other, even when a suffixed name is taken by
// a dataset of its own.
func TestEvalIndexPathsAndReports(t *testing.T) {
	dir := t.TempDir()
	comma := filepath.Join(dir, "a,b")
	if err := os.Mkdir(comma, 0o755); err != nil {
		t.Fatal(err)
	}
	ds := writeDataset(t, comma, "ferries")
	idx := filepath.Join(comma, "f,1.reqa")
	if code, _, errs := reqa(t, "index", "--quiet", "--dense=false", "--out", idx, ds); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	for _, flag := range []string{"--index", "-i"} {
		if code, _, errs := reqa(t, "eval", "--quiet", "-r", "bm25-word", flag, idx, ds); code != 0 {
			t.Fatalf("eval %s with a comma in the path: exit %d: %s", flag, code, errs)
		}
	}
	x, y := filepath.Join(dir, "x"), filepath.Join(dir, "y")
	for _, d := range []string{x, y} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dsX, dsY, ds2 := writeDataset(t, x, "ds"), writeDataset(t, y, "ds"), writeDataset(t, dir, "ds-2")
	out := filepath.Join(dir, "reports")
	if code, _, errs := reqa(t, "eval", "--quiet", "-r", "bm25-word", "--report", out, dsX, dsY, ds2); code != 0 {
		t.Fatalf("eval with reports: exit %d: %s", code, errs)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "ds ds-2 ds-2-2" {
		t.Fatalf("report directories %q, want ds ds-2 ds-2-2", names)
	}
}
