package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestTunePairs trains the question adapter from a JSONL of pairs on a plain
// (non-dataset) index, naming answers by text and by sentence id, and
// checks the errors that name the pairs file's line and field.
func TestTunePairs(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "town.txt", "The ferry leaves at nine. It returns at noon.\n\n"+
		"The bakery opens at six. Its rye bread sells out by eight.\n\n"+
		"The library lends maps to visitors. Rare maps stay in the cold room.\n\n"+
		"The market is closed on Sundays. Farmers sell cheese there on Saturdays.\n")
	idx := filepath.Join(dir, "town.reqa")
	if code, _, errs := reqa(t, "index", "--quiet", "--out", idx, in); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	if _, out, _ := reqa(t, "stats", idx); !strings.Contains(out, "\ndense ") {
		skipUnlessCI(t, "dense encoder not embedded in this build (run via make)")
	}
	pairs := writeFile(t, dir, "pairs.jsonl", `{"question":"when does the boat come back","answer":"It returns at noon."}
{"question":"what time does the bakery open","answer_id":2,"group":"bakery"}
{"question":"where are the old maps kept","answers":["Rare maps stay in the cold room."]}
{"question":"what can you buy on saturday","answer_ids":[7]}
{"question":"when does the boat depart","answer":"The ferry leaves at nine."}
{"question":"how long does the bread last","answer":"Its rye bread sells out by eight."}
`)
	code, out, errs := reqa(t, "tune", "--index", idx, "--pairs", pairs, "--epochs", "3", "--batch", "4", "--val-fraction", "0", "--json")
	if code != 0 {
		t.Fatalf("tune --pairs: exit %d: %s", code, errs)
	}
	var res tuneResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.TrainQuestions != 6 || res.Split != "pairs" || res.Dataset != pairs {
		t.Fatalf("tune --pairs --json: %v %+v\n%s", err, res, out)
	}
	if code, out, errs := reqa(t, "ask", "-i", idx, "-r", "dense", "--k", "1", "--json", "when does the boat come back"); code != 0 || !strings.Contains(out, "sentence") {
		t.Fatalf("ask with the adapter: exit %d: %s %s", code, out, errs)
	}

	for _, c := range []struct {
		name, pairs string
		code        int
		want        string
	}{
		{"unknown text", `{"question":"q","answer":"No such sentence."}`, 1, `bad.jsonl:1: field "answer": no sentence of index`},
		{"unknown id", "{\"question\":\"q\",\"answer_id\":3}\n{\"question\":\"q\",\"answer_id\":\"zz\"}", 1, `bad.jsonl:2: field "answer_id": "zz" is neither a candidate id nor a sentence id`},
		{"id out of range", `{"question":"q","answer_id":99}`, 1, `"99" is neither`},
		{"malformed", `{"question":`, 1, `bad.jsonl:1: malformed JSON`},
	} {
		bad := writeFile(t, dir, "bad.jsonl", c.pairs)
		code, _, errs := reqa(t, "tune", "--index", idx, "--pairs", bad, "--epochs", "1")
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", c.name, code, errs, c.code, c.want)
		}
	}
	if code, _, _ := reqa(t, "tune", "--index", idx, "--pairs", pairs, "some-dataset"); code != 2 {
		t.Errorf("--pairs with a DATASET_DIR: exit %d, want 2", code)
	}
	if code, _, _ := reqa(t, "tune", "--index", idx, "--pairs", pairs, "--split", "test"); code != 2 {
		t.Errorf("--pairs with --split: exit %d, want 2", code)
	}
}

// TestTuneSelf trains the question adapter on pseudo-questions made from a
// Markdown index's own text (no questions given), and reports an unknown
// pseudo-question kind.
func TestTuneSelf(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "guide.md", "# Ferry\n\nThe ferry leaves the harbour at nine every morning. It returns from the island at noon on weekdays.\n\n"+
		"# Bakery\n\nThe bakery is a small shop near the harbour square. Its rye bread usually sells out by eight in the morning.\n\n"+
		"# Library\n\nThe library lends printed maps to visitors for a week. Rare maps stay in the cold room behind the reading hall.\n")
	idx := filepath.Join(dir, "guide.reqa")
	if code, _, errs := reqa(t, "index", "--quiet", "--out", idx, in); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	if _, out, _ := reqa(t, "stats", idx); !strings.Contains(out, "\ndense ") {
		skipUnlessCI(t, "dense encoder not embedded in this build (run via make)")
	}
	code, out, errs := reqa(t, "tune", "--index", idx, "--self", "--epochs", "2", "--batch", "4", "--val-fraction", "0", "--json")
	if code != 0 {
		t.Fatalf("tune --self: exit %d: %s", code, errs)
	}
	var res tuneResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.TrainQuestions == 0 || res.Split != "pseudo-questions" {
		t.Fatalf("tune --self --json: %v %+v\n%s", err, res, out)
	}
	if code, _, errs := reqa(t, "tune", "--index", idx, "--self", "--self-kinds", "riddle"); code != 1 || !strings.Contains(errs, `pseudo-question kind "riddle"`) {
		t.Errorf("unknown kind: exit %d, stderr %q", code, errs)
	}
}
