package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

var (
	fuzzDirOnce sync.Once
	fuzzDir     string
	fuzzDirErr  error
)

// fuzzRead writes data to a file called name in a fresh directory, reads it
// with the reader ReadInputs would pick, and checks the outcome: never a
// panic; an error is always an *InputError about that file; a corpus it
// accepts is consistent (every sentence a non-empty span of its context,
// every text valid UTF-8, every context with a file:line or file#path
// source).
func fuzzRead(t *testing.T, name string, data []byte, gz bool) {
	// One directory per process, reused by every input: a fresh t.TempDir
	// per input costs more than reading it.
	fuzzDirOnce.Do(func() { fuzzDir, fuzzDirErr = os.MkdirTemp("", "reqa-ingest-fuzz-") })
	if fuzzDirErr != nil {
		t.Fatal(fuzzDirErr)
	}
	dir := fuzzDir
	if gz {
		data = gzipped(t, data)
		name += ".gz"
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := readOne(p)
	if err != nil {
		var ie *InputError
		if !errors.As(err, &ie) || !errors.Is(err, ErrBadInput) {
			t.Fatalf("error is not an *InputError: %T %v", err, err)
		}
		if ie.File != p || ie.Line < 0 || ie.Msg == "" {
			t.Fatalf("error does not name the file or a line: %+v", ie)
		}
		return
	}
	if len(c.Sentences) == 0 || len(c.Contexts) == 0 {
		t.Fatalf("accepted with %d sentences, %d contexts", len(c.Sentences), len(c.Contexts))
	}
	for i, ctx := range c.Contexts {
		if ctx.ID != uint32(i) || !utf8.ValidString(ctx.Text) || !utf8.ValidString(ctx.Title) || !strings.HasPrefix(ctx.Source, p) {
			t.Fatalf("context %d: %+v", i, ctx)
		}
	}
	for i, s := range c.Sentences {
		if s.ID != uint32(i) || int(s.ContextID) >= len(c.Contexts) {
			t.Fatalf("sentence %d: %+v", i, s)
		}
		text := c.Contexts[s.ContextID].Text
		if s.Start < 0 || s.Start >= s.End || s.End > len(text) {
			t.Fatalf("sentence %d: span [%d,%d) of a %d-byte context", i, s.Start, s.End, len(text))
		}
		if strings.TrimSpace(text[s.Start:s.End]) == "" {
			t.Fatalf("sentence %d is blank: %q", i, text[s.Start:s.End])
		}
	}
}

// FuzzReadText feeds arbitrary bytes to the plain-text and Markdown reader
// (mode bit 0: Markdown; bit 1: gzipped); plain text that reads as
// Markdown or reStructuredText goes to those readers.
func FuzzReadText(f *testing.F) {
	for _, p := range []string{"testdata/corpus/bridges.txt", "testdata/corpus/lighthouses.md"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0))
		f.Add(b, uint8(1))
	}
	for _, s := range []string{
		"", "\n\n \n", "One.\r\nTwo.\r\n\r\nThree.", "# Title\n\nText [link](http://x) and **bold** `code`.\n",
		"```\ncode\n```\nafter.", "~~~\nunclosed fence\n\ntext", "| a | b |\n---\n<!-- c -->\n> quote. - item\n",
		"bad \xc3\x28 utf8\n", "\xef\xbb\xbfBOM text.", "Dr. Smith. Mr. X. e.g. i.e. 3.14 U.S.A.", "\x00\x01\x02",
		"#\t#\n#######\n  #  \n", strings.Repeat("a", 5000) + ".",
		// Plain text that reads as reStructuredText or Markdown (textFormat).
		"Tool\n====\n\n.. note:: Careful.\n\n.. _x: y\n", "# A\n\n## B\n\n- item\n", "# A\n```\n# b\n```\n",
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(1))
	}
	f.Add([]byte("gzipped text."), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		name := "in.txt"
		if mode&1 != 0 {
			name = "in.md"
		}
		fuzzRead(t, name, data, mode&2 != 0)
	})
}

// FuzzReadJSONL feeds arbitrary bytes to the JSONL reader ({"id","title",
// "text"} per line).
func FuzzReadJSONL(f *testing.F) {
	b, err := os.ReadFile("testdata/corpus/insects.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b, false)
	for _, s := range []string{
		"", "\n", "{}", "[]", "null", `{"text": null}`, `{"text": "x."}`, `{"text": 5}`, `{"id": 3.5, "text": "a."}`,
		`{"id": 99999999999999999999, "text": "a."}`, `{"id": -1, "text": "a."}`, `{"id": "x", "title": ["t"], "text": "a."}`,
		`{"text": "a.\u0000b."}`, `{"text": "\ud800 lone surrogate."}`, `{"text": "é."}` + "\r\n" + `{"text": "b."}`,
		`{"text": "a."}{"text": "b."}`, `{"text": "a.", "text": "b."}`, "{\"text\": \"\xff\"}", `{"text": "   "}`,
		`{"text": "` + strings.Repeat("word ", 1000) + `"}`, "{\"text\":\n\"split\"}",
	} {
		f.Add([]byte(s), false)
	}
	f.Add([]byte(`{"text": "gz."}`), true)
	f.Fuzz(func(t *testing.T, data []byte, gz bool) {
		fuzzRead(t, "in.jsonl", data, gz)
	})
}

// FuzzReadSQuAD feeds arbitrary bytes to the SQuAD JSON reader.
func FuzzReadSQuAD(f *testing.F) {
	for _, s := range []string{
		`{"version": "1.1", "data": [{"title": "T", "paragraphs": [{"context": "One. Two.", "qas": [{"id": "q", "question": "Q?", "answers": [{"text": "One", "answer_start": 0}]}]}]}]}`,
		`{"data": []}`, `{"data": null}`, `{"data": [{}]}`, `{"data": [{"paragraphs": [{}]}]}`, `{"data": [{"paragraphs": [{"context": ""}]}]}`,
		`{"data": [{"title": 3}]}`, `{"data": [{"paragraphs": [{"context": "x.", "qas": [{"answers": [{"answer_start": "0"}]}]}]}]}`,
		`{"data": [{"paragraphs": [{"context": "x.", "qas": [{"answers": [{"answer_start": 1e99}]}]}]}]}`,
		`[]`, `"data"`, `{"data": {}}`, "{\"data\": [\n{\"paragraphs\": [\n{\"context\": \"a\xffb\"}]}]}", `{"data": [`, ``,
		`{"version": 2, "data": [{"title": "T", "paragraphs": [{"context": "Über. Ça va."}]}]}`,
	} {
		f.Add([]byte(s), false)
	}
	f.Add([]byte(`{"data": [{"paragraphs": [{"context": "gz."}]}]}`), true)
	f.Fuzz(func(t *testing.T, data []byte, gz bool) {
		fuzzRead(t, "in.json", data, gz)
	})
}

// TestMain runs a parser worker when ParseWorkerEnv is set (see
// testParsers), a hostile trial's child process (see hostileChild) when
// REQA_INGEST_CHILD is set, and removes the fuzz targets' directory when
// the process ends.
func TestMain(m *testing.M) {
	if os.Getenv(ParseWorkerEnv) == "1" {
		testHookParse = workerHook
		os.Exit(ServeParseWorker(os.Stdin, os.Stdout))
	}
	if os.Getenv("REQA_INGEST_CHILD") != "" {
		os.Exit(hostileChild())
	}
	code := m.Run()
	if fuzzDir != "" {
		os.RemoveAll(fuzzDir)
	}
	os.Exit(code)
}

// readOne reads the file p the way ReadInputs reads a file named on the
// command line, without the final "no sentences" check.
func readOne(p string) (*Corpus, error) {
	r, err := newReader(context.Background(), ReadOptions{})
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	kind, _ := kindOfName(p)
	if kind == "" {
		kind = "txt"
	}
	err = r.readFile(p, kind, st)
	return r.c, err
}
