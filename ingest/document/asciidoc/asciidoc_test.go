package asciidoc

import (
	"github.com/reqa/reqa/ingest/document/internal/doctest"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest/document"
)

// adocBlocks parses in and returns its blocks as manBlocks does.
func adocBlocks(t *testing.T, in string) []string {
	t.Helper()
	d, err := Parse("t.adoc", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	doctest.CheckDocument(t, d)
	return doctest.ManBlocks(d)
}

// TestAsciiDocConstructs checks small inputs, one construct each.
func TestAsciiDocConstructs(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // "kind|term|parents|text|line" per block
	}{
		{"paragraphs", "One\ntwo. +\nthree.\n\nFour.", []string{"paragraph|||One two. three.|1", "paragraph|||Four.|5"}},
		{"header lines and attributes", "= Guide\nAda Example <ada@example.org>\nv1.0, 2024-01-01\n:product: Widget\n:url: https://widget.example\n\n{product} is at {url}[the site]; {unknown} stays.\n\n:product!:\n{product} again.", []string{"paragraph|||Widget is at the site; {unknown} stays.|7", "paragraph|||{product} again.|10"}},
		{"unordered nested and checklist", "* one\n** nested\n*** deeper\n* two\n- [x] done\n- [ ] open", []string{"list-item|||one|1", "list-item|||nested|2", "list-item|||deeper|3", "list-item|||two|4", "list-item|||done|5", "list-item|||open|6"}},
		{"ordered", ". first\n. second\n.. inner\n\n1. one\n2. two", []string{"list-item|||first|1", "list-item|||second|2", "list-item|||inner|3", "list-item|||one|5", "list-item|||two|6"}},
		{"item text goes on", "* one\ngoes on\n* two", []string{"list-item|||one goes on|1", "list-item|||two|3"}},
		{"list continuation", "* one\n+\nMore of one.\n+\n----\n$ make\n----\n* two\n\nAfter.", []string{"list-item|||one More of one.|1", "code|||$ make|6", "list-item|||two|8", "paragraph|||After.|10"}},
		{"blank lines between items", "* a\n\n* b\n\nText.", []string{"list-item|||a|1", "list-item|||b|3", "paragraph|||Text.|5"}},
		{"description list", "CPU:: The brain.\nRAM::\nThe memory,\nfast.\nnested::: deep\nKeyboard;; Keys.", []string{"definition|CPU||CPU: The brain.|1", "definition|RAM||RAM: The memory, fast.|2", "definition|nested|RAM|nested: deep|5", "definition|Keyboard|RAM › nested|Keyboard: Keys.|6"}},
		{"styled description list", "[qanda]\nWhy?::\n  Because.\n", []string{"definition|Why?||Why?: Because.|2"}},
		// A term alone, then a blank line and its (indented) description,
		// as ccache's manual writes every option: the description, not a
		// literal paragraph (Asciidoctor reads it so).
		{"term then blank then description", "*alpha* (*A*)::\n\n    Does alpha.\n    Default: off.\n+\nMore on alpha.\n\nbeta::\n\nDoes beta.\n\nAfter the list.", []string{"definition|alpha (A)||alpha (A): Does alpha. Default: off. More on alpha.|1", "definition|beta||beta: Does beta.|8", "paragraph|||After the list.|12"}},
		{"list item then literal paragraph", "* item\n\n  literal text\n", []string{"list-item|||item|1", "code|||literal text|3"}},
		{"list under a term", "Options::\n* fast\n* slow", []string{"list-item||Options|fast|2", "list-item||Options|slow|3"}},
		{"term alone", "Lonely::\n\nText.", []string{"definition|Lonely||Lonely: Text.|1"}},
		{"code blocks", "[source,go]\n----\nfunc main() {\n\tx := 1\n}\n----\n\n....\nliteral\n....\n\n```sh\nls\n```\n\n  indented literal\n  paragraph\n\n[source]\nx = 1\n", []string{"code|||func main() {\n\tx := 1\n}|3", "code|||literal|9", "code|||ls|13", "code|||indented literal\nparagraph|16", "code|||x = 1|20"}},
		{"dropped blocks", "++++\n<b>raw</b>\n++++\n\n////\ncomment\n////\n\n[pass]\n<i>x</i>\n\nKept.", []string{"paragraph|||Kept.|12"}},
		{"example and sidebar", "====\nIn example.\n====\n\n****\nIn sidebar.\n****\n\n--\nIn open.\n--", []string{"paragraph|||In example.|2", "paragraph|||In sidebar.|6", "paragraph|||In open.|10"}},
		{"quotes", "[quote, Ada]\n____\nWidgets hum.\n\nTwice.\n____\n\n[quote]\nShort quote.\n\n[verse]\n____\nRoses\nare red.\n____", []string{"quote|||Widgets hum.|3", "quote|||Twice.|5", "quote|||Short quote.|9", "quote|||Roses are red.|13"}},
		{"admonitions", "NOTE: Take care.\n\nWARNING: Hot\nsurface.\n\n[TIP]\n====\nUse a mitt.\n====\n\n[CAUTION]\nSharp.", []string{"paragraph|||Take care.|1", "paragraph|||Hot surface.|3", "paragraph|||Use a mitt.|8", "paragraph|||Sharp.|12"}},
		{"table explicit header", "[cols=\"1,2\",options=\"header\"]\n|===\n|Name |Meaning\n|fast\n|Skip checks.\n|safe |Check twice.\n|===", []string{"table-row|||Name: fast; Meaning: Skip checks.|4", "table-row|||Name: safe; Meaning: Check twice.|6"}},
		{"table implicit header", "|===\n|Option |Effect\n\n|-q |Quiet.\n|-v |Verbose.\n|===", []string{"table-row|||Option: -q; Effect: Quiet.|4", "table-row|||Option: -v; Effect: Verbose.|5"}},
		{"table without header", "|===\n|a |b\n|c |d\n|===", []string{"table-row|||a; b|2", "table-row|||c; d|3"}},
		{"table spans and percent header", "[%header,cols=3*]\n|===\n|A |B |C\n2+|wide |c\n|===", []string{"table-row|||A: wide; C: c|4"}},
		{"csv table", "[%header]\n,===\nName,Size\nSprocket,\"small, round\"\n,===", []string{"table-row|||Name: Sprocket; Size: small, round|4"}},
		{"block titles and attributes", ".Example title\n[#para-id.role]\nText.\n\n.Code\n----\nx\n----", []string{"paragraph|||Text.|3", "code|||x|7"}},
		{"comments includes conditionals", "// a comment\ninclude::other.adoc[]\nifdef::backend-html5[]\nHTML only.\nendif::[]\nifndef::x[]\nNot x.\nendif::[]\n\ntoc::[]\nimage::logo.png[Logo]\n\n'''\n\n<<<\n\nEnd.", []string{"paragraph|||HTML only. Not x.|4", "paragraph|||End.|17"}},
		{"unterminated block", "Start.\n\n----\ncode to the end\n\nmore", []string{"paragraph|||Start.|1", "code|||code to the end\n\nmore|4"}},
		{"unterminated example", "====\nInside.\n\n* item", []string{"paragraph|||Inside.|2", "list-item|||item|4"}},
		{"delimiter lengths must match", "------\n----\ninner\n------\nAfter.", []string{"code|||----\ninner|2", "paragraph|||After.|5"}},
		{"heading in a block is text", "====\n== Not a section\n====", []string{"paragraph|||== Not a section|2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doctest.CheckLines(t, "blocks", adocBlocks(t, tc.in), tc.want)
		})
	}
}

// TestAsciiDocSections checks titles, levels and slugs.
func TestAsciiDocSections(t *testing.T) {
	for _, tc := range []struct {
		name, in, title string
		want            []string
	}{
		{"title and sections", "= Widget\n:toc:\n\n== Install\n\n=== On Linux\n\n== Use\n", "Widget", []string{"Widget#widget@1", "Widget › Install#install@4", "Widget › Install › On Linux#on-linux@6", "Widget › Use#use@8"}},
		{"markdown headings", "# Top\n\n## Sub\n", "Top", []string{"Top#top@1", "Top › Sub#sub@3"}},
		{"anchors as slugs", "= T\n\n[[setup]]\n== Set up\n\n[#run]\n== Run\n\n[[setup]]\n== Again\n", "T", []string{"T#t@1", "T › Set up#setup@4", "T › Run#run@7", "T › Again#setup-1@10"}},
		{"no title", "== A\n\n== A\n", "", []string{"A#a@1", "A#a-1@3"}},
		{"deep levels", "= 1\n== 2\n=== 3\n==== 4\n===== 5\n====== 6\n======= 7\n", "1", []string{"1#1@1", "1 › 2#2@2", "1 › 2 › 3#3@3", "1 › 2 › 3 › 4#4@4", "1 › 2 › 3 › 4 › 5#5@5", "1 › 2 › 3 › 4 › 5 › 6#6@6"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse("t.adoc", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			doctest.CheckDocument(t, d)
			if d.Title != tc.title || d.Format != document.AsciiDoc {
				t.Errorf("title %q format %q, want %q", d.Title, d.Format, tc.title)
			}
			doctest.CheckLines(t, "sections", doctest.SectionPaths(d), tc.want)
		})
	}
}

// TestAsciiDocInline checks the removal of inline markup from a paragraph.
func TestAsciiDocInline(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"*bold* _italic_ `mono` #mark# **un**constrained __it__alic", "bold italic mono mark unconstrained italic"},
		{"a_b_c and snake_case_name and 2 * 3 * 4 and a*b*c", "a_b_c and snake_case_name and 2 * 3 * 4 and a*b*c"},
		{"`a_b_c*` and `+*raw*+` and +pass_through_+ and +++<b>+++", "a_b_c* and *raw* and pass_through_ and <b>"},
		{"x^2^ and H~2~O and ~/path", "x2 and H2O and ~/path"},
		{"C++ and C++ and C# and issue #12 and #13", "C++ and C++ and C# and issue #12 and #13"},
		{"See https://x.example[the site], https://y.example and link:doc.html[Docs^].", "See the site, https://y.example and Docs."},
		{"link:a.html[] and <https://z.example> and mailto:a@b.org[]", "a.html and https://z.example and a@b.org"},
		{"See <<install,Installing>> and <<usage>> and xref:faq.adoc#why[Why] and xref:b[].", "See Installing and usage and Why and b."},
		{"Logo image:logo.png[Logo,20] here.footnote:[A note.] End.", "Logo here. End."},
		{"A ((widget)) and (((hidden, term)))indexed.", "A widget and indexed."},
		{"Press kbd:[Ctrl+C], btn:[OK] and menu:File[Save > As].", "Press Ctrl+C, OK and File > Save > As."},
		{"(C) 2024 Widget(R) -- fast(TM)", "© 2024 Widget® — fast™"},
		{"\\*not bold* and \\{attr} and {nbsp}x{plus}y", "*not bold* and {attr} and x+y"},
		{"[.role]#styled# and [[anchor]]text", "styled and text"},
		{"*Use `x_y` and https://a.example/b_c_d*", "Use x_y and https://a.example/b_c_d"},
		{"*unclosed and _unclosed", "*unclosed and _unclosed"},
	} {
		if got := firstBlockText(t, document.AsciiDoc, tc.in); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestAsciiDocInput checks line ends, byte order marks and bytes that are
// not UTF-8.
func TestAsciiDocInput(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"crlf and bom", "\xef\xbb\xbf= T\r\n\r\n* one\r\n* two\r\n", []string{"list-item|||one|3", "list-item|||two|4"}},
		{"invalid UTF-8 replaced", "caf\xe9 and \xff\x00\n", []string{"paragraph|||caf\uFFFD and \uFFFD|1"}},
		{"empty", "", nil},
		{"blank lines only", "\n\n   \n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doctest.CheckLines(t, "blocks", adocBlocks(t, tc.in), tc.want)
		})
	}
}

// TestAsciiDocHostile checks inputs made to hurt: they must read without
// a panic (and in linear time: TestAsciiDocLinear).
func TestAsciiDocHostile(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"nested delimiters", func() string {
			var sb strings.Builder
			for i := range 2000 {
				sb.WriteString(strings.Repeat("=", i+4) + "\n")
			}
			return sb.String()
		}()},
		{"open marks", strings.Repeat("*a _b `c #d ^e ~f +g ", 20000) + "\n"},
		{"many marks", strings.Repeat("*a* ", 100000) + "\n"},
		{"attribute bomb", ":a: " + strings.Repeat("x", 4000) + "\n\n" + strings.Repeat("{a}", 200000) + "\n"},
		{"deep lists", strings.Repeat("*", 5) + " x\n" + strings.Repeat("a:: b\nc;; d\n", 30000)},
		{"continuations", strings.Repeat("* a\n+\n", 30000)},
		{"wide table", "|===\n" + strings.Repeat("|x ", 100000) + "\n|===\n"},
		{"cell specs", "|===\n" + strings.Repeat("99*|x ", 2000) + "\n|===\n"},
		{"unclosed everything", "----\n====\n|===\n[source\n.\n::\n* \n<<x,\nlink:[\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse("t.adoc", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			doctest.CheckDocument(t, d)
		})
	}
}

// TestAsciiDocAnchor: blocks are found by file, line and section slug.
func TestAsciiDocAnchor(t *testing.T) {
	d, err := Parse("guide.adoc", []byte("= Guide\n\n== Usage\n\nRun it.\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := d.Sections[1]
	if a := d.Anchor(s, s.Blocks[0]); a != "guide.adoc:5#usage" {
		t.Errorf("anchor %q", a)
	}
}
