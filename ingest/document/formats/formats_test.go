package formats

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest/document"
)

// sampleHeads are the first bytes of a file of each sniffed format.
func sampleHeads(t *testing.T) map[document.Format][]byte {
	t.Helper()
	zipped := func(method uint16, name, content string, more ...string) []byte {
		var buf bytes.Buffer
		w := zip.NewWriter(&buf)
		files := append([]string{name, content}, more...)
		for i := 0; i < len(files); i += 2 {
			f, err := w.CreateHeader(&zip.FileHeader{Name: files[i], Method: method})
			if err != nil {
				t.Fatal(err)
			}
			f.Write([]byte(files[i+1]))
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	return map[document.Format][]byte{
		document.HTML: []byte("\ufeff  <!DOCTYPE html><title>x</title>"),
		document.PDF:  []byte("%PDF-1.7\n"),
		document.EPUB: zipped(zip.Store, "mimetype", "application/epub+zip", "word/x", "y"),
		document.ODT:  zipped(zip.Store, "mimetype", "application/vnd.oasis.opendocument.text", "content.xml", "word/ in the text"),
		document.DOCX: zipped(zip.Deflate, "[Content_Types].xml", "<Types/>", "word/document.xml", "<w:document/>"),
	}
}

// TestRegistry checks every format of All: its name is its own, each of its
// extensions (any case, gzipped or not) detects it, a sniffed format's
// sample head detects it and no other's, and Parse reaches its reader.
func TestRegistry(t *testing.T) {
	heads := sampleHeads(t)
	seen := map[document.Format]bool{}
	for _, f := range All {
		if seen[f.Name] || f.Name == "" || f.Parse == nil || f.Files == "" {
			t.Errorf("format %q: repeated, unnamed, without a reader or without a name for its files", f.Name)
		}
		seen[f.Name] = true
		if g := ByName(string(f.Name)); g == nil || g.Name != f.Name {
			t.Errorf("ByName(%q) = %v", f.Name, g)
		}
		if len(f.Exts) == 0 {
			t.Errorf("format %q: no extension", f.Name)
		}
		for _, ext := range f.Exts {
			for _, name := range []string{"a" + ext, "dir/A" + ext + ".gz", "B" + strings.ToUpper(ext)} {
				if g := Detect(name, nil); g == nil || g.Name != f.Name {
					t.Errorf("Detect(%q) = %v, want %s", name, g, f.Name)
				}
			}
		}
		head, sniffed := heads[f.Name]
		if sniffed != (f.Sniff != nil) {
			t.Errorf("format %q: sniffer %v, sample head %v", f.Name, f.Sniff != nil, sniffed)
		}
		if sniffed {
			if g := Detect("", head); g == nil || g.Name != f.Name {
				t.Errorf("Detect of %s's head = %v", f.Name, g)
			}
			for _, o := range All {
				if o.Name != f.Name && o.Sniff != nil && o.Sniff(head) {
					t.Errorf("%s's head sniffed as %s too", f.Name, o.Name)
				}
			}
		}
		if f.Binary && f.Sniff == nil {
			t.Errorf("binary format %q cannot be sniffed", f.Name)
		}
	}
	if Detect("", []byte("just text")) != nil || Detect("x.unknown", nil) != nil {
		t.Error("text or an unknown name detected as a format")
	}
}

// TestDetectNames: names that are no extension of a format's.
func TestDetectNames(t *testing.T) {
	for name, want := range map[string]document.Format{
		"README": document.Text, "readme.Debian.gz": document.Text, "INSTALL.sh": "",
		"ls.1": document.Man, "perl.3pm.gz": document.Man, "find.info-2": document.Info, "x.info-": "",
		"KEYS.asc": "",
	} {
		var got document.Format
		if f := Detect(name, nil); f != nil {
			got = f.Name
		}
		if got != want {
			t.Errorf("Detect(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestReader: a manual page that is not roff, and plain text, are read as
// what their text reads as.
func TestReader(t *testing.T) {
	for _, tc := range []struct {
		kind document.Format
		data string
		want document.Format
	}{
		{document.Man, ".TH X 1\n.SH NAME\n", document.Man},
		{document.Man, "# Log\n\nline\n\n## More\n", document.Markdown},
		{document.Man, "a log line\n", document.Text},
		{document.Text, "Tool\n====\n\n.. note:: x\n", document.RST},
		{document.HTML, "# not read as Markdown\n\n## x\n", document.HTML},
	} {
		if got := ByName(string(tc.kind)).Reader([]byte(tc.data)).Name; got != tc.want {
			t.Errorf("%s %q read as %s, want %s", tc.kind, tc.data, got, tc.want)
		}
	}
}

func TestParseUnknownFormat(t *testing.T) {
	if _, err := Parse("x.doc", "doc", []byte("x")); err == nil {
		t.Fatal("an unknown format was accepted")
	}
}

// TestParseContextStops: every text format's reader stops on a canceled
// context with its error (PDF and the zip formats are checked in their
// packages).
func TestParseContextStops(t *testing.T) {
	para := strings.Repeat("A line of text that says something.\n\n", 5000)
	inputs := map[document.Format]string{
		document.Markdown: para,
		document.HTML:     strings.Repeat("<p>A line of text.</p>\n", 5000),
		document.Text:     para,
		document.RST:      para,
		document.AsciiDoc: para,
		document.Org:      para,
		document.Man:      ".TH X 1\n.SH NAME\n" + strings.Repeat(".PP\nA line of text.\n", 5000),
		document.Info:     "\x1f\nFile: x.info,  Node: Top,  Up: (dir)\n\n" + para,
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for f, in := range inputs {
		if _, err := ParseContext(ctx, "t", f, []byte(in)); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error %v, want context.Canceled", f, err)
		}
		if _, err := Parse("t", f, []byte(in)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
