package word

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reqa/reqa/internal/testenv"
)

// fixtureTexts returns the sentences of testdata/fixtures.jsonl (one JSON
// string a line, written for these tests) and the inputs of sentenceCases.
func fixtureTexts(t testing.TB) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "fixtures.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var s string
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("fixtures.jsonl: %v", err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range sentenceCases {
		out = append(out, tc.in)
	}
	return out
}

// pieces are the fragments random inputs are made of: every character and
// literal some rule looks for, and the characters whose class is subtle.
var pieces = []string{
	"a", "b", "x", "Z", "n", "N", "s", "S", "m", "M", "d", "D", "t", "T", "e", "r", "l", "L", "v", "i", "o",
	"0", "3", "42", "_", " ", " ", " ", "  ", "\n", "\t", "\r", "\u00a0", "\u001f", "\u3000", "\u2009",
	"'", "'", "''", "\"", "`", "``", "«", "»", "“", "”", "‘", "’", "„",
	".", ".", "..", "...", ",", ":", ";", "@", "#", "$", "%", "&", "?", "!", "*", "-", "--",
	"(", ")", "[", "]", "{", "}", "<", ">",
	"n't", "N'T", "'s", "'S", "'m", "'d", "'ll", "'LL", "'re", "'ve", "'VE", "'Re",
	"can", "not", "cannot", "CanNot", "d'ye", "gimme", "gonna", "gotta", "lemme", "mor'n", "wanna",
	"'tis", "'Twas", " 'tis", "'t", "is", "was",
	"é", "e\u0301", "\u0663", "½", "ſ", "İ", "ı", "K", "日本", "\u200b", "\ufffd",
}

// randomText joins n random pieces.
func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// sharedDir is the project's read-only test data, ../shared beside the
// repository root, or "" when absent.
func sharedDir() string {
	dir := filepath.Join("..", "..", "..", "..", "shared")
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		return ""
	}
	return dir
}

// readJSONLField reads one string field of every line of a gzipped JSONL
// file under shared/.
func readJSONLField(t testing.TB, rel, field string) []string {
	t.Helper()
	dir := sharedDir()
	if dir == "" {
		testenv.Skip(t, "shared test data not found at ../shared beside the repository")
	}
	f, err := os.Open(filepath.Join(dir, rel))
	if err != nil {
		testenv.Skip(t, "shared test data %s not available: %v", rel, err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		s, ok := rec[field].(string)
		if !ok {
			t.Fatalf("%s: no string field %q", rel, field)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
