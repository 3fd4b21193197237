package eval

import (
	"slices"
	"strings"
	"testing"

	"github.com/reqa/reqa/store"
)

// selfCorpus is two document contexts (a heading line, then sentences) and
// one plain context.
func selfCorpus() ([]store.Context, []store.Sentence) {
	texts := []string{
		"Guide › Install\nThe installer is a small script that copies the binary. Run it as root on every machine you manage.",
		"Guide › Remove\nDelete the binary and its cache directory.",
		"Paris is the capital of France. It lies on the Seine.",
	}
	var ctxs []store.Context
	var ss []store.Sentence
	for i, tx := range texts {
		ctxs = append(ctxs, store.Context{ID: uint32(i), Text: tx})
		start := strings.IndexByte(tx, '\n') + 1
		for _, part := range strings.SplitAfter(tx[start:], ". ") {
			end := start + len(strings.TrimSpace(part))
			ss = append(ss, store.Sentence{ID: uint32(len(ss)), ContextID: uint32(i), Start: start, End: end})
			start += len(part)
		}
	}
	return ctxs, ss
}

func TestSelfQuestionKinds(t *testing.T) {
	ctxs, ss := selfCorpus()
	heads := headingQuestions(ctxs, ss)
	if len(heads) != 2 || heads[0].text != "Install" || !slices.Equal(heads[0].gold, []uint32{0, 1}) || heads[1].text != "Remove" {
		t.Errorf("headings: %+v; want Install → sentences 0, 1 and Remove (none for the plain context)", heads)
	}
	defs := definitionQuestions(ctxs, ss)
	var got []string
	for _, d := range defs {
		got = append(got, d.text)
	}
	if want := []string{"what is installer?", "what is Paris?"}; !slices.Equal(got, want) {
		t.Errorf("definitions: %q, want %q", got, want)
	}
	for _, c := range clozeQuestions(ctxs, ss) {
		sent := ss[c.gold[0]].Text(ctxs[ss[c.gold[0]].ContextID])
		if len(strings.Fields(c.text)) != len(wordRE.FindAllString(sent, -1))-2 {
			t.Errorf("cloze %q of %q: want the sentence's words less two", c.text, sent)
		}
	}
}

func TestSampleSelf(t *testing.T) {
	mk := func(kind string, n int) []selfQ {
		out := make([]selfQ, n)
		for i := range out {
			out[i] = selfQ{kind: kind, text: kind + string(rune('a'+i))}
		}
		return out
	}
	for _, c := range []struct {
		limit, a, b, wantA, wantB int
	}{
		{10, 20, 20, 5, 5},
		{10, 2, 20, 2, 8}, // a kind with fewer gives its share to the others
		{100, 3, 4, 3, 4},
	} {
		picked := sampleSelf([]string{"a", "b"}, map[string][]selfQ{"a": mk("a", c.a), "b": mk("b", c.b)}, c.limit, 1)
		n := map[string]int{}
		for _, p := range picked {
			n[p.kind]++
		}
		if n["a"] != c.wantA || n["b"] != c.wantB {
			t.Errorf("limit %d of %d+%d: picked %v, want a %d b %d", c.limit, c.a, c.b, n, c.wantA, c.wantB)
		}
	}
	a := sampleSelf([]string{"a"}, map[string][]selfQ{"a": mk("a", 20)}, 5, 7)
	b := sampleSelf([]string{"a"}, map[string][]selfQ{"a": mk("a", 20)}, 5, 7)
	if !slices.EqualFunc(a, b, func(x, y selfQ) bool { return x.text == y.text }) {
		t.Error("sampleSelf is not deterministic for a seed")
	}
}
