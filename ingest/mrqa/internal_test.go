package mrqa

import (
	"fmt"
	"reflect"
	"testing"
)

func TestParseCandidateID(t *testing.T) {
	tests := []struct {
		id, key, ds string
		qids        []string
		doc, sent   int
		bad         bool
	}{
		{id: "SQuAD_a1/b2/_12", key: "SQuAD_a1/b2", ds: "SQuAD", qids: []string{"a1", "b2"}, doc: -1, sent: 12},
		{id: "HotpotQA_q9/_1_4", key: "HotpotQA_q9", ds: "HotpotQA", qids: []string{"q9"}, doc: 1, sent: 4},
		{id: "SQuAD_a1", bad: true},
		{id: "_a1/_0", bad: true},
		{id: "SQuAD_a1//b/_0", bad: true},
		{id: "SQuAD_a1/_1_2_3", bad: true},
		{id: "SQuAD_a1/_-1", bad: true},
		{id: "SQuAD_a1/_+1", bad: true},
	}
	for _, tt := range tests {
		key, ds, qids, doc, sent, err := parseCandidateID(tt.id)
		if tt.bad {
			if err == nil {
				t.Errorf("%q: no error", tt.id)
			}
			continue
		}
		if err != nil || key != tt.key || ds != tt.ds || !reflect.DeepEqual(qids, tt.qids) || doc != tt.doc || sent != tt.sent {
			t.Errorf("%q: %q %q %q %d %d %v", tt.id, key, ds, qids, doc, sent, err)
		}
	}
}

func TestMarkupOnly(t *testing.T) {
	tests := map[string]bool{
		"</P>":                    true,
		"</Td> <Td>":              true,
		`<Th_colspan="2"> .`:      true,
		"<P> Text":                false,
		".":                       false, // no tag: kept, as the official SQuAD set keeps "."
		"<Uyless Black, 1991>":    false, // not a tag (white space inside)
		"< P>":                    false,
		"a < b > c":               false,
		"<Td> 14 km </Td>":        false,
		"<Li> </Li> <Li> </Li> ;": true,
	}
	for s, want := range tests {
		if got := markupOnly(s); got != want {
			t.Errorf("markupOnly(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestSplitLayoutAndLocate(t *testing.T) {
	raw := "[DOC] [TLE] Title A [PAR] Text one. [DOC] [TLE] Title B [PAR] Text two."
	docs := splitLayout(raw, LayoutSnippets)
	if len(docs) != 2 || docs[0].Title != "Title A" || docs[0].Text != "Text one." || docs[1].Title != "Title B" || docs[1].Text != "Text two." {
		t.Fatalf("docs %+v", docs)
	}
	at := func(s string) Span {
		i := indexOf(raw, s)
		return Span{i, i + len(s)}
	}
	for _, tt := range []struct {
		span  Span
		doc   int
		local Span
		place spanPlace
	}{
		{at("one"), 0, Span{5, 8}, placeText},
		{at("two"), 1, Span{5, 8}, placeText},
		{at("Title B"), 1, Span{}, placeTitle},
		{at("one. [DOC]"), 0, Span{}, placeAcross},
		{at("Title A [PAR] Text"), 0, Span{}, placeAcross},
	} {
		d, l, p := locate(docs, tt.span)
		if p != tt.place || (p == placeText && (d != tt.doc || l != tt.local)) {
			t.Errorf("locate %v: doc %d %v place %d, want %d %v %d", tt.span, d, l, p, tt.doc, tt.local, tt.place)
		}
	}
	// HotpotQA documents; TriviaQA untagged; text before any tag.
	hp := splitLayout("lead [PAR] [TLE] T [SEP] Body.  More.", LayoutDocuments)
	if len(hp) != 2 || hp[0].Text != "lead" || hp[1].Title != "T" || hp[1].Text != "Body.  More." {
		t.Errorf("documents %+v", hp)
	}
	tq := splitLayout("[DOC] [TLE] T [PAR] A b. [PAR] C d.", LayoutUntagged)
	if len(tq) != 1 || tq[0].Title != "T" || tq[0].Text != "T A b. C d." {
		t.Errorf("untagged %+v", tq)
	}
	if d := splitLayout("[notatag] x", LayoutUntagged); d[0].Text != "[notatag] x" {
		t.Errorf("non-tag bracket: %+v", d)
	}
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestCPIndex(t *testing.T) {
	x := newCPIndex("aé😀b")
	if x.len() != 4 || x.byteAt(2) != 3 || x.byteAt(3) != 7 || x.byteAt(4) != 8 || x.cpAt(7) != 3 || x.cpAt(4) != 2 {
		t.Errorf("index %+v", x)
	}
	a := newCPIndex("abc")
	if a.len() != 3 || a.byteAt(2) != 2 || a.cpAt(3) != 3 {
		t.Errorf("ascii index %+v", a)
	}
}

func TestDatasetByName(t *testing.T) {
	for in, want := range map[string]string{
		"TriviaQA-web": "TriviaQA", "NaturalQuestionsShort": "NaturalQuestions", "DuoRC.ParaphraseRC": "DuoRC",
		"squad": "SQuAD", "SearchQA": "SearchQA", "My_QA set/2": "MyQAset2", "BioASQ": "BioASQ",
	} {
		d, err := DatasetByName(in)
		if err != nil || d.Name != want {
			t.Errorf("%q: %q %v, want %q", in, d.Name, err, want)
		}
	}
	if _, err := DatasetByName("__"); err == nil {
		t.Error(`"__": no error`)
	}
}

// TestDupCheckPartitions finds repeated hashes when the records are sorted
// a partition at a time.
func TestDupCheckPartitions(t *testing.T) {
	d, err := newDupCheck(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	d.maxInMem = 16
	u := &unit{file: "in.jsonl", line: 1}
	for i := 0; i < 1000; i++ {
		id := fmt.Sprintf("q%d", i%900) // q0…q99 twice
		if err := d.add(id, uint64(i), u, i); err != nil {
			t.Fatal(err)
		}
	}
	sus, err := d.suspects()
	if err != nil {
		t.Fatal(err)
	}
	if len(sus) != 200 {
		t.Fatalf("%d suspects, want 200", len(sus))
	}
	for _, r := range sus {
		if r.ord%900 >= 100 || r.hash != hashID(fmt.Sprintf("q%d", r.ord%900)) || r.qa != uint32(r.ord) {
			t.Fatalf("suspect %+v", r)
		}
	}
}
