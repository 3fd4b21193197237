package rank_test

import (
	"path/filepath"
	"testing"

	"github.com/reqa/reqa/index/sentence"
	"github.com/reqa/reqa/rank"
)

// TestDefaultDemotesQuestions asks an FAQ whose question sentences match
// the user's questions word for word: the default ranker answers with a
// sentence that answers, never with the FAQ's question, while the same
// fusion without demotion would (so the test can fail).
func TestDefaultDemotesQuestions(t *testing.T) {
	requireDense(t)
	path := filepath.Join(t.TempDir(), "faq.reqa")
	buildIndexOf(t, path, true, "testdata/faq")
	e, err := rank.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	def, err := e.Ranker("default")
	if err != nil {
		t.Fatal(err)
	}
	p := e.BuiltinDefault()
	if !p.DemoteQuestions {
		t.Fatalf("the built-in default %+v does not demote questions", p)
	}
	p.DemoteQuestions = false
	plain, err := e.Fused(p, rank.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ q, want string }{
		{"How do I reset my password?", "Open the settings page and choose Reset password."},
		{"Can I change my user name?", "User names are fixed once the account exists."},
	} {
		as, err := e.Ask(def, tc.q, 3)
		if err != nil || len(as) == 0 {
			t.Fatalf("%q: %v, %d answers", tc.q, err, len(as))
		}
		if as[0].Sentence != tc.want {
			t.Errorf("%q: default answers %q, want %q", tc.q, as[0].Sentence, tc.want)
		}
		for _, a := range as {
			if sentence.IsQuestion(a.Sentence) {
				t.Errorf("%q: default ranks the question %q among answers that are not", tc.q, a.Sentence)
			}
		}
		if bs, err := e.Ask(plain, tc.q, 1); err != nil || len(bs) == 0 || !sentence.IsQuestion(bs[0].Sentence) {
			t.Errorf("%q: without demotion the first answer is %+v (%v), want the FAQ's question", tc.q, bs, err)
		}
	}
}
