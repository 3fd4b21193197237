package ingest

import (
	"bytes"
	"context"
	"errors"
	"github.com/reqa/reqa/index"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest/document"
	"github.com/reqa/reqa/ingest/document/formats"

	"github.com/go-pdf/fpdf"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/store"
)

// candidate is one sentence of a corpus as the tests see it.
type candidate struct {
	text, title, source, anchor string
	kind                        store.Kind
}

func candidates(c *Corpus) []candidate {
	var out []candidate
	for _, s := range c.Sentences {
		ctx := c.Contexts[s.ContextID]
		out = append(out, candidate{s.Text(ctx), ctx.Title, ctx.Source, s.Anchor(ctx), s.Kind})
	}
	return out
}

// readWalk reads dir and checks its candidates, each "text | title |
// kind", against want; it returns the corpus and each file's kind and
// status ("man read"), by its path under dir.
func readWalk(t *testing.T, dir string, want []string) (*Corpus, map[string]string) {
	t.Helper()
	c, err := ReadInputs([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range candidates(c) {
		got = append(got, x.text+" | "+x.title+" | "+string(x.kind))
	}
	if !slices.Equal(got, want) {
		t.Errorf("candidates\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	kinds := map[string]string{}
	for _, f := range c.Files {
		kinds[f.Path[len(dir)+1:]] = f.Kind + " " + string(f.Status)
	}
	return c, kinds
}

func readDocs(t *testing.T, names ...string) *Corpus {
	t.Helper()
	c := &Corpus{}
	readDocsInto(t, c, names...)
	return c
}

// readDocsInto reads testdata/docs files into c.
func readDocsInto(t *testing.T, c *Corpus, names ...string) {
	t.Helper()
	for _, n := range names {
		p := filepath.Join("testdata", "docs", n)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := readDocument(c, p, DocumentKind(n), b); err != nil {
			t.Fatal(err)
		}
	}
}

// generatedPDF is a two-page PDF: a heading and a paragraph on each page.
func generatedPDF(t testing.TB) []byte {
	p := fpdf.New("P", "mm", "A4", "")
	for _, pg := range [][2]string{{"Backups", "Frob keeps one backup per file."}, {"Limits", "Files over two gigabytes are refused."}} {
		p.AddPage()
		p.SetFont("Helvetica", "", 18)
		p.Cell(0, 8, pg[0])
		p.Ln(12)
		p.SetFont("Helvetica", "", 11)
		p.Cell(0, 5, pg[1])
	}
	var b bytes.Buffer
	if err := p.Output(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestReadDocument(t *testing.T) {
	c := readDocs(t, "shims.md", "frob.html", "notes.txt")
	if err := readDocument(c, "manual.pdf", "pdf", generatedPDF(t)); err != nil {
		t.Fatal(err)
	}
	md := filepath.Join("testdata", "docs", "shims.md")
	html := filepath.Join("testdata", "docs", "frob.html")
	txt := filepath.Join("testdata", "docs", "notes.txt")
	want := []candidate{
		{"Shimmer lets you switch between tool versions.", "Shimmer", md + ":7#shimmer", md + ":7#shimmer", store.KindParagraph},
		{"It intercepts commands with shims.", "Shimmer", md + ":7#shimmer", md + ":7#shimmer", store.KindParagraph},
		{"Rehashing installs shims for every executable the installed versions provide.", "Shimmer › Commands › shimmer rehash", md + ":13#shimmer-rehash", md + ":13#shimmer-rehash", store.KindParagraph},
		{"Run it after you install a new version.", "Shimmer › Commands › shimmer rehash", md + ":13#shimmer-rehash", md + ":13#shimmer-rehash", store.KindParagraph},
		{"Prints the full path to an executable.", "Shimmer › Commands › shimmer which", md + ":20#shimmer-which", md + ":20#shimmer-which", store.KindListItem},
		{"Looks in the selected version first.", "Shimmer › Commands › shimmer which", md + ":20#shimmer-which", md + ":21#shimmer-which", store.KindListItem},
		{"Option: --skip-advice; Meaning: Does not suggest other versions.", "Shimmer › Commands › shimmer which", md + ":25#shimmer-which", md + ":25#shimmer-which", store.KindTableRow},
		{"Removing the root directory removes every installed version.", "Shimmer › Uninstalling", md + ":29#uninstalling", md + ":29#uninstalling", store.KindQuote},
		{"The frob command rewrites each file in place.", "frob(1) › DESCRIPTION", html + ":7#description", html + ":7#description", store.KindParagraph},
		{"It keeps a backup unless told otherwise.", "frob(1) › DESCRIPTION", html + ":7#description", html + ":7#description", store.KindParagraph},
		{"-n: Shows what would change without writing.", "frob(1) › OPTIONS", html + ":11#options", html + ":11#options", store.KindDefinition},
		{"!: Repeats the last run.", "frob(1) › OPTIONS", html + ":11#options", html + ":12#options", store.KindDefinition},
		{"It reads no files.", "frob(1) › OPTIONS", html + ":11#options", html + ":12#options", store.KindDefinition},
		{"-?: Prints help.", "frob(1) › OPTIONS", html + ":11#options", html + ":13#options", store.KindDefinition},
		{"--mode M: Chooses how to frob:", "frob(1) › OPTIONS", html + ":11#options", html + ":14#options", store.KindDefinition},
		{"fast: Skips the backup.", "frob(1) › OPTIONS › --mode M", html + ":15#options", html + ":15#options", store.KindDefinition},
		{"Plain notes have no headings.", "notes", txt + ":1", txt + ":1", store.KindParagraph},
		{"A paragraph spans lines.", "notes", txt + ":1", txt + ":1", store.KindParagraph},
		{"The second paragraph stands alone.", "notes", txt + ":4", txt + ":4", store.KindParagraph},
		{"Frob keeps one backup per file.", "Backups", "manual.pdf:p1#backups", "manual.pdf:p1#backups", store.KindParagraph},
		{"Files over two gigabytes are refused.", "Limits", "manual.pdf:p2#limits", "manual.pdf:p2#limits", store.KindParagraph},
	}
	got := candidates(c)
	if len(got) != len(want) {
		t.Errorf("%d candidates, want %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("candidate %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	for _, ctx := range c.Contexts {
		for _, bad := range []string{"$ shimmer", "$ frob", "layout", "color: red", "NAME SYNOPSIS"} {
			if strings.Contains(ctx.Text, bad) {
				t.Errorf("context %q holds %q", ctx.Text, bad)
			}
		}
	}
}

func TestReadDocumentErrors(t *testing.T) {
	for _, tc := range []struct {
		name, kind string
		data       []byte
		line       int
		msg        string
	}{
		{"a.doc", "doc", []byte("x"), 0, "unsupported document kind"},
		{"a.md", "md", []byte("fine\nbad \xff\n"), 2, "invalid UTF-8"},
		{"a.md", "md", []byte(" \n\n"), 0, "empty file"},
		{"a.md", "md", []byte("```\nonly code\n```\n"), 0, "empty file"},
		{"a.html", "html", []byte("<script>x()</script><nav>menu</nav>"), 0, "empty page"},
		{"a.pdf", "pdf", []byte("%PDF-1.4 not really"), 0, "pdf:"},
	} {
		t.Run(tc.name+" "+tc.msg, func(t *testing.T) {
			err := readDocument(&Corpus{}, tc.name, tc.kind, tc.data)
			var ie *InputError
			if !errors.As(err, &ie) || !errors.Is(err, ErrBadInput) || ie.File != tc.name || ie.Line != tc.line || !strings.Contains(ie.Msg, tc.msg) {
				t.Fatalf("error %v (%+v), want an *InputError at %s:%d saying %q", err, ie, tc.name, tc.line, tc.msg)
			}
		})
	}
}

// TestDocumentKind: a document's kind is known by its extension, ".gz"
// aside; manual pages by their section suffix or ".man"; plain-text
// documentation by its conventional name.
func TestDocumentKind(t *testing.T) {
	for name, want := range map[string]string{
		"a.md": "md", "A.MARKDOWN": "md", "x.html": "html", "x.htm.gz": "html", "m.pdf": "pdf",
		"n.txt": "txt", "n.text": "txt", "n.jsonl": "", "README": "txt", "README.gz": "txt",
		"README.Debian.gz": "txt", "readme.source": "txt", "INSTALL": "txt", "FAQ": "txt", "TODO": "txt",
		"README.md": "md", "INSTALL.sh": "", "README.in": "", "README.v2": "", "README.tar": "", "README-dev": "",
		"COPYING": "", "Makefile": "", "NEWS": "", "CONTRIBUTING.rst": "rst",
		"guide.rst": "rst", "guide.rest.gz": "rst", "INDEX.RST": "rst",
		"guide.adoc": "adoc", "guide.asciidoc.gz": "adoc", "KEYS.ASC": "", "x.tar.gz.asc": "",
		"GUIDE.ADOC.gz": "adoc", "notes.org": "org", "NOTES.ORG.gz": "org", "x.org.bak": "", "x.adoc.bak": "", "x.ad": "",
		"coreutils.info.gz": "info", "find.info-1.gz": "info", "x.info-12": "info", "x.info-": "", "x.info-a": "", "dir": "",
		"ls.1": "man", "ls.1.gz": "man", "perl.3pm.gz": "man", "x.1ssl": "man", "mount.8": "man",
		"open.3posix.gz": "man", "page.man": "man", "LS.1": "man",
		"x.0": "", "x.1-old": "", "x.1_": "", "tcl.n": "", "x.": "",
		"book.epub": "epub", "BOOK.EPUB.gz": "epub", "report.docx": "docx", "Report.DOCX": "docx",
		"notes.odt": "odt", "Notes.ODT.gz": "odt",
		"report.doc": "", "report.docm": "", "book.epub.zip": "", "sheet.ods": "", "notes.fodt": "",
	} {
		if got := DocumentKind(name); got != want {
			t.Errorf("DocumentKind(%q) = %q, want %q", name, got, want)
		}
	}
}

// FuzzReadDocument feeds arbitrary bytes to the HTML and PDF readers
// through the file reader (FuzzReadText covers Markdown and text).
func FuzzReadDocument(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "docs", "frob.html"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b, false)
	f.Add(generatedPDF(f), true)
	f.Add([]byte("<p>x"), false)
	f.Fuzz(func(t *testing.T, data []byte, pdf bool) {
		name := "in.html"
		if pdf {
			name = "in.pdf"
		}
		fuzzRead(t, name, data, false)
	})
}

// askCase is a question and the first answer askFirst wants: its
// sentence, title (heading path) and the end of its source anchor.
type askCase struct{ q, sentence, title, source string }

// askFirst indexes dir (BM25 word field only), asks each case's question
// with bm25-word and checks the first answer.
func askFirst(t *testing.T, dir string, cases []askCase) {
	t.Helper()
	c, err := ReadInputs([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "x.reqa")
	if _, err := index.Build(context.Background(), c, out, index.Options{Tokenizers: []string{"word"}}); err != nil {
		t.Fatal(err)
	}
	e, err := rank.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.Ranker("bm25-word")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		a, err := e.Ask(context.Background(), r, tc.q, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(a) == 0 || a[0].Sentence != tc.sentence || a[0].Title != tc.title || !strings.HasSuffix(a[0].Source, string(filepath.Separator)+tc.source) {
			t.Errorf("%q: %+v, want %q under %q at %s", tc.q, a, tc.sentence, tc.title, tc.source)
		}
	}
}

// TestTextFormat checks which reader plain text goes to: Markdown and
// reStructuredText when it reads as them, plain text otherwise.
func TestTextFormat(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     document.Format
	}{
		{"two ATX headings", "# Tool\n\nIt works.\n\n## Install\n\nRun it.\n", document.Markdown},
		{"a heading and a fence", "# Tool\n\n```\nmake\n```\n", document.Markdown},
		{"comments in a fence only", "Build it:\n\n```\n# one\n# two\n```\n", document.Text},
		{"one comment line", "# not much\nText.\n", document.Text},
		{"a run of comments", "Setup:\n\n# apt update\n# apt install x\n\nDone.\n\n# one more\n# and more\n", document.Text},
		{"seven hashes", "####### x\n####### y\n", document.Text},
		{"rst", "Tool\n====\n\n.. note:: Careful.\n\nSee `docs`_.\n\n.. _docs: https://example.org\n", document.RST},
		{"underlined plain text", "Tool\n====\n\nIt works.\n\n.. and so on.\n", document.Text},
		{"plain", "Just text.\n\nMore text.\n", document.Text},
	} {
		if got := formats.GuessText([]byte(tc.in)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	// A README in Markdown: its headings make the path, its code is no answer.
	c := &Corpus{}
	if err := readDocument(c, "README", "txt", []byte("# Tool\n\n## Install\n\nRun the installer.\n\n```\nmake install\n```\n")); err != nil {
		t.Fatal(err)
	}
	if got := sentenceTexts(c); len(got) != 1 || got[0] != "Run the installer." || c.Contexts[0].Title != "Tool › Install" {
		t.Fatalf("sentences %q, title %q", got, c.Contexts[0].Title)
	}
}
