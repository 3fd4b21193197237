package document_test

import (
	"github.com/reqa/reqa/ingest/document/internal/doctest"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest/document"
)

func FuzzMarkdown(f *testing.F) {
	doctest.AddFixtures(f, "guide.md")
	for _, s := range []string{"", "# h\n\ntext", "---\na: b\n---\n", "| a |\n|---|\n| b |", "<div>\n*x*\n</div>", "> > - 1. `c`\n", "__init__ __x__ _y_", "[a]: b\n[a]", "!!! note \"t\"\n    body\n\n    more\nout", "- ???+ tip\n      in a list\n", "> [!NOTE]\n> x"} {
		f.Add([]byte(s))
	}
	// Issue 33: what the pre-pass bounds (mdguard.go).
	for _, s := range []string{strings.Repeat(">", 2000) + " x\n", strings.Repeat("[a](", 2000), strings.Repeat("*a_", 2000),
		string(nestedList(300, 300)), strings.Repeat("- ", 100) + "x\n```\n" + strings.Repeat(" ", 300) + "code\n```\n",
		"|a|b|\n|-|-|\n|" + strings.Repeat("`x` ", 2000) + "|\n", strings.Repeat("\t", 100) + "- x\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, document.Markdown, data) })
}

func FuzzText(f *testing.F) {
	doctest.AddFixtures(f, "harbour.txt", "frob.txt")
	for _, s := range []string{"", "a\n===\n", "===\n a\n===\n", "- x\ny\n\n1) z", "===\n\n---\n", "ABC\n\n", "a. b\n\xff\n", "\ufeff- \n  - \n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, document.Text, data) })
}

func FuzzHTML(f *testing.F) {
	doctest.AddFixtures(f, "manual.html")
	for _, s := range []string{"", "<h1>a</h1><p>b", "<table><tr><th>a<td>b", "<dl><dt>t<dd>d", "<pre>x</pre>", "<head><title>t</title>", "<ul><li><ul><li>x", "\xff\xfe<\x00p\x00>"} {
		f.Add([]byte(s))
	}
	f.Add(rep("<p>", "<b> </b>", 2000, "</p>")) // issue 33: quadratic once
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, document.HTML, data) })
}

// FuzzOrg parses arbitrary input as Org mode: never a panic or a hang; an
// error is an *Error naming the file; a document satisfies checkDocument.
func FuzzOrg(f *testing.F) {
	for _, s := range []string{
		"",
		"#+TITLE: T /x/\n#+OPTIONS: toc:t\nIntro[fn:1].\n* TODO [#A] H :a:b:\nSCHEDULED: <2024-05-01 Wed>\n:PROPERTIES:\n:CUSTOM_ID: h\n:END:\n*b* /i/ =v= ~c~ [[https://u][t]]\n* Footnotes\n[fn:1] n\n",
		"- a\n  - b\n1. c\n- t :: d\n| A | B |\n|---+---|\n| 1 | 2 |\n",
		"#+BEGIN_SRC go\n* x\n#+END_SRC\n#+BEGIN_EXAMPLE\ne\n#+END_EXAMPLE\n#+BEGIN_QUOTE\nq\n#+END_QUOTE\n: f\n",
		"#+MACRO: m $1 {{{m(x)}}}\n{{{m(y)}}}\n#+INCLUDE: \"x.org\"\n#+HTML: <h1>r</h1>\n@@html:<b>@@\n",
		"\xef\xbb\xbf** caf\xe9\r\n\t* \x00\n#+BEGIN_SRC\n\xff\n",
	} {
		f.Add([]byte(s))
	}
	// Issue 33: unclosed property drawers, a line over 64 KiB.
	f.Add(rep("* H\n", ":PROPERTIES:\n", 500, "text\n"))
	f.Add([]byte("* H\n" + strings.Repeat("x", 70000) + " y\n\ue000:PROPERTIES:\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, document.Org, data) })
}
