package office

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/reqa/reqa/ingest/document"
	"github.com/reqa/reqa/ingest/document/internal/doctest"
)

// deflated returns the zip archive data with its parts compressed, as a
// hostile file would come: small on disk, large once read.
func deflated(t testing.TB, data []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, f := range zr.File {
		method := zip.Deflate
		if f.Name == "mimetype" {
			method = zip.Store
		}
		dst, err := w.CreateHeader(&zip.FileHeader{Name: f.Name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		src, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(dst, src); err != nil {
			t.Fatal(err)
		}
		src.Close()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// hostileOffice are issue 33's zip documents, with n repetitions of their
// pattern: each took a gigabyte or more (16 MiB of <w:p/>: 1.2 GB; 6 M
// nested <w:p>: 1.03 GB; 16 MiB of <text:p/>: 748–937 MB; four parts of
// tiny <p>: over 1 GB) or half a minute (a 3.9 KB EPUB: 29 s).
func hostileOffice(t testing.TB) []struct {
	name  string
	parse func(string, []byte) (*document.Document, error)
	gen   func(n int) []byte
	n     int    // the size of issue 33's case
	msg   string // in the error at that size; "" if it reads
} {
	rep := strings.Repeat
	return []struct {
		name  string
		parse func(string, []byte) (*document.Document, error)
		gen   func(n int) []byte
		n     int
		msg   string
	}{
		{"docx empty paragraphs", ParseDOCX, func(n int) []byte {
			return deflated(t, docx(t, wp("", "First.")+rep("<w:p/>", n)+wp("", "Last.")))
		}, 16 << 20 / 6, ""},
		{"docx nested paragraphs", ParseDOCX, func(n int) []byte {
			return deflated(t, docx(t, rep("<w:p>", n)+rep("</w:p>", n)))
		}, 5 << 20, "nested deeper than"},
		{"docx tiny paragraphs", ParseDOCX, func(n int) []byte {
			return deflated(t, docx(t, rep(wp("", "a"), n)))
		}, document.MaxBlocks + 10, "paragraphs and tables"},
		{"odt empty paragraphs", ParseODT, func(n int) []byte {
			return deflated(t, odt(t, tp("", 0, "First.")+rep("<text:p/>", n)+tp("", 0, "Last.")))
		}, 16 << 20 / 9, ""},
		{"odt nested sections", ParseODT, func(n int) []byte {
			return deflated(t, odt(t, rep("<text:section>", n)+rep("</text:section>", n)))
		}, 1 << 20, "nested deeper than"},
		{"epub tiny paragraphs", ParseEPUB, func(n int) []byte {
			return deflated(t, epubBook(t, "OEBPS/Text/ch2.xhtml", xhtml("Tiny", rep("<p>a</p>", n))))
		}, document.MaxBlocks + 10, "blocks"},
		{"epub blank bold", ParseEPUB, func(n int) []byte {
			return deflated(t, epubBook(t, "OEBPS/Text/ch2.xhtml", xhtml("Blank", "<p>"+rep("<b> </b>", n)+"</p>")))
		}, 1 << 20, ""},
	}
}

// TestOfficeHostile: each of issue 33's zip documents, at its size, reads
// or is a clear *Error naming the file, in seconds.
func TestOfficeHostile(t *testing.T) {
	if testing.Short() {
		// May skip in CI: -short only (make test does not pass it); the inputs are large.
		t.Skip("large inputs")
	}
	for _, tc := range hostileOffice(t) {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.gen(tc.n)
			start := time.Now()
			d, err := tc.parse("bad.zip", data)
			t.Logf("%d bytes: %v", len(data), time.Since(start))
			if tc.msg == "" {
				if err != nil {
					t.Fatal(err)
				}
				doctest.CheckDocument(t, d)
				return
			}
			var e *document.Error
			if !errors.As(err, &e) || e.Name != "bad.zip" || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %T %v, want an *Error naming bad.zip saying %q", err, err, tc.msg)
			}
		})
	}
}

// TestOfficeEmptyRuns: a run of empty paragraphs still ends a code block,
// once, as before they were kept as one.
func TestOfficeEmptyRuns(t *testing.T) {
	d, err := ParseDOCX("t.docx", docx(t, wp("SourceCode", "$ one")+"<w:p/><w:p/><w:p/>"+wp("SourceCode", "$ two")))
	if err != nil {
		t.Fatal(err)
	}
	var code []string
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			code = append(code, b.Text)
		}
	}
	if strings.Join(code, "|") != "$ one|$ two" {
		t.Fatalf("blocks %q, want two code blocks", code)
	}
}

// TestOfficeLinear: reading time is linear in each hostile pattern.
func TestOfficeLinear(t *testing.T) {
	var cases []doctest.Pathological
	parse := map[string]func(string, []byte) (*document.Document, error){}
	for _, tc := range hostileOffice(t) {
		parse[tc.name] = tc.parse
		name := tc.name
		gen := tc.gen
		cases = append(cases, doctest.Pathological{Name: name, Gen: func(n int) []byte {
			// The case's name travels in front of the data.
			return append([]byte(name+"\x00"), gen(n)...)
		}, N: 1000})
	}
	doctest.CheckLinear(t, func(data []byte) error {
		name, rest, _ := bytes.Cut(data, []byte{0})
		_, err := parse[string(name)]("t", rest)
		return err
	}, cases)
}

// TestOfficeCancel: a canceled read stops with the context's error.
func TestOfficeCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, parse := range map[string]func(context.Context, string, []byte) (*document.Document, error){
		"docx": ParseDOCXContext, "odt": ParseODTContext, "epub": ParseEPUBContext,
	} {
		var data []byte
		switch name {
		case "docx":
			data = docx(t, strings.Repeat(wp("", "Text."), 5000))
		case "odt":
			data = odt(t, strings.Repeat(tp("", 0, "Text."), 5000))
		case "epub":
			data = epubBook(t, "OEBPS/Text/ch2.xhtml", xhtml("x", strings.Repeat("<p>Text.</p>", 5000)))
		}
		if _, err := parse(ctx, "t", data); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error %v, want context.Canceled", name, err)
		}
	}
}
