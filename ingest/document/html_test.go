package document_test

import (
	"fmt"
	"github.com/reqa/reqa/ingest/document/internal/doctest"
	"slices"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest/document"
)

// TestHTMLManualPage reads testdata/manual.html, a manual page in the shape
// of man2html or pandoc output, into sections with heading paths.
func TestHTMLManualPage(t *testing.T) {
	d := parseFile(t, "manual.html", document.HTML)
	if d.Title != "frob(1) — Frobnicator Manual" {
		t.Errorf("title %q", d.Title)
	}
	var paths []string
	for _, s := range d.Sections {
		paths = append(paths, s.Heading()+"#"+s.Slug)
	}
	if got, want := strings.Join(paths, "\n"), strings.Join([]string{
		"frob(1)#frob1",
		"frob(1) › NAME#name",
		"frob(1) › DESCRIPTION#description",
		"frob(1) › DESCRIPTION › Exit status#exit-status",
		"frob(1) › OPTIONS#options",
	}, "\n"); got != want {
		t.Errorf("sections\n%s\nwant\n%s", got, want)
	}
	blocks := flatten(d)
	expectBlocks(t, blocks, []wantBlock{
		{"frob – frobnicate files & directories", document.Paragraph, "frob(1) › NAME", 13},
		{"The frob command rewrites each file in place. It keeps a backup unless told otherwise.", document.Paragraph, "frob(1) › DESCRIPTION", 15},
		{"Zero when every file was frobnicated.", document.ListItem, "frob(1) › DESCRIPTION › Exit status", 23},
		{"One when a file could not be read.", document.ListItem, "frob(1) › DESCRIPTION › Exit status", 24},
		{"-n, --dry-run: Show what would change without writing anything.", document.Definition, "frob(1) › OPTIONS", 29},
		{"--level N: Frobnicate N times.", document.Definition, "frob(1) › OPTIONS", 31},
		{"Variable: FROB_HOME; Effect: Where backups are kept.", document.TableRow, "frob(1) › OPTIONS", 36},
		{"Variable: FROB_QUIET; Effect: Silences all warnings.", document.TableRow, "frob(1) › OPTIONS", 37},
		{"Frobnication cannot be undone without a backup.", document.Quote, "frob(1) › OPTIONS", 41},
	})
	if b := find(t, blocks, "pre blocks are not candidates"); b.Kind != document.Code || !strings.Contains(b.Text, "$ frob --all notes.txt\n") {
		t.Errorf("pre block %+v", b)
	}
	doctest.CandidatesLack(t, d, "frob --all")
	for _, skipped := range []string{"font-family", "not text", "notText", "script is not", "template is not", "NAME OPTIONS"} {
		doctest.Absent(t, d, skipped)
	}
	s := d.Sections[4]
	if a := d.Anchor(s, s.Blocks[0]); a != "manual.html:29#options" {
		t.Errorf("anchor %q", a)
	}
}

// TestHTMLConstructs checks small inputs, one construct each.
func TestHTMLConstructs(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // "kind|path|text" per block
	}{
		{"implicit li and p", "<ul><li>one<li>two</ul><p>a<p>b", []string{"list-item||one", "list-item||two", "paragraph||a", "paragraph||b"}},
		{"cgi header before markup", "Content-type: text/html; charset=UTF-8\n\n<!DOCTYPE html><p>body.</p>", []string{"paragraph||body."}},
		{"text that looks like a header", "Note: read this first.\n\nThen <b>that</b>.", []string{"paragraph||Note: read this first. Then that."}},
		{"nested list", "<ol><li>outer<ul><li>inner</li></ul></li><li>last</li></ol>", []string{"list-item||outer", "list-item||inner", "list-item||last"}},
		{"heading inline markup", "<h2>The <code>go</code> <em>command</em></h2><p>x</p>", []string{"paragraph|The go command|x"}},
		{"br and entities", "<p>a<br>b&nbsp;c &lt;d&gt; &amp;amp;</p>", []string{"paragraph||a b c <d> &amp;"}},
		{"row header cells", "<table><tr><th>Key</th><td>value</td></tr></table>", []string{"table-row||Key: value"}},
		{"header-only table", "<table><tr><th>only</th><th>header</th></tr></table>", []string{"table-row||only; header"}},
		{"nested table", "<table><tr><th>A</th></tr><tr><td>x<table><tr><td>in</td></tr></table></td></tr></table>", []string{"table-row||in", "table-row||A: x"}},
		{"unclosed head", "<html><head><title>T</title><body><p>body text</p>", []string{"paragraph||body text"}},
		{"dd without dt", "<dl><dd>lonely</dd></dl>", []string{"definition||lonely"}},
		{"term on the first block only", "<dl><dt>Function: f</dt><dd><p>Calls.</p><p>Returns.</p></dd><dt>g</dt><dd>G.</dd></dl>", []string{"definition||Function: f: Calls.", "definition||Returns.", "definition||g: G."}},
		{"generator chrome", "<div class=\"nav-panel\"><p>Next: Up</p></div><div class=\"picker\"><div class=\"toc\"><ul><li>Intro</li></ul></div></div><a class=\"skip-to-content\">Skip</a><div id=\"gtoc\"><ul><li>All</li></ul></div><div class=\"navheader\">Prev</div><p>Body.</p><p class=\"note\">Kept.</p>", []string{"paragraph||Body.", "paragraph||Kept."}},
		{"skips", "<nav>menu</nav><svg><text>draw</text></svg><noscript>ns</noscript><form><button>b</button>field</form>", []string{"paragraph||field"}},
		{"bom", "\xef\xbb\xbf<p>x</p>", []string{"paragraph||x"}},
		{"windows-1252", "<meta charset=\"windows-1252\"><p>caf\xe9</p>", []string{"paragraph||café"}},
		{"heading permalinks", "<h2>Async hooks<a class=\"mark\" href=\"#x\">#</a></h2><p>a</p><h2>Using C#</h2><p>b</p><h2><a href=\"#y\">Linked</a></h2><p>c</p>", []string{"paragraph|Async hooks|a", "paragraph|Using C#|b", "paragraph|Linked|c"}},
		{"heading id slug", "<h1 id=\"Intro_x\">Intro</h1><p>y</p>", []string{"paragraph|Intro|y"}},
		{"admonition labels", "<div class=\"admonition note\"><p class=\"admonition-title\">Note</p><p>Read this first.</p></div><div class=\"admonition seealso\"><p class=\"admonition-title\">See also</p><p>The other page.</p></div>", []string{"paragraph||Read this first.", "paragraph||The other page."}},
		{"footers", "<p>Body.</p><div class=\"footer\" role=\"contentinfo\"><p>© Copyright 2001, X.</p></div><div id=\"footer\"><div id=\"footer-text\">Last updated 2024-05-31</div></div><footer><p>Built with a generator.</p></footer><div role=\"contentinfo\">Found a bug?</div><p>Kept.</p>", []string{"paragraph||Body.", "paragraph||Kept."}},
		{"sphinx index tables", "<h1>Index</h1><div class=\"genindex-jumpbox\"><p><a href=\"#A\">A</a></p></div><table class=\"indextable genindextable\"><tr><td><ul><li><a href=\"x.html\">abs() (built-in function)</a></li></ul></td></tr></table><table class=\"indextable modindextable\"><tr><td>os</td></tr></table><div class=\"toctree-wrapper compound\"><ul><li class=\"toctree-l1\"><a href=\"faq.html\">I want to compile a module, but some files are missing.</a></li></ul></div><p>Kept.</p>", []string{"paragraph|Index|Kept."}},
		{"sphinx chrome", "<div role=\"navigation\"><div><p>Table of contents</p></div><p>Next topic</p></div><h1>Install<a class=\"headerlink\" href=\"#install\">¶</a></h1><p>Run it.</p><p hidden>gone</p><span aria-hidden=\"true\">icon</span>", []string{"paragraph|Install|Run it."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := document.ParseHTML("t.html", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			doctest.CheckBlocks(t, d, tc.want)
		})
	}
}

// TestHTMLHostile checks deep nesting and huge tables.
func TestHTMLHostile(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"deep divs", strings.Repeat("<div>", 100000) + "deep text" + strings.Repeat("</div>", 100000), "deep text"},
		{"deep tables", strings.Repeat("<table><tr><td>", 5000) + "cell", "cell"},
		{"wide table", "<table><tr>" + strings.Repeat("<th>h</th>", 5000) + "</tr><tr>" + strings.Repeat("<td>v</td>", 5000) + "</tr></table>", "h: v; h: v"},
		{"unclosed pre", "<p>before</p><pre>code", "before"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := document.ParseHTML("t.html", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			doctest.CheckDocument(t, d)
			find(t, flatten(d), tc.want)
		})
	}
}

// TestHTMLLines: block line numbers stay exact after text full of
// entities and attributes (the tokenizer unescapes its buffer in place).
func TestHTMLLines(t *testing.T) {
	var src strings.Builder
	src.WriteString("<html><head><title>T &amp; U\n</title></head><body>\n")
	for i := 0; i < 50; i++ {
		src.WriteString("<p class=\"a&amp;b\">one &amp; two &lt;three&gt;\n&quot;four&quot; &#169;\nfive.</p>\n")
	}
	src.WriteString("<h2 id=\"x\">Last\nsection</h2>\n<p>The end.</p>\n")
	doc, err := document.ParseHTML("t.html", []byte(src.String()))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Count(src.String(), "\n") // "<p>The end.</p>" is on the last line
	var got int
	for _, s := range doc.Sections {
		for _, b := range s.Blocks {
			if b.Text == "The end." {
				got = b.Line
			}
		}
	}
	if got != want {
		t.Fatalf("\"The end.\" on line %d, want %d", got, want)
	}
}

// TestHTMLDefinitions: a definition's first block says how long its term is
// (readers keep the term with the first sentence; later blocks of the
// definition and other kinds have none), and blocks of a definition list or
// list nested in a definition carry the terms above them, outermost first
// (a definition's own term is not among them).
func TestHTMLDefinitions(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // "kind|term|parents|text" per block
	}{
		{"term length", "<dl><dt> <code>-?</code> </dt><dd><p>  Prints\n help.</p><p>Then exits.</p></dd><dd>No term.</dd></dl><p>x</p>",
			[]string{"definition|-?||-?: Prints help.", "definition|||Then exits.", "definition|||No term.", "paragraph|||x"}},
		{"nested", "<dl><dt>set</dt><dd>Sets options.<dl><dt>-e</dt><dd>Exits.<ul><li>Even in pipes.</li></ul></dd></dl><p>More on set.</p></dd><dt>cd</dt><dd>Changes.</dd></dl><p>After.</p>",
			[]string{"definition|set||set: Sets options.", "definition|-e|set|-e: Exits.", "list-item||set › -e|Even in pipes.", "definition|||More on set.", "definition|cd||cd: Changes.", "paragraph|||After."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := document.ParseHTML("t.html", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range d.Sections {
				for _, b := range s.Blocks {
					got = append(got, fmt.Sprintf("%s|%s|%s|%s", b.Kind, b.Text[:b.Term], strings.Join(b.Parents, document.PathSep), b.Text))
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("blocks\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
