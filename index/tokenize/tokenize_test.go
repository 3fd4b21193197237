package tokenize

import (
	"reflect"
	"strings"
	"testing"
)

// TestGet checks that every registered name gives a tokenizer of that name,
// that "stem" stems, and that an unknown name is an error listing the
// known ones.
func TestGet(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"word", "Configuring packages", []string{"Configuring", "packages"}},
		{"wpm", "Configuring packages", []string{"con", "##fi", "##gur", "##ing", "packages"}},
		{"stem", "Configuring packages", []string{"configur", "packag"}},
	} {
		tok, err := Get(tc.name)
		if err != nil {
			t.Fatalf("Get(%q): %v", tc.name, err)
		}
		if tok.Name() != tc.name {
			t.Errorf("Get(%q).Name() = %q", tc.name, tok.Name())
		}
		if got := tok.Tokenize(tc.text); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Tokenize(%q) = %q, want %q", tc.name, tc.text, got, tc.want)
		}
	}
	for _, n := range Names() {
		if _, err := Get(n); err != nil {
			t.Errorf("registered tokenizer %q: %v", n, err)
		}
	}
	_, err := Get("porter")
	if err == nil || !strings.Contains(err.Error(), strings.Join(Names(), ", ")) {
		t.Errorf("Get(unknown) = %v, want an error listing %v", err, Names())
	}
}
