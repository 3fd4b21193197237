package asciidoc

import (
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest/document/internal/doctest"
)

// TestAsciiDocLinear: TestAsciiDocHostile's inputs, grown by doubling,
// read in linear time (a wall-clock bound fails on a loaded machine; a
// ratio does not).
func TestAsciiDocLinear(t *testing.T) {
	rep := func(head, s, tail string) func(int) []byte {
		return func(n int) []byte { return []byte(head + strings.Repeat(s, n) + tail) }
	}
	doctest.CheckLinear(t, func(data []byte) error {
		_, err := Parse("t.adoc", data)
		return err
	}, []doctest.Pathological{
		{Name: "nested delimiters", Gen: func(n int) []byte {
			var sb strings.Builder
			for i := range n {
				sb.WriteString(strings.Repeat("=", i%500+4) + "\n")
			}
			return []byte(sb.String())
		}, N: 500},
		{Name: "open marks", Gen: rep("", "*a _b `c #d ^e ~f +g ", "\n"), N: 1000},
		{Name: "many marks", Gen: rep("", "*a* ", "\n"), N: 1000},
		{Name: "attribute bomb", Gen: rep(":a: "+strings.Repeat("x", 4000)+"\n\n", "{a}", "\n"), N: 10},
		{Name: "deep lists", Gen: rep(strings.Repeat("*", 5)+" x\n", "a:: b\nc;; d\n", ""), N: 1000},
		{Name: "continuations", Gen: rep("", "* a\n+\n", ""), N: 1000},
		{Name: "wide table", Gen: rep("|===\n", "|x ", "\n|===\n"), N: 1000},
		{Name: "cell specs", Gen: rep("|===\n", "99*|x ", "\n|===\n"), N: 100},
	})
}
