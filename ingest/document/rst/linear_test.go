package rst

import (
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest/document/internal/doctest"
)

// TestRSTLinear: TestRSTHostile's inputs, grown by doubling, read in
// linear time (a wall-clock bound fails on a loaded machine; a ratio does
// not). Inputs whose lines deepen without end cycle through a thousand
// levels so that doubling them doubles their size.
func TestRSTLinear(t *testing.T) {
	rep := func(head, s, tail string) func(int) []byte {
		return func(n int) []byte { return []byte(head + strings.Repeat(s, n) + tail) }
	}
	lines := func(line func(i int) string) func(int) []byte {
		return func(n int) []byte {
			var sb strings.Builder
			for i := range n {
				sb.WriteString(line(i))
			}
			return []byte(sb.String())
		}
	}
	doctest.CheckLinear(t, func(data []byte) error {
		_, err := Parse("t.rst", data)
		return err
	}, []doctest.Pathological{
		{Name: "thousands of list levels", Gen: rep("", "- ", "deep\n"), N: 500},
		{Name: "deep block quotes", Gen: lines(func(i int) string { return strings.Repeat(" ", i%1000) + "x\n\n" }), N: 1000},
		{Name: "deep definitions", Gen: lines(func(i int) string { return strings.Repeat(" ", i%1000) + "term\n" }), N: 1000},
		{Name: "deep directives", Gen: lines(func(i int) string { return strings.Repeat(" ", 3*(i%500)) + ".. note::\n\n" }), N: 500},
		{Name: "long adornment", Gen: func(n int) []byte {
			return []byte(strings.Repeat("=", n) + "\nTitle\n" + strings.Repeat("=", n) + "\n")
		}, N: 1 << 16},
		{Name: "long adornment lines", Gen: rep("", strings.Repeat("-", 5000)+"\n\n", ""), N: 100},
		{Name: "open markup", Gen: rep("", "*a **b ``c `d |e [f _`g :r:`h ", "\n"), N: 1000},
		{Name: "many references", Gen: rep("", "a_-", "\n"), N: 1000},
		{Name: "simple table borders without bottom", Gen: rep("", "===  ===\nx    y\n", ""), N: 1000},
		{Name: "wide grid table", Gen: func(n int) []byte {
			return []byte("+" + strings.Repeat("-+", n) + "\n" + strings.Repeat("|"+strings.Repeat(" |", n)+"\n", 3) + strings.Repeat("+\n", n))
		}, N: 1000},
		{Name: "grid rows", Gen: rep("+---+\n", "| x |\n+---+\n", ""), N: 1000},
		{Name: "narrow rows under a wide table", Gen: rep(strings.Repeat("=== ", 100)+"\n", "x\n", strings.Repeat("=== ", 100)+"\n"), N: 1000},
		{Name: "short borders under a wide grid", Gen: rep("+"+strings.Repeat("-+", 100)+"\n", "|x\n+-+\n", ""), N: 1000},
		{Name: "substitution bomb", Gen: rep(".. |a| replace:: "+strings.Repeat("x", 4000)+"\n\n", "|a| ", "\n"), N: 1000},
		{Name: "enumerators", Gen: rep("", "1. a\n", ""), N: 1000},
		{Name: "fields and options", Gen: rep("", ":a: b\n-a  b\n", ""), N: 1000},
	})
}
