package weaviate

import (
	"strings"
	"testing"
)

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		in, addr, coll string
		bad            bool
	}{
		{in: "weaviate://127.0.0.1:8080/Docs", addr: "http://127.0.0.1:8080", coll: "Docs"},
		{in: "weaviate://a:1,b:2,c:3/Squad_2", addr: "http://a:1,http://b:2,http://c:3", coll: "Squad_2"},
		{in: "weaviate+https://h.example:443/Docs", addr: "https://h.example:443", coll: "Docs"},
		{in: "weaviate://[::1]:8080/Docs", addr: "http://[::1]:8080", coll: "Docs"},
		{in: "http://127.0.0.1:8080/Docs", bad: true},
		{in: "weaviate://127.0.0.1:8080/docs", bad: true},
		{in: "weaviate://127.0.0.1:8080/", bad: true},
		{in: "weaviate://127.0.0.1/Docs", bad: true},
		{in: "weaviate://127.0.0.1:8080/Docs/x", bad: true},
		{in: "weaviate://127.0.0.1:8080/Docs?x=1", bad: true},
		{in: "weaviate://a:1,,b:2/Docs", bad: true},
		{in: "weaviate://u@a:1/Docs", bad: true},
		{in: "weaviate:///Docs", bad: true},
		{in: "", bad: true},
	} {
		got, err := ParseTarget(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("%q: parsed as %+v, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got.Addr != tc.addr || got.Collection != tc.coll {
			t.Errorf("%q: %+v, %v; want %s %s", tc.in, got, err, tc.addr, tc.coll)
			continue
		}
		if back := got.String(); back != tc.in {
			t.Errorf("%q: String() = %q", tc.in, back)
		}
		if _, err := New(got.Addr); err != nil {
			t.Errorf("%q: New(%q): %v", tc.in, got.Addr, err)
		}
	}
}

func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"weaviate://127.0.0.1:8080/Docs", "weaviate://a:1,b:2/X", "weaviate+https://h:443/Y", "weaviate://:/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := ParseTarget(s)
		if err != nil {
			return
		}
		if CheckName(tg.Collection) != nil || !strings.Contains(tg.Addr, "://") {
			t.Fatalf("%q parsed to %+v", s, tg)
		}
		again, err := ParseTarget(tg.String())
		if err != nil || again != tg {
			t.Fatalf("%q → %q → %+v, %v", s, tg.String(), again, err)
		}
		if _, err := New(tg.Addr); err != nil {
			t.Fatalf("%q: New(%q): %v", s, tg.Addr, err)
		}
	})
}

func TestTokens(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"a", "b"}, []string{"a", "b"}},
		{[]string{"new york", "", "x\u00a0y", " z"}, []string{"new_york", "x_y", "_z"}},
		{nil, nil},
	} {
		got := Tokens(append([]string(nil), tc.in...))
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("Tokens(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
