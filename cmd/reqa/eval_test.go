package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/eval"
)

func TestEvalDataset(t *testing.T) {
	ds := filepath.Join("..", "..", "ingest", "testdata", "dataset")
	code, out, errs := reqa(t, "eval", "--json", "--quiet", ds)
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errs)
	}
	var rep evalReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Questions != 3 || rep.Candidates != 4 || len(rep.Results) != 3 {
		t.Fatalf("report %+v", rep)
	}
	for _, r := range rep.Results {
		if r.PAt1 < 0 || r.PAt1 > 100 || r.MRR < r.PAt1 || r.PAt5 < r.PAt1 {
			t.Fatalf("inconsistent metrics %+v", r)
		}
	}
	code, out, _ = reqa(t, "eval", "--json", "--quiet", "--split", "test", "--no-context", "-r", "bm25-word", ds)
	if code != 0 || !strings.Contains(out, `"questions": 2`) || !strings.Contains(out, `"document": "sentence"`) {
		t.Fatalf("eval --split test: exit %d:\n%s", code, out)
	}
	// An index built from other data is refused.
	dir := t.TempDir()
	other := filepath.Join(dir, "o.reqa")
	reqa(t, "index", "--dense=false", "--out", other, writeFile(t, dir, "o.txt", "Unrelated text here.\n"))
	if code, _, errs := reqa(t, "eval", "--index", other, ds); code != 1 || !strings.Contains(errs, "not built from dataset") {
		t.Fatalf("mismatched index: exit %d: %s", code, errs)
	}
}

// evalJSON runs eval --json --quiet with args and decodes its report.
func evalJSON(t *testing.T, args ...string) evalReport {
	t.Helper()
	code, out, errs := reqa(t, append([]string{"eval", "--json", "--quiet"}, args...)...)
	if code != 0 {
		t.Fatalf("eval %v: exit %d: %s", args, code, errs)
	}
	var rep evalReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("eval %v: %v\n%s", args, err, out)
	}
	return rep
}

// resultsByRanker maps each row of a report to its results.
func resultsByRanker(rep evalReport) map[string]eval.Result {
	m := map[string]eval.Result{}
	for _, r := range rep.Results {
		m[r.Ranker] = r
	}
	return m
}

// rowNames lists a report's rows in order.
func rowNames(rep evalReport) []string {
	var out []string
	for _, r := range rep.Results {
		out = append(out, r.Ranker)
	}
	return out
}

// TestEvalUntuned evaluates an index with embeddings but no tuned
// parameters on a dataset without a split: every ranker ask accepts there
// is measured, with ask's defaults, and the default ranker gets its own,
// labelled row. Ask answers with that same ranker.
func TestEvalUntuned(t *testing.T) {
	requireDense(t)
	dir := t.TempDir()
	ds := writeDataset(t, dir, "ferries")
	idx := filepath.Join(dir, "ferries.reqa")
	if code, _, errs := reqa(t, "index", "--quiet", "--out", idx, ds); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	rep := evalJSON(t, "--index", idx, ds)
	want := []string{"bm25-word", "bm25-wpm", "bm25-stem", "dense", "fusion-rrf", "fusion-zscore", "default (fusion-zscore)"}
	if got := rowNames(rep); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("rows %v, want %v", got, want)
	}
	res := resultsByRanker(rep)
	def, same := res["default (fusion-zscore)"], res["fusion-zscore"]
	def.Ranker = same.Ranker
	if def != same {
		t.Errorf("default row %+v differs from fusion-zscore with the same built-in weights %+v", res["default (fusion-zscore)"], same)
	}
	if len(rep.Fusions) != 2 || rep.Fusions[1].TunedOn != rank.DefaultFusion().TunedOn {
		t.Errorf("fusions %+v: want the built-in rrf and zscore parameters", rep.Fusions)
	}
	// ask answers with the ranker eval labels as the default.
	code, out, errs := reqa(t, "ask", "--json", "--index", idx, "When does the ferry leave?")
	if code != 0 || !strings.Contains(out, `"ranker": "fusion-zscore"`) {
		t.Fatalf("ask: exit %d: %s%s", code, out, errs)
	}
	// serve answers with it too: ask, serve and eval agree on the default.
	_, ts := newTestServer(t, idx, serverOptions{})
	var reply askReply
	if resp, body := get(t, ts, "GET", "/v1/ask?q=When+does+the+ferry+leave%3F"); resp.StatusCode != 200 || json.Unmarshal(body, &reply) != nil {
		t.Fatalf("serve: %d %s", resp.StatusCode, body)
	}
	if reply.Ranker != "fusion-zscore" {
		t.Errorf("serve's default ranker %q, want fusion-zscore", reply.Ranker)
	}
	// "-r default" names it explicitly.
	if got := rowNames(evalJSON(t, "--index", idx, "-r", "default", ds)); len(got) != 1 || got[0] != "default (fusion-zscore)" {
		t.Errorf("-r default: rows %v", got)
	}
	// A fusion that needs tuning, with no split to tune on: a usage error.
	code, _, errs = reqa(t, "eval", "--quiet", "--index", idx, "-r", "fusion-learned", ds)
	if code != 2 || !strings.Contains(errs, "no tuned parameters") {
		t.Errorf("-r fusion-learned without parameters or split: exit %d: %s", code, errs)
	}
	code, _, errs = reqa(t, "eval", "--quiet", "--index", idx, "-r", "bm25-nope", ds)
	if code != 2 || !strings.Contains(errs, "unknown ranker") {
		t.Errorf("-r bm25-nope: exit %d: %s", code, errs)
	}
	// The BM25 build flags cannot change an index that is built already.
	for _, args := range [][]string{{"-b", "0.3"}, {"--k1", "2"}, {"--bm25", "lucene"}, {"--tokenizer", "word"}} {
		code, _, errs = reqa(t, append(append([]string{"eval", "--quiet", "--index", idx}, args...), ds)...)
		if code != 2 || !strings.Contains(errs, args[0]+" says how eval builds a temporary index") {
			t.Errorf("eval --index with %s: exit %d: %s", args[0], code, errs)
		}
	}
}

// TestEvalDefaultBM25 checks the default on an index without embeddings:
// bm25-wpm, measured once and marked in the table.
func TestEvalDefaultBM25(t *testing.T) {
	dir := t.TempDir()
	ds := writeDataset(t, dir, "ferries")
	rep := evalJSON(t, ds)
	if got := rowNames(rep); strings.Join(got, ",") != "bm25-word,bm25-wpm,bm25-stem" {
		t.Fatalf("rows %v", got)
	}
	code, out, errs := reqa(t, "eval", "--quiet", ds)
	if code != 0 || !strings.Contains(out, "bm25-wpm (default)") {
		t.Fatalf("eval table: exit %d:\n%s%s", code, out, errs)
	}
	if got := rowNames(evalJSON(t, "-r", "default", ds)); len(got) != 1 || got[0] != "default (bm25-wpm)" {
		t.Errorf("-r default: rows %v", got)
	}
}

// TestEvalParamsFrom measures transfer: the fusions and adapter learned on
// one dataset's index applied to another dataset (no split, no tuned
// parameters of its own), from the index and from a JSON file.
func TestEvalParamsFrom(t *testing.T) {
	requireDense(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "tiny.reqa")
	for _, args := range [][]string{
		{"index", "--quiet", "--out", src, tinyDataset},
		{"tune", "--quiet", "--index", src, "--epochs", "2", tinyDataset},
	} {
		if code, _, errs := reqa(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	code, fused, errs := reqa(t, "fuse", "--json", "--quiet", "--index", src, tinyDataset)
	if code != 0 {
		t.Fatalf("fuse: exit %d: %s", code, errs)
	}
	paramsFile := writeFile(t, dir, "params.json", fused)
	var learned []struct{ Name string }
	if err := json.Unmarshal([]byte(fused), &learned); err != nil || len(learned) != len(rank.FusionMethods) {
		t.Fatalf("fuse --json: %v\n%s", err, fused)
	}
	ds := writeDataset(t, dir, "ferries")
	idx := filepath.Join(dir, "ferries.reqa")
	if code, _, errs := reqa(t, "index", "--quiet", "--out", idx, ds); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	rep := evalJSON(t, "--index", idx, "--params-from", src, ds)
	res := resultsByRanker(rep)
	for _, m := range rank.FusionMethods {
		if _, ok := res["fusion-"+m]; !ok {
			t.Errorf("fusion-%s not evaluated with the transferred parameters: rows %v", m, rowNames(rep))
		}
	}
	if _, ok := res["default ("+learned[0].Name+")"]; !ok {
		t.Errorf("default row: want default (%s), the source's best; rows %v", learned[0].Name, rowNames(rep))
	}
	for _, p := range rep.Fusions {
		if !strings.Contains(p.TunedOn, "tinyreqa") {
			t.Errorf("fusion %s tuned on %q, want the source's tinyreqa tune split", p.Name, p.TunedOn)
		}
	}
	// The JSON file carries the fusions alone: the same numbers as the index
	// with its adapter left out.
	fromIndex := resultsByRanker(evalJSON(t, "--index", idx, "--params-from", src, "--no-adapter", ds))
	fromFile := resultsByRanker(evalJSON(t, "--index", idx, "--params-from", paramsFile, "--no-adapter", ds))
	for name, r := range fromIndex {
		if fromFile[name] != r {
			t.Errorf("%s: %+v from the file, %+v from the index", name, fromFile[name], r)
		}
	}
	// Not parameters at all.
	junk := writeFile(t, dir, "junk.txt", "hello\n")
	if code, _, errs := reqa(t, "eval", "--quiet", "--index", idx, "--params-from", junk, ds); code != 1 || !strings.Contains(errs, "junk.txt") {
		t.Errorf("--params-from junk: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(paramsFile); err != nil {
		t.Fatal(err)
	}
}

// TestEvalEmptyTuneHalf evaluates a dataset whose split puts every
// document in the test half (a document kept whole for testing): the
// fusions have nothing to tune on, so they run with the parameters ask
// would use (the built-in rrf and default), as on a dataset without a
// split, instead of failing.
func TestEvalEmptyTuneHalf(t *testing.T) {
	requireDense(t)
	dir := t.TempDir()
	ds := writeDataset(t, dir, "ferries")
	if err := os.WriteFile(filepath.Join(ds, "split.json"), []byte(`{"tune": [], "test": ["Ferry", "Lighthouse"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(dir, "ferries.reqa")
	if code, _, errs := reqa(t, "index", "--quiet", "--out", idx, ds); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	rep := evalJSON(t, "--index", idx, "--split", "test", "-r", "fusion-rrf", "-r", "fusion-zscore", ds)
	if got := rowNames(rep); strings.Join(got, ",") != "fusion-rrf,fusion-zscore" {
		t.Fatalf("rows %v, want fusion-rrf,fusion-zscore", got)
	}
	if len(rep.Fusions) != 2 || rep.Fusions[0].Method != "rrf" || rep.Fusions[1].TunedOn != rank.DefaultFusion().TunedOn {
		t.Errorf("fusions %+v: want the built-in rrf and zscore parameters", rep.Fusions)
	}
}
