package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAirGapped builds an index with embeddings, then asks it from a process
// with no network (unshare -n), an empty HOME and an empty environment: the
// binary must carry everything (tokenizers, model, ONNX Runtime).
func TestAirGapped(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		skipUnlessCI(t, "unshare not available")
	}
	if err := exec.Command("unshare", "-n", "true").Run(); err != nil {
		skipUnlessCI(t, "cannot create a network namespace here (needs root): %v", err)
	}
	dir := t.TempDir()
	in := writeFile(t, dir, "notes.txt", "The ferry leaves at nine. It returns at noon.\n\nTickets cost five euros.\n")
	idx := filepath.Join(dir, "n.reqa")
	if code, out, errs := reqa(t, "index", "--out", idx, in); code != 0 || !strings.Contains(out, "indexed") {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	if code, out, _ := reqa(t, "stats", idx); code != 0 || !strings.Contains(out, "dense") {
		skipUnlessCI(t, "dense encoder not embedded in this build (run via make); air-gapped dense check skipped")
	}
	home := filepath.Join(dir, "empty-home")
	os.Mkdir(home, 0o700)
	cmd := exec.Command("unshare", "-n", os.Args[0], "ask", "--index", idx, "--json", "--k", "1", "When does the ferry come back?")
	cmd.Env = []string{"REQA_RUN_MAIN=1", "HOME=" + home}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("air-gapped ask failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"dense"`) || !strings.Contains(string(out), "ferry") {
		t.Fatalf("air-gapped ask did not answer with dense scores:\n%s", out)
	}
}
