package ingest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	xunicode "golang.org/x/text/encoding/unicode"
)

// FuzzReadStream feeds arbitrary bytes to the streaming layer under every
// reader (text check, UTF-16 decoding, gzip with its guard, the memory
// budget, kind sniffing) two ways: as a file and, one byte per read, as
// standard input. mode bits 0–1 pick the kind (txt, md, jsonl, squad),
// bit 2 gzips the data, bit 3 lets standard input's kind be sniffed, bit
// 4 sets a memory limit of 60 MB. Both reads must agree — same sentences,
// or errors at the same line and field — and never panic; errors are
// *InputErrors naming the input, or the memory limit; what is accepted is
// text (valid UTF-8, no NUL).
func FuzzReadStream(f *testing.F) {
	for _, p := range []string{"testdata/corpus/bridges.txt", "testdata/corpus/lighthouses.md", "testdata/corpus/insects.jsonl"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		kind := map[string]uint8{".txt": 0, ".md": 1, ".jsonl": 2}[filepath.Ext(p)]
		f.Add(b, kind)
		f.Add(b, kind|4)
		f.Add(b, kind|8)
	}
	u16, _ := xunicode.UTF16(xunicode.LittleEndian, xunicode.IgnoreBOM).NewEncoder().Bytes([]byte("Some UTF-16 text. Second sentence.\n"))
	u16bom, _ := xunicode.UTF16(xunicode.BigEndian, xunicode.UseBOM).NewEncoder().Bytes([]byte(`{"id": 1, "text": "UTF-16 record."}`))
	for _, s := range []string{
		"", "\x00", "text\x00", "\xef\xbb\xbfBOM text.", "\xff\xfe", "\xfe\xff\x00", "\xff\xfeA\x00\x00\xd8", string(u16), string(u16bom),
		"\x1f\x8b", "%PDF-1.4", "<html><p>x</p></html>", `{"data": [{"paragraphs": [{"context": "S."}]}]}`, `{"id": 1, "text": "a."}` + "\n" + `{"id": 1, "text": "b."}`,
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(2|8))
	}
	f.Add(bytes.Repeat([]byte("Repeated sentence here. "), 2000), uint8(4|16))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		kinds := []string{"txt", "md", "jsonl", "squad"}
		exts := []string{".txt", ".md", ".jsonl", ".json"}
		kind, name := kinds[mode&3], "in"+exts[mode&3]
		if mode&4 != 0 {
			data = gzipped(t, data)
			name += ".gz"
		}
		var limit int64
		if mode&16 != 0 {
			limit = 60e6
		}
		fuzzDirOnce.Do(func() { fuzzDir, fuzzDirErr = os.MkdirTemp("", "reqa-ingest-fuzz-") })
		if fuzzDirErr != nil {
			t.Fatal(fuzzDirErr)
		}
		p := filepath.Join(fuzzDir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		fileC, fileErr := ReadInputsContext(context.Background(), []string{p}, ReadOptions{MemoryLimit: limit})
		checkStreamOutcome(t, p, fileC, fileErr)
		stdinKind := kind
		if mode&8 != 0 {
			stdinKind = ""
		}
		stdinC, stdinErr := ReadInputsContext(context.Background(), []string{"-"},
			ReadOptions{MemoryLimit: limit, Stdin: iotest.OneByteReader(bytes.NewReader(data)), StdinKind: stdinKind})
		checkStreamOutcome(t, stdinName, stdinC, stdinErr)
		if stdinKind == "" || mode&4 == 0 && bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			return // a sniffed kind, or gzip by its magic number, may differ from the name's
		}
		var fe, se *InputError
		switch {
		case (fileErr == nil) != (stdinErr == nil):
			t.Fatalf("file: %v; stdin: %v", fileErr, stdinErr)
		case fileErr == nil:
			if a, b := strings.Join(sentenceTexts(fileC), "\x00"), strings.Join(sentenceTexts(stdinC), "\x00"); a != b {
				t.Fatalf("file and stdin read differently:\n%q\n%q", a, b)
			}
		case errors.As(fileErr, &fe) && errors.As(stdinErr, &se):
			if fe.Line != se.Line || fe.Field != se.Field || fe.Msg != strings.ReplaceAll(se.Msg, stdinName, p) && !errors.Is(fileErr, ErrBinary) {
				t.Fatalf("file: %v; stdin: %v", fileErr, stdinErr)
			}
		}
	})
}

// checkStreamOutcome checks one read of FuzzReadStream.
func checkStreamOutcome(t *testing.T, name string, c *Corpus, err error) {
	t.Helper()
	if err != nil {
		var ie *InputError
		if errors.Is(err, ErrMemoryLimit) || errors.Is(err, ErrBadInput) && strings.Contains(err.Error(), "no sentences found") {
			return
		}
		if !errors.As(err, &ie) || ie.File != name || ie.Line < 0 || ie.Msg == "" {
			t.Fatalf("%s: error is not an *InputError naming it: %v", name, err)
		}
		return
	}
	for _, x := range c.Contexts {
		if !utf8.ValidString(x.Text) || strings.ContainsRune(x.Text, 0) || !utf8.ValidString(x.Title) {
			t.Fatalf("%s: context is not text: %q", name, x.Text)
		}
	}
}
