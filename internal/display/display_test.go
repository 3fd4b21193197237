package display

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct {
		in, want string
		keepNL   bool
	}{
		{"plain text, café, 東京", "plain text, café, 東京", false},
		{"title\x1b]0;pwned\x07 red \x1b[31mX", `title\x1b]0;pwned\x07 red \x1b[31mX`, false},
		{"a\nb\tc\r", `a\x0ab` + "\t" + `c\x0d`, false},
		{"a\nb", "a\nb", true},
		{"del\x7f c1\u009b bidi\u202e zw\u200b sep\u2028", `del\x7f c1\u009b bidi\u202e zw\u200b sep\u2028`, false},
		{"bad \xff byte", `bad \xff byte`, false},
		{"\U000e0001 tag", `\U000e0001 tag`, false},
		{"real \uFFFD replacement", "real \uFFFD replacement", false},
	} {
		if got := Escape(c.in, c.keepNL); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "a\x1b[2J", "\xff\xfe", "東\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Escape(s, false)
		if !utf8.ValidString(got) {
			t.Fatalf("Escape(%q) = %q: not valid UTF-8", s, got)
		}
		for _, r := range got {
			if r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 {
				t.Fatalf("Escape(%q) = %q keeps control %U", s, got, r)
			}
		}
	})
}

func TestTruncate(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc…"},
		{"café au lait", 4, "caf…"}, // é is two bytes: not split
		{"東京都", 4, "東…"},
		{"abc", 0, "…"},
	} {
		got := Truncate(c.in, c.n)
		if got != c.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("Truncate(%q, %d) = %q: invalid UTF-8", c.in, c.n, got)
		}
		if len(strings.TrimSuffix(got, "…")) > max(c.n, 0) {
			t.Errorf("Truncate(%q, %d) = %q: longer than %d bytes", c.in, c.n, got, c.n)
		}
	}
}

func TestBytes(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {1536, "1.5 KiB"}, {5 << 20, "5.0 MiB"}, {3 << 29, "1.5 GiB"}} {
		if got := Bytes(c.n); got != c.want {
			t.Errorf("Bytes(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func ExampleEscape() {
	fmt.Println(Escape("Chapter 1\x1b[2J", false))
	// Output: Chapter 1\x1b[2J
}

func TestJSONKind(t *testing.T) {
	var p *[]int
	cases := []struct {
		v    any
		want string
	}{
		{"", "a string"}, {3, "an integer"}, {uint8(3), "an integer"}, {1.5, "a number"}, {true, "true or false"},
		{[]string{}, "a list"}, {[2]int{}, "a list"}, {struct{}{}, "an object"}, {map[string]int{}, "an object"},
		{p, "a list"}, {func() {}, "another kind of value"},
	}
	for _, c := range cases {
		if got := JSONKind(reflect.TypeOf(c.v)); got != c.want {
			t.Errorf("JSONKind(%T) = %q, want %q", c.v, got, c.want)
		}
	}
	if got := JSONKind(nil); got != "a value" {
		t.Errorf("JSONKind(nil) = %q", got)
	}
}
