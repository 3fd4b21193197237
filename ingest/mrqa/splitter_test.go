package mrqa_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/ingest/mrqa"
)

// prf holds precision, recall and F1 of a set comparison.
type prf struct {
	tp, got, want int
}

func (m prf) p() float64  { return ratio(m.tp, m.got) }
func (m prf) r() float64  { return ratio(m.tp, m.want) }
func (m prf) f1() float64 { return ratio(2*m.tp, m.got+m.want) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// splitMetrics compares the sentences of two datasets over the same
// contexts (paired by text): boundaries are the sentence ends inside a
// context (the last sentence's end is not a boundary); sentences match when
// both their ends do.
func splitMetrics(t testing.TB, got, want *ingest.Dataset) (boundaries, sentences prf, paired int) {
	type spans map[[2]int]bool
	collect := func(d *ingest.Dataset) map[string]spans {
		m := map[string]spans{}
		c := d.Corpus
		for _, s := range c.Sentences {
			text := c.Contexts[s.ContextID].Text
			if m[text] == nil {
				m[text] = spans{}
			}
			m[text][[2]int{s.Start, s.End}] = true
		}
		return m
	}
	internal := func(s spans) map[int]bool {
		last := 0
		for sp := range s {
			last = max(last, sp[1])
		}
		b := map[int]bool{}
		for sp := range s {
			if sp[1] != last {
				b[sp[1]] = true
			}
		}
		return b
	}
	g, w := collect(got), collect(want)
	for text, ws := range w {
		gs, ok := g[text]
		if !ok {
			t.Errorf("context missing from the output: %.60q", text)
			continue
		}
		paired++
		for sp := range gs {
			if ws[sp] {
				sentences.tp++
			}
		}
		sentences.got += len(gs)
		sentences.want += len(ws)
		gb, wb := internal(gs), internal(ws)
		for b := range gb {
			if wb[b] {
				boundaries.tp++
			}
		}
		boundaries.got += len(gb)
		boundaries.want += len(wb)
	}
	return boundaries, sentences, paired
}

func convertSQuADSplitter(t testing.TB) (*mrqa.Report, *ingest.Dataset, *ingest.Dataset) {
	in := sharedData(t, "squad-v1.1", "dev-v1.1.json.gz")
	refDir := sharedData(t, "squad-multireqa-test")
	out := filepath.Join(t.TempDir(), "squad")
	rep, err := mrqa.Convert(context.Background(), []string{in}, out, mrqa.Options{Gold: mrqa.GoldStart})
	if err != nil {
		t.Fatalf("convert: %v", err)
	}
	got, err := ingest.ReadDataset(out)
	if err != nil {
		t.Fatalf("read output: %v", err)
	}
	ref, err := ingest.ReadDataset(refDir)
	if err != nil {
		t.Fatal(err)
	}
	return rep, got, ref
}

// TestSQuADSplitterBoundaries converts SQuAD dev with the built-in sentence
// splitter and measures its boundaries against the official MultiReQA ones.
func TestSQuADSplitterBoundaries(t *testing.T) {
	rep, got, ref := convertSQuADSplitter(t)
	b, s, paired := splitMetrics(t, got, ref)
	t.Logf("candidates %d (official %d); contexts paired %d", len(got.Corpus.Sentences), len(ref.Corpus.Sentences), paired)
	t.Logf("boundaries: P %.4f R %.4f F1 %.4f (%d agree, %d found, %d official)", b.p(), b.r(), b.f1(), b.tp, b.got, b.want)
	t.Logf("sentences:  P %.4f R %.4f F1 %.4f (%d agree)", s.p(), s.r(), s.f1(), s.tp)
	t.Logf("questions %d, dropped %v", rep.Datasets[0].Questions, rep.Datasets[0].Dropped)
	if paired != len(ref.Corpus.Contexts) {
		t.Errorf("paired %d contexts, want %d", paired, len(ref.Corpus.Contexts))
	}
	// A splitter that finds most official boundaries: a floor well below
	// what Punkt achieves, so that only a broken splitter or a broken
	// conversion fails.
	if b.f1() < 0.9 || s.f1() < 0.9 {
		t.Errorf("boundary F1 %.3f, sentence F1 %.3f: the splitter's sentences are far from the official ones", b.f1(), s.f1())
	}
}

// BenchmarkSQuADSplitter converts SQuAD dev with the sentence splitter and
// reports the candidate count and the boundary P/R/F1 against the official
// MultiReQA boundaries.
func BenchmarkSQuADSplitter(b *testing.B) {
	var bm, sm prf
	var n int
	for i := 0; i < b.N; i++ {
		_, got, ref := convertSQuADSplitter(b)
		bm, sm, _ = splitMetrics(b, got, ref)
		n = len(got.Corpus.Sentences)
	}
	b.ReportMetric(float64(n), "candidates")
	b.ReportMetric(bm.p(), "boundary-P")
	b.ReportMetric(bm.r(), "boundary-R")
	b.ReportMetric(bm.f1(), "boundary-F1")
	b.ReportMetric(sm.f1(), "sentence-F1")
}
