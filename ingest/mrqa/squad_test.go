package mrqa_test

import (
	"context"
	"errors"
	"path/filepath"
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

func TestSQuADWithOfficialBoundaries(t *testing.T) {
	in := sharedData(t, "squad-v1.1", "dev-v1.1.json.gz")
	ann := sharedData(t, "multireqa-annotations", "dev", "SQuAD", "candidates.json.gz")
	refDir := sharedData(t, "squad-multireqa-test")
	out := filepath.Join(t.TempDir(), "squad")
	rep, err := mrqa.Convert(context.Background(), []string{in}, out, mrqa.Options{Boundaries: []string{ann}, Gold: mrqa.GoldStart})
	if err != nil {
		t.Fatalf("convert: %v", err)
	}
	t.Logf("report: %+v boundaries %+v", *rep.Datasets[0], *rep.Boundaries)
	got, err := ingest.ReadDataset(out)
	if err != nil {
		t.Fatalf("read output: %v", err)
	}
	ref, err := ingest.ReadDataset(refDir)
	if err != nil {
		t.Fatal(err)
	}
	gc, rc := candidateTexts(got), candidateTexts(ref)
	if len(gc) != len(rc) {
		t.Errorf("%d candidates, want %d", len(gc), len(rc))
	}
	textDiff := 0
	for id, rt := range rc {
		gt, ok := gc[id]
		if !ok {
			t.Errorf("candidate %s missing", id)
			continue
		}
		if gt != rt {
			textDiff++
			if textDiff <= 5 {
				t.Logf("candidate %s:\n got %q\nwant %q", id, gt, rt)
			}
		}
	}
	gg, rg := goldSets(got), goldSets(ref)
	if len(gg) != len(rg) {
		t.Errorf("%d questions, want %d", len(gg), len(rg))
	}
	goldDiff := 0
	for id, r := range rg {
		if g, ok := gg[id]; !ok {
			t.Errorf("question %s missing", id)
		} else if g != r {
			goldDiff++
		}
	}
	t.Logf("candidate texts differing: %d of %d; gold sets differing: %d of %d", textDiff, len(rc), goldDiff, len(rg))
	_ = errors.New
}
