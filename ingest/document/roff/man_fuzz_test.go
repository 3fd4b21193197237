package roff

import (
	"github.com/reqa/reqa/ingest/document/internal/doctest"
	"testing"

	"github.com/reqa/reqa/ingest/document"
)

func FuzzMan(f *testing.F) {
	doctest.AddFixtures(f, "frob.1", "gizmo.1")
	for _, s := range []string{"", ".TH X 1\n.SH A\ntext", ".TP\n.B \\-e\nExit.\n.RS\n.TP\nx\ny\n.RE", ".TS\ntab(:);\nlb l.\na:b\nc:T{\nd\nT}\n.TE", ".de a\n.a\n..\n.a", ".ie n \\{\\\nx\n.\\}\n.el \\{\\\ny\n.\\}", "\\(bu\\[u00e9]\\*(lq\\s-1\\fBx\\c\ny", ".Dd x\n.Bl -tag\n.It Xo\n.Fl a\n.Xc\nz\n.El", ".Dd x\n.Bl -column a b\n.It Sy a Ta Sy b\n.It c Ta d\n.El", "caf\xe9\n.PP\n\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, document.Man, data) })
}
