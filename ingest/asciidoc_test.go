package ingest

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/reqa/reqa/store"
)

// adocGuide is a small invented AsciiDoc page.
const adocGuide = `= Frob
:tool: frob

{tool} rewrites files in place.

== Options

--dry-run:: Shows what would change.

NOTE: Backups are kept for a week.

|===
|Mode |Effect

|fast |Skips the backup.
|===
`

// TestReadAsciiDoc reads AsciiDoc in a directory walk and from standard
// input: sections give the title path, a description list item is a
// definition, an admonition's label is not text, a table row carries its
// header; invalid UTF-8 is refused naming the line.
func TestReadAsciiDoc(t *testing.T) {
	dir := writeFiles(t, map[string]string{"docs/guide.adoc": adocGuide, "docs/bad.adoc": "= Title\n\nok\n\xff\n"})
	c, _ := readWalk(t, dir, []string{
		"frob rewrites files in place. | Frob | " + string(store.KindParagraph),
		"--dry-run: Shows what would change. | Frob › Options | " + string(store.KindDefinition),
		"Backups are kept for a week. | Frob › Options | " + string(store.KindParagraph),
		"Mode: fast; Effect: Skips the backup. | Frob › Options | " + string(store.KindTableRow),
	})
	for _, f := range c.Files {
		if strings.HasSuffix(f.Path, "bad.adoc") && f.Status != FileRefused {
			t.Errorf("bad.adoc: %+v, want refused", f)
		}
	}
	err := readDocument(&Corpus{}, "bad.adoc", "adoc", []byte("x\n\xff\n"))
	var ie *InputError
	if !errors.Is(err, ErrBadInput) || !errors.As(err, &ie) || ie.Line != 2 {
		t.Errorf("invalid UTF-8: %v, want ErrBadInput at line 2", err)
	}
	sc, err := ReadInputsContext(context.Background(), []string{"-"}, ReadOptions{Stdin: bytes.NewReader([]byte(adocGuide)), StdinKind: "adoc"})
	if err != nil || len(sc.Files) != 1 || sc.Files[0].Kind != "adoc" {
		t.Errorf("standard input as adoc: %v, %+v", err, sc)
	}
}

// TestAskAsciiDoc builds an index of an AsciiDoc file and asks it: the
// answer comes with its heading path and anchor.
func TestAskAsciiDoc(t *testing.T) {
	dir := writeFiles(t, map[string]string{"guide.adoc": adocGuide})
	askFirst(t, dir, []askCase{
		{"how long are backups kept", "Backups are kept for a week.", "Frob › Options", "guide.adoc:10#options"},
		{"what does the fast mode skip", "Mode: fast; Effect: Skips the backup.", "Frob › Options", "guide.adoc:15#options"},
	})
}
