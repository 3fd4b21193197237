package mrqa_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/reqa/reqa/index/sentence"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/ingest/mrqa"
	"github.com/reqa/reqa/internal/testenv"
)

// converted is a conversion's output, read back with package ingest (which
// also checks every candidate's offsets against its context).
type converted struct {
	rep   *mrqa.Report
	ds    *ingest.Dataset
	cands map[string]string   // candidate id → text
	gold  map[string][]string // question id → gold ids
	ctx   [][2]string         // (title, text) per context, in order
}

func convert(t *testing.T, inputs []string, opt mrqa.Options) converted {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	rep, err := mrqa.Convert(context.Background(), inputs, out, opt)
	if err != nil {
		t.Fatalf("convert %v: %v", inputs, err)
	}
	ds, err := ingest.ReadDataset(out)
	if err != nil {
		t.Fatalf("read output: %v", err)
	}
	c := converted{rep: rep, ds: ds, cands: map[string]string{}, gold: map[string][]string{}}
	for _, s := range ds.Corpus.Sentences {
		c.cands[s.ExtID] = s.Text(ds.Corpus.Contexts[s.ContextID])
	}
	for _, q := range ds.Questions {
		c.gold[q.ID] = q.Gold
	}
	for _, x := range ds.Corpus.Contexts {
		c.ctx = append(c.ctx, [2]string{x.Title, x.Text})
	}
	return c
}

func fixture(name string) string { return filepath.Join("testdata", name) }

// TestDatasetRules checks each dataset's rules on invented fixtures in the
// MRQA format.
func TestDatasetRules(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		gold     mrqa.GoldRule
		contexts [][2]string
		cands    map[string]string
		want     map[string][]string // question id → gold
		dropped  map[string]int
	}{{
		// SearchQA: every [DOC] is a context titled by its [TLE]…[PAR]
		// text; "Mara Vell" in a title does not count; sa02's answer is
		// only in a title; sa04's only span crosses a sentence boundary.
		name: "SearchQA", file: "searchqa.jsonl",
		contexts: [][2]string{
			{"Lighthouse keepers of the north coast", "The Karrow lighthouse was lit in 1851. Its first keeper was Mara Vell."},
			{"Mara Vell - Harbour Almanac", "Keepers of the Karrow light rarely stayed long. The almanac lists six in ten years."},
			{"Fog signals", "A fog horn replaced the bell in 1902."},
		},
		cands: map[string]string{
			"SearchQA_sa01/sa02/sa03/sa04/_0_0": "The Karrow lighthouse was lit in 1851.",
			"SearchQA_sa01/sa02/sa03/sa04/_0_1": "Its first keeper was Mara Vell.",
			"SearchQA_sa01/sa02/sa03/sa04/_1_0": "Keepers of the Karrow light rarely stayed long.",
			"SearchQA_sa01/sa02/sa03/sa04/_1_1": "The almanac lists six in ten years.",
			"SearchQA_sa01/sa02/sa03/sa04/_2_0": "A fog horn replaced the bell in 1902.",
		},
		want: map[string][]string{
			"sa01": {"SearchQA_sa01/sa02/sa03/sa04/_0_1"},
			"sa03": {"SearchQA_sa01/sa02/sa03/sa04/_2_0"},
		},
		dropped: map[string]int{mrqa.DropOnlyInTitles: 1, mrqa.DropCrossing: 1},
	}, {
		// The start rule keeps sa04: its span starts in sentence 0.
		name: "SearchQA start rule", file: "searchqa.jsonl", gold: mrqa.GoldStart,
		want: map[string][]string{
			"sa01": {"SearchQA_sa01/sa02/sa03/sa04/_0_1"},
			"sa03": {"SearchQA_sa01/sa02/sa03/sa04/_2_0"},
			"sa04": {"SearchQA_sa01/sa02/sa03/sa04/_0_0"},
		},
		dropped: map[string]int{mrqa.DropOnlyInTitles: 1},
	}, {
		// TriviaQA: the tags go, the title words stay as text (and count).
		name: "TriviaQA", file: "triviaqa.jsonl",
		contexts: [][2]string{{"Quillon Bay", "Quillon Bay Quillon Bay is a shallow inlet on the western shore. It freezes most winters. The bay was charted in 1766 by Ansel Rook."}},
		cands: map[string]string{
			"TriviaQA_tq01/tq02/_0": "Quillon Bay Quillon Bay is a shallow inlet on the western shore.",
			"TriviaQA_tq01/tq02/_1": "It freezes most winters.",
			"TriviaQA_tq01/tq02/_2": "The bay was charted in 1766 by Ansel Rook.",
		},
		want: map[string][]string{"tq01": {"TriviaQA_tq01/tq02/_2"}, "tq02": {"TriviaQA_tq01/tq02/_0"}},
	}, {
		// HotpotQA: [PAR] separates documents, [SEP] a title from its
		// content; offsets count code points ("–" is one).
		name: "HotpotQA", file: "hotpotqa.jsonl",
		contexts: [][2]string{
			{"Ansel Rook", "Ansel Rook (1731–1790) was a naval surveyor.  He charted Quillon Bay in 1766."},
			{"The Salt Road", "The Salt Road is a trail along the western shore.  It ends at Quillon Bay."},
		},
		cands: map[string]string{
			"HotpotQA_hp01/hp02/hp03/_0_0": "Ansel Rook (1731–1790) was a naval surveyor.",
			"HotpotQA_hp01/hp02/hp03/_0_1": "He charted Quillon Bay in 1766.",
			"HotpotQA_hp01/hp02/hp03/_1_0": "The Salt Road is a trail along the western shore.",
			"HotpotQA_hp01/hp02/hp03/_1_1": "It ends at Quillon Bay.",
		},
		want:    map[string][]string{"hp01": {"HotpotQA_hp01/hp02/hp03/_0_0"}, "hp03": {"HotpotQA_hp01/hp02/hp03/_1_1"}},
		dropped: map[string]int{mrqa.DropOnlyInTitles: 1},
	}, {
		// NaturalQuestions: HTML tags stay; a sentence of tags alone
		// ("</P>") is no candidate; a table is one.
		name: "NaturalQuestions", file: "naturalquestions.jsonl",
		cands: map[string]string{
			"NaturalQuestions_nq01/_0": "<P> The Orrin Canal links the two lakes.",
			"NaturalQuestions_nq01/_1": "It opened in 1874.",
			"NaturalQuestions_nq02/_0": `<Table> <Tr> <Th_colspan="2"> Orrin Canal </Th> </Tr> <Tr> <Td> Length </Td> <Td> 14 km </Td> </Tr> </Table>`,
		},
		want: map[string][]string{"nq01": {"NaturalQuestions_nq01/_1"}, "nq02": {"NaturalQuestions_nq02/_0"}},
	}, {
		// SQuAD in MRQA form: questions unchanged; sd03's only span
		// crosses a boundary (dropped); sd04 keeps the two spans inside
		// sentences and loses the crossing one.
		name: "SQuAD", file: "squad.jsonl",
		cands: map[string]string{
			"SQuAD_sd01/sd02/sd03/sd04/_0": "The Tessel clock tower was built in 1632.",
			"SQuAD_sd01/sd02/sd03/sd04/_1": "It has struck the hours ever since.",
			"SQuAD_sd01/sd02/sd03/sd04/_2": "Its bell, cast in Ghent, weighs two tonnes.",
		},
		want: map[string][]string{
			"sd01": {"SQuAD_sd01/sd02/sd03/sd04/_0"},
			"sd02": {"SQuAD_sd01/sd02/sd03/sd04/_2"},
			"sd04": {"SQuAD_sd01/sd02/sd03/sd04/_1", "SQuAD_sd01/sd02/sd03/sd04/_2"},
		},
		dropped: map[string]int{mrqa.DropCrossing: 1},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := convert(t, []string{fixture(tt.file)}, mrqa.Options{Gold: tt.gold})
			if tt.contexts != nil && !reflect.DeepEqual(c.ctx, tt.contexts) {
				t.Errorf("contexts:\n got %q\nwant %q", c.ctx, tt.contexts)
			}
			if tt.cands != nil && !reflect.DeepEqual(c.cands, tt.cands) {
				t.Errorf("candidates:\n got %q\nwant %q", c.cands, tt.cands)
			}
			if !reflect.DeepEqual(c.gold, tt.want) {
				t.Errorf("gold:\n got %q\nwant %q", c.gold, tt.want)
			}
			dropped := c.rep.Datasets[0].Dropped
			if len(dropped) == 0 {
				dropped = nil
			}
			if len(tt.dropped) == 0 {
				tt.dropped = nil
			}
			if !reflect.DeepEqual(dropped, tt.dropped) {
				t.Errorf("dropped %v, want %v", dropped, tt.dropped)
			}
			// Questions are kept unchanged.
			raw, err := os.ReadFile(fixture(tt.file))
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range c.ds.Questions {
				if !strings.Contains(string(raw), `"question": "`+q.Text+`"`) {
					t.Errorf("question %s changed: %q", q.ID, q.Text)
				}
			}
			for _, x := range c.ctx {
				for _, tag := range []string{"[DOC]", "[TLE]", "[PAR]", "[SEP]"} {
					if strings.Contains(x[1], tag) {
						t.Errorf("context keeps tag %s: %q", tag, x[1])
					}
				}
			}
		})
	}
}

// TestMarkupOnlySentence checks the premise of the NaturalQuestions case:
// the splitter does cut "</P>" off as a sentence of its own, and it is left
// out of the candidates.
func TestMarkupOnlySentence(t *testing.T) {
	text := "<P> The Orrin Canal links the two lakes. It opened in 1874. </P>"
	spans := sentence.Split(text)
	last := spans[len(spans)-1]
	if got := text[last.Start:last.End]; got != "</P>" {
		// May skip in CI: the test checks its own premise; if the splitter keeps the tag, there is nothing to test.
		t.Skipf("the splitter keeps the closing tag with the sentence (%q); nothing to leave out", got)
	}
	c := convert(t, []string{fixture("naturalquestions.jsonl")}, mrqa.Options{})
	for id, s := range c.cands {
		if s == "</P>" {
			t.Errorf("markup-only sentence %s is a candidate", id)
		}
	}
}

// TestTitleSpansCounted checks the span accounting of SearchQA: spans in
// titles are counted apart and never make gold.
func TestTitleSpansCounted(t *testing.T) {
	c := convert(t, []string{fixture("searchqa.jsonl")}, mrqa.Options{})
	d := c.rep.Datasets[0]
	// sa01 has a span in a title ("Mara Vell - Harbour Almanac"), sa02 one.
	if d.SpansInTitles != 2 || d.SpansCrossing != 1 || d.SpansGold != 2 {
		t.Errorf("spans: %d in titles, %d crossing, %d gold; want 2, 1, 2", d.SpansInTitles, d.SpansCrossing, d.SpansGold)
	}
	if d.Contexts != 3 || d.InputContexts != 1 || d.Questions != 2 || d.InputQuestions != 4 {
		t.Errorf("counts %+v", *d)
	}
}

// TestRefused checks that NewsQA, RACE, DROP and DuoRC are refused, saying
// why, before anything is written.
func TestRefused(t *testing.T) {
	dir := t.TempDir()
	line := `{"context": "Ada left at dawn. She came back at dusk.", "qas": [{"qid": "x1", "question": "When did she come back?", "answers": ["dusk"], "detected_answers": [{"text": "dusk", "char_spans": [[35, 38]]}]}]}` + "\n"
	var inputs []string
	for _, name := range []string{"RACE", "DROP", "DuoRC.ParaphraseRC", "NewsQA"} {
		p := filepath.Join(dir, strings.ToLower(name)+".jsonl")
		if err := os.WriteFile(p, []byte(`{"header": {"dataset": "`+name+`", "split": "dev"}}`+"\n"+line), 0o644); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, p)
	}
	if p, err := sharedPath("mrqa-sample", "NewsQA_sample.jsonl"); err == nil {
		inputs = append(inputs, p) // the real sample: no header, named NewsQA
	} else if testenv.InCI() {
		t.Fatalf("CI=true: the shared NewsQA sample is required here: %v", err)
	} else {
		t.Logf("shared NewsQA sample absent (%v); refusing the fixtures only", err)
	}
	for _, in := range inputs {
		out := filepath.Join(dir, "out")
		_, err := mrqa.Convert(context.Background(), []string{in}, out, mrqa.Options{})
		if err == nil || !strings.Contains(err.Error(), "underspecified") || !strings.Contains(err.Error(), "is not converted") {
			t.Errorf("%s: err = %v, want a refusal saying the questions are underspecified", in, err)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: refused, but %s was created", in, out)
		}
	}
	// Refusal holds whatever --dataset says is the name of a refused set,
	// even for a file from an accepted one.
	if _, err := mrqa.Convert(context.Background(), []string{fixture("squad.jsonl")}, filepath.Join(dir, "o2"), mrqa.Options{Dataset: "newsqa"}); err == nil {
		t.Error("--dataset NewsQA: converted")
	}
}

// TestNewsQASampleParses reads the real NewsQA sample: its inclusive
// char_spans match the answer texts in code points.
func TestNewsQASampleParses(t *testing.T) {
	b, err := os.ReadFile(sharedData(t, "mrqa-sample", "NewsQA_sample.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		ln, err := mrqa.ParseLine([]byte(line))
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if len(ln.Problems) > 0 {
			t.Errorf("line %d: problems %v", i+1, ln.Problems)
		}
		for _, q := range ln.Context.QAs {
			if len(q.Spans) == 0 {
				t.Errorf("line %d %s: no span", i+1, q.QID)
			}
			n += len(q.Spans)
		}
	}
	if n == 0 {
		t.Fatal("no spans read")
	}
}

// TestDatasetDetection checks how an input's dataset is found: the MRQA
// header (with MRQA's suffixes), --dataset, the file name, or an error.
func TestDatasetDetection(t *testing.T) {
	dir := t.TempDir()
	body := `{"context": "Ada left at dawn. She came back at dusk.", "qas": [{"qid": "x1", "question": "When did she come back?", "answers": ["dusk"], "detected_answers": [{"text": "dusk", "char_spans": [[35, 38]]}]}]}` + "\n"
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	noHeader := write("mine.jsonl", body)
	named := write("BioASQ-dev.jsonl", body)
	custom := write("custom.jsonl", `{"header": {"dataset": "My QA_set", "split": "dev"}}`+"\n"+body)
	tests := []struct {
		in, dataset, want, err string
	}{
		{noHeader, "", "", "--dataset"},
		{noHeader, "TextbookQA", "TextbookQA", ""},
		{named, "", "BioASQ", ""},
		{custom, "", "MyQAset", ""},
		{fixture("triviaqa.jsonl"), "", "TriviaQA", ""},
		{fixture("naturalquestions.jsonl"), "", "NaturalQuestions", ""},
	}
	for i, tt := range tests {
		out := filepath.Join(dir, "out", string(rune('a'+i)))
		rep, err := mrqa.Convert(context.Background(), []string{tt.in}, out, mrqa.Options{Dataset: tt.dataset})
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v, want one mentioning %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if got := rep.Datasets[0].Name; got != tt.want {
			t.Errorf("%s --dataset %q: dataset %s, want %s", tt.in, tt.dataset, got, tt.want)
		}
	}
}
