package ingest

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// orgGuide is a small invented Org file.
const orgGuide = `#+TITLE: Frob

Frob rewrites files in place.

* TODO Options :docs:
:PROPERTIES:
:CUSTOM_ID: options
:END:
- =--dry-run= :: Shows what would change.

Backups are kept for a week.

| Mode | Effect            |
|------+-------------------|
| fast | Skips the backup. |
`

// TestReadOrg reads Org files in a directory walk and from standard input:
// a file that is not UTF-8 is refused.
func TestReadOrg(t *testing.T) {
	dir := writeFiles(t, map[string]string{"docs/guide.org": orgGuide, "docs/bad.org": "* Title\nok\n\xff\n"})
	sc, err := ReadInputs([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	for _, f := range sc.Files {
		switch {
		case strings.HasSuffix(f.Path, "bad.org") && f.Status != FileRefused:
			t.Errorf("bad.org: %+v, want refused", f)
		case strings.HasSuffix(f.Path, "guide.org"):
			read++
			if f.Kind != "org" {
				t.Errorf("guide.org: %+v, want kind org", f)
			}
		}
	}
	if read != 1 {
		t.Errorf("guide.org not read: %+v", sc.Files)
	}
	sc, err = ReadInputsContext(context.Background(), []string{"-"}, ReadOptions{Stdin: bytes.NewReader([]byte(orgGuide)), StdinKind: "org"})
	if err != nil || len(sc.Files) != 1 || sc.Files[0].Kind != "org" {
		t.Errorf("standard input as org: %v, %+v", err, sc)
	}
}

// TestAskOrg builds an index of an Org file and asks it: the answer comes
// with its heading path (the #+TITLE is the document's title, not a
// heading) and the anchor of its headline's line.
func TestAskOrg(t *testing.T) {
	dir := writeFiles(t, map[string]string{"guide.org": orgGuide})
	askFirst(t, dir, []askCase{
		{"how long are backups kept", "Backups are kept for a week.", "Options", "guide.org:5#options"},
		{"what does the fast mode skip", "Mode: fast; Effect: Skips the backup.", "Options", "guide.org:5#options"},
		{"what does dry run show", "--dry-run: Shows what would change.", "Options", "guide.org:5#options"},
	})
}
