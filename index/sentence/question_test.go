package sentence

import (
	"bytes"
	"errors"
	"testing"
)

func TestIsQuestion(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"How do I make sure old unused library packages get purged?", true},
		{"9.4 How can I keep a log of the packages I added to the system?", true},
		{`He asked "is it done?"`, true},
		{"Is it done? ", true},
		{"(Why not?)", true},
		{"How do I make sure old unused", true},                        // heading cut by a line break
		{"11.9 How do I override a file installed by a package", true}, // table of contents
		{"CAN I PUT MY COMMERCIAL PROGRAM …", true},                    // running page header
		{"What is meant by saying that a package Depends", true},
		{"Can I use Debian", true},
		{"How do I", true},
		{"When bash is invoked as an interactive login shell, it reads /etc/profile.", false},
		{"Which will automatically notice any modified files, add them to the index, and commit.", false},
		{"When no <stash> is given, the latest stash is assumed", false},
		{"What follows is the list of options:", false},
		{"How the index works", false},
		{"What's new", false},
		{"Who we are.", false},
		{"The ferry leaves at nine.", false},
		{"Install the package", false},
		{"", false},
		{"?", true},
		{"9.4", false},
		{"How", false},
	} {
		if got := IsQuestion(c.s); got != c.want {
			t.Errorf("IsQuestion(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}

func FuzzIsQuestion(f *testing.F) {
	for _, s := range []string{"How do I?", "9.4 Can I", "", "…", "1..2 is it", "\xff?"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := IsQuestion(s)
		if q != IsQuestion(s+" ") {
			t.Errorf("IsQuestion(%q) changes with trailing space", s)
		}
		if IsQuestion(s + ".") {
			t.Errorf("IsQuestion(%q.) = true: a full stop ends a statement", s)
		}
		_ = q
	})
}

func TestFlags(t *testing.T) {
	for _, flags := range [][]bool{nil, {true}, {false, true, false, false, false, false, false, false, true}, make([]bool, 16)} {
		raw := EncodeFlags(flags)
		got, err := DecodeFlags(raw, len(flags))
		if err != nil || len(got) != len(flags) {
			t.Fatalf("DecodeFlags(EncodeFlags(%v)) = %v, %v", flags, got, err)
		}
		for i := range flags {
			if got[i] != flags[i] {
				t.Fatalf("flag %d: %v, want %v", i, got[i], flags[i])
			}
		}
	}
	for _, c := range []struct {
		raw []byte
		n   int
	}{{[]byte{1}, 0}, {nil, 1}, {[]byte{0x80}, 7}, {[]byte{0, 0}, 8}, {nil, -1}} {
		if _, err := DecodeFlags(c.raw, c.n); !errors.Is(err, ErrFlags) {
			t.Errorf("DecodeFlags(%v, %d): %v, want ErrFlags", c.raw, c.n, err)
		}
	}
}

func FuzzDecodeFlags(f *testing.F) {
	f.Add([]byte{0x05}, 3)
	f.Add([]byte{}, 0)
	f.Add([]byte{0xff, 0x01}, 9)
	f.Fuzz(func(t *testing.T, raw []byte, n int) {
		flags, err := DecodeFlags(raw, n)
		if err != nil {
			if !errors.Is(err, ErrFlags) {
				t.Fatalf("error %v does not wrap ErrFlags", err)
			}
			return
		}
		if again := EncodeFlags(flags); !bytes.Equal(again, raw) {
			t.Fatalf("round trip %x -> %x", raw, again)
		}
	})
}
