package sentence

import (
	"reflect"
	"strings"
	"sync"
	"testing"
)

type splitCase struct {
	name string
	text string
	want []string
}

// Cases where both splitters agree.
var commonCases = []splitCase{
	{"empty", "", nil},
	{"blank", " \n\t ", nil},
	{"no final punctuation", "no end in sight", []string{"no end in sight"}},
	{"two sentences", "Hello world. This is a test.", []string{"Hello world.", "This is a test."}},
	{"question and exclamation", "Is it true? Yes! It is.", []string{"Is it true?", "Yes!", "It is."}},
	{"repeated marks", "Really?! I never knew. Wow!!! Fine.", []string{"Really?!", "I never knew.", "Wow!!!", "Fine."}},
	{"trims white space", "  Hello there.   Bye.  \n", []string{"Hello there.", "Bye."}},
	{"closing quote stays", `He said "Hi." Then he left.`, []string{`He said "Hi."`, "Then he left."}},
	{"single quote stays", `It was called 'Metro.' The name stuck.`, []string{`It was called 'Metro.'`, "The name stuck."}},
	{"closing bracket stays", "(This is one.) This is two.", []string{"(This is one.)", "This is two."}},
	{"quote and bracket stay", `("Go away.") Then silence.`, []string{`("Go away.")`, "Then silence."}},
	{"question in quotes", `He asked "Why?" Nobody knew.`, []string{`He asked "Why?"`, "Nobody knew."}},
	{"closer at the end", `She said "Stop."`, []string{`She said "Stop."`}},
	{"closer before dashes", `He said "Stop."--and left.`, []string{`He said "Stop."`, "--and left."}},
	{"decimal", "Pi is about 3.14 and e is 2.718. Both are irrational.", []string{"Pi is about 3.14 and e is 2.718.", "Both are irrational."}},
	{"number mid-sentence", "It costs $1,000.50 today. Tomorrow more.", []string{"It costs $1,000.50 today.", "Tomorrow more."}},
	{"initials", "J. R. R. Tolkien wrote it. Then he slept.", []string{"J. R. R. Tolkien wrote it.", "Then he slept."}},
	{"initial in name", "The author is George R. Martin of Santa Fe. He writes.", []string{"The author is George R. Martin of Santa Fe.", "He writes."}},
	{"ellipsis then lower case", "Wait... what happened? Nothing.", []string{"Wait... what happened?", "Nothing."}},
	// Punkt only sees "previous word + period + next token", so a spaced
	// ellipsis falls apart, as in NLTK.
	{"spaced ellipsis", "So . . . we wait. Done.", []string{"So .", ".", ".", "we wait.", "Done."}},
	{"numbered list", "1. First item. 2. Second item.", []string{"1.", "First item.", "2.", "Second item."}},
	{"year before lower case", "It grew in 1995. the next year it shrank.", []string{"It grew in 1995. the next year it shrank."}},
	{"year before capital", "It grew in 1995. The next year it shrank.", []string{"It grew in 1995.", "The next year it shrank."}},
	{"dotted without space", "See example.com.It is fine.", []string{"See example.com.It is fine."}},
	{"line break is white space", "First line.\nSecond line.", []string{"First line.", "Second line."}},
	{"lone line break is no boundary", "A title\nThe body text. More.", []string{"A title\nThe body text.", "More."}},
	{"blank line", "One.\n\nTwo.", []string{"One.", "Two."}},
	{"no-break space", "One.\u00a0Two.", []string{"One.", "Two."}},
	{"citation after period", "It is big.[citation needed] It is old.", []string{"It is big.", "[citation needed] It is old."}},
	{"curly quotes are not moved", "He said \u201cHi.\u201d Then he left.", []string{"He said \u201cHi.\u201d Then he left."}},
	{"accents", "Él llegó. Ça va? Über alles!", []string{"Él llegó.", "Ça va?", "Über alles!"}},
	{"invalid UTF-8", "Bad \xff\xfe byte. Next \xc3 one.", []string{"Bad \xff\xfe byte.", "Next \xc3 one."}},
}

// Split (MultiReQA) follows the official boundaries: no abbreviations.
var multiReQACases = []splitCase{
	{"title splits", "Dr. Smith arrived.", []string{"Dr.", "Smith arrived."}},
	{"U.S. splits even before lower case", "He lives in the U.S. now.", []string{"He lives in the U.S.", "now."}},
	{"e.g. splits", "Some metals (e.g. iron) rust.", []string{"Some metals (e.g.", "iron) rust."}},
	{"St. splits", "St. John's Cathedral is old.", []string{"St.", "John's Cathedral is old."}},
	{"No. splits", "See No. 5 for details.", []string{"See No.", "5 for details."}},
	{"lower case does not save a word", "It is big. and old.", []string{"It is big.", "and old."}},
	{"initial before a starter", "He rode the Saturn V. The rocket flew.", []string{"He rode the Saturn V. The rocket flew."}},
	{"ellipsis before a starter", "Wait... The end.", []string{"Wait... The end."}},
	{"question in citation", "It is now[when?] four divisions.", []string{"It is now[when?]", "four divisions."}},
}

// English knows abbreviations and sentence starters.
var englishCases = []splitCase{
	{"title", "Dr. Smith arrived. He sat.", []string{"Dr. Smith arrived.", "He sat."}},
	{"several titles", "Mr. and Mrs. Jones met Prof. Lee and Gen. Grant.", []string{"Mr. and Mrs. Jones met Prof. Lee and Gen. Grant."}},
	{"U.S. before lower case", "He lives in the U.S. now.", []string{"He lives in the U.S. now."}},
	{"U.S. at the end", "He lives in the U.S. The weather is nice.", []string{"He lives in the U.S.", "The weather is nice."}},
	{"e.g. and i.e.", "Some metals (e.g. iron) rust, i.e. they oxidise.", []string{"Some metals (e.g. iron) rust, i.e. they oxidise."}},
	{"etc. at the end", "Apples, pears, etc. However, no plums.", []string{"Apples, pears, etc.", "However, no plums."}},
	{"saint", "St. John's Cathedral is old.", []string{"St. John's Cathedral is old."}},
	{"month", "It opened on Jan. 5, 1990. It closed in Sept. 2001.", []string{"It opened on Jan. 5, 1990.", "It closed in Sept. 2001."}},
	{"number sign", "See No. 5 for details.", []string{"See No. 5 for details."}},
	{"company", "Apple Inc. is large. Acme Corp. makes anvils.", []string{"Apple Inc. is large.", "Acme Corp. makes anvils."}},
	{"times", "We met at 10 a.m. and left at 3 p.m. The day was long.", []string{"We met at 10 a.m. and left at 3 p.m.", "The day was long."}},
	{"et al.", "Smith et al. found it.", []string{"Smith et al. found it."}},
	{"a.k.a.", "Debian 12, a.k.a. bookworm, is stable. It ships often.", []string{"Debian 12, a.k.a. bookworm, is stable.", "It ships often."}},
	// A '?' or '!' inside a sentence: before a closing bracket, or alone
	// between spaces (an operator), when a lower-case word follows.
	{"question in citation", "It is now[when?] four divisions.", []string{"It is now[when?] four divisions."}},
	{"exclamation in brackets", "Locals are (by definition!) those assigned. Next.", []string{"Locals are (by definition!) those assigned.", "Next."}},
	{"operator", "If the reserved word ! precedes a pipeline, it negates. Next.", []string{"If the reserved word ! precedes a pipeline, it negates.", "Next."}},
	{"glob", "The pattern ? matches one character.", []string{"The pattern ? matches one character."}},
	{"question before a command", "Is it safe? git gc keeps reachable objects.", []string{"Is it safe?", "git gc keeps reachable objects."}},
	{"exclamation before a capital", "Careful (really!) The end.", []string{"Careful (really!)", "The end."}},
	// A quoted name made of dots is not an end: "." and "..", ".*".
	{"quoted dot names", "The filenames ``.'' and ``..'' are ignored. Next.", []string{"The filenames ``.'' and ``..'' are ignored.", "Next."}},
	{"quoted dot pattern", "Make '.*' or \".?\" a pattern. Next.", []string{"Make '.*' or \".?\" a pattern.", "Next."}},
	{"period after a quoted dot", "The separator is \".\". Next.", []string{"The separator is \".\".", "Next."}},
	{"period inside a quoted word", "He said \"Stop.\" Then he left.", []string{"He said \"Stop.\"", "Then he left."}},
	{"hyphenated abbreviation", "He met ex-Gov. Brown.", []string{"He met ex-Gov. Brown."}},
	{"initials", "J. R. R. Tolkien wrote it.", []string{"J. R. R. Tolkien wrote it."}},
	{"initial before a starter", "He rode the Saturn V. The rocket flew.", []string{"He rode the Saturn V.", "The rocket flew."}},
	{"ellipsis before a starter", "Wait... The end.", []string{"Wait...", "The end."}},
	{"ellipsis before lower case", "Wait... what now?", []string{"Wait... what now?"}},
	{"ordinary word still splits", "It is big. and old.", []string{"It is big.", "and old."}},
}

func texts(sp *Splitter, text string) []string {
	var out []string
	for _, s := range sp.Split(text) {
		out = append(out, text[s.Start:s.End])
	}
	return out
}

func runCases(t *testing.T, sp *Splitter, cases []splitCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := texts(sp, tc.text)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("split %q\n got %q\nwant %q", tc.text, got, tc.want)
			}
			checkInvariants(t, tc.text, sp.Split(tc.text))
		})
	}
}

func TestSplitCommon(t *testing.T) {
	t.Run("MultiReQA", func(t *testing.T) { runCases(t, MultiReQA, commonCases) })
	t.Run("English", func(t *testing.T) { runCases(t, English, commonCases) })
}

func TestSplitMultiReQA(t *testing.T) { runCases(t, MultiReQA, multiReQACases) }

func TestSplitEnglish(t *testing.T) { runCases(t, English, englishCases) }

func TestSplitIsMultiReQA(t *testing.T) {
	for _, tc := range append(append([]splitCase{}, commonCases...), multiReQACases...) {
		got := Texts(tc.text)
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Texts(%q) = %q, want %q", tc.text, got, tc.want)
		}
		if !reflect.DeepEqual(Split(tc.text), MultiReQA.Split(tc.text)) {
			t.Errorf("Split(%q) differs from MultiReQA.Split", tc.text)
		}
	}
}

func TestSpans(t *testing.T) {
	text := "  One two.  Three?\n(Four.) "
	want := []Span{{2, 10}, {12, 18}, {19, 26}}
	if got := Split(text); !reflect.DeepEqual(got, want) {
		t.Errorf("Split(%q) = %v, want %v", text, got, want)
	}
}

func TestAppendSplit(t *testing.T) {
	prefix := []Span{{100, 200}}
	got := MultiReQA.AppendSplit(prefix, "One two. Three four.")
	want := []Span{{100, 200}, {0, 8}, {9, 20}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("AppendSplit = %v, want %v", got, want)
	}
	// Reusing a buffer with room.
	buf := make([]Span, 0, 16)
	buf = MultiReQA.AppendSplit(buf, "One. Two. Three.")
	buf = MultiReQA.AppendSplit(buf, "Four.")
	if len(buf) != 4 || buf[3] != (Span{0, 5}) || buf[2] != (Span{10, 16}) {
		t.Errorf("AppendSplit reuse = %v", buf)
	}
}

func TestNewSplitter(t *testing.T) {
	sp := NewSplitter(Config{Abbreviations: []string{"Approx"}, SentenceStarters: []string{"Then"}})
	got := texts(sp, "It weighs approx. ten tons. It is approx. Then it is not.")
	want := []string{"It weighs approx. ten tons.", "It is approx.", "Then it is not."}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestConcurrent(t *testing.T) {
	text := strings.Repeat("Dr. Smith went to Washington. He said \"Hi.\" Then 3.14 happened... Yes! ", 50)
	want1, want2 := Split(text), English.Split(text)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if !reflect.DeepEqual(Split(text), want1) || !reflect.DeepEqual(English.Split(text), want2) {
					t.Error("concurrent result differs")
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestLongInputs(t *testing.T) {
	// Long runs without white space or of punctuation stay linear and safe.
	for _, text := range []string{
		strings.Repeat(".", 100000),
		strings.Repeat("a.", 50000),
		strings.Repeat(". ", 50000),
		strings.Repeat("?!\"'", 25000),
		strings.Repeat("x", 100000) + ". Y.",
		strings.Repeat("\xff", 1000) + ". " + strings.Repeat("\xe2\x80", 1000),
	} {
		checkInvariants(t, text, Split(text))
		checkInvariants(t, text, English.Split(text))
	}
}
