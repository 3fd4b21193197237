package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// tinyDataset is a small ReQA dataset written for these tests.
var tinyDataset = filepath.Join("testdata", "tinyreqa")

// decodeOne parses out as exactly one JSON value and nothing else.
func decodeOne(out string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(out))
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("more than one JSON value on stdout (next: %v)", err)
	}
	return v, nil
}

// hasKeys fails unless v is a JSON object holding every key.
func hasKeys(t *testing.T, v any, keys ...string) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("stdout is a JSON %T, want an object", v)
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON output has no %q: %v", k, m)
		}
	}
	return m
}

// TestJSONEveryCommand runs every command with --json and checks that
// stdout is one JSON document and nothing else (progress and notes go to
// stderr).
func TestJSONEveryCommand(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "tiny.reqa")
	convOut := filepath.Join(dir, "converted")
	notes := filepath.Join(dir, "notes.reqa")
	first := writeFile(t, dir, "first.txt", "The ferry leaves at nine. It returns at noon.\n")
	second := writeFile(t, dir, "second.txt", "Tickets cost five euros.\n")
	tests := []struct {
		name  string
		args  []string
		dense bool // needs an index with embeddings
		array bool // stdout is a non-empty JSON array, not an object
		keys  []string
		check func(t *testing.T, m map[string]any)
	}{
		{name: "index", args: []string{"index", "--json", "--out", idx, tinyDataset},
			keys: []string{"index", "contexts", "sentences", "fields"},
			check: func(t *testing.T, m map[string]any) {
				if m["sentences"] != 10.0 || m["contexts"] != 4.0 {
					t.Errorf("index summary %v: want 10 sentences in 4 contexts", m)
				}
			}},
		{name: "ask", args: []string{"ask", "--json", "--index", idx, "--k", "2", "Which seeds go into rye bread?"},
			keys: []string{"question", "ranker", "answers"},
			check: func(t *testing.T, m map[string]any) {
				as, _ := m["answers"].([]any)
				if len(as) != 2 {
					t.Fatalf("answers %v: want 2", m["answers"])
				}
			}},
		{name: "stats", args: []string{"stats", "--json", idx}, keys: []string{"index", "meta", "storage"}},
		{name: "verify", args: []string{"verify", "--json", idx}, keys: []string{"index", "ok", "records", "postings_lists", "parts", "problems"},
			check: func(t *testing.T, m map[string]any) {
				if m["ok"] != true {
					t.Errorf("verify of a healthy index: %v", m)
				}
			}},
		{name: "eval", args: []string{"eval", "--json", "--index", idx, tinyDataset},
			keys: []string{"results"}},
		{name: "fuse", args: []string{"fuse", "--json", "--index", idx, tinyDataset}, dense: true, array: true},
		{name: "tune", args: []string{"tune", "--json", "--index", idx, "--epochs", "2", tinyDataset}, dense: true,
			keys: []string{"index", "dataset", "split", "kind", "weights", "bytes", "train_questions", "epochs", "losses"},
			check: func(t *testing.T, m map[string]any) {
				if m["dataset"] != "tinyreqa" || m["split"] != "tune" || m["kind"] != "linear" || m["train_questions"] != 3.0 {
					t.Errorf("tune result %v: want linear on the 3 tune questions of tinyreqa", m)
				}
				if ls, _ := m["losses"].([]any); len(ls) == 0 || len(ls) > 2 {
					t.Errorf("losses %v: want one per epoch run (at most 2)", m["losses"])
				}
			}},
		{name: "ask after tune", args: []string{"ask", "--json", "--index", idx, "--ranker", "dense", "--k", "1", "What makes sourdough rise?"}, dense: true,
			keys: []string{"question", "ranker", "answers"}},
		{name: "index text", args: []string{"index", "--json", "--dense=false", "--out", notes, first}, keys: []string{"sentences"}},
		{name: "index --append", args: []string{"index", "--append", "--json", "--out", notes, second},
			keys: []string{"appended_sentences", "sentences"},
			check: func(t *testing.T, m map[string]any) {
				if m["appended_sentences"] != 1.0 || m["sentences"] != 3.0 {
					t.Errorf("append summary %v: want 1 sentence appended, 3 in all", m)
				}
			}},
		{name: "convert", args: []string{"convert", "--json", "--out", convOut, mrqaFixture("squad.jsonl")}},
		{name: "convert stats", args: []string{"convert", "--json", "--stats", convOut}},
		{name: "demo", args: []string{"demo", "--json"},
			keys: []string{"sentences", "contexts", "questions"},
			check: func(t *testing.T, m map[string]any) {
				qs, _ := m["questions"].([]any)
				if len(qs) != len(demoQuestions) {
					t.Fatalf("%d questions answered, want %d", len(qs), len(demoQuestions))
				}
				for i, q := range qs {
					a := hasKeys(t, q, "question", "ranker", "answers")
					if a["question"] != demoQuestions[i] {
						t.Errorf("question %d: %v, want %q", i, a["question"], demoQuestions[i])
					}
					if as, _ := a["answers"].([]any); len(as) != 1 {
						t.Errorf("question %d: answers %v, want 1 (k=1)", i, a["answers"])
					}
				}
			}},
	}
	dense := false
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.dense && !dense {
				skipUnlessCI(t, "dense encoder not embedded in this build (run via make): skipped")
			}
			code, out, errs := reqa(t, tc.args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", tc.args, code, errs)
			}
			v, err := decodeOne(out)
			if err != nil {
				t.Fatalf("%v: stdout is not one JSON document: %v\n%s", tc.args, err, out)
			}
			if tc.array {
				if a, ok := v.([]any); !ok || len(a) == 0 {
					t.Fatalf("stdout %s: want a non-empty JSON array", out)
				}
				return
			}
			m := hasKeys(t, v, tc.keys...)
			if tc.check != nil {
				tc.check(t, m)
			}
			if tc.name == "stats" {
				meta, _ := m["meta"].(map[string]any)
				dense = meta["dense"] != nil
			}
		})
	}
	t.Run("serve", func(t *testing.T) { checkServeJSON(t, idx) })

	// With --json, errors still go to stderr, and stdout stays empty.
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"missing index", []string{"ask", "--json", "--index", filepath.Join(dir, "none.reqa"), "q"}, 1},
		{"not a dataset", []string{"tune", "--json", "--index", idx, dir}, 1},
		{"unknown flag", []string{"demo", "--json", "--nope"}, 2},
		{"bad addr", []string{"serve", "--json", "--index", idx, "--addr", "256.0.0.1:-1"}, 1},
	} {
		t.Run("error/"+tc.name, func(t *testing.T) {
			code, out, errs := reqa(t, tc.args...)
			if code != tc.code || out != "" || !strings.HasPrefix(errs, "reqa: ") {
				t.Fatalf("%v: exit %d (want %d), stdout %q (want empty), stderr %q (want the error)", tc.args, code, tc.code, out, errs)
			}
		})
	}
}

// checkServeJSON runs `reqa serve --json` on port 0 as its own process,
// reads the address from its first stdout line, asks a question, stops it
// with SIGTERM and checks that every stdout line is a JSON object: one
// "listening" and one "shutdown".
func checkServeJSON(t *testing.T, idx string) {
	cmd := exec.Command(os.Args[0], "serve", "--json", "--index", idx, "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "REQA_RUN_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		cmd.Wait()
		t.Fatalf("serve printed nothing on stdout; stderr:\n%s", stderr.String())
	}
	first := lines.Text()
	var m map[string]any
	if err := json.Unmarshal([]byte(first), &m); err != nil {
		t.Fatalf("first stdout line is not a JSON object: %v\n%s", err, first)
	}
	if m["event"] != "listening" || !strings.HasPrefix(fmt.Sprint(m["addr"]), "127.0.0.1:") || strings.HasSuffix(fmt.Sprint(m["addr"]), ":0") ||
		m["index"] != idx || m["default_ranker"] == nil {
		t.Fatalf("listening line %s: want event listening, the real 127.0.0.1 port, the index and the default ranker", first)
	}
	addr := m["addr"].(string)
	resp, err := http.Get("http://" + addr + "/v1/ask?k=1&q=" + url.QueryEscape("Why are rye loaves dense?"))
	if err != nil {
		t.Fatalf("asking the address serve printed: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "little gluten") {
		t.Fatalf("/v1/ask: %d %s", resp.StatusCode, body)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest := []string{first}
	for lines.Scan() {
		rest = append(rest, lines.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve after SIGTERM: %v\n%s", err, stderr.String())
	}
	for i, l := range rest {
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("stdout line %d is not a JSON object: %v\n%s", i+1, err, l)
		}
	}
	if len(rest) != 2 {
		t.Fatalf("%d stdout lines, want 2 (listening, shutdown):\n%s", len(rest), strings.Join(rest, "\n"))
	}
	if m["event"] != "shutdown" || m["addr"] != addr || m["answered"] != 1.0 {
		t.Fatalf("last line %s: want the shutdown event, the address and 1 question answered", rest[1])
	}
	if !strings.Contains(stderr.String(), "serving ") {
		t.Errorf("the log should stay on stderr:\n%s", stderr.String())
	}
}
