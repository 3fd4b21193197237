package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest"
)

// fixture copies testdata/ok (sources and questions written for these
// tests) into a temporary directory and returns a Config over it; edit
// rewrites one questions file first when not empty.
func fixture(t *testing.T, edit map[string]string) Config {
	t.Helper()
	dir := t.TempDir()
	err := filepath.WalkDir("testdata/ok", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("testdata/ok", p)
		dst := filepath.Join(dir, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range edit {
		if err := os.WriteFile(filepath.Join(dir, "questions", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Config{SrcDir: filepath.Join(dir, "src"), QuestionsDir: filepath.Join(dir, "questions"), OutDir: filepath.Join(dir, "out")}
}

func TestBuildReadsBack(t *testing.T) {
	cfg := fixture(t, nil)
	sum, err := Build(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ingest.ReadDataset(filepath.Join(cfg.OutDir, "docsqa"))
	if err != nil {
		t.Fatalf("reqa cannot read the dataset: %v", err)
	}
	if len(d.Questions) != 5 {
		t.Fatalf("%d questions, want 5", len(d.Questions))
	}
	// Every gold candidate holds one of its question's answers.
	byID := map[string]string{}
	for _, s := range d.Corpus.Sentences {
		byID[s.ExtID] = s.Text(d.Corpus.Contexts[s.ContextID])
	}
	for _, q := range d.Questions {
		for _, g := range q.Gold {
			ok := false
			for _, a := range q.Answers {
				ok = ok || strings.Contains(normalize(byID[g]), normalize(a))
			}
			if !ok {
				t.Errorf("question %s: gold %s = %q holds none of %q", q.ID, g, byID[g], q.Answers)
			}
		}
	}
	// guide: g1, g2 in ferries.md (tune), g3 in trains.md (test); manual:
	// sections alternate Setup (tune), Care (test: m1), Faults (tune: m2).
	expectSplit(t, d, map[string]string{"tune": "g1,g2,m2", "test": "g3,m1"})
	var domains map[string][]string
	b, err := os.ReadFile(filepath.Join(cfg.OutDir, "docsqa", "domains.json"))
	if err == nil {
		err = json.Unmarshal(b, &domains)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(domains["guide"]) == 0 || len(domains["manual"]) == 0 || len(domains) != 2 {
		t.Errorf("domains.json: %v", domains)
	}
	for _, title := range domains["manual"] {
		if !strings.HasPrefix(title, "manual/lamp.html") {
			t.Errorf("manual title %q does not name its document", title)
		}
	}
	// One dataset per set, with that set's questions only.
	g, err := ingest.ReadDataset(filepath.Join(cfg.OutDir, "docsqa-guide"))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Questions) != 3 {
		t.Errorf("docsqa-guide: %d questions, want 3", len(g.Questions))
	}
	if _, err := os.Stat(filepath.Join(cfg.OutDir, "docsqa", "LICENSES", "guide", "LICENSE")); err != nil {
		t.Errorf("license not copied: %v", err)
	}
	if len(sum.Domains) != 2 || sum.Domains[0].Questions != 3 || sum.Domains[1].Questions != 2 {
		t.Errorf("summary %+v", sum.Domains)
	}
}

func TestBuildRefusesBadQuestions(t *testing.T) {
	const good = `{"id":"g1","file":"ferries.md","question":"q","answers":["leaves at nine"]}` + "\n"
	tests := []struct {
		name      string
		questions string
		wantErr   error  // errors.Is
		wantText  string // in the message
	}{
		// Fenced code is in the file but never a candidate.
		{"answer only in code", good + `{"id":"g9","file":"ferries.md","question":"q","answers":["ferry --book seat"]}`, ErrNoGold, "g9"},
		{"answer nowhere", good + `{"id":"g8","file":"ferries.md","question":"q","answers":["leaves at ten"]}`, ErrNotInFile, "g8"},
		{"unknown file", good + `{"id":"g7","file":"boats.md","question":"q","answers":["x"]}`, nil, "guide.jsonl:2"},
		{"duplicate id", good + good, nil, "duplicate g1"},
		{"no answers", `{"id":"g6","file":"ferries.md","question":"q","answers":[]}`, nil, "guide.jsonl:1"},
		{"unknown field", `{"id":"g5","file":"ferries.md","question":"q","answers":["x"],"gold":1}`, nil, "guide.jsonl:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Build(context.Background(), fixture(t, map[string]string{"guide.jsonl": tt.questions}))
			if err == nil {
				t.Fatal("built a dataset from bad questions")
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v, want %v", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("error %q does not name %q", err, tt.wantText)
			}
		})
	}
}

func TestBuildAllowMissing(t *testing.T) {
	cfg := fixture(t, map[string]string{"guide.jsonl": `{"id":"g1","file":"ferries.md","question":"q","answers":["leaves at nine"]}
{"id":"g9","file":"ferries.md","question":"q","answers":["ferry --book seat"]}
`})
	cfg.AllowMissing = true
	sum, err := Build(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Missing) != 1 || sum.Missing[0].ID != "g9" || sum.Missing[0].Split != "tune" {
		t.Fatalf("missing %+v, want g9", sum.Missing)
	}
	var missing []Missing
	b, _ := os.ReadFile(filepath.Join(cfg.OutDir, "docsqa", "missing.json"))
	if err := json.Unmarshal(b, &missing); err != nil || len(missing) != 1 {
		t.Errorf("missing.json: %s (%v)", b, err)
	}
	d, err := ingest.ReadDataset(filepath.Join(cfg.OutDir, "docsqa"))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Questions) != 3 { // g1 + m1 + m2
		t.Errorf("%d questions, want 3", len(d.Questions))
	}
}

func TestBuildMissingSources(t *testing.T) {
	cfg := fixture(t, nil)
	cfg.SrcDir = filepath.Join(t.TempDir(), "nothing")
	_, err := Build(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "make docsqa") {
		t.Fatalf("error %v, want one that says to run make docsqa", err)
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Like <code>pop</code>, but", "like pop, but"},
		{"When no &lt;stash&gt; is\n given", "when no is given"},
		{"When no <stash> is given", "when no is given"},
		{"use [bluemonday](https://x.y/z) now", "use bluemonday now"},
		{"the `__init__` of **bold** text", "the init of bold text"},
		{"Git\u2019s \u201cindex\u201d\u00a0file", `git's "index" file`},
		{"a < b and c > d", "a < b and c > d"},
		{"<B>Bash</B>\n\nis an", "bash is an"},
	}
	for _, tt := range tests {
		if got := normalize(tt.in); got != tt.want {
			t.Errorf("normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAnswerLine(t *testing.T) {
	raw := []byte("<p>one\n\n<b>two</b>\nthree &amp; four</p>\nfive")
	tests := []struct {
		answer string
		want   int
	}{
		{"one", 1}, {"two three", 3}, {"three & four", 4}, {"five", 5}, {"six", 0},
	}
	for _, tt := range tests {
		if got := answerLine(raw, []string{tt.answer}); got != tt.want {
			t.Errorf("answerLine(%q) = %d, want %d", tt.answer, got, tt.want)
		}
	}
}

func TestUnitOf(t *testing.T) {
	raw := []byte("intro\n<h2>A</h2>\ntext\n<h2>B</h2>\nmore\n<h2>C</h2>\n")
	n := 0
	units := sections(raw, regexp.MustCompile(`<h2>`), "m/x.html", &n)
	tests := []struct {
		source, name, split string
	}{
		{"m/x.html:1", "m/x.html § A", "tune"}, // before the first heading: the first unit
		{"m/x.html:3", "m/x.html § A", "tune"},
		{"m/x.html:4", "m/x.html § B", "test"},
		{"m/x.html:5 (part 2 of 3)", "m/x.html § B", "test"},
		{"m/x.html:6", "m/x.html § C", "tune"},
		{"m/x.html", "m/x.html § A", "tune"}, // no line
	}
	for _, tt := range tests {
		u := unitOf(units, tt.source)
		if u.name != tt.name || u.split != tt.split {
			t.Errorf("unitOf(%q) = %q %s, want %q %s", tt.source, u.name, u.split, tt.name, tt.split)
		}
	}
	if n != 3 {
		t.Errorf("counted %d sections, want 3", n)
	}
}

func FuzzReadQuestions(f *testing.F) {
	f.Add([]byte(`{"id":"a","file":"x.md","question":"q","answers":["b"]}`))
	f.Add([]byte("{\"id\":\"a\"}\n\n{"))
	set := SetSpec{Name: "s"}
	set.Files = append(set.Files, FileSpec{Path: "x.md", Split: "tune"})
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "s.jsonl")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		qs, err := readQuestions(p, set)
		if err != nil {
			return
		}
		for _, q := range qs {
			if q.ID == "" || q.File != "x.md" || len(q.Answers) == 0 {
				t.Fatalf("accepted a bad question %+v", q)
			}
		}
	})
}

func TestBuildHeadingSplit(t *testing.T) {
	for _, tc := range []struct {
		name, pins, a1 string
		want           map[string]string // split → question ids
		err            string
	}{
		// Boats › Sails, Boats › Oars, Knots › Bowline alternate.
		{name: "alternate", a1: "mainsail is hoisted first.", want: map[string]string{"tune": "n1,n3", "test": "n2"}},
		// Pinned halves win over the alternation; unpinned units keep
		// their turn.
		{name: "pinned", a1: "mainsail is hoisted first.", pins: `,"half":"test"|,"half":"tune"|`, want: map[string]string{"tune": "n2,n3", "test": "n1"}},
		// n1's answer is in Sails and in Bowline, n3's in Bowline.
		{name: "conflict", a1: "mainsail is hoisted first", pins: `,"half":"test"||,"half":"tune"`, err: "pinned"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(name, text string) {
				t.Helper()
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			pins := strings.Split(tc.pins+"||", "|")
			write("src/notes/notes.md", "# Boats\n\n## Sails\n\nThe mainsail is hoisted first.\n\n## Oars\n\nOars are stowed under the thwarts.\n\n# Knots\n\n## Bowline\n\nA bowline makes a fixed loop. The mainsail is hoisted first in a race.\n")
			write("questions/sources.json", `{"sets": [{"name": "notes", "origin": "fixture", "license": "as reqa", "split_by": "heading", "heading_depth": 2, "files": [{"path": "notes.md"}]}]}`)
			write("questions/notes.jsonl", `{"id":"n1","file":"notes.md","question":"Which sail goes up first?","answers":["`+tc.a1+`"]`+pins[0]+`}
{"id":"n2","file":"notes.md","question":"Where do the oars go?","answers":["stowed under the thwarts"]`+pins[1]+`}
{"id":"n3","file":"notes.md","question":"Which knot gives a fixed loop?","answers":["makes a fixed loop"]`+pins[2]+`}
`)
			cfg := Config{SrcDir: filepath.Join(dir, "src"), QuestionsDir: filepath.Join(dir, "questions"), OutDir: filepath.Join(dir, "out")}
			_, err := Build(context.Background(), cfg)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Build: %v, want an error saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d, err := ingest.ReadDataset(filepath.Join(cfg.OutDir, "docsqa"))
			if err != nil {
				t.Fatal(err)
			}
			expectSplit(t, d, tc.want)
		})
	}
}

// expectSplit checks the question ids of each half of d (want: split →
// ids joined by commas, in dataset order).
func expectSplit(t *testing.T, d *ingest.Dataset, want map[string]string) {
	t.Helper()
	for split, ids := range want {
		qs, err := d.SplitQuestions(split)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, q := range qs {
			got = append(got, q.ID)
		}
		if strings.Join(got, ",") != ids {
			t.Errorf("split %s: questions %v, want %s", split, got, ids)
		}
	}
}

// TestBuildHeldOut: a held-out set is written only as docsqa-SET; the whole
// benchmark is the other sets, with the ids it has without the held-out set;
// a held-out set must come last.
func TestBuildHeldOut(t *testing.T) {
	src, err := os.ReadFile("testdata/ok/questions/sources.json")
	if err != nil {
		t.Fatal(err)
	}
	manualHeld := strings.Replace(string(src), `{"name": "manual",`, `{"name": "manual", "held_out": true,`, 1)
	guideHeld := strings.Replace(string(src), `{"name": "guide",`, `{"name": "guide", "held_out": true,`, 1)
	if manualHeld == string(src) || guideHeld == string(src) {
		t.Fatal("fixture sources.json changed shape")
	}
	read := func(cfg Config, name string) *ingest.Dataset {
		t.Helper()
		d, err := ingest.ReadDataset(filepath.Join(cfg.OutDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	plain := fixture(t, nil)
	if _, err := Build(context.Background(), plain); err != nil {
		t.Fatal(err)
	}
	cfg := fixture(t, map[string]string{"sources.json": manualHeld})
	sum, err := Build(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Domains[1].HeldOut || sum.Domains[0].HeldOut {
		t.Errorf("summary %+v", sum.Domains)
	}
	all, guide := read(cfg, "docsqa"), read(plain, "docsqa-guide")
	if len(all.Questions) != 3 || len(all.Corpus.Sentences) != len(guide.Corpus.Sentences) {
		t.Fatalf("docsqa: %d questions, %d sentences; want guide's 3 and %d", len(all.Questions), len(all.Corpus.Sentences), len(guide.Corpus.Sentences))
	}
	for i, s := range all.Corpus.Sentences {
		if s.ExtID != guide.Corpus.Sentences[i].ExtID {
			t.Fatalf("sentence %d: id %s, want %s as without the held-out set", i, s.ExtID, guide.Corpus.Sentences[i].ExtID)
		}
	}
	if m := read(cfg, "docsqa-manual"); len(m.Questions) != 2 {
		t.Errorf("docsqa-manual: %d questions, want 2", len(m.Questions))
	}
	b, err := os.ReadFile(filepath.Join(cfg.OutDir, "docsqa", "domains.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "manual") {
		t.Errorf("domains.json names the held-out set: %s", b)
	}
	if _, err := Build(context.Background(), fixture(t, map[string]string{"sources.json": guideHeld})); !errors.Is(err, ErrHeldOutOrder) {
		t.Errorf("a held-out set before another: %v", err)
	}
}
