package document_test

import (
	"errors"
	"github.com/reqa/reqa/ingest/document/internal/doctest"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest/document"
)

// TestMarkdownGuide reads testdata/guide.md, which holds every construct
// issue 13 names, and checks what each one becomes.
func TestMarkdownGuide(t *testing.T) {
	d := parseFile(t, "guide.md", document.Markdown)
	blocks := flatten(d)
	if d.Title != "Widget Guide" {
		t.Errorf("title %q", d.Title)
	}
	// Fenced and indented code are Code blocks, never candidates.
	for _, code := range []string{"fenced code is not a candidate", "indented code is not a candidate", "widget rehash", "widget count"} {
		doctest.CandidatesLack(t, d, code)
		if b := find(t, blocks, code); b.Kind != document.Code {
			t.Errorf("%q is a %s block", code, b.Kind)
		}
	}
	// Front matter, comments and link reference definitions are skipped.
	for _, skipped := range []string{"Front matter", "should", "multi-line comment", "must not be indexed", "Link definitions", "example.com"} {
		doctest.Absent(t, d, skipped)
	}
	expectBlocks(t, blocks, []wantBlock{
		// Emphasis, links and inline HTML become their text.
		{"Widget is a small tool for counting things. Read the manual or Ctrl+C to stop it.", document.Paragraph, "Widget Guide", 14},
		// List items without their markers; a lazy continuation line joins.
		{"Download the archive.", document.ListItem, "Widget Guide › Install", 19},
		{"Unpack it into /opt/widget. Then add it to your path.", document.ListItem, "Widget Guide › Install", 20},
		{"Run widget --version to check.", document.ListItem, "Widget Guide › Install", 22},
		// Table rows carry their header.
		{"Option: --fast; Meaning: Counts approximately and quickly.", document.TableRow, "Widget Guide › Options", 38},
		{"Option: --out FILE; Meaning: Writes the counts to FILE.", document.TableRow, "Widget Guide › Options", 39},
		// __init__ keeps its underscores, in a code span or not; a bold word does not.
		{"Python plugins define __init__ and __init__.py; a bare Note is bold. Escaped *stars* and & entities are text.", document.Paragraph, "Widget Guide › Options › The __init__ hook", 43},
		{"Rehashing rebuilds the shim table. It runs after every install.", document.Quote, "Widget Guide › Options › The __init__ hook", 46},
		// <br> is a space; a repeated heading is its own section.
		{"A second heading with the same name gets a numbered slug. The break is a space.", document.Paragraph, "Widget Guide › Options", 53},
	})
	var slugs []string
	for _, s := range d.Sections {
		slugs = append(slugs, s.Slug)
	}
	if got, want := strings.Join(slugs, " "), "widget-guide install options the-__init__-hook options-1"; got != want {
		t.Errorf("slugs %q, want %q", got, want)
	}
	s := d.Sections[2]
	if a := d.Anchor(s, s.Blocks[0]); a != "guide.md:38#options" {
		t.Errorf("anchor %q", a)
	}
}

// TestMarkdownConstructs checks small inputs, one construct each.
func TestMarkdownConstructs(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // "kind|path|text" per block
	}{
		{"atx and setext", "# A\n\ntext one.\n\nB\n---\n\ntext two.\n", []string{"paragraph|A|text one.", "paragraph|A › B|text two."}},
		{"skipped level", "# A\n\n### C\n\nx.\n", []string{"paragraph|A › C|x."}},
		{"nested list keeps group kind", "- one\n  - inner\n- two\n", []string{"list-item||one", "list-item||inner", "list-item||two"}},
		{"ordered list markers dropped", "1. first step.\n2. second step.\n10. tenth.\n", []string{"list-item||first step.", "list-item||second step.", "list-item||tenth."}},
		{"html block heading", "<h1 align=\"center\">Tool</h1>\n\n<p align=\"center\">A <b>fast</b> tool.</p>\n\nbody.\n", []string{"paragraph|Tool|A fast tool.", "paragraph|Tool|body."}},
		{"html comment inline", "before <!-- hidden\nacross lines --> after.\n", []string{"paragraph||before after."}},
		{"image dropped, link kept", "![badge](http://x/b.svg) See [the docs](http://x).\n", []string{"paragraph||See the docs."}},
		{"autolink", "Mail <me@example.com> or <https://go.dev>.\n", []string{"paragraph||Mail me@example.com or https://go.dev."}},
		{"thematic break", "a.\n\n***\n\nb.\n", []string{"paragraph||a.", "paragraph||b."}},
		{"table of contents skipped", "# Guide\n\n- [Install](#install)\n- [Use](#use)\n  - [Flags](#flags)\n\n## Install\n\nRun it.\n",
			[]string{"paragraph|Guide › Install|Run it."}},
		{"list of outside links kept", "- [Go](https://go.dev)\n- [Home](#home) page\n", []string{"list-item||Go", "list-item||Home page"}},
		{"front matter toml", "+++\ntitle = \"x\"\n+++\nbody.\n", []string{"paragraph||body."}},
		{"unclosed front matter is text", "---\nnot closed\n", []string{"paragraph||not closed"}},
		{"table without body", "| a | b |\n|---|---|\n", nil},
		{"table short row", "| k | v |\n|---|---|\n| x |\n| y | z |\n", []string{"table-row||k: x", "table-row||k: y; v: z"}},
		{"strikethrough and task", "- [x] ~~old~~ done\n", []string{"list-item||old done"}},
		{"dunder in text", "call __main__ now\n", []string{"paragraph||call __main__ now"}},
		{"bom and front matter", "\xef\xbb\xbf---\nk: v\n---\n# T\n\nx.\n", []string{"paragraph|T|x."}},
		{"bom", "\xef\xbb\xbfHello.\n", []string{"paragraph||Hello."}},
		{"admonitions", "Intro.\n\n!!! note \"Heads up\"\n    The cache lives at home.\n    It is safe to delete.\n\n!!! warning\n\n    Never run it as root.\n\n    Not even once.\n\n???+ tip \"Folded\"\n    Use the short flag.\n\nAfter.\n",
			[]string{"paragraph||Intro.", "quote||The cache lives at home. It is safe to delete.", "quote||Never run it as root.", "quote||Not even once.", "quote||Use the short flag.", "paragraph||After."}},
		{"admonition crlf and tab", "!!! note \"T\"\r\n    Body one.\r\n\r\n!!! tip\n\tTabbed body.\n", []string{"quote||Body one.", "quote||Tabbed body."}},
		{"admonition lookalikes", "!!! not a marker line because of this.\n\n!!!\n\n    code after a bare marker.\n", []string{"paragraph||!!! not a marker line because of this.", "paragraph||!!!", "code||code after a bare marker."}},
		{"github alert", "> [!NOTE]\n> Updates are checked daily.\n\n> [!warning] Back up first.\n\n> [!NOPE] kept.\n", []string{"quote||Updates are checked daily.", "quote||Back up first.", "quote||[!NOPE] kept."}},
		{"entity and escape", "a &lt;b&gt; \\_c\\_ &#169;\n", []string{"paragraph||a <b> _c_ ©"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := document.ParseMarkdown("t.md", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			doctest.CheckBlocks(t, d, tc.want)
		})
	}
}

// TestMarkdownHostile checks that deep nesting and huge tables parse
// without a panic and keep their text.
func TestMarkdownHostile(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"deep quotes", strings.Repeat(">", 5000) + " deep text.\n", "deep text."},
		{"deep lists", strings.Repeat("- ", 3000) + "deep item.\n", "deep item."},
		{"wide table", "|" + strings.Repeat(" h |", 2000) + "\n|" + strings.Repeat("---|", 2000) + "\n|" + strings.Repeat(" v |", 2000) + "\n", "h: v; h: v"},
		{"deep emphasis", strings.Repeat("*", 20000) + "x" + strings.Repeat("*", 20000) + "\n", "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := document.ParseMarkdown("t.md", []byte(tc.in))
			if err != nil {
				if !errors.Is(err, document.ErrMalformed) {
					t.Fatalf("error %v is not ErrMalformed", err)
				}
				return
			}
			doctest.CheckDocument(t, d)
			find(t, flatten(d), tc.want)
		})
	}
}
