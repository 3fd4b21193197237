package document

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// got is one block as the tests see it.
type got struct {
	path string // heading path
	kind Kind
	text string
	line int
	page int
}

// flatten lists a document's blocks with their heading paths.
func flatten(d *Document) []got {
	var out []got
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			out = append(out, got{s.Heading(), b.Kind, b.Text, b.Line, b.Page})
		}
	}
	return out
}

// firstBlockText parses in (a line end added) as format f and returns its
// first block's text, "" when it has none: inline markup tests.
func firstBlockText(t *testing.T, f Format, in string) string {
	t.Helper()
	d, err := Parse("t", f, []byte(in+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if b := flatten(d); len(b) > 0 {
		return b[0].text
	}
	return ""
}

// checkOutline checks a parsed document's title and its sections'
// heading paths, printing its blocks when they differ.
func checkOutline(t *testing.T, d *Document, err error, title string, paths []string) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	checkDocument(t, d)
	var got []string
	for _, s := range d.Sections {
		got = append(got, s.Heading())
	}
	if d.Title != title || !slices.Equal(got, paths) {
		t.Errorf("title %q paths %q, want %q %q\n%s", d.Title, got, title, paths, strings.Join(blockLines(d), "\n"))
	}
}

// find returns the block whose text contains sub.
func find(t *testing.T, blocks []got, sub string) got {
	t.Helper()
	for _, b := range blocks {
		if strings.Contains(b.text, sub) {
			return b
		}
	}
	t.Fatalf("no block holds %q; blocks: %+v", sub, blocks)
	return got{}
}

// absent fails if any block or heading holds sub.
func absent(t *testing.T, d *Document, sub string) {
	t.Helper()
	for _, s := range d.Sections {
		if strings.Contains(s.Heading(), sub) {
			t.Errorf("heading %q holds %q", s.Heading(), sub)
		}
		for _, b := range s.Blocks {
			if strings.Contains(b.Text, sub) {
				t.Errorf("%s block %q holds %q", b.Kind, b.Text, sub)
			}
		}
	}
}

// candidatesLack fails if a candidate block holds sub.
func candidatesLack(t *testing.T, d *Document, sub string) {
	t.Helper()
	for _, b := range flatten(d) {
		if b.kind.Candidate() && strings.Contains(b.text, sub) {
			t.Errorf("candidate %s block %q holds %q", b.kind, b.text, sub)
		}
	}
}

func parseFile(t *testing.T, name string, f Format) *Document {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(name, f, data)
	if err != nil {
		t.Fatal(err)
	}
	checkDocument(t, d)
	return d
}

// checkBlocks checks d and its blocks, each "kind|heading path|text",
// against want.
// wantBlock is a block expected in a document: its text, kind, heading
// path and line.
type wantBlock struct {
	text string
	kind Kind
	path string
	line int
}

// expectBlocks checks that each of want is among blocks, as described.
func expectBlocks(t *testing.T, blocks []got, want []wantBlock) {
	t.Helper()
	for _, w := range want {
		b := find(t, blocks, w.text)
		if b.text != w.text || b.kind != w.kind || b.path != w.path || b.line != w.line {
			t.Errorf("got %+v\nwant %+v", b, w)
		}
	}
}

func checkBlocks(t *testing.T, d *Document, want []string) {
	t.Helper()
	checkDocument(t, d)
	var got []string
	for _, b := range flatten(d) {
		got = append(got, string(b.kind)+"|"+b.path+"|"+b.text)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// checkTexts checks the texts of a document's blocks, in order.
func checkTexts(t *testing.T, d *Document, want []string) {
	t.Helper()
	checkDocument(t, d)
	var got []string
	for _, b := range flatten(d) {
		got = append(got, b.text)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// checkDocument checks what every parsed document must satisfy: valid
// UTF-8, no empty block, candidate blocks on one line of collapsed text,
// headings non-empty, slugs unique.
func checkDocument(t *testing.T, d *Document) {
	t.Helper()
	slugs := map[string]bool{}
	for i, s := range d.Sections {
		for _, h := range s.Path {
			if h == "" || !utf8.ValidString(h) || strings.ContainsAny(h, "\n\t") {
				t.Fatalf("section %d: bad heading %q in path %q", i, h, s.Path)
			}
		}
		if s.Slug != "" {
			if slugs[s.Slug] && d.Format != HTML && d.Format != EPUB { // HTML ids are the author's
				t.Fatalf("slug %q repeated", s.Slug)
			}
			slugs[s.Slug] = true
		}
		for _, b := range s.Blocks {
			if strings.TrimSpace(b.Text) == "" || !utf8.ValidString(b.Text) || b.Group <= 0 {
				t.Fatalf("section %d: bad block %+v", i, b)
			}
			if b.Kind.Candidate() && (strings.ContainsAny(b.Text, "\n\t") || strings.TrimSpace(b.Text) != b.Text) {
				t.Fatalf("section %d: candidate text not collapsed: %q", i, b.Text)
			}
			if d.Anchor(s, b) == "" {
				t.Fatalf("no anchor for %+v", b)
			}
			for _, p := range b.Parents {
				if p == "" || strings.ContainsAny(p, "\n\t") {
					t.Fatalf("section %d: bad parent %q in %+v", i, p, b)
				}
			}
			if b.Term != 0 && (b.Kind != Definition || b.Term < 0 || b.Term >= len(b.Text) || b.Text[b.Term] != ':') {
				t.Fatalf("section %d: bad term length in %+v", i, b)
			}
		}
	}
}

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Install", "install"},
		{"The `__init__` hook", "the-__init__-hook"},
		{"frob(1)", "frob1"},
		{"2.1. NAME", "21-name"},
		{"Héllo, Wörld!", "héllo-wörld"},
		{"  C++ & Go  ", "c--go"},
	} {
		if got := Slug(tc.in); got != tc.want {
			t.Errorf("Slug(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseUnknownFormat(t *testing.T) {
	if _, err := Parse("x.doc", "doc", []byte("x")); err == nil {
		t.Fatal("an unknown format was accepted")
	}
}

func TestParseText(t *testing.T) {
	d, err := ParseText("notes.txt", []byte("First line\n  goes on.\n\n\nSecond   paragraph.\n"))
	if err != nil {
		t.Fatal(err)
	}
	checkDocument(t, d)
	b := flatten(d)
	if len(b) != 2 || b[0].text != "First line goes on." || b[0].line != 1 || b[1].text != "Second paragraph." || b[1].line != 5 {
		t.Fatalf("blocks %+v", b)
	}
	if a := d.Anchor(d.Sections[0], d.Sections[0].Blocks[1]); a != "notes.txt:5" {
		t.Fatalf("anchor %q", a)
	}
}
