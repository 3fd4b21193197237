package ingest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The workers of these tests are this test binary: TestMain runs
// ServeParseWorker when ParseWorkerEnv is set, with workerHook as
// testHookParse.

// testParsers starts a pool of workers that are this test binary.
func testParsers(t testing.TB, opt ParserOptions) *Parsers {
	t.Helper()
	opt.Command = []string{os.Args[0]}
	p, err := NewParsers(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// Markers a test file starts with to make the worker misbehave as a
// hostile reader would.
const (
	markHang       = "REQA-TEST-HANG"         // loops forever
	markPanic      = "REQA-TEST-PANIC"        // panics (recovered)
	markGoPanic    = "REQA-TEST-GOPANIC"      // panics in a goroutine: the process dies
	markOOM        = "REQA-TEST-OOM"          // allocates until the memory bound kills it
	markFatal      = "REQA-TEST-FATAL"        // a Go fatal error (concurrent map writes)
	markBigAnswer  = "REQA-TEST-BIG"          // nothing odd: a big document
	markSlowCPU    = "REQA-TEST-SPIN"         // spins, checking nothing
	markExitQuietl = "REQA-TEST-EXIT-QUIETLY" // exits without a word
)

// hoard keeps what markOOM allocates.
var hoard [][]byte

// workerHook misbehaves on a marker.
func workerHook(data []byte) {
	switch {
	case bytes.HasPrefix(data, []byte(markHang)):
		select {}
	case bytes.HasPrefix(data, []byte(markSlowCPU)):
		for x := 0; ; x++ {
			if x < 0 {
				return
			}
		}
	case bytes.HasPrefix(data, []byte(markPanic)):
		panic("a reader's bug")
	case bytes.HasPrefix(data, []byte(markGoPanic)):
		go panic("a reader's goroutine's bug")
		select {}
	case bytes.HasPrefix(data, []byte(markOOM)):
		for {
			b := make([]byte, 16<<20)
			for i := range b {
				b[i] = byte(i)
			}
			hoard = append(hoard, b)
		}
	case bytes.HasPrefix(data, []byte(markFatal)):
		m := map[int]int{}
		for range 4 {
			go func() {
				for i := 0; ; i++ {
					m[i%100] = i
				}
			}()
		}
		select {}
	case bytes.HasPrefix(data, []byte(markExitQuietl)):
		os.Exit(7)
	}
}

// TestParsersSameCorpus reads documents of every format in process and
// in workers: the corpora, files and warnings must be identical.
func TestParsersSameCorpus(t *testing.T) {
	docs := writeFiles(t, nil)
	for _, dir := range []string{"testdata/docs", "testdata/corpus", "document/testdata", "document/rst/testdata", "document/roff/testdata", "document/info/testdata"} {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(docs, strings.ReplaceAll(dir, "/", "_")+"_"+e.Name()), b, 0o644)
		}
	}
	os.WriteFile(filepath.Join(docs, "manual.pdf"), generatedPDF(t), 0o644)
	os.WriteFile(filepath.Join(docs, "book.epub"), epubBook(t), 0o644)
	os.WriteFile(filepath.Join(docs, "word.docx"), wordDoc(t), 0o644)
	os.WriteFile(filepath.Join(docs, "bad.md"), []byte("fine\n\xff\n"), 0o644)
	os.WriteFile(filepath.Join(docs, "empty.html"), []byte("<html><nav>menu</nav></html>"), 0o644)
	inputs := [][]string{{docs}}
	// The docs benchmark's sources, when fetched (make docsqa-src).
	if src, err := filepath.Abs("../third_party/docsqa/src"); err == nil {
		if _, err := os.Stat(src); err == nil && !testing.Short() {
			inputs = append(inputs, []string{src})
		}
	}
	p := testParsers(t, ParserOptions{})
	for _, in := range inputs {
		want, err := ReadInputsContext(context.Background(), in, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadInputsContext(context.Background(), in, ReadOptions{Parsers: p})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the corpus read in workers differs from the one read in process", in)
			if !reflect.DeepEqual(got.Files, want.Files) {
				t.Errorf("files:\n got %v\nwant %v", got.Files, want.Files)
			}
			if !reflect.DeepEqual(got.Warnings, want.Warnings) {
				t.Errorf("warnings:\n got %q\nwant %q", got.Warnings, want.Warnings)
			}
		}
		t.Logf("%s: %s, %d sentences", in, got.FileSummary(), len(got.Sentences))
	}
}

// TestParsersContainFailures runs a reader that hangs, spins, panics (in
// its goroutine or in another), exhausts memory, hits a Go fatal error or
// exits: each costs its file — an *InputError wrapping the right sentinel,
// within its budget — and the pool goes on with the next file.
func TestParsersContainFailures(t *testing.T) {
	// The cases that are not about time get a long budget: a loaded
	// machine must not turn them into timeouts.
	short := testParsers(t, ParserOptions{Timeout: time.Second, Memory: MinParseMemory, Workers: 1})
	long := testParsers(t, ParserOptions{Timeout: time.Minute, Memory: MinParseMemory, Workers: 1})
	for _, tc := range []struct {
		mark string
		want error
		msg  string
	}{
		{markHang, ErrReaderTimeout, "did not finish within 1s"},
		{markSlowCPU, ErrReaderTimeout, ""},
		{markPanic, ErrReaderCrashed, "panic: a reader's bug"},
		{markGoPanic, ErrReaderCrashed, "panic: a reader's goroutine's bug"},
		{markOOM, ErrReaderMemory, "more than its 128 MiB of memory"},
		{markFatal, ErrReaderCrashed, "fatal error: concurrent map writes"},
		{markExitQuietl, ErrReaderCrashed, "exit status 7"},
	} {
		t.Run(tc.mark, func(t *testing.T) {
			p := long
			if errors.Is(tc.want, ErrReaderTimeout) {
				p = short
			}
			start := time.Now()
			_, _, err := p.Parse(context.Background(), "bad.md", "md", []byte(tc.mark+"\n\nSome text.\n"), nil)
			took := time.Since(start)
			var ie *InputError
			if !errors.As(err, &ie) || !errors.Is(err, tc.want) || !errors.Is(err, ErrReaderFailed) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %v, want an *InputError wrapping %v saying %q", err, tc.want, tc.msg)
			}
			if p == short && took > 5*time.Second {
				t.Errorf("took %v", took)
			}
			t.Logf("%v after %v", err, took.Round(time.Millisecond))
			d, _, err := p.Parse(context.Background(), "good.md", "md", []byte("# Fine\n\nThe next file is read.\n"), nil)
			if err != nil || len(d.Sections) == 0 {
				t.Fatalf("next file: %v", err)
			}
		})
	}
}

// TestParsersCancel cancels a parse that hangs: it returns at once with
// the context's error, the worker killed.
func TestParsersCancel(t *testing.T) {
	p := testParsers(t, ParserOptions{Timeout: -1})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, _, err := p.Parse(ctx, "x.md", "md", []byte(markHang), nil)
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Fatalf("got %v after %v", err, time.Since(start))
	}
	p.Close()
	if _, _, err := p.Parse(context.Background(), "x.md", "md", []byte("text"), nil); err == nil {
		t.Fatal("Parse after Close succeeded")
	}
}

// TestParsersInDirectory reads a directory holding a file whose reader
// hangs and one whose reader exhausts memory beside ordinary files: both
// are skipped and named with the reason, the others read.
func TestParsersInDirectory(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.md":    "# A\n\nThe first file is fine.\n",
		"hang.md": markHang + "\n",
		"oom.md":  markOOM + "\n",
		"z.md":    "# Z\n\nThe last file is fine too.\n",
	})
	// Long enough for oom.md to run out of memory on a loaded machine.
	p := testParsers(t, ParserOptions{Timeout: 4 * time.Second, Memory: MinParseMemory})
	c, err := ReadInputsContext(context.Background(), []string{dir}, ReadOptions{Parsers: p})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.FileSummary(); got != "files: md 2 read, 2 skipped" {
		t.Errorf("summary %q", got)
	}
	for _, f := range c.Files {
		switch filepath.Base(f.Path) {
		case "hang.md":
			if f.Status != FileSkipped || !strings.Contains(f.Reason, "did not finish") {
				t.Errorf("%+v", f)
			}
		case "oom.md":
			if f.Status != FileSkipped || !strings.Contains(f.Reason, "memory") {
				t.Errorf("%+v", f)
			}
		}
	}
	if len(c.Sentences) != 2 {
		t.Errorf("%d sentences, want 2", len(c.Sentences))
	}
	// Named on the command line, such a file is an error.
	_, err = ReadInputsContext(context.Background(), []string{filepath.Join(dir, "hang.md")}, ReadOptions{Parsers: p})
	if !errors.Is(err, ErrReaderTimeout) {
		t.Errorf("named: %v", err)
	}
}

func TestParseMemoryFor(t *testing.T) {
	for _, tc := range []struct{ limit, want int64 }{
		{0, DefaultParseMemory},
		{256 << 20, MinParseMemory},
		{1 << 30, 256 << 20},
		{64 << 30, MaxParseMemory},
	} {
		if got := ParseMemoryFor(tc.limit); got != tc.want {
			t.Errorf("ParseMemoryFor(%d) = %d, want %d", tc.limit, got, tc.want)
		}
	}
}

// BenchmarkReadDocsQA reads the docs benchmark's sources (make
// docsqa-src) in process and in parser workers: the cost of isolation.
func BenchmarkReadDocsQA(b *testing.B) {
	src, _ := filepath.Abs("../third_party/docsqa/src")
	if _, err := os.Stat(src); err != nil {
		// May skip in CI: a benchmark (make test runs none); its sources come from make docsqa-src.
		b.Skip("no docs benchmark sources (make docsqa-src)")
	}
	for _, mode := range []string{"in-process", "workers"} {
		b.Run(mode, func(b *testing.B) {
			var opt ReadOptions
			if mode == "workers" {
				opt.Parsers = testParsers(b, ParserOptions{})
			}
			for b.Loop() {
				if _, err := ReadInputsContext(context.Background(), []string{src}, opt); err != nil {
					b.Fatal(err)
				}
				if opt.Parsers != nil {
					// Each run starts its own worker, as `reqa index` does.
					opt.Parsers.Close()
					opt.Parsers = testParsers(b, ParserOptions{})
				}
			}
		})
	}
}
