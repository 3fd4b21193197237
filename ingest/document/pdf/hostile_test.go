package pdf

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reqa/reqa/ingest/document"
	"github.com/reqa/reqa/ingest/document/internal/doctest"
)

// rawPDF writes a PDF of objects objs (object i+1 is objs[i], without its
// "obj" and "endobj"), object 1 the catalog, with a cross-reference table
// and a trailer holding extra as well.
func rawPDF(objs []string, extra string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	extra = strings.ReplaceAll(extra, "XREF", fmt.Sprint(xref))
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R %s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, extra, xref)
	return b.Bytes()
}

// flate compresses s.
func flate(s string) string {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.String()
}

// stream returns a stream object of data with dict entries extra.
func stream(data, extra string) string {
	return fmt.Sprintf("<< /Length %d %s >>\nstream\n%s\nendstream", len(data), extra, data)
}

const (
	catalog = "<< /Type /Catalog /Pages 2 0 R >>"
	font    = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
)

// flatPDF is n pages under one Pages node, each showing its number
// (objects: 1 catalog, 2 pages, 3 font, 4… the pages and their contents).
func flatPDF(n int) []byte {
	objs := []string{catalog, "", font}
	var kids strings.Builder
	for i := range n {
		page, content := len(objs)+1, len(objs)+2
		fmt.Fprintf(&kids, "%d 0 R ", page)
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", content),
			stream(fmt.Sprintf("BT /F1 12 Tf 72 700 Td (Page %s says hello.) Tj ET", letters(i+1)), ""))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids.String(), n)
	return rawPDF(objs, "")
}

// letters writes n in letters ("b", "bc"): the reader takes a line that
// differs from page to page only in its digits for a running header.
func letters(n int) string {
	return strings.Map(func(r rune) rune {
		if r <= '9' {
			return 'a' + r - '0'
		}
		return r + 10
	}, strconv.FormatInt(int64(n), 26))
}

// onePage is a PDF of one page whose content stream is content, with
// stream dictionary entries extra.
func onePage(content, extra string) []byte {
	return rawPDF([]string{catalog,
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		font,
		stream(content, extra)}, "")
}

// hostilePDFs are issue 33's PDFs: each hung reqa, killed it or took
// gigabytes. Each must now be a clear *Error, quickly.
func hostilePDFs() []struct {
	name string
	data []byte
	msg  string // in the error; "" when the file reads (without text)
} {
	return []struct {
		name string
		data []byte
		msg  string
	}{
		{"page tree contains itself", rawPDF([]string{catalog, "<< /Type /Pages /Kids [2 0 R] /Count 1 >>"}, ""), "page tree"},
		{"page tree cycle", rawPDF([]string{catalog, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", "<< /Type /Pages /Kids [2 0 R] /Count 1 >>"}, ""), "page tree"},
		{"parent chain loops", rawPDF([]string{catalog,
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 4 0 R /Contents 5 0 R >>",
			"<< /Parent 4 0 R >>",
			stream("BT /F1 12 Tf (Hello) Tj ET", "")}, ""), ""},
		{"xref prev points at itself", rawPDF([]string{catalog, "<< /Type /Pages /Kids [] /Count 0 >>"}, "/Prev XREF"), "loops"},
		{"predictor columns", onePage(flate("BT (x) Tj ET"), "/Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 1000000000000 >>"), "Columns"},
		{"escaped predictor columns", onePage(flate("BT (x) Tj ET"), "/Filter /FlateDecode /DecodeParms << /Predictor 12 /Col#75mns 1000000000000 >>"), "Columns"},
		{"xref subsection far away", bytes.Replace(flatPDF(1), []byte("xref\n0 "), []byte("xref\n1000000000000 "), 1), "xref"},
		{"huge size", bytes.Replace(flatPDF(1), []byte("/Size "), []byte("/Size 1000000000000 /X "), 1), "Size"},
		{"16 MiB of text", onePage(flate("BT /F1 12 Tf ("+strings.Repeat("A", 16<<20)+") Tj ET"), "/Filter /FlateDecode"), "glyphs"},
		{"inflates past the bound", onePage(flate(strings.Repeat("% comment\n", 8<<20)), "/Filter /FlateDecode"), "decodes to more than"},
	}
}

// TestPDFHostile: each of issue 33's PDFs is a clear *Error naming the
// file within seconds, not a hang or a crash.
func TestPDFHostile(t *testing.T) {
	for _, tc := range hostilePDFs() {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := Parse("bad.pdf", tc.data)
				done <- err
			}()
			select {
			case err := <-done:
				if tc.msg == "" {
					if err != nil {
						t.Fatal(err)
					}
					return
				}
				var e *document.Error
				if !errors.As(err, &e) || e.Name != "bad.pdf" || !strings.Contains(err.Error(), tc.msg) {
					t.Fatalf("error %T %v, want an *Error naming bad.pdf saying %q", err, err, tc.msg)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("still parsing after 20 s")
			}
		})
	}
}

// TestPDFCancel: a canceled parse stops between pages.
func TestPDFCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ParseContext(ctx, "t.pdf", flatPDF(50))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

// TestPDFFlat: a flat page tree reads every page, in order.
func TestPDFFlat(t *testing.T) {
	d, err := Parse("t.pdf", flatPDF(300))
	if err != nil {
		t.Fatal(err)
	}
	var pages []int
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			if b.Text != fmt.Sprintf("Page %s says hello.", letters(b.Page)) {
				t.Fatalf("page %d reads %q", b.Page, b.Text)
			}
			pages = append(pages, b.Page)
		}
	}
	if len(pages) != 300 || pages[299] != 300 {
		t.Fatalf("read pages %v", pages)
	}
}

// TestPDFLinear: reading takes linear time in the number of pages (a flat
// page tree of 2,000 pages took 36.5 s) and in the text of a page.
func TestPDFLinear(t *testing.T) {
	doctest.CheckLinear(t, func(data []byte) error {
		_, err := Parse("t.pdf", data)
		return err
	}, []doctest.Pathological{
		{Name: "flat page tree", Gen: flatPDF, N: 100},
		{Name: "long text", Gen: func(n int) []byte {
			return onePage(flate("BT /F1 12 Tf ("+strings.Repeat("AAAA ", n)+") Tj ET"), "/Filter /FlateDecode")
		}, N: 1000},
		{Name: "many shows", Gen: func(n int) []byte {
			return onePage(flate("BT /F1 12 Tf "+strings.Repeat("(AAAA) Tj 0 -14 Td ", n)+" ET"), "/Filter /FlateDecode")
		}, N: 1000},
	})
}
