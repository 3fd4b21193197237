package ingest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/reqa/reqa/store"
)

// manPage is a small invented man(7) page.
const manPage = `.TH FROB 1
.SH NAME
frob \- frobnicate files
.SH OPTIONS
.TP
.B \-n
Shows what would change.
.TP
.B \-\-mode
Chooses a mode:
.RS
.TP
.B fast
Skips the backup.
.RE
`

// TestReadManPages reads man pages in a directory walk, gzipped or not:
// definitions keep their terms, nested ones carry the term above them in
// their context's title; a walk skips a file named like a man page that
// is not roff, which is read as text when named.
func TestReadManPages(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"man1/frob.1.gz":   string(gzipped(t, []byte(manPage))),
		"man5/frob.conf.5": ".TH FROB.CONF 5\n.SH DESCRIPTION\nThe file holds settings.\n",
		"logs/app.log.1":   "Rotated log lines are plain text.\n",
		"man1/skip.png":    "x",
	})
	_, kinds := readWalk(t, dir, []string{
		"frob - frobnicate files | FROB › NAME | " + string(store.KindParagraph),
		"-n: Shows what would change. | FROB › OPTIONS | " + string(store.KindDefinition),
		"--mode: Chooses a mode: | FROB › OPTIONS | " + string(store.KindDefinition),
		"fast: Skips the backup. | FROB › OPTIONS › --mode | " + string(store.KindDefinition),
		"The file holds settings. | FROB.CONF › DESCRIPTION | " + string(store.KindParagraph),
	})
	for p, k := range map[string]string{"man1/frob.1.gz": "man read", "man5/frob.conf.5": "man read", "logs/app.log.1": "other skipped", "man1/skip.png": "other skipped"} {
		if kinds[p] != k {
			t.Errorf("%s: %q, want %q", p, kinds[p], k)
		}
	}
	c, err := ReadInputs([]string{filepath.Join(dir, "logs", "app.log.1")})
	if err != nil {
		t.Fatal(err)
	}
	if got := candidates(c); len(got) != 1 || got[0].text != "Rotated log lines are plain text." || got[0].kind != store.KindParagraph {
		t.Errorf("app.log.1 named: %+v, want its line as plain text", got)
	}
	if err := readDocument(&Corpus{}, "empty.1", "man", []byte(".TH X 1\n.\\\" nothing\n")); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("a page without text: %v", err)
	}
}
