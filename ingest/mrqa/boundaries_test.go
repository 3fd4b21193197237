package mrqa_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/ingest/mrqa"
)

// annLine is one MultiReQA annotation.
type annLine struct {
	ID    string `json:"candidate_id"`
	Start int    `json:"response_start"`
	End   int    `json:"response_end"`
}

func writeAnnotations(t *testing.T, lines []annLine) string {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		j, _ := json.Marshal(l)
		b.Write(j)
		b.WriteByte('\n')
	}
	p := filepath.Join(t.TempDir(), "candidates.json")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// cp counts code points.
func cp(s string) int { return utf8.RuneCountInString(s) }

// TestBoundariesHotpotQA takes HotpotQA sentences from annotations: ids are
// the official ones and offsets run over the documents' texts joined by one
// space.
func TestBoundariesHotpotQA(t *testing.T) {
	doc0 := "Ansel Rook (1731–1790) was a naval surveyor.  He charted Quillon Bay in 1766."
	doc1 := "The Salt Road is a trail along the western shore.  It ends at Quillon Bay."
	base1 := cp(doc0) + 1
	pre := "HotpotQA_hp01/hp02/hp03/"
	ann := writeAnnotations(t, []annLine{
		{pre + "_0_0", 0, cp(doc0)}, // the annotation keeps doc 0 whole
		{pre + "_1_0", base1, base1 + cp("The Salt Road is a trail along the western shore.")},
		{pre + "_1_1", base1 + cp("The Salt Road is a trail along the western shore.  "), base1 + cp(doc1)},
		{"HotpotQA_zz01/_0_0", 0, 10}, // no input has it
	})
	c := convert(t, []string{fixture("hotpotqa.jsonl")}, mrqa.Options{Boundaries: []string{ann}})
	wantCands := map[string]string{
		pre + "_0_0": doc0,
		pre + "_1_0": "The Salt Road is a trail along the western shore.",
		pre + "_1_1": "It ends at Quillon Bay.",
	}
	if !reflect.DeepEqual(c.cands, wantCands) {
		t.Errorf("candidates %q\nwant %q", c.cands, wantCands)
	}
	wantGold := map[string][]string{"hp01": {pre + "_0_0"}, "hp03": {pre + "_1_1"}}
	if !reflect.DeepEqual(c.gold, wantGold) {
		t.Errorf("gold %q, want %q", c.gold, wantGold)
	}
	b := c.rep.Boundaries
	if b.Matched != 1 || b.ByQID != 1 || b.Unused != 1 || b.NotCovered != 0 || b.BadSpans != 0 {
		t.Errorf("boundary report %+v", *b)
	}
}

// TestBoundariesCoverage checks annotated sentences that do not fit, input
// contexts the annotations do not cover, and annotations of another
// dataset.
func TestBoundariesCoverage(t *testing.T) {
	raw, err := os.ReadFile(fixture("squad.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	extra := `{"context": "Ada left at dawn. She came back at dusk.", "qas": [{"qid": "x1", "question": "When did she come back?", "answers": ["dusk"], "detected_answers": [{"text": "dusk", "char_spans": [[35, 38]]}]}]}`
	in := filepath.Join(t.TempDir(), "squad-plus.jsonl")
	if err := os.WriteFile(in, append(raw, []byte(extra+"\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	pre := "SQuAD_sd01/sd02/sd03/sd04/"
	ann := writeAnnotations(t, []annLine{
		// Two sentences where the splitter finds three: sd03's span, which
		// crosses the splitter's boundary, lies inside the first.
		{pre + "_0", 0, 77},
		{pre + "_1", 78, 121},
		{pre + "_2", 200, 210}, // beyond the context
	})
	c := convert(t, []string{in}, mrqa.Options{Boundaries: []string{ann}})
	want := map[string][]string{
		"sd01": {pre + "_0"}, "sd02": {pre + "_1"}, "sd03": {pre + "_0"}, "sd04": {pre + "_0", pre + "_1"},
	}
	if !reflect.DeepEqual(c.gold, want) {
		t.Errorf("gold %q, want %q", c.gold, want)
	}
	b := c.rep.Boundaries
	if b.NotCovered != 1 || len(b.NotCoveredExamples) != 1 || !strings.HasSuffix(b.NotCoveredExamples[0], ":3") || b.BadSpans != 1 {
		t.Errorf("boundary report %+v", *b)
	}
	if d := c.rep.Datasets[0]; d.Dropped[mrqa.DropNotCovered] != 1 || d.Candidates != 2 {
		t.Errorf("dataset report %+v", *d)
	}
	// Annotations of another dataset are refused up front.
	_, err = mrqa.Convert(context.Background(), []string{fixture("triviaqa.jsonl")}, filepath.Join(t.TempDir(), "o"), mrqa.Options{Boundaries: []string{ann}})
	if err == nil || !strings.Contains(err.Error(), "not dataset TriviaQA") {
		t.Errorf("err = %v", err)
	}
}

// squadJSON writes a SQuAD JSON file of one article.
func squadJSON(t *testing.T, paras []string, qids [][]string) string {
	t.Helper()
	type ans struct {
		Text  string `json:"text"`
		Start int    `json:"answer_start"`
	}
	type qa struct {
		ID       string `json:"id"`
		Question string `json:"question"`
		Answers  []ans  `json:"answers"`
	}
	type para struct {
		Context string `json:"context"`
		QAs     []qa   `json:"qas"`
	}
	var ps []para
	for i, p := range paras {
		var qs []qa
		for _, id := range qids[i] {
			qs = append(qs, qa{ID: id, Question: "What is first?", Answers: []ans{{Text: p[:2], Start: 0}}})
		}
		ps = append(ps, para{Context: p, QAs: qs})
	}
	doc := map[string]any{"version": "1.1", "data": []any{map[string]any{"title": "Letters", "paragraphs": ps}}}
	b, _ := json.Marshal(doc)
	path := filepath.Join(t.TempDir(), "tiny.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBoundariesBySQuADText matches annotations to SQuAD JSON paragraphs,
// which lack MRQA's question ids, by how the sentence ends fit the text;
// with MRQA id links, by question ids instead.
func TestBoundariesBySQuADText(t *testing.T) {
	// Two paragraphs of the same length, in the opposite order to their
	// annotations.
	p2 := "Aa bb cc dd. Ee ff gg."
	p1 := "Aa bb cc. Dd ee ff gg."
	in := squadJSON(t, []string{p2, p1}, [][]string{{"s2"}, {"s1"}})
	ann := writeAnnotations(t, []annLine{
		{"SQuAD_m1/_0", 0, 9}, {"SQuAD_m1/_1", 10, 22}, // fits p1
		{"SQuAD_m2/_0", 0, 12}, {"SQuAD_m2/_1", 13, 22}, // fits p2
	})
	c := convert(t, []string{in}, mrqa.Options{Boundaries: []string{ann}})
	want := map[string]string{"SQuAD_m1/_0": "Aa bb cc.", "SQuAD_m1/_1": "Dd ee ff gg.", "SQuAD_m2/_0": "Aa bb cc dd.", "SQuAD_m2/_1": "Ee ff gg."}
	if !reflect.DeepEqual(c.cands, want) {
		t.Errorf("by text: candidates %q, want %q", c.cands, want)
	}
	if g := c.gold; g["s1"][0] != "SQuAD_m1/_0" || g["s2"][0] != "SQuAD_m2/_0" {
		t.Errorf("gold %q", g)
	}
	if b := c.rep.Boundaries; b.ByText != 2 || b.Ambiguous != 0 || b.TextFitMismatch != 0 {
		t.Errorf("report %+v", *b)
	}
	// MRQA id links say s1 is m2 and s2 is m1: question ids win over fit.
	links := filepath.Join(t.TempDir(), "SQuAD-dev.jsonl")
	body := `{"header": {"dataset": "SQuAD", "split": "dev"}}` + "\n" +
		`{"context": "…", "qas": [{"id": "s1", "qid": "m2"}]}` + "\n" +
		`{"context": "…", "qas": [{"id": "s2", "qid": "m1"}]}` + "\n"
	if err := os.WriteFile(links, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	c = convert(t, []string{in}, mrqa.Options{Boundaries: []string{ann}, IDLinks: []string{links}, Gold: mrqa.GoldStart})
	want = map[string]string{"SQuAD_m2/_0": "Aa bb cc. Dd", "SQuAD_m2/_1": "ee ff gg.", "SQuAD_m1/_0": "Aa bb cc ", "SQuAD_m1/_1": "d. Ee ff gg."}
	if !reflect.DeepEqual(c.cands, want) {
		t.Errorf("by qid: candidates %q, want %q", c.cands, want)
	}
	if b := c.rep.Boundaries; b.ByQID != 2 || b.ByText != 0 {
		t.Errorf("report %+v", *b)
	}
}

// TestAnnotationErrors checks that a damaged annotation file is an error
// naming file, line and field.
func TestAnnotationErrors(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"candidate_id": "SQuAD_a/_0", "response_start": 0}`, `:1: field "response_end": missing`},
		{`{"candidate_id": "SQuAD_a/_0", "response_start": 0, "response_end": 5}` + "\n" + `{"candidate_id": "SQuAD_a", "response_start": 0, "response_end": 5}`, `:2: field "candidate_id"`},
		{`{"candidate_id": "SQuAD_a/_x", "response_start": 0, "response_end": 5}`, `not a number`},
		{`{"candidate_id": "SQuAD_a/_0", "response_start": 6, "response_end": 5}`, `:1: field "response_end"`},
		{`{"candidate_id": "SQuAD_a/_0", "response_start": 0, "response_end": 5}` + "\n" + `{"candidate_id": "SQuAD_a/_0", "response_start": 6, "response_end": 9}`, `duplicate candidate id`},
		{`not json`, `:1: malformed JSON`},
		{``, `no annotations`},
	}
	for i, tt := range tests {
		p := filepath.Join(t.TempDir(), fmt.Sprintf("a%d.jsonl", i))
		if err := os.WriteFile(p, []byte(tt.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := mrqa.ReadAnnotations(p)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want %q", tt.body, err, tt.want)
		}
	}
	if _, err := mrqa.Convert(context.Background(), []string{fixture("squad.jsonl")}, filepath.Join(t.TempDir(), "o"), mrqa.Options{Boundaries: []string{"/nonexistent/ann.jsonl"}}); err == nil {
		t.Error("missing annotation file: no error")
	}
	_ = ingest.ErrBadInput
}
