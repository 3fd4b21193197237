package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFuseSmallTuneSet: on a tuning set under eval.CVBelow questions,
// `reqa fuse` orders the fusions by cross-validated P@1, with the built-in
// default among them, so `ask` uses a tuned fusion only when it beats the
// default on questions it was not fitted on.
func TestFuseSmallTuneSet(t *testing.T) {
	requireDense(t)
	dir := t.TempDir()
	ds := filepath.Join(dir, "harbour")
	if err := os.Mkdir(ds, 0o755); err != nil {
		t.Fatal(err)
	}
	facts := []struct{ title, sentence, question string }{
		{"Ferry", "The ferry leaves the harbour at nine.", "When does the ferry leave?"},
		{"Ferry", "Tickets for the crossing cost five euros.", "How much is a ticket?"},
		{"Lighthouse", "The lighthouse lamp burns paraffin oil.", "What fuel does the lamp use?"},
		{"Lighthouse", "Its beam can be seen twenty miles away.", "How far does the light reach?"},
		{"Market", "The fish market opens before dawn.", "When can I buy fish?"},
		{"Market", "Stalls close at noon on Sundays.", "Until when are stalls open on Sunday?"},
		{"Weather", "Fog rolls in most autumn mornings.", "Is it often foggy?"},
		{"Weather", "Storms are rare in the summer months.", "Do storms happen in summer?"},
	}
	var ctxs, cands, qs strings.Builder
	for i := 0; i < len(facts); i += 2 {
		a, b := facts[i], facts[i+1]
		text := a.sentence + " " + b.sentence
		fmt.Fprintf(&ctxs, `{"context_id": %d, "title": %q, "text": %q}`+"\n", i/2, a.title, text)
		fmt.Fprintf(&cands, `{"candidate_id": "c%d", "context_id": %d, "start": 0, "end": %d, "text": %q}`+"\n", i, i/2, len(a.sentence), a.sentence)
		fmt.Fprintf(&cands, `{"candidate_id": "c%d", "context_id": %d, "start": %d, "end": %d, "text": %q}`+"\n", i+1, i/2, len(a.sentence)+1, len(text), b.sentence)
	}
	for i, f := range facts {
		fmt.Fprintf(&qs, `{"question_id": "q%d", "question": %q, "answers": ["x"], "gold_candidate_ids": ["c%d"]}`+"\n", i, f.question, i)
	}
	writeFile(t, ds, "contexts.jsonl", ctxs.String())
	writeFile(t, ds, "candidates.jsonl", cands.String())
	writeFile(t, ds, "questions.jsonl", qs.String())
	writeFile(t, ds, "split.json", `{"tune": ["Ferry", "Lighthouse", "Market", "Weather"], "test": []}`)
	idx := filepath.Join(dir, "harbour.reqa")
	if code, _, errs := reqa(t, "index", "--quiet", "--out", idx, ds); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	code, out, errs := reqa(t, "fuse", "--json", "--quiet", "--index", idx, ds)
	if code != 0 {
		t.Fatalf("fuse: exit %d: %s", code, errs)
	}
	var ps []struct {
		Name    string  `json:"name"`
		TunedOn string  `json:"tuned_on"`
		CVP1    float64 `json:"cv_p_at_1"`
		TuneP1  float64 `json:"tune_p_at_1"`
	}
	if err := json.Unmarshal([]byte(out), &ps); err != nil || len(ps) == 0 {
		t.Fatalf("fuse --json: %v\n%s", err, out)
	}
	builtin := false
	for i, p := range ps {
		if p.CVP1 <= 0 {
			t.Errorf("%s: no cross-validated P@1", p.Name)
		}
		if i > 0 && p.CVP1 > ps[i-1].CVP1 {
			t.Errorf("%s (cross-validated %.2f) after %s (%.2f): not ordered", p.Name, p.CVP1, ps[i-1].Name, ps[i-1].CVP1)
		}
		builtin = builtin || strings.HasPrefix(p.TunedOn, "built-in")
	}
	hasZ := false
	for _, p := range ps {
		hasZ = hasZ || p.Name == "fusion-zscore"
	}
	if !hasZ {
		t.Errorf("no fusion-zscore (tuned or built-in) among %+v", ps)
	}
	t.Logf("stored: %+v (built-in default kept: %v)", ps, builtin)
	// ask uses the first.
	code, ans, errs := reqa(t, "ask", "--json", "--index", idx, "When does the ferry leave?")
	if code != 0 || !strings.Contains(ans, `"ranker": "`+ps[0].Name+`"`) {
		t.Errorf("ask: exit %d, want ranker %s: %s%s", code, ps[0].Name, ans, errs)
	}
}
