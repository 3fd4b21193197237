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

// The copied-binary test runs its serve client inside the network namespace
// by re-executing the test binary with REQA_COPYTEST_CLIENT=1.
func init() {
	if os.Getenv("REQA_COPYTEST_CLIENT") == "1" {
		os.Exit(copyServeClient(os.Getenv("REQA_COPYTEST_DIR"), os.Getenv("REQA_COPYTEST_INDEX"), os.Getenv("REQA_COPYTEST_Q")))
	}
}

// ortSource is the library the binary embeds, as make puts it in the tree.
var ortSource = filepath.Join("..", "..", "index", "encoder", "ortlib", "lib", "libonnxruntime.so.1")

// TestCopiedBinary is the appliance's acceptance test: a reqa binary and an
// index with embeddings, copied alone into an empty directory, must answer
// with `ask`, `eval` and `serve` and build a new index with `index`, run
// from that directory with no network (unshare -n), an empty HOME (the
// directory itself) and an empty environment. The ONNX Runtime library must
// be extracted into that HOME's cache, and nowhere else.
//
// The binary is built from this tree (so it is current); REQA_BIN names a
// prebuilt one instead (e.g. REQA_BIN=$PWD/bin/reqa after make build).
func TestCopiedBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the copied-binary test builds an 80 MB binary")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare not available")
	}
	if err := exec.Command(unshare, "-n", "true").Run(); err != nil {
		t.Skipf("cannot create a network namespace here (needs root): %v", err)
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
		if !strings.HasPrefix(rep.MappedORT, filepath.Join(empty, ".cache")+"/") {
			t.Fatalf("serve loaded ONNX Runtime from %q, want a file under %s/.cache", rep.MappedORT, empty)
		}
		if rep.ExitError != "" {
			t.Fatalf("serve after SIGTERM: %s\n%s", rep.ExitError, rep.ServerStderr)
		}
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

	// The library was extracted into the empty HOME's cache and nowhere
	// else: the directory holds exactly what was copied, what the test
	// wrote and that one library; the fallback location and the test
	// user's own cache are untouched.
	var files []string
	var lib string
	filepath.WalkDir(empty, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Error(err)
			return nil
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(empty, p)
			files = append(files, rel)
			if d.Name() == "libonnxruntime.so.1" {
				lib = p
			}
		}
		return nil
	})
	sort.Strings(files)
	var want []string
	if lib != "" {
		rel, _ := filepath.Rel(empty, lib)
		want = append(want, rel)
	}
	want = append(want, "notes.reqa", "notes.txt", "reqa", "tiny.reqa")
	sort.Strings(want)
	if lib == "" || strings.Join(files, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the directory holds %q; want the copied binary and index, the test's notes, its index and one ONNX Runtime library", files)
	}
	dir := filepath.Dir(lib)
	if filepath.Dir(dir) != filepath.Join(empty, ".cache", "reqa") || !strings.HasPrefix(filepath.Base(dir), "ort-") {
		t.Fatalf("library extracted to %s, want %s/.cache/reqa/ort-HASH/", lib, empty)
	}
	sum := fileSHA256(t, lib)
	if !strings.HasPrefix(sum, strings.TrimPrefix(filepath.Base(dir), "ort-")) {
		t.Fatalf("extracted library hashes to %s, its directory names %s", sum, filepath.Base(dir))
	}
	if os.Getenv("REQA_BIN") == "" && sum != fileSHA256(t, ortSource) {
		t.Fatalf("extracted library differs from %s", ortSource)
	}
	if after := snapshot(elsewhere); after != before {
		t.Fatalf("ONNX Runtime files outside the empty HOME changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	t.Logf("binary %s (%.1f MiB); library extracted to %s", bin, float64(fileSize(t, bin))/(1<<20), lib)
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
		t.Skip("ONNX Runtime and the model are not in this tree, so no self-contained binary can be built: " +
			"run `make assets` (or `make test`), or set REQA_BIN to a binary built by `make build`")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
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
	ExitError    string   `json:"exit_error,omitempty"`
	ServerStderr string   `json:"server_stderr"`
}

// copyServeClient runs inside the network namespace: it starts ./reqa serve
// in dir (empty environment but HOME=dir and PATH), reads the address from
// its --json line, asks question, notes which ONNX Runtime file the server
// mapped, stops it with SIGTERM and prints a serveClientReport.
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
