//go:build linux

package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/reqa/reqa/index/encoder/ortlib"
)

// ortSource is the library the binary embeds, as make puts it in the tree.
var ortSource = filepath.Join("..", "..", "index", "encoder", "ortlib", "lib", "linux-"+runtime.GOARCH, "libonnxruntime.so.1")

// TestCopiedBinary is the appliance's acceptance test: a reqa binary and an
// index with embeddings, copied alone into an empty directory, must answer
// with `ask`, `eval` and `serve` and build a new index with `index`, run
// from that directory with no network (unshare -n), an empty HOME (the
// directory itself) and an empty environment. No file may be written
// besides the test's own: the ONNX Runtime library is loaded from a memory
// file (memfd), which the server's /proc/PID/maps must show, with the
// embedded library's bytes. With HOME and TMPDIR on read-only, noexec file
// systems `ask -r dense` must still answer (and the old extraction to a
// file, forced with REQA_ORT_EXTRACT=1, must fail there).
//
// The binary is built from this tree (so it is current); REQA_BIN names a
// prebuilt one instead (e.g. REQA_BIN=$PWD/bin/reqa after make build).
func TestCopiedBinary(t *testing.T) {
	if testing.Short() {
		// May skip in CI: -short is a mode; make test and CI run without it.
		t.Skip("-short: the copied-binary test builds an 80 MB binary")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		skipUnlessCI(t, "unshare not available")
	}
	if err := exec.Command(unshare, "-n", "true").Run(); err != nil {
		skipUnlessCI(t, "cannot create a network namespace here (needs root): %v", err)
	}
	bin := copyTestBinary(t)

	// Build a small index with embeddings with that binary, elsewhere.
	work := t.TempDir()
	ds, err := filepath.Abs(tinyDataset)
	if err != nil {
		t.Fatal(err)
	}
	built := filepath.Join(work, "tiny.reqa")
	if out, err := exec.Command(bin, "index", "--quiet", "--dense", "--out", built, ds).CombinedOutput(); err != nil {
		t.Fatalf("index with %s: %v\n%s", bin, err, out)
	}

	// Copy only the binary and the index into a fresh empty directory.
	empty := t.TempDir()
	copyFile(t, bin, filepath.Join(empty, "reqa"), 0o755)
	copyFile(t, built, filepath.Join(empty, "tiny.reqa"), 0o644)

	elsewhere := ortCandidates(t)
	before := snapshot(elsewhere)

	// isolated runs ./reqa in empty with no network and nothing but HOME
	// and PATH in its environment.
	isolated := func(args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(unshare, append([]string{"-n", "./reqa"}, args...)...)
		cmd.Dir = empty
		cmd.Env = []string{"HOME=" + empty, "PATH=/usr/bin:/bin"}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("reqa %s (copied, no network, empty HOME): %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), errb.String())
		}
		return out.String(), errb.String()
	}

	t.Run("ask", func(t *testing.T) {
		out, _ := isolated("ask", "--index", "tiny.reqa", "--json", "--k", "1", "Which seeds go into rye bread?")
		a := decodeAsk(t, out)
		if a.Ranker != "fusion-zscore" || len(a.Answers) != 1 || !strings.Contains(a.Answers[0].Sentence, "caraway") {
			t.Fatalf("ask: want the caraway sentence from the default (fused) ranker:\n%s", out)
		}
		if _, ok := a.Answers[0].Scores["dense"]; !ok {
			t.Fatalf("ask: no dense score, so the encoder did not run:\n%s", out)
		}
	})

	t.Run("eval", func(t *testing.T) {
		out, _ := isolated("eval", "--index", "tiny.reqa", "--json", "--quiet", ds)
		var rep evalReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("eval --json: %v\n%s", err, out)
		}
		dense := false
		for _, r := range rep.Results {
			dense = dense || r.Ranker == "dense"
		}
		if rep.Questions != 7 || !dense {
			t.Fatalf("eval: want 7 questions and a dense result: %+v", rep)
		}
	})

	t.Run("serve", func(t *testing.T) {
		// The client runs inside the same namespace as the server.
		cmd := exec.Command(unshare, "-n", os.Args[0])
		cmd.Env = []string{"REQA_COPYTEST_CLIENT=1", "REQA_COPYTEST_DIR=" + empty, "REQA_COPYTEST_INDEX=tiny.reqa",
			"REQA_COPYTEST_Q=How often does the foghorn sound?"}
		out, err := cmd.Output()
		var rep serveClientReport
		if jerr := json.Unmarshal(out, &rep); jerr != nil {
			t.Fatalf("serve client: %v (%v)\n%s", err, jerr, out)
		}
		if err != nil || rep.Error != "" {
			t.Fatalf("serve in the namespace: %v %s\nserver stderr:\n%s", err, rep.Error, rep.ServerStderr)
		}
		if strings.Join(rep.Interfaces, ",") != "lo" {
			t.Errorf("the namespace has interfaces %v, want only lo (no network)", rep.Interfaces)
		}
		var a askReply
		if err := json.Unmarshal([]byte(rep.AskBody), &a); err != nil || rep.AskStatus != 200 {
			t.Fatalf("/v1/ask: %d %s", rep.AskStatus, rep.AskBody)
		}
		if len(a.Answers) != 1 || !strings.Contains(a.Answers[0].Sentence, "foghorn") {
			t.Fatalf("/v1/ask did not answer with the foghorn sentence: %s", rep.AskBody)
		}
		if _, ok := a.Answers[0].Scores["dense"]; !ok {
			t.Fatalf("/v1/ask: no dense score: %s", rep.AskBody)
		}
		if rep.MappedORT != memfdORT {
			t.Fatalf("serve loaded ONNX Runtime from %q, want the memory file %q", rep.MappedORT, memfdORT)
		}
		if rep.MappedSHA256 == "" {
			t.Fatalf("could not read the memory file serve mapped: %s", rep.Error)
		}
		if os.Getenv("REQA_BIN") == "" && rep.MappedSHA256 != fileSHA256(t, ortSource) {
			t.Fatalf("the memory file serve mapped hashes to %s, %s to %s", rep.MappedSHA256, ortSource, fileSHA256(t, ortSource))
		}
		if rep.ExitError != "" {
			t.Fatalf("serve after SIGTERM: %s\n%s", rep.ExitError, rep.ServerStderr)
		}
	})

	t.Run("read-only noexec HOME and TMPDIR", func(t *testing.T) {
		readOnlyAsk(t, unshare, empty)
	})

	t.Run("index", func(t *testing.T) {
		writeFile(t, empty, "notes.txt", "The ferry leaves at nine. It returns at noon.\n\nTickets cost five euros.\n\n"+
			"The museum opens on Sundays.\n\nBicycles can be rented near the harbour.\n")
		out, _ := isolated("index", "--json", "--dense", "--out", "notes.reqa", "notes.txt")
		if v, err := decodeOne(out); err != nil {
			t.Fatalf("index --json: %v\n%s", err, out)
		} else {
			hasKeys(t, v, "sentences")
		}
		out, _ = isolated("stats", "--json", "notes.reqa")
		var st struct {
			Meta struct{ Dense *struct{ Encoder string } }
		}
		if err := json.Unmarshal([]byte(out), &st); err != nil || st.Meta.Dense == nil {
			t.Fatalf("the index built in the namespace has no embeddings (%v):\n%s", err, out)
		}
		out, _ = isolated("ask", "--index", "notes.reqa", "--json", "--k", "1", "How much do the tickets cost?")
		a := decodeAsk(t, out)
		if len(a.Answers) != 1 || a.Answers[0].Sentence != "Tickets cost five euros." {
			t.Fatalf("ask on the new index:\n%s", out)
		}
		if _, ok := a.Answers[0].Scores["dense"]; !ok {
			t.Fatalf("ask on the new index: no dense score:\n%s", out)
		}
	})

	// Nothing was written: the directory, which was HOME, holds exactly
	// what was copied and what the test wrote, and no other file or
	// directory (no .cache); the fallback location and the test user's
	// own cache are untouched.
	var entries []string
	filepath.WalkDir(empty, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Error(err)
			return nil
		}
		if p != empty {
			rel, _ := filepath.Rel(empty, p)
			entries = append(entries, rel)
		}
		return nil
	})
	sort.Strings(entries)
	want := []string{"notes.reqa", "notes.txt", "reqa", "tiny.reqa"}
	if strings.Join(entries, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the directory holds %q; want only the copied binary and index, the test's notes and its index (no ONNX Runtime file)", entries)
	}
	if after := snapshot(elsewhere); after != before {
		t.Fatalf("ONNX Runtime files outside the empty HOME changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	t.Logf("binary %s (%.1f MiB); library loaded from %s, no file written", bin, float64(fileSize(t, bin))/(1<<20), memfdORT)
}

// memfdORT is how /proc/PID/maps names the ONNX Runtime library loaded
// from ortlib's memory file.
const memfdORT = "/memfd:libonnxruntime.so.1 (deleted)"

// readOnlyAsk runs `./reqa ask -r dense` in dir, with no network, HOME and
// TMPDIR on fresh read-only, noexec tmpfs mounts in a private mount
// namespace (unshare -m; the mounts vanish with it), so that no file can
// be written there and none could be mapped executable: it must answer,
// with the question embedded in Go and with --runtime. Forced to extract
// the library to a file (REQA_ORT_EXTRACT=1), as reqa did before it used
// a memory file, it must fail there with --runtime and still answer
// without (the runtime is not loaded).
func readOnlyAsk(t *testing.T, unshare, dir string) {
	root := t.TempDir()
	home, tmp := filepath.Join(root, "home"), filepath.Join(root, "tmp")
	for _, d := range []string{home, tmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const noMount = 97
	script := fmt.Sprintf(`for d in "$1" "$2"; do mount -t tmpfs -o ro,noexec,nosuid,nodev reqa-ro "$d" || exit %d; done
cd "$3" || exit 1
shift 3
exec "$@"`, noMount)
	run := func(runtime bool, extraEnv ...string) (string, string, error) {
		args := []string{"-n", "-m", "/bin/sh", "-c", script, "sh", home, tmp, dir,
			"env", "-i", "HOME=" + home, "TMPDIR=" + tmp, "PATH=/usr/bin:/bin"}
		args = append(args, extraEnv...)
		args = append(args, "./reqa", "ask", "--index", "tiny.reqa", "--json", "-k", "1", "-r", "dense")
		if runtime {
			// The question through ONNX Runtime, whose library is what
			// this test is about (ask alone embeds it in Go).
			args = append(args, "--runtime")
		}
		args = append(args, "Which seeds go into rye bread?")
		cmd := exec.Command(unshare, args...)
		cmd.Env = []string{"PATH=/usr/bin:/bin"}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == noMount {
			skipUnlessCI(t, "cannot mount a read-only tmpfs in a new mount namespace here: %s", errb.String())
		}
		return out.String(), errb.String(), err
	}

	for _, runtime := range []bool{false, true} {
		out, errs, err := run(runtime)
		if err != nil {
			t.Fatalf("ask -r dense (--runtime %v) with a read-only, noexec HOME and TMPDIR: %v\nstdout:\n%s\nstderr:\n%s", runtime, err, out, errs)
		}
		a := decodeAsk(t, out)
		if a.Ranker != "dense" || len(a.Answers) != 1 || !strings.Contains(a.Answers[0].Sentence, "caraway") {
			t.Fatalf("ask -r dense (--runtime %v) with a read-only, noexec HOME and TMPDIR: want the caraway sentence from the dense ranker:\n%s", runtime, out)
		}
	}

	// ask alone never loads the runtime, so forcing its extraction to a
	// read-only place changes nothing.
	if out, errs, err := run(false, "REQA_ORT_EXTRACT=1"); err != nil || !strings.Contains(out, "caraway") {
		t.Fatalf("ask -r dense without --runtime, REQA_ORT_EXTRACT=1: %v (ONNX Runtime loaded?)\nstdout:\n%s\nstderr:\n%s", err, out, errs)
	}

	out, errs, err := run(true, "REQA_ORT_EXTRACT=1")
	if err == nil {
		t.Fatalf("with REQA_ORT_EXTRACT=1 the library was extracted somewhere although HOME and TMPDIR are read-only:\n%s", out)
	}
	if !strings.Contains(errs, "read-only file system") {
		t.Fatalf("with REQA_ORT_EXTRACT=1: want a read-only file system error, got %v:\n%s", err, errs)
	}
}

// copyTestBinary returns the reqa binary to copy: $REQA_BIN, or one built
// now from this tree into a temporary directory.
func copyTestBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("REQA_BIN"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("REQA_BIN: %v", err)
		}
		return p
	}
	if !ortlib.Embedded() {
		skipUnlessCI(t, "ONNX Runtime and the model are not in this tree, so no self-contained binary can be built: "+
			"run `make assets` (or `make test`), or set REQA_BIN to a binary built by `make build`")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go tool on PATH to build the binary: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "reqa")
	cmd := exec.Command(goTool, "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/reqa: %v\n%s", err, out)
	}
	return bin
}

// decodeAsk decodes `reqa ask --json`.
func decodeAsk(t *testing.T, out string) askReply {
	t.Helper()
	var a askReply
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("ask --json: %v\n%s", err, out)
	}
	return a
}

// ortCandidates lists where else the library could land: the fallback
// under the system temp directory (as the isolated process sees it: no
// TMPDIR) and this user's own cache.
func ortCandidates(t *testing.T) []string {
	dirs := []string{filepath.Join("/tmp", fmt.Sprintf("reqa-%d", os.Getuid()))}
	if d, err := os.UserCacheDir(); err == nil {
		dirs = append(dirs, filepath.Join(d, "reqa"))
	}
	return dirs
}

// snapshot describes every file under dirs: path, size, modification time
// and inode.
func snapshot(dirs []string) string {
	var b strings.Builder
	for _, d := range dirs {
		filepath.WalkDir(d, func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				if p == d {
					fmt.Fprintf(&b, "%s: absent\n", d)
				}
				return nil
			}
			info, err := de.Info()
			if err != nil {
				return nil
			}
			var ino uint64
			if st, ok := info.Sys().(*syscall.Stat_t); ok {
				ino = st.Ino
			}
			fmt.Fprintf(&b, "%s %d %s %d\n", p, info.Size(), info.ModTime().Format(time.RFC3339Nano), ino)
			return nil
		})
	}
	return b.String()
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, mode); err != nil {
		t.Fatal(err)
	}
}

func fileSHA256(t *testing.T, p string) string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func fileSize(t *testing.T, p string) int64 {
	t.Helper()
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

// serveClientReport is what the in-namespace client reports.
type serveClientReport struct {
	Error        string   `json:"error,omitempty"`
	Interfaces   []string `json:"interfaces"`
	Addr         string   `json:"addr"`
	AskStatus    int      `json:"ask_status"`
	AskBody      string   `json:"ask_body"`
	MappedORT    string   `json:"mapped_ort"`
	MappedSHA256 string   `json:"mapped_sha256"`
	ExitError    string   `json:"exit_error,omitempty"`
	ServerStderr string   `json:"server_stderr"`
}

// copyServeClient runs inside the network namespace: it starts ./reqa serve
// in dir (empty environment but HOME=dir and PATH), reads the address from
// its --json line, asks question, notes which ONNX Runtime file the server
// mapped and, when it is the memory file, hashes the server's open
// descriptor of it, stops it with SIGTERM and prints a serveClientReport.
func copyServeClient(dir, index, question string) int {
	var rep serveClientReport
	var stderr bytes.Buffer
	defer func() {
		rep.ServerStderr = stderr.String()
		json.NewEncoder(os.Stdout).Encode(rep)
	}()
	fail := func(format string, args ...any) int {
		rep.Error = fmt.Sprintf(format, args...)
		return 1
	}
	// A new network namespace has only a loopback interface, and it is
	// down: bring it up so the server and this client can talk.
	if err := loopbackUp(); err != nil {
		return fail("bringing lo up: %v", err)
	}
	ifs, err := net.Interfaces()
	if err != nil {
		return fail("interfaces: %v", err)
	}
	for _, i := range ifs {
		rep.Interfaces = append(rep.Interfaces, i.Name)
	}
	cmd := exec.Command("./reqa", "serve", "--json", "--index", index, "--addr", "127.0.0.1:0")
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "PATH=/usr/bin:/bin"}
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fail("%v", err)
	}
	if err := cmd.Start(); err != nil {
		return fail("start serve: %v", err)
	}
	defer cmd.Process.Kill()
	// A guard against a hung server, not a timing assertion.
	hang := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer hang.Stop()
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		cmd.Wait()
		return fail("serve printed no listening line")
	}
	var ev struct{ Event, Addr string }
	if err := json.Unmarshal(lines.Bytes(), &ev); err != nil || ev.Event != "listening" {
		return fail("listening line %q: %v", lines.Text(), err)
	}
	rep.Addr = ev.Addr
	if maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", cmd.Process.Pid)); err == nil {
		for _, l := range strings.Split(string(maps), "\n") {
			if i := strings.Index(l, "/"); i >= 0 && strings.Contains(l, "libonnxruntime") {
				rep.MappedORT = strings.TrimSpace(l[i:])
				break
			}
		}
	}
	if rep.MappedORT == memfdORT {
		rep.MappedSHA256, rep.Error = procFDSHA256(cmd.Process.Pid, memfdORT)
	}
	resp, err := http.Get("http://" + ev.Addr + "/v1/ask?k=1&q=" + url.QueryEscape(question))
	if err != nil {
		return fail("GET /v1/ask: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	rep.AskStatus, rep.AskBody = resp.StatusCode, string(body)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return fail("SIGTERM: %v", err)
	}
	for lines.Scan() {
	}
	if err := cmd.Wait(); err != nil {
		rep.ExitError = err.Error()
	}
	return 0
}

// procFDSHA256 returns the SHA-256 of the file that process pid holds open
// under the name target (as /proc/PID/fd/N links show it).
func procFDSHA256(pid int, target string) (string, string) {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		return "", err.Error()
	}
	for _, fd := range fds {
		p := filepath.Join(dir, fd.Name())
		if l, err := os.Readlink(p); err != nil || l != target {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			return "", err.Error()
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return "", err.Error()
		}
		return hex.EncodeToString(h.Sum(nil)), ""
	}
	return "", fmt.Sprintf("no descriptor in %s names %s", dir, target)
}

// loopbackUp sets the loopback interface up (SIOCSIFFLAGS).
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var ifr struct {
		name  [syscall.IFNAMSIZ]byte
		flags uint16
		_     [22]byte
	}
	copy(ifr.name[:], "lo")
	ifr.flags = syscall.IFF_UP | syscall.IFF_LOOPBACK | syscall.IFF_RUNNING
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&ifr))); errno != 0 {
		return errno
	}
	return nil
}
