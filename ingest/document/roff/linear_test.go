package roff

import (
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest/document/internal/doctest"
)

// TestManLinear: TestManHostile's inputs, grown by doubling, read in
// linear time.
func TestManLinear(t *testing.T) {
	rep := func(head, s, tail string) func(int) []byte {
		return func(n int) []byte { return []byte(head + strings.Repeat(s, n) + tail) }
	}
	doctest.CheckLinear(t, func(data []byte) error {
		_, err := Parse("t.1", data)
		return err
	}, []doctest.Pathological{
		{Name: "deep RS", Gen: func(n int) []byte {
			return []byte(strings.Repeat(".RS\n.TP\nt\n", n) + "deep\n" + strings.Repeat(".RE\n", 2*n))
		}, N: 1000},
		{Name: "deep mdoc lists", Gen: rep(".Dd x\n", ".Bl -tag\n.It x\n", "deep\n"), N: 1000},
		{Name: "string growth", Gen: func(n int) []byte {
			return []byte(strings.Repeat(".as a xy\n", 5*n) + strings.Repeat("\\*a", n) + "\n" + strings.Repeat(".TP\nt\\c\n", 2*n))
		}, N: 1000},
		{Name: "conditions all the way", Gen: rep("", ".if n ", "deep\n"), N: 500},
		{Name: "paragraphs", Gen: rep(".TH X 1\n.SH NAME\n", ".PP\nA line of text.\n", ""), N: 1000},
	})
}
