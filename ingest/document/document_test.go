package document_test

import (
	"github.com/reqa/reqa/ingest/document/internal/doctest"
	"testing"

	"github.com/reqa/reqa/ingest/document"
)

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Install", "install"},
		{"The `__init__` hook", "the-__init__-hook"},
		{"frob(1)", "frob1"},
		{"2.1. NAME", "21-name"},
		{"Héllo, Wörld!", "héllo-wörld"},
		{"  C++ & Go  ", "c--go"},
	} {
		if got := document.Slug(tc.in); got != tc.want {
			t.Errorf("Slug(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseText(t *testing.T) {
	d, err := document.ParseText("notes.txt", []byte("First line\n  goes on.\n\n\nSecond   paragraph.\n"))
	if err != nil {
		t.Fatal(err)
	}
	doctest.CheckDocument(t, d)
	b := flatten(d)
	if len(b) != 2 || b[0].Text != "First line goes on." || b[0].Line != 1 || b[1].Text != "Second paragraph." || b[1].Line != 5 {
		t.Fatalf("blocks %+v", b)
	}
	if a := d.Anchor(d.Sections[0], d.Sections[0].Blocks[1]); a != "notes.txt:5" {
		t.Fatalf("anchor %q", a)
	}
}
