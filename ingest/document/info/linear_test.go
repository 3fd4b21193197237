package info

import (
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest/document/internal/doctest"
)

// TestInfoLinear: TestInfoHostile's inputs, grown by doubling, read in
// linear time (a wall-clock bound fails on a loaded machine; a ratio does
// not). Nesting cycles through a thousand levels so that doubling the
// input doubles its size.
func TestInfoLinear(t *testing.T) {
	rep := func(head, s, tail string) func(int) []byte {
		return func(n int) []byte { return []byte(oneNode(head + strings.Repeat(s, n) + tail)) }
	}
	doctest.CheckLinear(t, func(data []byte) error {
		_, err := Parse("t.info", data)
		return err
	}, []doctest.Pathological{
		{Name: "deep nesting", Gen: func(n int) []byte {
			var sb strings.Builder
			for i := range n {
				d := i % 1000
				sb.WriteString(strings.Repeat(" ", 2*d) + "‘t’\n" + strings.Repeat(" ", 2*d+5) + "• x\n")
			}
			return []byte(oneNode(sb.String()))
		}, N: 1000},
		{Name: "deep indentation", Gen: rep("", " ", "x\n"), N: 1 << 14},
		{Name: "long line", Gen: rep("", "word ", "\n"), N: 1 << 12},
		{Name: "many terms", Gen: rep("", "‘-a’\n", "     desc\n"), N: 1 << 10},
		{Name: "many table rows", Gen: rep("A   B\n----------\n", "x   y\n", ""), N: 1 << 10},
		{Name: "spaces everywhere", Gen: rep("", "a   b\n   \n", ""), N: 1 << 10},
		{Name: "spaces and one column", Gen: rep("", "a\n   \n", ""), N: 1 << 10},
		{Name: "references and markers", Gen: rep("", "*note *note (1)(2)( *a _b ‘c ", "\n"), N: 1 << 10},
		{Name: "separators", Gen: func(n int) []byte {
			return []byte(strings.Repeat("\x1f\nFile: t,  Node: n,  Up: n\n", n))
		}, N: 1 << 10},
		{Name: "menus", Gen: rep("", "* Menu:\n* a::\nx\n\n", ""), N: 1 << 10},
	})
}
