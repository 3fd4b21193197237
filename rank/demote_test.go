package rank_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/reqa/reqa/index/sentence"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/eval"
)

// TestDefaultDemotesQuestions asks an FAQ whose question sentences match
// the user's questions word for word: the default ranker answers with a
// sentence that answers, never with the FAQ's question, while the same
// fusion without demotion would (so the test can fail).
func TestDefaultDemotesQuestions(t *testing.T) {
	e := openFAQ(t)
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
		as, err := e.Ask(context.Background(), def, tc.q, 3)
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
		if bs, err := e.Ask(context.Background(), plain, tc.q, 1); err != nil || len(bs) == 0 || !sentence.IsQuestion(bs[0].Sentence) {
			t.Errorf("%q: without demotion the first answer is %+v (%v), want the FAQ's question", tc.q, bs, err)
		}
	}
}

// TestTuneFusionsScoresDefaultDemoted: among the fusions `reqa fuse`
// orders on a small tuning set, the built-in default is scored as ask runs
// it, questions demoted; on an FAQ whose questions are asked word for word
// it answers every one.
func TestTuneFusionsScoresDefaultDemoted(t *testing.T) {
	e := openFAQ(t)
	byText := map[string]uint32{}
	for _, s := range e.Sentences() {
		text, err := e.SentenceText(s.ID)
		if err != nil {
			t.Fatal(err)
		}
		byText[text] = s.ID
	}
	var qs []eval.Question
	for q, a := range map[string]string{
		"How do I reset my password?":       "Open the settings page and choose Reset password.",
		"Can I change my user name?":        "User names are fixed once the account exists.",
		"Where can I download my invoices?": "Every invoice is listed under Billing in the account menu.",
		"Why was my payment declined?":      "A bank declines a payment when the card on file has expired.",
	} {
		id, ok := byText[a]
		if !ok {
			t.Fatalf("no sentence %q", a)
		}
		qs = append(qs, eval.Question{ID: q, Text: q, Gold: []uint32{id}})
	}
	res, err := eval.TuneFusions(context.Background(), e, []string{"minmax"}, rank.DefaultFusionInputs, qs, rank.Spec{}, "faq")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Params.DemoteQuestions {
			if r.Params.TuneP1 != 100 {
				t.Errorf("built-in default scored %.1f P@1 on the FAQ, want 100 (questions demoted)", r.Params.TuneP1)
			}
			return
		}
	}
	t.Fatalf("the built-in default is not among the fusions: %+v", res)
}

// openFAQ builds and opens a dense index of testdata/faq (closed when t
// ends).
func openFAQ(t *testing.T) *rank.Index { return openIndexOf(t, "testdata/faq") }

// openIndexOf builds and opens a dense index of dir (closed when t ends).
func openIndexOf(t *testing.T, dir string) *rank.Index {
	t.Helper()
	requireDense(t)
	path := filepath.Join(t.TempDir(), filepath.Base(dir)+".reqa")
	buildIndexOf(t, path, true, dir)
	e, err := rank.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}
