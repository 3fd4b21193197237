package wordpiece

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/reqa/reqa/internal/testenv"
)

func TestFromJSON(t *testing.T) {
	data, err := os.ReadFile("testdata/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	tk, err := FromJSON(data)
	if err != nil {
		t.Fatalf("FromJSON(tiny.json): %v", err)
	}
	if got := tk.Size(); got != 29 {
		t.Errorf("Size() = %d, want 29", got)
	}
	tests := []struct {
		text string
		want []int32
	}{
		{"", nil},
		{"unaffable", []int32{5, 6, 7}},
		{"Café, able!", []int32{24, 15, 8, 17}},
		{"[CLS] aab [MASK2]", []int32{2, 11, 14, 28}},
		{"zzz ?", []int32{1, 1}}, // unknown word; punctuation outside the vocabulary
		{"##", []int32{18, 18}},  // '#' twice: punctuation splits first
	}
	for _, tc := range tests {
		got := tk.AppendIDs(nil, tc.text)
		if !slices.Equal(got, tc.want) {
			t.Errorf("AppendIDs(%q) = %v (tokens %q), want %v", tc.text, got, tk.Tokenize(tc.text), tc.want)
		}
	}
	if got := tk.AppendIDs([]int32{2}, "a"); !slices.Equal(got, []int32{2, 9}) {
		t.Errorf("AppendIDs appends: got %v, want [2 9]", got)
	}
	for _, tc := range []struct {
		tok string
		id  int32
		ok  bool
	}{
		{"##aff", 6, true}, {"aff", 0, false}, {"##", 19, true}, {"[SEP]", 3, true}, {"nope", 0, false},
	} {
		if id, ok := tk.ID(tc.tok); id != tc.id || ok != tc.ok {
			t.Errorf("ID(%q) = %d, %v; want %d, %v", tc.tok, id, ok, tc.id, tc.ok)
		}
	}
}

func TestFromJSONErrors(t *testing.T) {
	data, err := os.ReadFile("testdata/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, old, new, want string
	}{
		{"not JSON", "{", "[", "parsing tokenizer.json"},
		{"cased", `"lowercase": true`, `"lowercase": false`, "normalizer"},
		{"added token id", `"id": 28,`, `"id": 27,`, `added token "[MASK2]" has id 27`},
		{"repeated id", `"un": 5,`, `"un": 4,`, `has id 4`},
		{"repeated token", `"[MASK]": 4,`, `"[PAD]": 4,`, `token "[PAD]" twice`},
		{"fractional id", `"un": 5,`, `"un": 5.0,`, `id 5.0 is not an integer`},
		{"unknown token missing", `"[UNK]": 1,`, `"[UNQ]": 1,`, `unk_token "[UNK]"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bad := bytes.Replace(data, []byte(tc.old), []byte(tc.new), 1)
			if bytes.Equal(bad, data) {
				t.Fatalf("fixture edit %q → %q matched nothing", tc.old, tc.new)
			}
			_, err := FromJSON(bad)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("FromJSON: error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestFromJSONEscapedKeys: a vocabulary key written with JSON escapes is
// the token it spells.
func TestFromJSONEscapedKeys(t *testing.T) {
	data, err := os.ReadFile("testdata/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	esc := bytes.Replace(data, []byte(`"un": 5,`), []byte(`"\u0075n": 5,`), 1)
	a, err := FromJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	b, err := FromJSON(esc)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"unaffable", "un un"} {
		if x, y := a.Tokenize(text), b.Tokenize(text); !slices.Equal(x, y) {
			t.Errorf("%q: %v with the plain key, %v with the escaped one", text, x, y)
		}
	}
}

// FuzzFromJSON: no tokenizer.json makes the reader panic, and one it
// accepts tokenizes.
func FuzzFromJSON(f *testing.F) {
	data, err := os.ReadFile("testdata/tiny.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"model":{"vocab":{"a":0}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		tok, err := FromJSON(b)
		if err != nil {
			return
		}
		tok.Tokenize("unaffable [MASK] héllo, world")
	})
}

func TestIDNilTokenizer(t *testing.T) {
	var tk *Tokenizer
	if _, ok := tk.ID("a"); ok || tk.Size() != 0 || tk.AppendIDs(nil, "a") != nil {
		t.Error("a nil Tokenizer maps tokens")
	}
}

// TestFromJSONEmbedded loads the embedded bert-base-uncased file through
// FromJSON and checks the ids of a few well-known tokens.
func TestFromJSONEmbedded(t *testing.T) {
	data, err := assets.ReadFile(assetPath)
	if err != nil {
		testenv.Skip(t, "assets/tokenizer.json absent: run `make`")
	}
	tk, err := FromJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	// bert-base-uncased: [CLS] 101, [SEP] 102, "hello" 7592, "world" 2088, "!" 999.
	if got := tk.AppendIDs(nil, "[CLS] Hello world! [SEP]"); !slices.Equal(got, []int32{101, 7592, 2088, 999, 102}) {
		t.Errorf("ids = %v", got)
	}
}
