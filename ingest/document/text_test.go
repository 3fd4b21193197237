package document_test

import (
	"github.com/reqa/reqa/ingest/document/internal/doctest"
	"os"
	"reflect"
	"testing"

	"github.com/reqa/reqa/ingest/document"
)

// TestParseTextStructure checks the structure plain text writes without
// markup: underlined and overlined headings (levels by first appearance),
// headings in capitals, bullet and numbered list items (one group per
// list, continuation lines joined), rules dropped, lines kept.
func TestParseTextStructure(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []got
	}{
		{"harbour.txt", []got{
			{"Harbour Tool", document.Paragraph, "The harbour tool keeps a log of boats. It runs on any machine.", 5, 0},
			{"Harbour Tool › Installation", document.Paragraph, "Run the installer as root.", 11, 0},
			{"Harbour Tool › Installation", document.Paragraph, "Steps:", 13, 0},
			{"Harbour Tool › Installation", document.ListItem, "Download the archive.", 15, 0},
			{"Harbour Tool › Installation", document.ListItem, "Unpack it into /opt.", 16, 0},
			{"Harbour Tool › Installation", document.ListItem, "Run setup.", 18, 0},
			{"Harbour Tool › Known issues", document.ListItem, "The log grows without bound.", 22, 0},
			{"Harbour Tool › Known issues", document.ListItem, "Boats with long names are cut at 40 characters.", 24, 0},
			{"Harbour Tool › Known issues", document.Paragraph, "Questions go to the harbour office. The office answers within a week.", 29, 0},
			{"Harbour Tool › Licence › Which licence", document.Paragraph, "The tool is free software.", 38, 0},
		}},
		{"frob.txt", []got{
			{"FROBNICATOR", document.Paragraph, "A tool for frobs.", 3, 0},
			{"USAGE", document.Paragraph, "Call frob with a file. A second line of the same paragraph.", 7, 0},
			{"USAGE", document.Paragraph, "WARNING: THIS IS NOT A HEADING.", 10, 0},
		}},
	} {
		data, err := os.ReadFile("testdata/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		d, err := document.ParseText(tc.file, data)
		if err != nil {
			t.Fatal(err)
		}
		doctest.CheckDocument(t, d)
		if b := flatten(d); !reflect.DeepEqual(b, tc.want) {
			t.Errorf("%s: blocks\n%+v\nwant\n%+v", tc.file, b, tc.want)
		}
	}
}

// TestParseTextListGroups checks that the items of one list share a group,
// blank lines between them or not, and that a paragraph ends the list.
func TestParseTextListGroups(t *testing.T) {
	d, err := document.ParseText("l.txt", []byte("- a one.\n- a two.\n\n- a three.\n\nText.\n\n- b one.\n"))
	if err != nil {
		t.Fatal(err)
	}
	var groups []int
	for _, b := range d.Sections[0].Blocks {
		groups = append(groups, b.Group)
	}
	if len(groups) != 5 || groups[0] != groups[1] || groups[1] != groups[2] || groups[3] == groups[2] || groups[4] == groups[2] || groups[4] == groups[3] {
		t.Fatalf("groups %v, want the first three items one group, the paragraph and the last item others", groups)
	}
}

// TestParseTextNotStructure checks lines that only look like structure —
// a wrapped line starting with a year, a title too long to be one, a rule
// inside a paragraph — and that a rule after a list item ends it.
func TestParseTextNotStructure(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []got
	}{
		{"year", "It was built in\n1931. The lamp came later.\n", []got{{"", document.Paragraph, "It was built in 1931. The lamp came later.", 1, 0}}},
		{"long title", "This line is far too long to be a heading in any plain text file anyone would write, surely\n=====\n",
			[]got{{"", document.Paragraph, "This line is far too long to be a heading in any plain text file anyone would write, surely =====", 1, 0}}},
		{"lower case", "\nnot a heading\n\n", []got{{"", document.Paragraph, "not a heading", 2, 0}}},
		{"rule after an item", "- one\n-----\ntext\n", []got{{"", document.ListItem, "one", 1, 0}, {"", document.Paragraph, "text", 3, 0}}},
	} {
		d, err := document.ParseText(tc.name, []byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if b := flatten(d); !reflect.DeepEqual(b, tc.want) {
			t.Errorf("%s: blocks %+v, want %+v", tc.name, b, tc.want)
		}
	}
}
