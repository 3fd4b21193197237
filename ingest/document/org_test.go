package document_test

import (
	"errors"
	"github.com/reqa/reqa/ingest/document/internal/doctest"
	"strconv"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest/document"
)

// orgBlocks parses in and returns its blocks as manBlocks does.
func orgBlocks(t *testing.T, in string) []string {
	t.Helper()
	d, err := document.ParseOrg("t.org", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	doctest.CheckDocument(t, d)
	return doctest.ManBlocks(d)
}

// TestOrgConstructs checks small inputs, one construct each.
func TestOrgConstructs(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // "kind|term|parents|text|line" per block
	}{
		{"paragraphs", "One\ntwo.\n\nThree.", []string{"paragraph|||One two.|0", "paragraph|||Three.|0"}},
		{"emphasis and links", "* H\n*bold* /italic/ =verbatim= ~code~ +gone+ [[https://example.com][the site]] [[https://x.org]].", []string{"paragraph|||bold italic verbatim code gone the site https://x.org.|1"}},
		{"lists", "* H\n- one\n- two\n  - nested\n1. first\n2. second", []string{"list-item|||one|1", "list-item|||two|1", "list-item|||nested|1", "list-item|||first|1", "list-item|||second|1"}},
		{"description list", "* H\n- CPU :: The brain.\n- RAM :: The memory.", []string{"definition|CPU||CPU: The brain.|1", "definition|RAM||RAM: The memory.|1"}},
		{"table with header", "* H\n| Option | Effect |\n|--------+--------|\n| -q | Quiet. |\n| -v | Verbose. |", []string{"table-row|||Option: -q; Effect: Quiet.|1", "table-row|||Option: -v; Effect: Verbose.|1"}},
		{"table without header", "* H\n| a | b |\n| c | d |", []string{"table-row|||a; b|1", "table-row|||c; d|1"}},
		{"code blocks", "* H\n#+BEGIN_SRC go\nfunc main() {}\n#+END_SRC\n#+begin_example\n* not a headline\n#+end_example\n: fixed width", []string{"code|||func main() {}|1", "code|||* not a headline|1", "code|||fixed width|1"}},
		{"quote", "* H\n#+BEGIN_QUOTE\nWidgets hum.\n#+END_QUOTE", []string{"quote|||Widgets hum.|1"}},
		{"headline extras dropped", "* TODO [#A] Task :work:urgent:\nSCHEDULED: <2024-05-01 Wed> DEADLINE: <2024-05-03 Fri>\n:PROPERTIES:\n:EFFORT: 1h\n:END:\nDo it.", []string{"paragraph|||Do it.|1"}},
		{"footnotes dropped", "* H\nText[fn:1] and[fn::inline note].\n\n* Footnotes\n[fn:1] The note.", []string{"paragraph|||Text and.|1"}},
		{"keywords comments raw html dropped", "#+OPTIONS: toc:t\n#+TOC: headlines 2\n# a comment\n#+HTML: <h1>raw</h1>\n#+BEGIN_EXPORT html\n<p>raw</p>\n#+END_EXPORT\n* H\nKept @@html:<b>x</b>@@.", []string{"paragraph|||Kept .|8"}},
		{"planning line then text", "* H\nDEADLINE: <2024-05-03 Fri>\nText after.\n** I\nCLOSED: [2024-04-01 Mon 10:00]", []string{"paragraph|||Text after.|1"}},
		{"noexport and COMMENT", "* Secret :noexport:\nhidden\n* COMMENT Draft\nhidden\n* Shown\nseen", []string{"paragraph|||seen|5"}},
		{"include not followed", "* H\n#+INCLUDE: \"/etc/passwd\"\nAfter.", []string{"paragraph|||After.|1"}},
		{"macros bounded", "#+MACRO: loop again {{{loop}}}\n* H\n{{{loop}}}", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := orgBlocks(t, tc.in)
			if tc.want == nil {
				return // it ends: that is the test
			}
			doctest.CheckLines(t, "blocks", got, tc.want)
		})
	}
}

// TestOrgSections checks the title, heading paths, slugs and lines.
func TestOrgSections(t *testing.T) {
	src := "#+TITLE: The /Widget/ Guide\n\nIntro.\n\n* DONE Install :setup:\n:PROPERTIES:\n:CUSTOM_ID: setup\n:END:\nRun it.\n** Options\nSome.\n*** Deep\nDeeper.\n* Install\nAgain.\n"
	d, err := document.ParseOrg("t.org", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	doctest.CheckDocument(t, d)
	if d.Title != "The Widget Guide" || d.Format != document.Org {
		t.Errorf("title %q format %q", d.Title, d.Format)
	}
	var got []string
	for _, s := range d.Sections {
		var texts []string
		for _, b := range s.Blocks {
			texts = append(texts, b.Text)
		}
		got = append(got, strings.Join([]string{s.Heading(), s.Slug, strconv.Itoa(s.Line), strings.Join(texts, "/")}, "|"))
	}
	doctest.CheckLines(t, "sections", got, []string{
		"||0|Intro.",
		"Install|setup|5|Run it.",
		"Install › Options|options|10|Some.",
		"Install › Options › Deep|deep|12|Deeper.",
		"Install|install|14|Again.",
	})
}

// TestOrgBadInput checks that hostile input ends in a document or an *Error.
func TestOrgBadInput(t *testing.T) {
	for _, in := range []string{"", "\xff\xfe*\x00", strings.Repeat("*", 100) + " deep\n" + strings.Repeat("- a\n  ", 500), "| a\n|-\n|" + strings.Repeat("|", 1000)} {
		d, err := document.ParseOrg("t.org", []byte(in))
		var de *document.Error
		if err != nil && (!errors.As(err, &de) || de.Name != "t.org") {
			t.Errorf("%q: %v", in, err)
		}
		if err == nil {
			doctest.CheckDocument(t, d)
		}
	}
}
