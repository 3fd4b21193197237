package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reqa/reqa/index/encoder/ortlib"
	"github.com/reqa/reqa/index/encoder/uselite"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/internal/testenv"
)

// TestMain lets the test binary stand in for bin/reqa in subprocess tests:
// with REQA_RUN_MAIN=1 it runs the command line instead of the tests, with
// ingest.ParseWorkerEnv=1 it is a document parser worker of `reqa index`
// (what `reqa __parse-worker` runs), and
// with REQA_COPYTEST_CLIENT=1 it is the copied-binary test's serve client
// inside its network namespace (see TestCopiedBinary).
func TestMain(m *testing.M) {
	switch {
	case os.Getenv(ingest.ParseWorkerEnv) == "1":
		os.Exit(ingest.ServeParseWorker(os.Stdin, os.Stdout))
	case os.Getenv("REQA_RUN_MAIN") == "1":
		main()
	case os.Getenv("REQA_COPYTEST_CLIENT") == "1":
		os.Exit(copyServeClient(os.Getenv("REQA_COPYTEST_DIR"), os.Getenv("REQA_COPYTEST_INDEX"), os.Getenv("REQA_COPYTEST_Q")))
	}
	os.Exit(m.Run())
}

// skipUnlessCI skips t because a prerequisite is missing, or fails it under
// CI=true: what CI must test may not silently not run there (testenv.Skip).
func skipUnlessCI(t testing.TB, format string, args ...any) {
	t.Helper()
	testenv.Skip(t, format, args...)
}

// requireDense skips (fails under CI=true) a test that needs the embedded
// dense encoder and ONNX Runtime (built in by make).
func requireDense(t testing.TB) {
	t.Helper()
	if !uselite.Available() || !ortlib.Embedded() && os.Getenv("REQA_ORT_LIB") == "" {
		skipUnlessCI(t, "dense encoder or ONNX Runtime not embedded in this build (run via make)")
	}
}

// reqa runs the command line in-process and returns exit code and output.
func reqa(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"reqa"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.jsonl", "{\"text\": \"fine.\"}\n{\"text\": oops}\n")
	junk := writeFile(t, dir, "junk.reqa", strings.Repeat("not an index ", 1000))
	idx := filepath.Join(dir, "x.reqa")
	cases := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"unknown flag", []string{"ask", "--nope", "q"}, 2, "flag provided but not defined"},
		{"unknown command", []string{"frobnicate"}, 2, "unknown command"},
		{"missing out", []string{"index", bad}, 2, "out"},
		{"no input", []string{"index", "--out", idx}, 2, "no INPUT"},
		{"malformed jsonl", []string{"index", "--out", idx, bad}, 1, "bad.jsonl:2"},
		{"missing input", []string{"index", "--out", idx, filepath.Join(dir, "none.txt")}, 1, "none.txt"},
		{"not an index", []string{"ask", "--index", junk, "q"}, 1, "not a reqa index"},
		{"unknown ranker", []string{"eval", "-r", "bm42", "../../ingest/testdata/dataset"}, 2, "unknown ranker"},
		{"bad split", []string{"eval", "--split", "dev", "../../ingest/testdata/dataset"}, 2, "--split"},
		{"not a dataset", []string{"eval", dir}, 1, "not a ReQA dataset"},
		{"bad k", []string{"ask", "--index", junk, "--k", "0", "q"}, 2, "--k"},
		{"bad context vectors", []string{"index", "--out", idx, "--context-vectors", "bogus", "../../index/testdata/append"}, 2, "--context-vectors"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := reqa(t, tc.args...)
			if code != tc.wantCode || !strings.Contains(errs, tc.wantErr) {
				t.Fatalf("exit %d (want %d), stderr %q (want ~%q)", code, tc.wantCode, errs, tc.wantErr)
			}
		})
	}
	if _, err := os.Stat(idx); !os.IsNotExist(err) {
		t.Fatal("a failed index build left a file under the target name")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) != 0 {
		t.Fatalf("temporary files left: %v", m)
	}
}

func TestFlagsAfterArguments(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	for _, c := range []struct{ in, want string }{
		{"reqa ask -i x.reqa when is it -k 3", "reqa ask -i x.reqa -k 3 when is it"},
		{"reqa ask --index x.reqa what --json --k=2", "reqa ask --index x.reqa --json --k=2 what"},
		{"reqa ask -i x.reqa -- -k 3", "reqa ask -i x.reqa -- -k 3"},
		{"reqa ask -i x.reqa is -5 below zero", "reqa ask -i x.reqa is -5 below zero"},
		{"reqa index a.txt b.txt --out x.reqa --append", "reqa index --out x.reqa --append a.txt b.txt"},
		{"reqa nosuch a -k 3", "reqa nosuch a -k 3"},
	} {
		got := strings.Join(flagsFirst(app, strings.Fields(c.in)), " ")
		if got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	// End to end: -k after the question limits the answers and is not
	// part of the question.
	dir := t.TempDir()
	in := writeFile(t, dir, "notes.txt", "The ferry leaves at nine. It returns at noon.\n\nTickets cost five euros.\n")
	idx := filepath.Join(dir, "n.reqa")
	if code, _, errs := reqa(t, "index", "--quiet", "--dense=false", "--out", idx, in); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	code, out, errs := reqa(t, "ask", "-i", idx, "When does the ferry return?", "--json", "-k", "1")
	var res struct {
		Question string
		Answers  []struct{ Sentence string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil {
		t.Fatalf("ask: exit %d: %s %s", code, out, errs)
	}
	if res.Question != "When does the ferry return?" || len(res.Answers) != 1 {
		t.Fatalf("question %q, %d answers", res.Question, len(res.Answers))
	}
}

// TestQuietAndJSONEveryCommand: every command takes --quiet and --json.
func TestQuietAndJSONEveryCommand(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	for _, cmd := range app.Commands {
		if cmd.Name == "help" {
			continue
		}
		has := map[string]bool{}
		for _, f := range cmd.Flags {
			for _, n := range f.Names() {
				has[n] = true
			}
		}
		for _, want := range []string{"quiet", "json"} {
			if !has[want] {
				t.Errorf("reqa %s has no --%s", cmd.Name, want)
			}
		}
	}
}
