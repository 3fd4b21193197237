package word

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/reqa/reqa/index/sentence"
)

// sentenceCases are NLTKWordTokenizer.tokenize results derived by applying
// NLTK 3.5's rules by hand; the comment on each case names the rules at work.
var sentenceCases = []struct {
	name string
	in   string
	want []string
}{
	{"empty", "", nil},
	{"only white space", " \n\t\u00a0\u3000 ", nil},
	{"plain words keep their case", "The Quick brown FOX", []string{"The", "Quick", "brown", "FOX"}},
	{
		// NLTK's own docstring example: only the last period is split off.
		"nltk docstring",
		"Good muffins cost $3.88 (roughly 3,36 euros)\nin New York.  Please buy me\ntwo of them.\nThanks.",
		[]string{"Good", "muffins", "cost", "$", "3.88", "(", "roughly", "3,36", "euros", ")", "in", "New", "York.", "Please", "buy", "me", "two", "of", "them.", "Thanks", "."},
	},
	{"final period only at the end", "Mr. Smith went to Washington. He left.", []string{"Mr.", "Smith", "went", "to", "Washington.", "He", "left", "."}},
	{"final period with trailing space", "It ended.  \n", []string{"It", "ended", "."}},
	{"abbreviation at the end", "U.S.A.", []string{"U.S.A", "."}},
	{"decimal number is not a final period", "pi is 3.14", []string{"pi", "is", "3.14"}},
	{"period then closing bracket", "(see etc.)", []string{"(", "see", "etc", ".", ")"}},
	{"period then curly closing quote", "He said “no.”", []string{"He", "said", "“", "no", ".", "”"}},
	{
		// ^" becomes ``; ," is not after a space so it closes: ''.
		"opening and closing double quotes",
		`"Hello," he said.`,
		[]string{"``", "Hello", ",", "''", "he", "said", "."},
	},
	{
		// ` "` opens; `ok".` keeps " with ok until ENDING_QUOTES; 'fine
		// keeps its apostrophe (the \b after one letter fails), fine' splits.
		"nested quotes",
		`He said, "it's 'fine' ok".`,
		[]string{"He", "said", ",", "``", "it", "'s", "'fine", "'", "ok", "''", "."},
	},
	{"double quote after a tab closes", "a\t\"b\"", []string{"a", "''", "b", "''"}},
	{"double quote after an opening bracket", `("x")`, []string{"(", "``", "x", "''", ")"}},
	{"backquote pairs and apostrophe pairs", "``quoted''", []string{"``", "quoted", "''"}},
	{"opening apostrophe pair", "a ''b''", []string{"a", "``", "b", "''"}},
	{"single quoted at text start", "'Hello' he said", []string{"'Hello", "'", "he", "said"}},
	{"opening single quote before one letter", "the 'a' grade", []string{"the", "'", "a", "'", "grade"}},
	{
		"contractions",
		"Don't do that, it's John's.",
		[]string{"Do", "n't", "do", "that", ",", "it", "'s", "John", "'s", "."},
	},
	{"clitics", "I'm we're they'll you've he'd", []string{"I", "'m", "we", "'re", "they", "'ll", "you", "'ve", "he", "'d"}},
	{"upper-case clitics", "I'M WE'RE CAN'T", []string{"I", "'M", "WE", "'RE", "CA", "N'T"}},
	{"mixed-case clitic is not split", "we'Re", []string{"we'Re"}},
	{"won't and can't", "won't can't", []string{"wo", "n't", "ca", "n't"}},
	{"contraction before a newline is not split", "don't\nstop", []string{"don't", "stop"}},
	{"plural possessive", "the dogs' bones", []string{"the", "dogs", "'", "bones"}},
	{"MacIntyre contractions", "I cannot gonna wanna gimme lemme gotta.", []string{"I", "can", "not", "gon", "na", "wan", "na", "gim", "me", "lem", "me", "got", "ta", "."}},
	{"MacIntyre contractions keep case", "CANNOT Gonna", []string{"CAN", "NOT", "Gon", "na"}},
	{"cannot inside a word", "cannoted uncannot", []string{"cannoted", "uncannot"}},
	{"wanna needs white space after it", "wanna-be gonna-be", []string{"wanna-be", "gon", "na", "-be"}},
	{"d'ye", "d'ye know", []string{"d", "'ye", "know"}},
	{
		// The opening-single-quote rule splits 'n before the mor'n rule runs.
		"mor'n is caught by the quote rule first",
		"mor'n", []string{"mor", "'", "n"},
	},
	{"rock'n'roll", "rock'n'roll", []string{"rock", "'", "n'roll"}},
	{"'tis and 'twas", "'Tis 'twas", []string{"'T", "is", "'t", "was"}},
	{"commas and colons before non-digits", "a, b: c", []string{"a", ",", "b", ":", "c"}},
	{"commas and colons before digits", "5:30, 1,000,000 and 3:x", []string{"5:30", ",", "1,000,000", "and", "3", ":", "x"}},
	{"final comma", "x,", []string{"x", ","}},
	{"final colon before a newline", "x:\n", []string{"x", ":"}},
	{
		// ([:,])([^\d]) consumes the second comma, so it is not padded.
		"two commas",
		"a,,b", []string{"a", ",", ",b"},
	},
	{"comma before an Arabic-Indic digit", "a,\u0663", []string{"a,\u0663"}},
	{"comma before a vulgar fraction", "a,½", []string{"a", ",", "½"}},
	{
		"symbols",
		"Pay $5, 50% & more; me@x.com #1.",
		[]string{"Pay", "$", "5", ",", "50", "%", "&", "more", ";", "me", "@", "x.com", "#", "1", "."},
	},
	{"ellipsis", "Wait... what?!", []string{"Wait", "...", "what", "?", "!"}},
	{"two and four periods", "a..b c....", []string{"a", "..", "b", "c", "...."}},
	{"brackets", "(yes) [no] {maybe} <tag>", []string{"(", "yes", ")", "[", "no", "]", "{", "maybe", "}", "<", "tag", ">"}},
	{"double dashes", "a--b -- c---d", []string{"a", "--", "b", "--", "c", "--", "-d"}},
	{"single dash stays", "e-mail -x-", []string{"e-mail", "-x-"}},
	{"asterisk", "f*ck **", []string{"f", "*", "ck", "*", "*"}},
	{"unicode quotes", "“Hello” ‘world’ «ok» „x“", []string{"“", "Hello", "”", "‘", "world", "’", "«", "ok", "»", "„", "x", "“"}},
	{"curly apostrophe", "café’s", []string{"café", "’", "s"}},
	{"backquote run", "```a", []string{"``", "`", "a"}},
	{"opening quote before a non-ASCII letter", "'é x", []string{"'", "é", "x"}},
	{"combining mark is not a word character", "'e\u0301 x", []string{"'", "e\u0301", "x"}},
	{"long s folds with s", "'\u017f x", []string{"'\u017f", "x"}},
	{"dotted capital I folds with i in 'tis", "'T\u0130S", []string{"'T", "\u0130S"}},
	{"dotless i folds with i in 'tis", "'t\u0131s", []string{"'t", "\u0131s"}},
	{"Python white space splits", "a\u001fb\u00a0c\u2009d\u3000e", []string{"a", "b", "c", "d", "e"}},
	{"zero width space is not white space", "a\u200bb", []string{"a\u200bb"}},
	{"invalid UTF-8 is kept", "ab\xff\xfe, c.", []string{"ab\xff\xfe", ",", "c", "."}},
}

func TestTokenizeSentence(t *testing.T) {
	for _, tc := range sentenceCases {
		t.Run(tc.name, func(t *testing.T) {
			got := TokenizeSentence(tc.in)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("TokenizeSentence(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestReferenceCases checks the plain regexp port against the same table, so
// that the differential tests compare two implementations that are both right
// on the hand-derived cases.
func TestReferenceCases(t *testing.T) {
	for _, tc := range sentenceCases {
		got := refTokenizeSentence(tc.in)
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("refTokenizeSentence(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestTokenize(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   ", nil},
		{"It rained. We left.", []string{"It", "rained", ".", "We", "left", "."}},
		{"Is it? Yes! \"Sure.\"", []string{"Is", "it", "?", "Yes", "!", "``", "Sure", ".", "''"}},
		{"Don't panic.\n\nThe answer is 42.", []string{"Do", "n't", "panic", ".", "The", "answer", "is", "42", "."}},
	}
	for _, tc := range cases {
		got := Tokenize(tc.in)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Tokenize(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// TestTokenizeIsPerSentence checks that Tokenize is TokenizeSentence applied
// to each sentence the splitter finds, whatever the splitter decides.
func TestTokenizeIsPerSentence(t *testing.T) {
	for _, text := range fixtureTexts(t) {
		var want []string
		for _, sp := range sentence.English.Split(text) {
			want = append(want, TokenizeSentence(text[sp.Start:sp.End])...)
		}
		if got := Tokenize(text); !reflect.DeepEqual(got, want) {
			t.Errorf("Tokenize(%q)\n got %q\nwant %q", text, got, want)
		}
	}
}

// TestNoNormalization checks that tokens are substrings of the input in order,
// apart from the quote marks NLTK rewrites (a double quote, or two apostrophes,
// becomes two backquotes or two apostrophes).
func TestNoNormalization(t *testing.T) {
	for _, text := range fixtureTexts(t) {
		if strings.Contains(text, `"`) || strings.Contains(text, "''") {
			continue
		}
		rest := text
		for _, tok := range TokenizeSentence(text) {
			i := strings.Index(rest, tok)
			if i < 0 {
				t.Errorf("token %q of %q is not in the remaining text %q", tok, text, rest)
				break
			}
			rest = rest[i+len(tok):]
		}
	}
}

// TestConcurrent checks that concurrent calls, which share pooled buffers,
// give the sequential results (run with -race to check for data races).
func TestConcurrent(t *testing.T) {
	texts := fixtureTexts(t)
	want := make([][]string, len(texts))
	for i, s := range texts {
		want[i] = Tokenize(s)
	}
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		go func(g int) {
			for k := 0; k < 50; k++ {
				for i := range texts {
					j := (i + g + k) % len(texts)
					if got := Tokenize(texts[j]); !reflect.DeepEqual(got, want[j]) {
						errs <- fmt.Sprintf("Tokenize(%q) = %q concurrently, %q alone", texts[j], got, want[j])
						return
					}
				}
			}
			errs <- ""
		}(g)
	}
	for g := 0; g < 8; g++ {
		if msg := <-errs; msg != "" {
			t.Error(msg)
		}
	}
}
