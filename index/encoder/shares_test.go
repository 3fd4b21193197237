package encoder_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/reqa/reqa/index/encoder/uselite"
)

// TestPositionShares: with USE-Lite (which reads a passage's first 128
// tokens) each part of a passage gets its own token count while it lies
// inside those, the part across the 128th token what is left of them, and
// every later part, or a part outside the text, nothing.
func TestPositionShares(t *testing.T) {
	e := encoderOf(t, uselite.PrecisionInt8)
	defer e.Close()
	sentence := "The ferry leaves the harbour at nine every morning."
	per := len(e.Tokens(sentence))
	if per == 0 || 128%per == 0 {
		t.Fatalf("%q has %d tokens; the test needs a count that does not divide 128", sentence, per)
	}
	n := 128/per + 3 // the passage runs past the window
	text := strings.TrimSuffix(strings.Repeat(sentence+" ", n), " ")
	var parts [][2]int
	for i := range n {
		start := i * (len(sentence) + 1)
		parts = append(parts, [2]int{start, start + len(sentence)})
	}
	if got := len(e.Tokens(text)); got != n*per {
		t.Fatalf("the passage has %d tokens, its parts %d×%d: the test's premise fails", got, n, per)
	}
	straddle := 128 / per // the part holding the 128th token
	want := make([]int, n)
	for i := range want {
		switch {
		case i < straddle:
			want[i] = per
		case i == straddle:
			want[i] = 128 - straddle*per
		}
	}
	tests := []struct {
		name  string
		text  string
		parts [][2]int
		want  []int
	}{
		{"one part, the whole text", sentence, [][2]int{{0, len(sentence)}}, []int{per}},
		{"past the window", text, parts, want},
		{"no parts", text, nil, []int{}},
		{"out of range or reversed", sentence, [][2]int{{0, len(sentence) + 1}, {5, 2}, {-1, 3}}, []int{0, 0, 0}},
		{"an empty part", sentence, [][2]int{{3, 3}}, []int{0}},
		{"out of order", text, [][2]int{parts[1], parts[0], parts[2]}, []int{per, 0, per}},
		{"text before a part counts", text, [][2]int{parts[straddle]}, []int{want[straddle]}},
		{"text between parts counts", text, [][2]int{parts[0], parts[straddle]}, []int{per, want[straddle]}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := e.PositionShares(tc.text, tc.parts)
			if !slices.Equal(got, tc.want) {
				t.Errorf("PositionShares = %v, want %v", got, tc.want)
			}
		})
	}
	total := 0
	for _, s := range e.PositionShares(text, parts) {
		total += s
	}
	if total != 128 {
		t.Errorf("the shares of a passage longer than the window add up to %d, want 128", total)
	}
}

// FuzzPositionShares: whatever the text and parts, no panic, one share per
// part, none negative or above its part's tokens, and together no more
// than the 128 tokens USE-Lite reads.
func FuzzPositionShares(f *testing.F) {
	e := encoderOf(f, uselite.PrecisionInt8)
	f.Cleanup(func() { e.Close() })
	f.Add("The ferry leaves at nine. It returns at noon.", 0, 25, 26, 45)
	f.Add("  \t\n", 0, 1, 2, 4)
	f.Add("ab", 2, 1, -1, 3)
	f.Add(strings.Repeat("word ", 300), 0, 700, 700, 1500)
	f.Fuzz(func(t *testing.T, text string, a, b, c, d int) {
		parts := [][2]int{{a, b}, {c, d}}
		shares := e.PositionShares(text, parts)
		if len(shares) != len(parts) {
			t.Fatalf("%d shares for %d parts", len(shares), len(parts))
		}
		total := 0
		for i, s := range shares {
			p := parts[i]
			max := 0
			if p[0] >= 0 && p[0] <= p[1] && p[1] <= len(text) {
				max = len(e.Tokens(text[p[0]:p[1]]))
			}
			if s < 0 || s > max {
				t.Fatalf("part %v: share %d, want 0..%d", p, s, max)
			}
			total += s
		}
		if total > 128 {
			t.Fatalf("shares add up to %d, more than the 128 tokens read", total)
		}
	})
}
