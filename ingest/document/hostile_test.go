package document_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest/document"
	"github.com/reqa/reqa/ingest/document/internal/doctest"
)

// rep returns s repeated n times, between head and tail.
func rep(head, s string, n int, tail string) []byte {
	return []byte(head + strings.Repeat(s, n) + tail)
}

// nestedList returns n list items, each nested one level deeper than the
// one before up to depth levels, then back to the top.
func nestedList(n, depth int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "%s- item %d\n", strings.Repeat("  ", i%depth), i)
	}
	return b.Bytes()
}

// TestHTMLLinear: issue 33's HTML cases parse in linear time.
func TestHTMLLinear(t *testing.T) {
	doctest.CheckLinear(t, func(data []byte) error {
		_, err := document.ParseHTML("t.html", data)
		return err
	}, []doctest.Pathological{
		// Was quadratic: buf trimmed for every text token (3.2 MB: 96 s).
		{Name: "blank bold runs", Gen: func(n int) []byte { return rep("<p>", "<b> </b>", n, "</p>") }, N: 1000},
		{Name: "blank text runs", Gen: func(n int) []byte { return rep("<p>", " <i></i>", n, "x</p>") }, N: 1000},
		{Name: "deep divs", Gen: func(n int) []byte { return rep("", "<div>", n, "x") }, N: 1000},
		{Name: "headings", Gen: func(n int) []byte { return rep("", "<h2><a>#</a> </h2>", n, "") }, N: 1000},
	})
}

// TestMarkdownLinear: issue 33's Markdown cases parse in linear time.
func TestMarkdownLinear(t *testing.T) {
	doctest.CheckLinear(t, func(data []byte) error {
		_, err := document.ParseMarkdown("t.md", data)
		return err
	}, []doctest.Pathological{
		// 200 KB: 35 s.
		{Name: "nested quotes on one line", Gen: func(n int) []byte { return rep("", ">", n, " deep text.\n") }, N: 500},
		// 50,000: 40 s.
		{Name: "open links", Gen: func(n int) []byte { return rep("", "[a](", n, "\n") }, N: 500},
		{Name: "open brackets", Gen: func(n int) []byte { return rep("", "[a", n, "\n") }, N: 500},
		{Name: "emphasis runs", Gen: func(n int) []byte { return rep("", "*a_", n, "\n") }, N: 500},
		// 3,000: 86 s.
		{Name: "nested list markers", Gen: func(n int) []byte { return rep("", "- ", n, "deep item.\n") }, N: 200},
		{Name: "nested list items", Gen: func(n int) []byte { return nestedList(n, 1000) }, N: 1000},
		// 10 MB: 950 MB RSS.
		{Name: "lists nested 0-200", Gen: func(n int) []byte { return nestedList(n, 200) }, N: 400},
		{Name: "nested quote lines", Gen: func(n int) []byte {
			var b bytes.Buffer
			for i := range n {
				b.WriteString(strings.Repeat("> ", i%300) + "text\n")
			}
			return b.Bytes()
		}, N: 300},
	})
}

// TestOrgLinear: issue 33's Org cases parse in linear time.
func TestOrgLinear(t *testing.T) {
	doctest.CheckLinear(t, func(data []byte) error {
		_, err := document.ParseOrg("t.org", data)
		return err
	}, []doctest.Pathological{
		// 10,000 lines (130 KB): 80 s.
		{Name: "property drawers", Gen: func(n int) []byte { return rep("* H\n", ":PROPERTIES:\n", n, "") }, N: 200},
		{Name: "unclosed drawers", Gen: func(n int) []byte { return rep("", ":DRAWER:\ntext\n", n, "") }, N: 200},
		{Name: "headlines", Gen: func(n int) []byte { return rep("", "* H\n:PROPERTIES:\n:ID: x\n:END:\ntext\n", n, "") }, N: 200},
	})
}

// TestOrgBounds: a line over 64 KiB is read (go-org's scanner refused the
// file), an unclosed property drawer reads as its text and a closed one
// is still dropped.
func TestOrgBounds(t *testing.T) {
	long := strings.Repeat("word ", 30000) + "end."
	for _, tc := range []struct{ name, in, want, absent string }{
		{"long line", "* H\n" + long + "\n", long, ""},
		{"long word", "* H\n" + strings.Repeat("x", 200000) + "\n", strings.Repeat("x", 1000), ""},
		{"unclosed drawer", "* H\n:PROPERTIES:\ntext after.\n", ":PROPERTIES: text after.", ""},
		{"closed drawer", "* H\n:PROPERTIES:\n:ID: secret\n:END:\ntext after.\n", "text after.", "secret"},
		{"private use", "* H\n\ue000 x\n:PROPERTIES:\ntext after.\n", "\ue000 x :PROPERTIES: text after.", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := document.ParseOrg("t.org", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			doctest.CheckDocument(t, d)
			find(t, flatten(d), tc.want)
			if tc.absent != "" {
				for _, b := range flatten(d) {
					if strings.Contains(b.Text, tc.absent) {
						t.Errorf("%q read: %q", tc.absent, b.Text)
					}
				}
			}
		})
	}
}
