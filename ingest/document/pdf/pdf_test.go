package pdf

import (
	"bytes"
	"errors"
	"github.com/reqa/reqa/ingest/document/internal/doctest"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-pdf/fpdf"
	"github.com/reqa/reqa/ingest/document"
)

// manualPDF generates a two-page manual: a title in large type, section
// headings in medium type, body paragraphs hard-wrapped line by line (one
// word hyphenated across a line end), a bulleted line and a page number at
// the foot of each page.
func manualPDF(t testing.TB) []byte {
	p := fpdf.New("P", "mm", "A4", "")
	p.SetAutoPageBreak(false, 0)
	line := func(size float64, text string, gap float64) {
		p.SetFont("Helvetica", "", size)
		p.Cell(0, 5, text)
		p.Ln(gap)
	}
	footer := func(n int) {
		p.SetXY(100, 285)
		p.SetFont("Helvetica", "", 10)
		p.Cell(0, 5, strconv.Itoa(n))
	}
	p.AddPage()
	p.SetXY(20, 20)
	line(22, "Frobnicator Manual", 14)
	line(11, "Description . . . . . . . . . . . . . . . 1", 5)
	line(11, "Exit status ........................ 2", 10)
	line(16, "Description", 10)
	line(11, "The frobnicator rewrites each file in place and keeps a", 5)
	line(11, "backup of it unless told otherwise. Its configu-", 5)
	line(11, "ration lives in the home directory.", 12)
	line(11, "A second paragraph starts after a wider gap.", 12)
	p.SetFont("Courier", "", 10)
	p.Cell(0, 5, "$ frob --all notes.txt")
	p.Ln(5)
	p.Cell(0, 5, "frob: 3 files rewritten.")
	p.Ln(10)
	footer(1)
	p.AddPage()
	p.SetXY(20, 20)
	line(16, "Exit status", 10)
	line(11, "Zero when every file was frobnicated, one when a file", 5)
	line(11, "could not be read.", 12)
	line(11, p.UnicodeTranslatorFromDescriptor("")("• A bulleted line is a list item."), 12)
	line(11, "Backups are kept in the directory", 5)
	p.SetFont("Courier", "", 10)
	p.Cell(0, 5, "/var/backups/frob/")
	p.Ln(5)
	line(11, "until the next run.", 12)
	footer(2)
	return pdfBytes(t, p)
}

func TestPDFPagesAndHeadings(t *testing.T) {
	d, err := Parse("manual.pdf", manualPDF(t))
	if err != nil {
		t.Fatal(err)
	}
	doctest.CheckDocument(t, d)
	if d.Title != "Frobnicator Manual" {
		t.Errorf("title %q", d.Title)
	}
	var got []string
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			got = append(got, d.Anchor(s, b)+" "+s.Heading()+" | "+b.Text)
			if strings.HasPrefix(b.Text, "$ frob") != (b.Kind == document.Code) {
				t.Errorf("%s block %q", b.Kind, b.Text)
			}
			if strings.HasPrefix(b.Text, "A bulleted") != (b.Kind == document.ListItem) {
				t.Errorf("%s block %q", b.Kind, b.Text)
			}
		}
	}
	want := []string{
		"manual.pdf:p1#description Frobnicator Manual › Description | The frobnicator rewrites each file in place and keeps a backup of it unless told otherwise. Its configuration lives in the home directory.",
		"manual.pdf:p1#description Frobnicator Manual › Description | A second paragraph starts after a wider gap.",
		"manual.pdf:p1#description Frobnicator Manual › Description | $ frob --all notes.txt\nfrob: 3 files rewritten.",
		"manual.pdf:p2#exit-status Frobnicator Manual › Exit status | Zero when every file was frobnicated, one when a file could not be read.",
		"manual.pdf:p2#exit-status Frobnicator Manual › Exit status | A bulleted line is a list item.",
		"manual.pdf:p2#exit-status Frobnicator Manual › Exit status | Backups are kept in the directory /var/backups/frob/ until the next run.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestPDFJoinLine(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{"configu-", "ration", "configuration"},
		{"built-", "In", "built- In"},    // a capital after the hyphen: a compound, kept
		{"well-", "known", "well-known"}, // written whole elsewhere in the document
		{"pre-", "fix", "prefix"},
		{"x -", "y", "x - y"},
		{"soft\u00ad", "ware", "software"},
		{"end.", "Next", "end. Next"},
		{"1990-", "2000", "1990- 2000"},
		{"see https://www.", "debian.org/doc", "see https://www.debian.org/doc"}, // a URL broken at a line end
		{"(https:", "//example.org)", "(https://example.org)"},
		{"at https://example.org/some-", "path", "at https://example.org/some-path"},
		{"at https://example.org/.", "Next", "at https://example.org/. Next"}, // a capital: a new sentence
		{"at https://example.org/docs", "next", "at https://example.org/docs next"},
	} {
		var sb strings.Builder
		sb.WriteString(tc.a)
		joinLine(&sb, tc.b, map[string]bool{"well-known": true})
		if sb.String() != tc.want {
			t.Errorf("joinLine(%q, %q) = %q, want %q", tc.a, tc.b, sb.String(), tc.want)
		}
	}
}

func TestPDFErrors(t *testing.T) {
	good := manualPDF(t)
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"not a pdf", []byte("hello, world")},
		{"empty", nil},
		{"truncated", good[:len(good)/2]},
		{"no trailer", bytes.ReplaceAll(good, []byte("startxref"), []byte("startxxxx"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("bad.pdf", tc.data)
			var e *document.Error
			if !errors.As(err, &e) || !errors.Is(err, document.ErrMalformed) || e.Name != "bad.pdf" {
				t.Fatalf("error %T %v, want an *Error naming bad.pdf", err, err)
			}
		})
	}
}

// bookPDF generates a LaTeX-book-like PDF: a table of contents page (dot
// leaders, an entry wrapped onto a second line, a chapter entry without
// leaders), then body pages under running headers that change from page
// to page (chapter and section in capitals, at the top margin), a
// paragraph that goes on over a page break, and a page whose first line
// is followed by a large gap (a figure) at the height where body text
// starts.
func bookPDF(t testing.TB) []byte {
	p := fpdf.New("P", "mm", "A4", "")
	p.SetAutoPageBreak(false, 0)
	at := func(y, size float64, text string) {
		p.SetXY(20, y)
		p.SetFont("Helvetica", "", size)
		p.Cell(0, 5, text)
	}
	p.AddPage()
	at(20, 20, "Contents")
	at(40, 10, "1 Getting started 2")
	at(46, 10, "1.1 How do I install the frobnicator? . . . . . . . . . . . . 2")
	at(52, 10, "1.2 How does the frobnicator compare with other tools that")
	at(58, 10, "rewrite files? . . . . . . . . . . . . . . . . . . . . . . . . 3")
	at(64, 10, "1.3 Where are backups kept? . . . . . . . . . . . . . . . . . 4")
	at(70, 10, "1.4 Can I undo a run? . . . . . . . . . . . . . . . . . . . . 5")
	body := []struct{ header, first, rest string }{
		{"CHAPTER 1. GETTING STARTED 1.1. HOW DO I INSTALL …", "Install the frobnicator with the package manager.", "It needs no configuration to start. To update it later, run"},
		{"CHAPTER 1. GETTING STARTED 1.2. HOW DOES THE FROBNICATOR …", "the package manager again.", "Other tools rewrite files too but keep no backups."},
		{"CHAPTER 1. GETTING STARTED 1.3. WHERE ARE BACKUPS KEPT?", "Backups are kept in the home directory.", "Each run keeps one backup per file."},
		{"", "A figure follows this line.", "The figure shows a frobnicated file."},
	}
	for _, pg := range body {
		p.AddPage()
		if pg.header != "" {
			y := 10.0
			if strings.Contains(pg.header, "1.2.") {
				y = 10.45 // a point lower on one page (a header with an accent)
			}
			at(y, 10, pg.header)
		}
		at(24, 10, pg.first)
		if strings.HasPrefix(pg.first, "A figure") {
			at(90, 10, pg.rest) // a figure (no text) in between
		} else {
			at(30, 10, pg.rest)
		}
	}
	return pdfBytes(t, p)
}

func TestPDFRunningHeadersAndContents(t *testing.T) {
	d, err := Parse("book.pdf", bookPDF(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Install the frobnicator with the package manager.",
		"It needs no configuration to start. To update it later, run the package manager again.",
		"Other tools rewrite files too but keep no backups.",
		"Backups are kept in the home directory.",
		"Each run keeps one backup per file.",
		"A figure follows this line.",
		"The figure shows a frobnicated file.",
	}
	doctest.CheckTexts(t, d, want)
}

// handbookPDF generates a two-page handbook set in a TrueType font that
// fpdf embeds as a composite (Type0, Identity-H) font, two bytes a glyph
// and widths in its descendant's W array, as most PDFs made today are:
// definitions with a hanging indent, an indented first line after a line
// that ends mid-sentence but short, URLs broken at line ends, and a
// footnote in small type under a paragraph that goes on over the page
// break.
func handbookPDF(t testing.TB) []byte {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/go-pdf/fpdf").Output()
	if err != nil {
		t.Fatalf("finding fpdf's fonts: %v", err)
	}
	p := fpdf.New("P", "pt", "A4", filepath.Join(strings.TrimSpace(string(out)), "font"))
	p.SetAutoPageBreak(false, 0)
	p.AddUTF8Font("dejavu", "", "DejaVuSansCondensed.ttf")
	at := func(x, y, size float64, text string) {
		p.SetFont("dejavu", "", size)
		p.Text(x, y, text)
	}
	p.AddPage()
	at(60, 60, 20, "Handbook")
	lines := []struct {
		x, gap float64
		text   string
	}{
		{60, 30, "Freedom: every package in the archive is free software, and each part of it can be"},
		{85, 13, "upgraded in place without reinstalling anything."},
		{60, 20, "Mirrors: the archive is copied to mirror sites all over the world, which refresh it"},
		{85, 13, "twice a day from the main site."},
		{60, 20, "The options are listed below"},
		{85, 13, "Verbose output is the default."},
		{60, 20, "The manual is online at https://www."},
		{60, 13, "example.org/manual/ and the sources at (https:"},
		{60, 13, "//example.org/src/) for anyone."},
		{60, 20, "This paragraph goes on over the page break and does not end before"},
	}
	y := 60.0
	for _, l := range lines {
		y += l.gap
		at(l.x, y, 11, l.text)
	}
	at(60, 780, 8, "1A footnote in small type at the foot of the page.")
	p.AddPage()
	at(60, 60, 11, "the footnote that interrupts it.")
	return pdfBytes(t, p)
}

func TestPDFLayout(t *testing.T) {
	d, err := Parse("handbook.pdf", handbookPDF(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Freedom: every package in the archive is free software, and each part of it can be upgraded in place without reinstalling anything.",
		"Mirrors: the archive is copied to mirror sites all over the world, which refresh it twice a day from the main site.",
		"The options are listed below",
		"Verbose output is the default.",
		"The manual is online at https://www.example.org/manual/ and the sources at (https://example.org/src/) for anyone.",
		"A footnote in small type at the foot of the page.",
		"This paragraph goes on over the page break and does not end before the footnote that interrupts it.",
	}
	doctest.CheckTexts(t, d, want)
}

// pdfBytes writes a generated PDF out.
func pdfBytes(t testing.TB, p *fpdf.Fpdf) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := p.Output(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
