package rank_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/index/encoder/uselite"
	"github.com/reqa/reqa/index/tokenize"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/store"
)

// unicodeCorpus holds a sentence for each way of writing a word that
// tokens must see through, a distractor sharing the question's plain
// words, and symbols WordPiece cannot spell (but not ☃ or ♛).
var unicodeCorpus = []string{
	"Chess players met at the Cafe\u0301 Re\u0301gence for two centuries. Its tables are now in a museum.", // NFD
	"The Hôtel Lambert stands at the tip of the island. Its garden faces the river.",                       // NFC
	"The co\u00adoperative sells rye bread at dawn. The market closes at noon.",                            // soft hyphen
	"The watchmaker repairs clocks on Fridays. His shop is on the corner.",
	"A net\u200dwork of tunnels runs under the city. Engineers walk it every spring.",                  // ZWJ
	"The wall is painted with a zig\u200bzag pattern. The paint is blue.",                              // ZWSP
	"The \uff26\uff25\uff32\uff32\uff39 leaves the harbour at dawn. The crossing takes forty minutes.", // full-width letters
	"Trains to the coast depart from platform 42. The station has a bakery.",
	"The \ufb01rst \ufb02oor holds the archive of maps. Visitors need a pass to enter it.", // ligatures
	"The second level holds the offices. Staff park in the yard.",
	"The temple gate bears the word 漢字 in gold. Monks repaint it each year.",
	"\u2604 \u265c \u265e \u2654 decorate the border of the winter chart. The chart was drawn in 1850.",
	"The lighthouse keeper records the weather twice a day. Storms are logged in red ink.",
}

// unicodeCases are questions whose answer is written differently from
// the question (or the other way round), and questions of only text no
// BM25 tokenizer of the corpus matches (want "").
var unicodeCases = []struct {
	name, question, want string
}{
	{"NFC question, NFD text", "Where did chess players meet, at the Café Régence?", "Chess players met at the Cafe\u0301 Re\u0301gence for two centuries."},
	{"NFD question, NFC text", "What stands at the tip, the Ho\u0302tel?", "The Hôtel Lambert stands at the tip of the island."},
	{"soft hyphen in the text", "Who sells cooperative bread?", "The co\u00adoperative sells rye bread at dawn."},
	{"soft hyphen in the question", "Who is the watch\u00admaker?", "The watchmaker repairs clocks on Fridays."},
	{"zero-width joiner in the text", "What network runs under the city?", "A net\u200dwork of tunnels runs under the city."},
	{"zero-width space in the text", "What zigzag pattern is on the wall?", "The wall is painted with a zig\u200bzag pattern."},
	{"full-width letters in the text", "When does the FERRY leave?", "The \uff26\uff25\uff32\uff32\uff39 leaves the harbour at dawn."},
	{"full-width digits in the question", "Which trains use platform \uff14\uff12?", "Trains to the coast depart from platform 42."},
	{"ligatures in the text", "What does the first floor hold?", "The \ufb01rst \ufb02oor holds the archive of maps."},
	{"CJK", "漢字", "The temple gate bears the word 漢字 in gold."},
	{"[UNK] only: snowman", "\u2603", ""},
	{"[UNK] only: symbols", "\u2603 \u265b", ""},
	{"[UNK] only: CJK WordPiece lacks", "\u5b57", ""},
}

// buildUnicodeIndex builds an index of unicodeCorpus (one paragraph
// each), with embeddings when the encoder is embedded.
func buildUnicodeIndex(t *testing.T) (path string, dense bool) {
	t.Helper()
	dir := t.TempDir()
	txt := filepath.Join(dir, "unicode.txt")
	if err := os.WriteFile(txt, []byte(strings.Join(unicodeCorpus, "\n\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, "unicode.reqa")
	dense = uselite.Available()
	if !dense {
		t.Log("the USE-Lite encoder is not embedded in this build (fetch it with make): dense and default are not checked")
	}
	buildIndexOf(t, path, dense, txt)
	return path, dense
}

// TestUnicodeMatching asks every case with every BM25 ranker and, when
// the encoder is embedded, the default fusion: the answer is the sentence
// written the other way (NFC/NFD, soft hyphen, zero-width joiner or
// space, full-width, ligature); a question WordPiece can only spell as
// [UNK] (a ☃ nowhere in the corpus, while other symbols it cannot spell
// are) gets no answer from any BM25 ranker nor from the default fusion,
// whose dense input alone always has one.
func TestUnicodeMatching(t *testing.T) {
	path, dense := buildUnicodeIndex(t)
	x, err := rank.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	rankers := []string{"bm25-word", "bm25-wpm", "bm25-stem"}
	if dense {
		// The dense ranker alone is not asked: it reads text through its
		// own model's NFKC (package index/tokenize/sentencepiece), and its
		// misses here are the model's (it ranks "The second level holds
		// the offices." first for the first floor, and cannot spell 漢字).
		rankers = append(rankers, "default")
	}
	for _, name := range rankers {
		r, err := x.Ranker(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, tc := range unicodeCases {
			answers, err := x.Ask(context.Background(), r, tc.question, 1)
			if err != nil {
				t.Errorf("%s, %s: %v", name, tc.name, err)
				continue
			}
			switch {
			case tc.want == "" && len(answers) > 0:
				t.Errorf("%s, %s: %q answered with %q, want no answer", name, tc.name, tc.question, answers[0].Sentence)
			case tc.want != "" && len(answers) == 0:
				t.Errorf("%s, %s: %q got no answer, want %q", name, tc.name, tc.question, tc.want)
			case tc.want != "" && answers[0].Sentence != tc.want:
				t.Errorf("%s, %s: %q answered with %q, want %q", name, tc.name, tc.question, answers[0].Sentence, tc.want)
			}
		}
	}
}

// copyFixture copies the index built before normalisation
// (testdata/unicode-v0, see its README) into a temporary directory.
func copyFixture(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "unicode-v0", "unicode.reqa"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "old.reqa")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fieldNorms returns an index's format and the normalisation of each
// field.
func fieldNorms(t *testing.T, path string) (int, map[string]string) {
	t.Helper()
	r, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	m := map[string]string{}
	for _, f := range r.Meta().Fields {
		m[f.Name] = f.Norm
	}
	return r.Meta().FormatVersion, m
}

// topSentence asks path's ranker and returns the best answer's sentence,
// "" for none.
func topSentence(t *testing.T, path, ranker, question string) string {
	t.Helper()
	x, err := rank.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	r, err := x.Ranker(ranker)
	if err != nil {
		t.Fatal(err)
	}
	answers, err := x.Ask(context.Background(), r, question, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(answers) == 0 {
		return ""
	}
	return answers[0].Sentence
}

// TestNormalizationRecorded checks that a new index records today's
// normalisation in every field (format 4), an index from before it none
// (format 2), and that appending to the old index keeps its tokens: the
// appended NFD text is found by an NFD question only, as the old index's
// own text is, while a new index of the same text finds it either way.
func TestNormalizationRecorded(t *testing.T) {
	old := copyFixture(t)
	if v, norms := fieldNorms(t, old); v != 2 || len(norms) != 6 || norms["wpm/ctx"] != "" || norms["stem/sent"] != "" {
		t.Fatalf("fixture: format %d, norms %v; want format 2 without norms", v, norms)
	}
	dir := t.TempDir()
	more := filepath.Join(dir, "more.txt")
	text := "The Cafe\u0301 Procope opened in 1686 near the theatre.\n"
	if err := os.WriteFile(more, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ingest.ReadInputs([]string{more})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.Append(context.Background(), c, old, index.Options{}); err != nil {
		t.Fatal(err)
	}
	if v, norms := fieldNorms(t, old); v != 2 || norms["word/ctx"] != "" || norms["word/sent"] != "" {
		t.Fatalf("appended old index: format %d, norms %v; want format 2 without norms", v, norms)
	}
	fresh := filepath.Join(dir, "fresh.reqa")
	buildIndexOf(t, fresh, false, more)
	if v, norms := fieldNorms(t, fresh); v != 4 || len(norms) != 6 {
		t.Fatalf("new index: format %d, norms %v; want format 4", v, norms)
	} else {
		for f, n := range norms {
			if n != tokenize.Norm {
				t.Errorf("new index: field %s norm %q, want %q", f, n, tokenize.Norm)
			}
		}
	}
	want := strings.TrimSpace(text)
	for _, tc := range []struct {
		path, question, want string
	}{
		{old, "Cafe\u0301 Procope", want},
		{old, "Café", ""}, // the old tokens: NFC is not NFD
		{fresh, "Cafe\u0301 Procope", want},
		{fresh, "Café", want},
	} {
		if got := topSentence(t, tc.path, "bm25-word", tc.question); got != tc.want {
			t.Errorf("%s, bm25-word, %q: answer %q, want %q", filepath.Base(tc.path), tc.question, got, tc.want)
		}
	}
}

// TestUnknownNormRefused checks that a field whose normalisation this
// reqa does not know (one written by a newer reqa) is refused as a newer
// format, by the ranker and by verify, rather than asked with other
// tokens.
func TestUnknownNormRefused(t *testing.T) {
	path := copyFixture(t)
	err := store.Amend(path, func(tx *store.WriteTx) error {
		m, err := tx.Meta()
		if err != nil {
			return err
		}
		for i := range m.Fields {
			m.Fields[i].Norm = "nfkc99"
		}
		return tx.PutMeta(m)
	})
	if err != nil {
		t.Fatal(err)
	}
	x, err := rank.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if _, err := x.Ranker("bm25-wpm"); !errors.Is(err, store.ErrNewerFormat) || !errors.Is(err, tokenize.ErrUnknownNorm) {
		t.Errorf("bm25-wpm over a field of an unknown normalisation: %v, want ErrNewerFormat and ErrUnknownNorm", err)
	}
	rep, err := index.Verify(path, index.VerifyOptions{})
	if err == nil && rep.OK() {
		t.Errorf("verify of a field of an unknown normalisation: no problem reported")
	}
	for _, p := range rep.Problems {
		if !errors.Is(p, store.ErrNewerFormat) {
			t.Errorf("verify: problem %v, want ErrNewerFormat", p)
		}
	}
}
