package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestIndexAsk(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "notes.txt", "The ferry leaves at nine. It returns at noon.\n\nTickets cost five euros.\n")
	idx := filepath.Join(dir, "n.reqa")
	if code, _, errs := reqa(t, "index", "--out", idx, in); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	code, out, errs := reqa(t, "ask", "--index", idx, "-r", "bm25-wpm", "--json", "--k", "2", "What returns at noon?")
	if code != 0 {
		t.Fatalf("ask: exit %d: %s", code, errs)
	}
	var res struct {
		Answers []struct {
			Sentence, Context, Source string
			Start, End                int
			Score                     float64
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("ask --json: %v\n%s", err, out)
	}
	if len(res.Answers) == 0 || res.Answers[0].Sentence != "It returns at noon." {
		t.Fatalf("answers %+v", res.Answers)
	}
	a := res.Answers[0]
	if a.Context[a.Start:a.End] != a.Sentence || !strings.HasPrefix(a.Source, in+":") {
		t.Fatalf("answer offsets or source wrong: %+v", a)
	}
	rankers := []string{"bm25-word", "bm25-wpm"}
	if code, out, _ := reqa(t, "stats", idx); code == 0 && strings.Contains(out, "dense") {
		rankers = append(rankers, "dense")
	} else {
		requireDense(t)
		t.Log("dense encoder not embedded (build with make): dense ranker not tested")
	}
	for _, r := range rankers {
		code, out, _ := reqa(t, "ask", "--index", idx, "--ranker", r, "ferry tickets")
		if code != 0 || !strings.Contains(out, "⟦") {
			t.Fatalf("ask --ranker %s: exit %d:\n%s", r, code, out)
		}
	}
	if len(rankers) == 3 {
		// With embeddings, ask fuses by default and shows each input's score.
		code, out, _ := reqa(t, "ask", "--index", idx, "--json", "ferry tickets")
		if code != 0 || !strings.Contains(out, `"scores"`) || !strings.Contains(out, `"dense"`) || !strings.Contains(out, `"ranker": "fusion-zscore"`) {
			t.Fatalf("default ask on a dense index: exit %d:\n%s", code, out)
		}
	}
	// A question with no known terms: an empty result, not an error.
	code, out, _ = reqa(t, "ask", "--index", idx, "--json", "zyzzyva qwerty")
	if code != 0 || !strings.Contains(out, `"answers": []`) {
		t.Fatalf("unknown terms: exit %d:\n%s", code, out)
	}
	if code, out, _ := reqa(t, "stats", idx); code != 0 || !strings.Contains(out, "3 sentences") {
		t.Fatalf("stats: exit %d:\n%s", code, out)
	}
}

// TestAskHostileText checks what ask prints for people and for programs:
// corpus text with terminal escape sequences is shown escaped (JSON
// escapes it anyway), answers carry the record's id, and an empty question
// is a usage error.
func TestAskHostileText(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "notes.jsonl", `{"id": "rec-7", "title": "Ferry\u001b]0;pwned\u0007", "text": "The ferry leaves at nine.\u001b[2J It returns at noon."}`+"\n")
	idx := filepath.Join(dir, "n.reqa")
	if code, _, errs := reqa(t, "index", "--quiet", "--dense=false", "--out", idx, in); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	code, out, errs := reqa(t, "ask", "--index", idx, "When does the ferry leave?")
	if code != 0 {
		t.Fatalf("ask: exit %d: %s", code, errs)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("ask printed raw control characters:\n%q", out)
	}
	for _, want := range []string{`\x1b[2J`, `Ferry\x1b]0;pwned\x07`, "(id rec-7)"} {
		if !strings.Contains(out, want) {
			t.Errorf("ask output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = reqa(t, "ask", "--json", "--index", idx, "When does the ferry leave?")
	if code != 0 {
		t.Fatalf("ask --json: exit %d: %s", code, errs)
	}
	var res struct {
		Answers []struct{ ID, Source, Sentence string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Answers) == 0 || res.Answers[0].ID != "rec-7" || res.Answers[0].Source == "" {
		t.Errorf("ask --json answers %+v: want the record id rec-7 beside its source", res.Answers)
	}
	for _, q := range []string{"", "   ", "\t\n"} {
		if code, _, errs := reqa(t, "ask", "--index", idx, q); code != 2 || !strings.Contains(errs, "empty") {
			t.Errorf("ask %q: exit %d, want 2 (usage): %s", q, code, errs)
		}
	}
	if code, _, errs := reqa(t, "ask", "--index", idx, "-r", "fusion-nope", "ferry"); code != 2 || !strings.Contains(errs, "unknown ranker") {
		t.Errorf("ask -r fusion-nope: exit %d, want 2: %s", code, errs)
	}
}
