package ingest

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	xunicode "golang.org/x/text/encoding/unicode"

	"github.com/reqa/reqa/index"
)

// writeFiles writes name → content files into a fresh directory and
// returns it.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// gzipped returns data gzipped.
func gzipped(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	if _, err := z.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sentenceTexts returns the texts of c's sentences.
func sentenceTexts(c *Corpus) []string {
	var out []string
	for _, s := range c.Sentences {
		out = append(out, s.Text(c.Contexts[s.ContextID]))
	}
	return out
}

// mkfifo makes a named pipe at p and returns p.
func mkfifo(t testing.TB, p string) string {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	return p
}

// TestReadNotRegular checks a FIFO or a device named as input is refused
// before it is opened (reading a FIFO nobody writes to would block).
func TestReadNotRegular(t *testing.T) {
	for _, p := range []string{mkfifo(t, filepath.Join(t.TempDir(), "pipe.txt")), "/dev/null", "/dev/zero"} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		_, err := ReadInputs([]string{p})
		var ie *InputError
		if !errors.Is(err, ErrNotRegular) || !errors.As(err, &ie) || ie.File != p || !strings.Contains(err.Error(), "give - and redirect") {
			t.Fatalf("%s: got %v, want ErrNotRegular naming the file and the way to read a pipe", p, err)
		}
	}
}

// TestReadStdin checks "-" reads standard input, of the kind given or
// sniffed, gzipped or not, and that its sentences name stdin as source.
func TestReadStdin(t *testing.T) {
	cases := []struct {
		name, kind string
		data       []byte
		want       []string
	}{
		{"text sniffed", "", []byte("First sentence here. Second one.\n\nThird paragraph.\n"), []string{"First sentence here.", "Second one.", "Third paragraph."}},
		{"jsonl sniffed", "", []byte(`{"id": 1, "text": "A record."}` + "\n" + `{"id": 2, "text": "Another."}` + "\n"), []string{"A record.", "Another."}},
		{"squad sniffed", "", []byte("{\"data\": [{\"title\": \"T\",\n \"paragraphs\": [{\"context\": \"Squad text.\"}]}]}"), []string{"Squad text."}},
		{"markdown given", "md", []byte("# Head\n\nSome **bold** text.\n"), []string{"Some bold text."}},
		{"gzipped text", "", gzipped(t, []byte("Zipped words.\n")), []string{"Zipped words."}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ReadInputsContext(context.Background(), []string{"-"}, ReadOptions{Stdin: bytes.NewReader(tc.data), StdinKind: tc.kind})
			if err != nil {
				t.Fatal(err)
			}
			if got := sentenceTexts(c); strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("sentences %q, want %q", got, tc.want)
			}
			if !strings.HasPrefix(c.Contexts[0].Source, stdinName) || c.Sources[0] != stdinName {
				t.Fatalf("source %q, sources %q", c.Contexts[0].Source, c.Sources)
			}
		})
	}
	if _, err := ReadInputsContext(context.Background(), []string{"-", "-"}, ReadOptions{Stdin: strings.NewReader("x.")}); err == nil {
		t.Fatal("stdin given twice accepted")
	}
	if _, err := ReadInputsContext(context.Background(), []string{"-"}, ReadOptions{Stdin: strings.NewReader("x."), StdinKind: "doc"}); err == nil {
		t.Fatal("unknown stdin kind accepted")
	}
}

// TestReadCancelBlockedStdin checks a read blocked on a pipe nobody writes
// to ends when the context is cancelled.
func TestReadCancelBlockedStdin(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := ReadInputsContext(ctx, []string{"-"}, ReadOptions{Stdin: pr, StdinKind: "txt"})
		done <- err
	}()
	pw.Write([]byte("Some text arrives, then nothing more.\n"))
	time.Sleep(20 * time.Millisecond)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

// TestReadCancelFile checks a cancelled context stops reading files.
func TestReadCancelFile(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadInputsContext(ctx, []string{"testdata/corpus"}, ReadOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

func utf16Bytes(t testing.TB, s string, order xunicode.Endianness, bom xunicode.BOMPolicy) []byte {
	t.Helper()
	b, err := xunicode.UTF16(order, bom).NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReadNotText checks binary input is refused, UTF-16 decoded and a
// UTF-8 byte-order mark dropped.
func TestReadNotText(t *testing.T) {
	const text = "Lighthouses guide ships. Keepers trimmed the wicks.\n\nÜber alles: a café.\n"
	want := "Lighthouses guide ships.|Keepers trimmed the wicks.|Über alles: a café."
	long := strings.Repeat("A line of plain text.\n", 1000) // 22 KB
	int16s := make([]byte, 4096)                            // little numbers as int16: not text
	for i := 0; i < len(int16s); i += 2 {
		int16s[i] = byte(1 + i%30)
	}
	cases := []struct {
		name    string
		data    []byte
		want    string // sentences joined by |, or "" for an ErrBinary refusal
		errLine int
	}{
		{"NUL in the first 8 KB", []byte("Text.\n\x00\x01binary"), "", 2},
		{"NUL after 8 KB", []byte(long + "tail\x00"), "", 1001},
		{"ELF", []byte("\x7fELF\x02\x01\x01\x00\x00\x00"), "", 1},
		{"int16 array", int16s, "", 1},
		{"UTF-16LE with BOM", utf16Bytes(t, text, xunicode.LittleEndian, xunicode.UseBOM), want, 0},
		{"UTF-16BE with BOM", utf16Bytes(t, text, xunicode.BigEndian, xunicode.UseBOM), want, 0},
		{"UTF-16LE without BOM", utf16Bytes(t, text, xunicode.LittleEndian, xunicode.IgnoreBOM), want, 0},
		{"UTF-16BE without BOM", utf16Bytes(t, text, xunicode.BigEndian, xunicode.IgnoreBOM), want, 0},
		{"UTF-16 with a NUL character", utf16Bytes(t, "Text.\x00more", xunicode.LittleEndian, xunicode.UseBOM), "", 1},
		{"UTF-8 BOM", append([]byte{0xEF, 0xBB, 0xBF}, text...), want, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, gz := range []bool{false, true} {
				name, data := "in.txt", tc.data
				if gz {
					name, data = "in.txt.gz", gzipped(t, data)
				}
				p := filepath.Join(t.TempDir(), name)
				os.WriteFile(p, data, 0o644)
				c, err := ReadInputs([]string{p})
				if tc.want == "" {
					var ie *InputError
					if !errors.Is(err, ErrBinary) || !errors.As(err, &ie) || ie.File != p || ie.Line != tc.errLine {
						t.Fatalf("gz=%v: got %v, want ErrBinary at line %d", gz, err, tc.errLine)
					}
					continue
				}
				if err != nil {
					t.Fatalf("gz=%v: %v", gz, err)
				}
				if got := strings.Join(sentenceTexts(c), "|"); got != tc.want {
					t.Fatalf("gz=%v: got %q, want %q", gz, got, tc.want)
				}
			}
		})
	}
	// UTF-16 text of a script without NULs is not valid UTF-8: refused,
	// never indexed as noise.
	p := filepath.Join(t.TempDir(), "cjk.txt")
	os.WriteFile(p, utf16Bytes(t, "日本語のテキストです。これは二番目の文です。", xunicode.LittleEndian, xunicode.IgnoreBOM), 0o644)
	if _, err := ReadInputs([]string{p}); !errors.Is(err, ErrBadInput) {
		t.Fatalf("UTF-16 CJK without BOM: got %v, want a refusal", err)
	}
}

// TestReadChangedWhileRead checks a file that grows, shrinks or is
// rewritten while read is refused, naming it.
func TestReadChangedWhileRead(t *testing.T) {
	const text = "One sentence here. Another sentence there.\n\nA third paragraph.\n"
	const jsonl = `{"id": 1, "text": "One record."}` + "\n" + `{"id": 2, "text": "Two records."}` + "\n"
	cases := []struct {
		name, file, content string
		opened, read        func(p string)
	}{
		{"appended after reading", "a.txt", text, nil, func(p string) { appendTo(p, "More text.\n") }},
		{"truncated after opening", "a.txt", text, func(p string) { os.Truncate(p, 10) }, nil},
		{"truncated after reading", "a.txt", text, nil, func(p string) { os.Truncate(p, 10) }},
		{"rewritten in place", "a.txt", text, nil, func(p string) {
			later := time.Now().Add(time.Hour)
			os.Chtimes(p, later, later)
		}},
		{"JSONL truncated after opening", "a.jsonl", jsonl, func(p string) { os.Truncate(p, 20) }, nil},
		{"JSONL appended", "a.jsonl", jsonl, nil, func(p string) { appendTo(p, `{"id": 3, "text": "Three."}`+"\n") }},
		{"gzipped truncated after opening", "a.txt.gz", text, func(p string) { os.Truncate(p, 20) }, nil},
	}
	defer func() { testHookOpened, testHookRead = nil, nil }()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			content := []byte(tc.content)
			if strings.HasSuffix(tc.file, ".gz") {
				content = gzipped(t, content)
			}
			dir := t.TempDir()
			p := filepath.Join(dir, tc.file)
			os.WriteFile(p, content, 0o644)
			once := func(f func(string)) func(string) {
				if f == nil {
					return nil
				}
				done := false
				return func(q string) {
					if q == p && !done {
						done = true
						f(q)
					}
				}
			}
			testHookOpened, testHookRead = once(tc.opened), once(tc.read)
			for _, input := range []string{p, dir} {
				_, err := ReadInputs([]string{input})
				if !errors.Is(err, ErrChangedWhileRead) || !strings.Contains(err.Error(), p) {
					t.Fatalf("input %s: got %v, want ErrChangedWhileRead naming %s", input, err, p)
				}
				os.WriteFile(p, content, 0o644)
				testHookOpened, testHookRead = once(tc.opened), once(tc.read)
			}
		})
	}
}

func appendTo(p, s string) {
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		f.WriteString(s)
		f.Close()
	}
}

// endless yields sentences forever.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	const s = "The keeper climbed the tower and lit the lamp before dark. "
	n := 0
	for n < len(p) {
		n += copy(p[n:], s[e.n%len(s):])
		e.n += n
	}
	return n, nil
}

// TestReadMemoryLimit checks the memory limit is applied while reading:
// a file too large for it is refused before it is read, an endless stream
// and a gzipped file after a bounded read, and inputs under it are read.
func TestReadMemoryLimit(t *testing.T) {
	const limit = 64 << 20
	big := bytes.Repeat([]byte("Words of a sentence that ends here. "), (limit/5)/36)
	dir := writeFiles(t, map[string]string{"big.txt": string(big), "small.txt": "A small file."})
	gz := filepath.Join(dir, "big.txt.gz")
	os.WriteFile(gz, gzipped(t, big), 0o644)
	read := func(paths []string, opt ReadOptions) error {
		opt.MemoryLimit = limit
		_, err := ReadInputsContext(context.Background(), paths, opt)
		return err
	}
	var me *MemoryLimitError
	err := read([]string{filepath.Join(dir, "big.txt")}, ReadOptions{})
	if !errors.As(err, &me) || !errors.Is(err, ErrMemoryLimit) || me.Bytes != 0 || me.Need <= limit {
		t.Fatalf("big file: got %v, want a refusal before reading", err)
	}
	err = read([]string{"-"}, ReadOptions{Stdin: &endless{}, StdinKind: "txt"})
	if !errors.As(err, &me) || me.Bytes > limit/4 {
		t.Fatalf("endless stdin: got %v, want a refusal within %d bytes", err, limit/4)
	}
	err = read([]string{gz}, ReadOptions{MaxDecompressionRatio: -1})
	if !errors.As(err, &me) || me.Bytes > limit/4 || me.File != gz {
		t.Fatalf("gzipped: got %v, want a refusal within %d bytes naming the file", err, limit/4)
	}
	if err := read([]string{filepath.Join(dir, "small.txt")}, ReadOptions{}); err != nil {
		t.Fatalf("small file: %v", err)
	}
	// The estimate counts the embeddings too.
	if err := read([]string{filepath.Join(dir, "small.txt")}, ReadOptions{Dense: true}); !errors.Is(err, ErrMemoryLimit) {
		t.Fatalf("small file, dense under 64 MiB: got %v, want ErrMemoryLimit", err)
	}
	// The estimate while reading agrees with EstimateBuildMemory after.
	c, err := ReadInputs([]string{"testdata/corpus"})
	if err != nil {
		t.Fatal(err)
	}
	need := index.EstimateBuildMemory(&c.Corpus, false)
	if _, err := ReadInputsContext(context.Background(), []string{"testdata/corpus"}, ReadOptions{MemoryLimit: need}); err != nil {
		t.Fatalf("limit = the estimate: %v", err)
	}
	if _, err := ReadInputsContext(context.Background(), []string{"testdata/corpus"}, ReadOptions{MemoryLimit: need - 1}); !errors.Is(err, ErrMemoryLimit) {
		t.Fatalf("limit = the estimate - 1: got %v", err)
	}
}

// TestReadGzipGuard checks the decompression guard: a file expanding far
// past its size, or past the size bound, is refused as a bomb; corrupt
// data is bad input.
func TestReadGzipGuard(t *testing.T) {
	dir := t.TempDir()
	bomb := filepath.Join(dir, "bomb.txt.gz")
	os.WriteFile(bomb, gzipped(t, bytes.Repeat([]byte("a"), 64<<20)), 0o644)
	_, err := ReadInputs([]string{bomb})
	var ie *InputError
	if !errors.Is(err, ErrDecompressionBomb) || !errors.As(err, &ie) || ie.File != bomb {
		t.Fatalf("64 MiB of one byte: got %v, want ErrDecompressionBomb", err)
	}
	text := filepath.Join(dir, "text.txt.gz")
	os.WriteFile(text, gzipped(t, bytes.Repeat([]byte("Plain sentence. "), 1000)), 0o644)
	if _, err := ReadInputs([]string{text}); err != nil {
		t.Fatalf("16 KB of repeated text (under the ratio floor): %v", err)
	}
	if _, err := ReadInputsContext(context.Background(), []string{text}, ReadOptions{MaxDecompressedBytes: 1000}); !errors.Is(err, ErrDecompressionBomb) {
		t.Fatalf("over MaxDecompressedBytes: got %v", err)
	}
	good := gzipped(t, []byte("Some text that is long enough to compress into several bytes of data.\n"))
	bad := append([]byte(nil), good...)
	bad[len(bad)-6] ^= 0xff // the CRC
	corrupt := filepath.Join(dir, "corrupt.txt.gz")
	os.WriteFile(corrupt, bad, 0o644)
	if _, err := ReadInputs([]string{corrupt}); !errors.As(err, &ie) || !strings.Contains(ie.Msg, "corrupt gzip data") {
		t.Fatalf("corrupt gzip: got %v", err)
	}
}

// TestReadRepeatedIDs checks a JSONL id used twice is refused naming both
// lines (within a file and across files), and Dedupe keeps the last.
func TestReadRepeatedIDs(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.jsonl": `{"id": 1, "text": "First text."}` + "\n" + `{"id": 2, "text": "Second text."}` + "\n" + `{"id": 1, "text": "Replacement text."}` + "\n",
		"b.jsonl": `{"id": "x", "text": "Bee text."}` + "\n",
		"c.jsonl": `{"id": "x", "text": "Sea text."}` + "\n" + `{"text": "No id."}` + "\n" + `{"text": "No id either."}` + "\n",
	})
	a, b, c := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "c.jsonl")
	var ie *InputError
	_, err := ReadInputs([]string{a})
	if !errors.Is(err, ErrDuplicateID) || !errors.As(err, &ie) || ie.Line != 3 || ie.Field != "id" || !strings.Contains(ie.Msg, a+":1") {
		t.Fatalf("repeat in one file: got %v", err)
	}
	_, err = ReadInputs([]string{b, c})
	if !errors.As(err, &ie) || ie.File != c || ie.Line != 1 || !strings.Contains(ie.Msg, b+":1") {
		t.Fatalf("repeat across files: got %v", err)
	}
	corpus, err := ReadInputsContext(context.Background(), []string{a, b, c}, ReadOptions{Dedupe: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sentenceTexts(corpus), "|"); got != "Second text.|Replacement text.|Sea text.|No id.|No id either." {
		t.Fatalf("dedupe kept %q", got)
	}
	if corpus.Deduped != 2 || !strings.Contains(strings.Join(corpus.Warnings, "\n"), "2 JSONL records replaced") {
		t.Fatalf("deduped %d, warnings %q", corpus.Deduped, corpus.Warnings)
	}
	for i, s := range corpus.Sentences {
		if s.ID != uint32(i) || corpus.Contexts[s.ContextID].ID != s.ContextID {
			t.Fatalf("ids not renumbered: %+v", s)
		}
	}
	if corpus.Contexts[1].ExtID != "1" || corpus.Contexts[1].Source != a+":3" {
		t.Fatalf("kept context %+v", corpus.Contexts[1])
	}
}

// TestReadOutIsInput checks the index being written is never read as an
// input, named or inside a directory.
func TestReadOutIsInput(t *testing.T) {
	dir := writeFiles(t, map[string]string{"a.txt": "Some text.", "sub/b.txt": "More text."})
	out := filepath.Join(dir, "sub", "b.txt")
	for _, in := range []string{out, dir} {
		_, err := ReadInputsContext(context.Background(), []string{in}, ReadOptions{Out: out})
		if !errors.Is(err, index.ErrOutIsInput) || !strings.Contains(err.Error(), out) {
			t.Fatalf("input %s: got %v, want ErrOutIsInput", in, err)
		}
	}
}

// TestReadErrorsNameNoGoTypes checks messages about bad JSON name fields
// and JSON kinds, never Go types.
func TestReadErrorsNameNoGoTypes(t *testing.T) {
	inputs := map[string]string{
		"a.json":     `{"data": [{"title": "T", "paragraphs": [{"context": ["x"]}]}]}`,
		"b.json":     `{"data": [{"paragraphs": [{"context": "x.", "qas": [{"answers": [{"answer_start": "0"}]}]}]}]}`,
		"c.json":     `{"data": [{"paragraphs": [{"context": "x.", "qas": [{"answers": [{"answer_start": 1e99}]}]}]}]}`,
		"d.json":     `{"data": {"a": 1}}`,
		"e.jsonl":    `[1, 2]`,
		"f.jsonl":    `{"text": {"a": 1}}`,
		"g.jsonl":    `{"id": [1], "text": "x."}`,
		"h.json":     `{"data": [`,
		"i.jsonl.gz": "not gzip",
	}
	dir := writeFiles(t, inputs)
	for name := range inputs {
		p := filepath.Join(dir, name)
		_, err := ReadInputs([]string{p})
		var ie *InputError
		if !errors.As(err, &ie) || ie.File != p {
			t.Fatalf("%s: got %v, want an *InputError naming it", name, err)
		}
		for _, bad := range []string{"Go value", "Go struct", "[]string", "ingest.", "json: ", "float64", "int64", "map["} {
			if strings.Contains(err.Error(), bad) {
				t.Errorf("%s: message %q shows %q", name, err, bad)
			}
		}
	}
}

var _ io.Reader = (*endless)(nil)
