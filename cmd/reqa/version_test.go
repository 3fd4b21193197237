package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/reqa/reqa/index/encoder/ortlib"
	"github.com/reqa/reqa/index/encoder/uselite"
	"github.com/reqa/reqa/index/tokenize/wordpiece"
	"github.com/reqa/reqa/ingest/document/formats"
)

func TestVersionJSON(t *testing.T) {
	requireDense(t)
	code, out, errs := reqa(t, "version", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, k := range []string{"version", "commit", "build_date", "go", "target", "cgo", "onnxruntime", "model", "model_source", "files", "go_modules"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("field %q missing", k)
		}
	}
	var b buildInfo
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatal(err)
	}
	if b.Version != version || b.ONNXRuntime != ortlib.Version || !strings.HasPrefix(b.Go, "go") || !strings.HasPrefix(b.Target, "linux/") && !strings.Contains(b.Target, "/") {
		t.Errorf("unexpected values: %+v", b)
	}
	fp32, vocab, err := uselite.ModelPrecision(uselite.PrecisionFP32)
	if err != nil {
		t.Fatal(err)
	}
	int8, _, err := uselite.ModelPrecision(uselite.PrecisionInt8)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := wordpiece.TokenizerJSON()
	if err != nil {
		t.Fatal(err)
	}
	ortSum, err := ortlib.SHA256()
	if err != nil {
		t.Fatal(err)
	}
	hash := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	want := map[string]string{
		"use-lite/model.onnx":             hash(fp32),
		"use-lite/model-int8.onnx":        hash(int8),
		"use-lite/vocab.json":             hash(vocab),
		"wordpiece/tokenizer.json":        hash(tok),
		"onnxruntime/libonnxruntime.so.1": ortSum,
	}
	got := map[string]string{}
	for _, f := range b.Files {
		got[f.Name] = f.SHA256
	}
	for name, sum := range want {
		if got[name] != sum {
			t.Errorf("%s: sha256 %q, want %q", name, got[name], sum)
		}
	}
	if len(got) != len(want) {
		t.Errorf("files %v, want %d", got, len(want))
	}
}

func TestVersionFlagAndText(t *testing.T) {
	requireDense(t)
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, errs := reqa(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		for _, w := range []string{"reqa " + version, "commit", "onnxruntime  " + ortlib.Version, "use-lite/model.onnx", "go           go"} {
			if !strings.Contains(out, w) {
				t.Errorf("%v: no %q in\n%s", args, w, out)
			}
		}
	}
	if code, _, _ := reqa(t, "version", "extra"); code != 2 {
		t.Errorf("version with an argument: exit %d, want 2", code)
	}
}

func TestHelpListsFormats(t *testing.T) {
	code, out, _ := reqa(t, "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, name := range append(formats.Names(), "jsonl", "squad", "ReQA", "version", "completion", "man") {
		if !strings.Contains(out, name) {
			t.Errorf("--help does not mention %q", name)
		}
	}
}

func TestCompletionScripts(t *testing.T) {
	for _, sh := range completionShells {
		code, out, errs := reqa(t, "completion", sh)
		if code != 0 || len(out) < 200 || !strings.Contains(out, "reqa") {
			t.Errorf("completion %s: exit %d, %d bytes: %s", sh, code, len(out), errs)
		}
	}
	if _, out, _ := reqa(t, "completion", "fish"); !strings.Contains(out, "complete -c reqa") || !strings.Contains(out, "index") {
		t.Errorf("fish completion lacks the commands:\n%s", out)
	}
	if code, out, _ := reqa(t, "completion", "--json", "zsh"); code != 0 || !strings.Contains(out, `"shell": "zsh"`) || !strings.Contains(out, "#compdef reqa") {
		t.Errorf("completion --json zsh: exit %d:\n%s", code, out)
	}
	if code, _, _ := reqa(t, "completion", "tcsh"); code != 2 {
		t.Errorf("completion tcsh: exit %d, want 2", code)
	}
	// What the bash and zsh scripts ask the binary for (`reqa …
	// --generate-bash-completion`) reads os.Args in urfave/cli, so it is
	// checked on the built binary, in make test-dist.
}

func TestManPage(t *testing.T) {
	code, out, errs := reqa(t, "man")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, w := range []string{".TH reqa 1", ".SH NAME", "index", "serve", "--json"} {
		if !strings.Contains(out, w) {
			t.Errorf("man page lacks %q", w)
		}
	}
	var j struct {
		Section int
		Roff    string
	}
	if code, out, _ := reqa(t, "man", "--json"); code != 0 || json.Unmarshal([]byte(out), &j) != nil || j.Section != 1 || !strings.Contains(j.Roff, ".TH reqa 1") {
		t.Errorf("man --json: exit %d:\n%.200s", code, out)
	}
}
