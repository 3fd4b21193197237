package mrqa_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/ingest/mrqa"
)

// goldSets maps question ids to their sorted gold candidate ids.
func goldSets(d *ingest.Dataset) map[string]string {
	m := map[string]string{}
	for _, q := range d.Questions {
		g := append([]string(nil), q.Gold...)
		sort.Strings(g)
		m[q.ID] = strings.Join(g, " ")
	}
	return m
}

// candidateTexts maps candidate ids to their texts.
func candidateTexts(d *ingest.Dataset) map[string]string {
	m := map[string]string{}
	c := d.Corpus
	for _, s := range c.Sentences {
		m[s.ExtID] = s.Text(c.Contexts[s.ContextID])
	}
	return m
}

// groupOf is a candidate id's context part (up to its last "/_").
func groupOf(id string) string { return id[:strings.LastIndex(id, "/_")] }

// sentenceLike reports whether a candidate text could be a whole sentence
// of its context as MultiReQA's Punkt cut them: it starts with no white
// space, ends with sentence punctuation (or where the context does), and
// holds no plain sentence end (a word of two lower-case letters or more, a
// period, a space, a capital), where that Punkt always cuts.
func sentenceLike(text, context string) bool {
	if text == "" || strings.TrimLeft(text, " ") != text {
		return false
	}
	if plainEnd.MatchString(text) {
		return false
	}
	t := strings.TrimRight(text, `"'”’)]`)
	return strings.HasSuffix(strings.TrimSpace(context), text) || strings.ContainsAny(t[len(t)-1:], ".?!:;")
}

var plainEnd = regexp.MustCompile(`[a-z]{2}\. [A-Z]`)

type squadRun struct {
	in, ann, ref string
}

func squadInputs(t testing.TB) squadRun {
	return squadRun{
		in:  sharedData(t, "squad-v1.1", "dev-v1.1.json.gz"),
		ann: sharedData(t, "multireqa-annotations", "dev", "SQuAD", "candidates.json.gz"),
		ref: sharedData(t, "squad-multireqa-test"),
	}
}

// compareWithReference checks a conversion of SQuAD dev against the shared
// squad-multireqa-test set and returns the differing candidate texts and
// gold sets.
func compareWithReference(t *testing.T, got, ref *ingest.Dataset) (textDiff, goldDiff map[string]bool) {
	gc, rc := candidateTexts(got), candidateTexts(ref)
	if len(gc) != 10642 || len(rc) != 10642 {
		t.Errorf("%d candidates, reference %d, want 10642", len(gc), len(rc))
	}
	textDiff = map[string]bool{}
	for id, rt := range rc {
		gt, ok := gc[id]
		switch {
		case !ok:
			t.Errorf("candidate %s missing", id)
		case gt != rt:
			textDiff[id] = true
		}
	}
	gg, rg := goldSets(got), goldSets(ref)
	if len(gg) != 10570 || len(rg) != 10570 {
		t.Errorf("%d questions, reference %d, want 10570", len(gg), len(rg))
	}
	goldDiff = map[string]bool{}
	for id, r := range rg {
		g, ok := gg[id]
		switch {
		case !ok:
			t.Errorf("question %s missing", id)
		case g != r:
			goldDiff[id] = true
		}
	}
	return textDiff, goldDiff
}

// TestSQuADWithOfficialBoundaries converts the raw SQuAD dev set with the
// official MultiReQA SQuAD annotations and the start gold rule, and
// compares with the shared squad-multireqa-test set.
//
// SQuAD JSON has no MRQA question ids, so annotated contexts are matched by
// text. In 27 annotated contexts the official boundaries belong to another
// paragraph of the same length (they cut words in half in the paragraph
// their ids name); the shared set, made through MRQA question ids, inherits
// that, while matching by text gives those boundaries to the paragraph they
// fit. Nothing else in the inputs decides between the two (see the package
// documentation and TestSQuADCrossAssignedContexts). The test requires
// every candidate id and question, equal texts and gold sets everywhere
// else, and that every difference lies in an annotated context whose
// reference sentences do not fit its text. TestSQuADViaMRQAIDs shows the
// exact reproduction through question ids.
func TestSQuADWithOfficialBoundaries(t *testing.T) {
	s := squadInputs(t)
	out := filepath.Join(t.TempDir(), "squad")
	rep, err := mrqa.Convert(context.Background(), []string{s.in}, out, mrqa.Options{Boundaries: []string{s.ann}, Gold: mrqa.GoldStart})
	if err != nil {
		t.Fatalf("convert: %v", err)
	}
	got, err := ingest.ReadDataset(out)
	if err != nil {
		t.Fatalf("read output: %v", err)
	}
	ref, err := ingest.ReadDataset(s.ref)
	if err != nil {
		t.Fatal(err)
	}
	textDiff, goldDiff := compareWithReference(t, got, ref)
	// Groups whose reference sentences do not all fit their context.
	misfit := map[string]bool{}
	rc := ref.Corpus
	for _, x := range rc.Sentences {
		ctx := rc.Contexts[x.ContextID].Text
		if !sentenceLike(x.Text(rc.Contexts[x.ContextID]), ctx) {
			misfit[groupOf(x.ExtID)] = true
		}
	}
	diffGroups := map[string]bool{}
	for id := range textDiff {
		diffGroups[groupOf(id)] = true
		if !misfit[groupOf(id)] {
			t.Errorf("candidate %s differs from the reference, whose sentences fit their context", id)
		}
	}
	refGold := goldSets(ref)
	for id := range goldDiff {
		for _, g := range strings.Fields(refGold[id]) {
			if !diffGroups[groupOf(g)] {
				t.Errorf("question %s: gold differs outside the mismatched contexts", id)
			}
		}
	}
	b := rep.Boundaries
	t.Logf("matched %d annotated contexts by text (%d ambiguous, %d fitting poorly); %d of %d annotated contexts differ from the reference (%d candidate texts), %d gold sets differ",
		b.ByText, b.Ambiguous, b.TextFitMismatch, len(diffGroups), b.Annotated, len(textDiff), len(goldDiff))
	if b.Matched != 2067 || b.NotCovered != 0 || b.Unused != 0 || b.BadSpans != 0 {
		t.Errorf("boundary report %+v", *b)
	}
	// The differences are bounded by the 27 cross-assigned contexts.
	if len(diffGroups) > 27 {
		t.Errorf("%d annotated contexts differ, want at most 27", len(diffGroups))
	}
}

// TestSQuADViaMRQAIDs gives the conversion the link from SQuAD ids to MRQA
// qids that an MRQA SQuAD file provides (its questions carry both "id" and
// "qid"). MRQA's file is not in ../shared, so the links are rebuilt from the
// shared set's candidate ids: each paragraph's SQuAD questions, in order,
// take the qids its annotated context lists. Matched by question ids, the
// output equals the shared set exactly: every candidate id and text, every
// question and gold set.
func TestSQuADViaMRQAIDs(t *testing.T) {
	s := squadInputs(t)
	ref, err := ingest.ReadDataset(s.ref)
	if err != nil {
		t.Fatal(err)
	}
	squad, err := ingest.ReadSQuADFile(s.in)
	if err != nil {
		t.Fatal(err)
	}
	qidsOf := map[string][]string{} // context text → MRQA qids
	for _, x := range ref.Corpus.Sentences {
		text := ref.Corpus.Contexts[x.ContextID].Text
		if qidsOf[text] == nil {
			g := groupOf(x.ExtID)
			qidsOf[text] = strings.Split(g[strings.IndexByte(g, '_')+1:], "/")
		}
	}
	linkPath := filepath.Join(t.TempDir(), "SQuAD-links.jsonl")
	f, err := os.Create(linkPath)
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	for _, a := range squad.Data {
		for _, p := range a.Paragraphs {
			qids := qidsOf[p.Context]
			type link struct {
				ID  string `json:"id"`
				QID string `json:"qid"`
			}
			var qas []link
			for i, q := range p.QAs {
				if i < len(qids) {
					qas = append(qas, link{q.ID, qids[i]})
				}
			}
			if err := enc.Encode(map[string]any{"qas": qas}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "squad")
	rep, err := mrqa.Convert(context.Background(), []string{s.in}, out, mrqa.Options{Boundaries: []string{s.ann}, IDLinks: []string{linkPath}, Gold: mrqa.GoldStart})
	if err != nil {
		t.Fatalf("convert: %v", err)
	}
	got, err := ingest.ReadDataset(out)
	if err != nil {
		t.Fatalf("read output: %v", err)
	}
	textDiff, goldDiff := compareWithReference(t, got, ref)
	if len(textDiff) != 0 || len(goldDiff) != 0 {
		t.Errorf("%d candidate texts and %d gold sets differ from the reference", len(textDiff), len(goldDiff))
	}
	if b := rep.Boundaries; b.ByQID != 2067 || b.ByText != 0 {
		t.Errorf("boundary report %+v", *b)
	}
	if d := rep.Datasets[0]; d.MultiGold != 816 {
		t.Errorf("%d questions with several gold sentences, want 816 (the shared set's)", d.MultiGold)
	}
}

// TestSQuADGoldRules compares the two gold rules on SQuAD dev with the
// official boundaries (matched through question ids as above would be
// exact; by text suffices here): the paper's rule drops questions whose
// every span crosses a sentence boundary.
func TestSQuADGoldRules(t *testing.T) {
	s := squadInputs(t)
	var reps [2]*mrqa.Report
	for i, g := range []mrqa.GoldRule{mrqa.GoldStart, mrqa.GoldContain} {
		rep, err := mrqa.Convert(context.Background(), []string{s.in}, filepath.Join(t.TempDir(), "o"), mrqa.Options{Boundaries: []string{s.ann}, Gold: g})
		if err != nil {
			t.Fatal(err)
		}
		reps[i] = rep
	}
	st, ct := reps[0].Datasets[0], reps[1].Datasets[0]
	t.Logf("start rule: %d questions, %d spans crossing; contain rule: %d questions (%v), %d spans crossing",
		st.Questions, st.SpansCrossing, ct.Questions, ct.Dropped, ct.SpansCrossing)
	if st.Questions != 10570 || st.SpansCrossing != 0 {
		t.Errorf("start rule: %+v", *st)
	}
	if ct.Questions+ct.Dropped[mrqa.DropCrossing] != 10570 || ct.Dropped[mrqa.DropCrossing] == 0 || ct.SpansCrossing == 0 {
		t.Errorf("contain rule: %+v", *ct)
	}
}
