package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/reqa/reqa/ingest/document"
)

// Parser workers: documents are parsed in child processes (the program
// re-executed in a worker mode, as Apache Tika's ForkParser does), so that
// a reader that loops, panics, exhausts memory — even with a Go fatal
// error, which no recover catches — or runs past its budget costs one file,
// never the run. See [Parsers].

// ParseWorkerEnv is set to "1" in a parser worker's environment; a test
// binary standing in for the program runs [ServeParseWorker] when it sees
// it (from TestMain, before the tests). ParseWorkerArg is the worker's
// first argument, for a program that dispatches on its arguments.
const (
	ParseWorkerEnv = "REQA_PARSE_WORKER"
	ParseWorkerArg = "__parse-worker"
	// parseMemoryEnv carries the worker's memory bound in bytes.
	parseMemoryEnv = "REQA_PARSE_MEMORY"
)

// Budgets of a document parse in a worker.
const (
	// DefaultParseTimeout is the wall-clock (and CPU) time a file may take
	// to parse, plus ParseTimePerMiB for every MiB of it.
	DefaultParseTimeout = 5 * time.Second
	ParseTimePerMiB     = 2 * time.Second
	// MinParseMemory and MaxParseMemory bound a worker's memory
	// ([ParseMemoryFor]); DefaultParseMemory is the bound with no memory
	// limit.
	MinParseMemory     = 128 << 20
	MaxParseMemory     = 4 << 30
	DefaultParseMemory = 2 << 30
	// parseSlack is address space a worker may map beyond its memory
	// bound: thread stacks, runtime metadata.
	parseSlack = 128 << 20
	// exitCPU is a worker's exit status when it exhausts its CPU budget.
	exitCPU = 86
)

// ErrReaderFailed is wrapped by the error for a document whose reader did
// not finish in its worker: it ran out of time (ErrReaderTimeout), of
// memory (ErrReaderMemory), or crashed (ErrReaderCrashed: a panic, a Go
// fatal error, a signal). Such a file is skipped in a directory.
var (
	ErrReaderFailed  = errors.New("document reader failed")
	ErrReaderTimeout = fmt.Errorf("%w: out of time", ErrReaderFailed)
	ErrReaderMemory  = fmt.Errorf("%w: out of memory", ErrReaderFailed)
	ErrReaderCrashed = fmt.Errorf("%w: crashed", ErrReaderFailed)
)

// ParseMemoryFor returns the memory bound of one parser worker under a
// build memory limit (0: none): a quarter of it, within MinParseMemory and
// MaxParseMemory (DefaultParseMemory without a limit).
func ParseMemoryFor(limit int64) int64 {
	if limit <= 0 {
		return DefaultParseMemory
	}
	return min(max(limit/4, MinParseMemory), MaxParseMemory)
}

// ParseWorkersFor returns how many parser workers fit a build memory limit
// (0: none) with a worker memory bound of mem: at most GOMAXPROCS, at
// most as many as keep the workers together under half the limit, at
// least one.
func ParseWorkersFor(limit, mem int64) int {
	n := runtime.GOMAXPROCS(0)
	if limit > 0 && mem > 0 {
		n = min(n, int(limit/2/mem))
	}
	return max(n, 1)
}

// ParserOptions configures [NewParsers].
type ParserOptions struct {
	// Command is a worker's command line: the program, re-executed, and
	// its arguments (e.g. the reqa binary and ParseWorkerArg). Workers
	// also get ParseWorkerEnv=1 in their environment.
	Command []string
	// Workers is the most workers run at once (0: GOMAXPROCS).
	Workers int
	// Timeout is a file's wall-clock and CPU budget, plus ParseTimePerMiB
	// per MiB of the file (0: DefaultParseTimeout; negative: none).
	Timeout time.Duration
	// Memory bounds what a worker may allocate, in bytes: a Go memory
	// limit and, with room for the runtime, its address space (RLIMIT_AS)
	// — what the reader decodes counts, not the file's size (0:
	// DefaultParseMemory).
	Memory int64
}

// Parsers is a pool of parser workers: child processes, each parsing one
// document at a time, reused across files. A request sends the format,
// name and bytes of a file; the worker answers with the parsed
// document.Document. Each worker runs with RLIMIT_AS and a Go memory limit
// (ParserOptions.Memory) and a per-file RLIMIT_CPU; the pool kills a worker
// that passes its file's wall-clock budget, and a worker that dies (out of
// memory, a fatal error, a signal) is replaced by a new one on the next
// file. Cancelling a Parse's context kills its worker at once; Close kills
// them all. Parsers is safe for concurrent use.
type Parsers struct {
	opt   ParserOptions
	slots chan struct{}
	mu    sync.Mutex
	idle  []*worker
	live  map[*worker]bool
	done  bool
}

// NewParsers returns a pool of parser workers; none is started before the
// first Parse.
func NewParsers(opt ParserOptions) (*Parsers, error) {
	if len(opt.Command) == 0 || opt.Command[0] == "" {
		return nil, errors.New("parser workers: no command")
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	if opt.Timeout == 0 {
		opt.Timeout = DefaultParseTimeout
	}
	if opt.Memory <= 0 {
		opt.Memory = DefaultParseMemory
	}
	return &Parsers{opt: opt, slots: make(chan struct{}, opt.Workers), live: map[*worker]bool{}}, nil
}

// Close kills every worker; Parse fails after it.
func (p *Parsers) Close() error {
	p.mu.Lock()
	p.done = true
	ws := make([]*worker, 0, len(p.live))
	for w := range p.live {
		ws = append(ws, w)
	}
	p.idle = nil
	p.mu.Unlock()
	for _, w := range ws {
		w.kill()
	}
	return nil
}

// budget returns the wall-clock budget of a file of n bytes (0: none).
func (p *Parsers) budget(n int) time.Duration {
	if p.opt.Timeout < 0 {
		return 0
	}
	return p.opt.Timeout + time.Duration(float64(ParseTimePerMiB)*float64(n)/(1<<20))
}

// parseRequest is what the pool sends a worker ahead of a file's bytes.
type parseRequest struct {
	Kind, Name string
	CPU        time.Duration // 0: no CPU budget
}

// parseResponse is a worker's answer: the document and the format it was
// read in, or the error.
type parseResponse struct {
	Doc    *document.Document
	Format document.Format
	Err    *wireError
}

// wireError is an *InputError (or a recovered panic) sent by a worker.
type wireError struct {
	File, Field, Msg string
	Line             int
	Panic            bool
}

// Parse parses data, the bytes of the file name, as a document of kind in
// a worker, as readDocument would in process. admit, if set, is called with
// the size of the worker's answer before it is decoded, and its error
// returned: the caller's memory budget counts the decoded document. A
// reader that fails in its worker returns an *InputError wrapping
// ErrReaderTimeout, ErrReaderMemory or ErrReaderCrashed.
func (p *Parsers) Parse(ctx context.Context, name, kind string, data []byte, admit func(int64) error) (*document.Document, document.Format, error) {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, "", fmt.Errorf("parse %s: %w", name, ctx.Err())
	}
	defer func() { <-p.slots }()
	w, err := p.get()
	if err != nil {
		return nil, "", fmt.Errorf("parse %s: %w", name, err)
	}
	budget := p.budget(len(data))
	type result struct {
		body []byte
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		body, err := w.roundTrip(parseRequest{Kind: kind, Name: name, CPU: budget}, data, p.opt.Memory+parseSlack)
		ch <- result{body, err}
	}()
	var timeout <-chan time.Time
	if budget > 0 {
		t := time.NewTimer(budget)
		defer t.Stop()
		timeout = t.C
	}
	var res result
	select {
	case res = <-ch:
	case <-ctx.Done():
		p.discard(w)
		return nil, "", fmt.Errorf("parse %s: %w", name, ctx.Err())
	case <-timeout:
		p.discard(w)
		return nil, "", badInputOf(ErrReaderTimeout, name, 0, "", "the %s reader did not finish within %v; skipped (--parse-timeout sets the budget)", kind, budget.Round(100*time.Millisecond))
	}
	if res.err != nil {
		p.discard(w)
		if err := ctx.Err(); err != nil {
			return nil, "", fmt.Errorf("parse %s: %w", name, err)
		}
		return nil, "", w.failure(name, kind, budget, p.opt.Memory, res.err)
	}
	p.put(w)
	if admit != nil {
		if err := admit(int64(len(res.body))); err != nil {
			return nil, "", err
		}
	}
	var resp parseResponse
	if err := gob.NewDecoder(bytes.NewReader(res.body)).Decode(&resp); err != nil {
		return nil, "", badInputOf(ErrReaderCrashed, name, 0, "", "the %s reader's worker answered garbage: %v", kind, err)
	}
	if e := resp.Err; e != nil {
		if e.Panic {
			return nil, resp.Format, badInputOf(ErrReaderCrashed, name, 0, "", "the %s reader crashed: %s; skipped", kind, e.Msg)
		}
		return nil, resp.Format, &InputError{File: e.File, Line: e.Line, Field: e.Field, Msg: e.Msg}
	}
	if resp.Doc == nil {
		return nil, resp.Format, badInputOf(ErrReaderCrashed, name, 0, "", "the %s reader's worker answered no document", kind)
	}
	return resp.Doc, resp.Format, nil
}

// get returns an idle worker, or starts one.
func (p *Parsers) get() (*worker, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return nil, errors.New("parser workers closed")
	}
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle = p.idle[:n-1]
		return w, nil
	}
	w, err := startWorker(p.opt)
	if err != nil {
		return nil, err
	}
	p.live[w] = true
	return w, nil
}

// put returns a worker to the idle list.
func (p *Parsers) put(w *worker) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		go w.kill()
		return
	}
	p.idle = append(p.idle, w)
}

// discard kills a worker and forgets it.
func (p *Parsers) discard(w *worker) {
	w.kill()
	p.mu.Lock()
	delete(p.live, w)
	p.mu.Unlock()
}

// worker is one parser child process.
type worker struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *tailBuffer
	exited chan struct{} // closed once the process is waited for
}

func startWorker(opt ParserOptions) (*worker, error) {
	cmd := exec.Command(opt.Command[0], opt.Command[1:]...)
	cmd.Env = append(os.Environ(), ParseWorkerEnv+"=1", parseMemoryEnv+"="+strconv.FormatInt(opt.Memory, 10))
	// Its own process group: a terminal's Ctrl-C goes to reqa, which
	// kills its workers; and it dies with reqa.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	w := &worker{cmd: cmd, stderr: &tailBuffer{max: 8 << 10}, exited: make(chan struct{})}
	cmd.Stderr = w.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start parser worker: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start parser worker: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start parser worker: %w", err)
	}
	w.stdin, w.stdout = in, bufio.NewReaderSize(out, 64<<10)
	go func() {
		cmd.Wait()
		close(w.exited)
	}()
	return w, nil
}

// roundTrip sends one request and returns the answer's bytes (at most
// max).
func (w *worker) roundTrip(req parseRequest, data []byte, max int64) ([]byte, error) {
	w.stderr.reset()
	var hdr bytes.Buffer
	if err := gob.NewEncoder(&hdr).Encode(req); err != nil {
		return nil, err
	}
	if err := writeFrame(w.stdin, hdr.Bytes()); err != nil {
		return nil, err
	}
	if err := writeFrame(w.stdin, data); err != nil {
		return nil, err
	}
	return readFrame(w.stdout, max)
}

// kill ends the worker's process (SIGKILL) and waits for it.
func (w *worker) kill() {
	if w.cmd.Process != nil {
		w.cmd.Process.Kill()
	}
	w.stdin.Close()
	select {
	case <-w.exited:
	case <-time.After(2 * time.Second):
	}
}

// failure is the error for a file whose worker died or broke the
// protocol: it waits for the process to end and says why it did.
func (w *worker) failure(name, kind string, budget time.Duration, mem int64, ioErr error) error {
	w.cmd.Process.Kill() // if it still runs, it is of no more use
	select {
	case <-w.exited:
	case <-time.After(2 * time.Second):
	}
	tail := w.stderr.String()
	st := w.cmd.ProcessState
	status := "it ended"
	if st != nil {
		status = st.String()
	}
	switch {
	case st != nil && st.ExitCode() == exitCPU, st != nil && signalOf(st) == syscall.SIGXCPU:
		return badInputOf(ErrReaderTimeout, name, 0, "", "the %s reader used up its CPU budget (%v); skipped (--parse-timeout sets the budget)", kind, budget.Round(100*time.Millisecond))
	case strings.Contains(tail, "out of memory") || strings.Contains(tail, "cannot allocate memory"):
		return badInputOf(ErrReaderMemory, name, 0, "", "the %s reader needed more than its %s of memory; skipped (--memory-limit sets it: a quarter of it per reader)", kind, HumanBytes(mem))
	case st != nil && signalOf(st) == syscall.SIGKILL:
		// Not by the pool: the kernel (OOM killer, RLIMIT_CPU's hard limit).
		return badInputOf(ErrReaderCrashed, name, 0, "", "the %s reader was killed (SIGKILL: out of memory or CPU?); skipped", kind)
	}
	why := crashLine(tail)
	if why == "" {
		why = status
		if ioErr != nil && st == nil {
			why = ioErr.Error()
		}
	}
	return badInputOf(ErrReaderCrashed, name, 0, "", "the %s reader crashed (%s); skipped", kind, why)
}

// signalOf returns the signal that ended a process, 0 if none did.
func signalOf(st *os.ProcessState) syscall.Signal {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal()
	}
	return 0
}

// crashLine picks the line of a worker's stderr that says why it died.
func crashLine(tail string) string {
	for _, l := range strings.Split(tail, "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"fatal error:", "panic:", "runtime:"} {
			if strings.HasPrefix(l, p) {
				if len(l) > 200 {
					l = l[:200] + "…"
				}
				return l
			}
		}
	}
	return ""
}

// writeFrame writes b with its length before it (8 bytes, big-endian).
func writeFrame(w io.Writer, b []byte) error {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	_, err := w.Write(b)
	return err
}

// readFrame reads one frame of at most max bytes.
func readFrame(r io.Reader, max int64) ([]byte, error) {
	var n [8]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint64(n[:])
	if size > uint64(max) {
		return nil, fmt.Errorf("frame of %d bytes, over %d", size, max)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	return b, nil
}

// tailBuffer keeps the first max bytes written to it (a Go crash says why
// first, then the goroutines' stacks).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if room := t.max - len(t.b); room > 0 {
		t.b = append(t.b, p[:min(len(p), room)]...)
	}
	return len(p), nil
}

func (t *tailBuffer) reset() {
	t.mu.Lock()
	t.b = t.b[:0]
	t.mu.Unlock()
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// ServeParseWorker is a parser worker's main loop: it reads requests from
// in and writes answers to out until in ends, and returns the exit status.
// It bounds its own memory (the bound the pool passes in its environment:
// a Go memory limit, and RLIMIT_AS with room for the runtime) and each
// file's CPU time (RLIMIT_CPU; on SIGXCPU it exits with a status the pool
// knows). The program calls it in worker mode (reqa __parse-worker; a test
// binary from TestMain when ParseWorkerEnv is set).
func ServeParseWorker(in io.Reader, out io.Writer) int {
	if mem, err := strconv.ParseInt(os.Getenv(parseMemoryEnv), 10, 64); err == nil && mem > 0 {
		debug.SetMemoryLimit(mem)
		if vm := vmSize(); vm > 0 {
			lim := uint64(vm + mem + parseSlack)
			syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim})
		}
	}
	syscall.Setrlimit(syscall.RLIMIT_CORE, &syscall.Rlimit{})
	xcpu := make(chan os.Signal, 1)
	signal.Notify(xcpu, syscall.SIGXCPU)
	go func() {
		<-xcpu
		fmt.Fprintln(os.Stderr, "parser worker: CPU budget exhausted")
		os.Exit(exitCPU)
	}()
	// Terminal signals are the parent's to handle: it kills its workers.
	signal.Ignore(syscall.SIGINT, syscall.SIGQUIT)
	br := bufio.NewReaderSize(in, 64<<10)
	bw := bufio.NewWriterSize(out, 64<<10)
	for {
		hdr, err := readFrame(br, 1<<20)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0
			}
			fmt.Fprintln(os.Stderr, "parser worker:", err)
			return 1
		}
		var req parseRequest
		if err := gob.NewDecoder(bytes.NewReader(hdr)).Decode(&req); err != nil {
			fmt.Fprintln(os.Stderr, "parser worker: bad request:", err)
			return 1
		}
		data, err := readFrame(br, math.MaxInt64)
		if err != nil {
			fmt.Fprintln(os.Stderr, "parser worker:", err)
			return 1
		}
		setCPUBudget(req.CPU)
		resp := serveParse(req, data)
		setCPUBudget(0)
		data = nil
		var body bytes.Buffer
		if err := gob.NewEncoder(&body).Encode(resp); err != nil {
			fmt.Fprintln(os.Stderr, "parser worker: encode:", err)
			return 1
		}
		if err := writeFrame(bw, body.Bytes()); err != nil {
			return 1
		}
		if err := bw.Flush(); err != nil {
			return 1
		}
		if body.Len() > 8<<20 {
			resp, body = parseResponse{}, bytes.Buffer{}
			debug.FreeOSMemory()
		}
	}
}

// serveParse parses one request, a panic included.
func serveParse(req parseRequest, data []byte) (resp parseResponse) {
	defer func() {
		if v := recover(); v != nil {
			resp = parseResponse{Err: &wireError{File: req.Name, Msg: fmt.Sprintf("panic: %v", v), Panic: true}}
		}
	}()
	if testHookParse != nil {
		testHookParse(data)
	}
	d, format, err := parseDocument(req.Name, req.Kind, data)
	resp = parseResponse{Doc: d, Format: format}
	if err != nil {
		var ie *InputError
		if !errors.As(err, &ie) {
			ie = &InputError{File: req.Name, Msg: err.Error()}
		}
		resp.Doc, resp.Err = nil, &wireError{File: ie.File, Line: ie.Line, Field: ie.Field, Msg: ie.Msg}
	}
	return resp
}

// testHookParse, set by the tests' workers, sees each file's bytes before
// it is parsed (and may misbehave as a hostile reader would).
var testHookParse func(data []byte)

// setCPUBudget sets the soft RLIMIT_CPU to the CPU time used so far plus
// budget (0: no limit, up to the hard one).
func setCPUBudget(budget time.Duration) {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_CPU, &lim) != nil {
		return
	}
	lim.Cur = lim.Max
	if budget > 0 {
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
			used := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			// RLIMIT_CPU counts whole seconds: round up.
			lim.Cur = min(uint64((used+budget+time.Second-1)/time.Second), lim.Max)
		}
	}
	syscall.Setrlimit(syscall.RLIMIT_CPU, &lim)
}

// vmSize returns the process's address space size in bytes (VmSize), 0
// when unknown.
func vmSize() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmSize:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
