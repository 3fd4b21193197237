package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reqa/reqa/ingest"
)

// Config says where the sources and questions are and where to write.
type Config struct {
	// SrcDir holds one subdirectory per document set, named as in
	// sources.json.
	SrcDir string
	// QuestionsDir holds sources.json and one SET.jsonl of questions per set.
	QuestionsDir string
	// OutDir receives NAME/ and NAME-SET/.
	OutDir string
	// Name names the datasets written (default "docsqa").
	Name string
	// TextDir, when set, holds an independent rendering of each set's
	// document (SET.txt, the blind benchmark's `make blindqa-text`): an
	// answer must be in it (instead of in the source file), and answers and
	// candidates are compared after foldText too.
	TextDir string
	// AllowMissing drops questions no candidate answers instead of failing.
	AllowMissing bool
	// Context is the context choice for documents (ingest.ContextChoices;
	// "" for ingest's default). The datasets keep the contexts as formed.
	Context string
	// Log receives progress and warnings (nil: discarded).
	Log io.Writer
}

// Sources is sources.json: the document sets.
type Sources struct {
	Sets []SetSpec `json:"sets"`
}

// SetSpec describes one document set.
type SetSpec struct {
	// Name names the set (and its directory under SrcDir, and its questions
	// file SET.jsonl).
	Name string `json:"name"`
	// Origin says where the documents come from (package, version, pin).
	Origin string `json:"origin"`
	// License names the license(s).
	License string `json:"license"`
	// LicenseFiles are copied beside the dataset (paths inside the set).
	LicenseFiles []string `json:"license_files"`
	// SplitBy is "file" (each file names its half), "section" (sections,
	// starting at lines matching SectionStart, alternate tune, test, …
	// across the set's files in order) or "heading" (the readers' top-level
	// headings — a PDF's chapters — alternate in order of appearance).
	SplitBy      string `json:"split_by"`
	SectionStart string `json:"section_start,omitempty"`
	// HeadingDepth is how many levels of the heading path make a unit
	// under "heading" (default 1: chapters).
	HeadingDepth int        `json:"heading_depth,omitempty"`
	Files        []FileSpec `json:"files"`
	// HeldOut keeps the set out of the whole benchmark (docsqa/): it is
	// written only as docsqa-SET, a domain nothing is chosen or fitted on,
	// to measure reqa's defaults where they were not made. A held-out set
	// comes after every other set (so the others' ids do not depend on
	// it).
	HeldOut bool `json:"held_out,omitempty"`
}

// FileSpec is one document of a set: its path inside the set and, when the
// set is split by file, its half ("tune" or "test").
type FileSpec struct {
	Path  string `json:"path"`
	Split string `json:"split,omitempty"`
}

// QuestionSpec is one line of SET.jsonl.
type QuestionSpec struct {
	ID       string   `json:"id"`
	File     string   `json:"file"`
	Question string   `json:"question"`
	Answers  []string `json:"answers"`
	// Paraphrase marks questions that share at most a third of their
	// content words with the answering sentence (as wordOverlap measures
	// it; Build counts them afresh as DomainSummary.Paraphrases).
	Paraphrase bool `json:"paraphrase,omitempty"`
	// Half pins the half ("tune" or "test") of the question's answer, and
	// with it of the unit (a heading's section) that holds it, for sets
	// split by heading: where a unit's turn in the alternation would move
	// with what a reader extracts before it (a PDF's table of contents),
	// the halves stay those the benchmark was defined with. A unit holding
	// pinned questions of both halves is an error.
	Half string `json:"half,omitempty"`
	// Sentence is the whole answering sentence as the question's writer
	// read it in an independent rendering (the blind benchmark; for
	// review only).
	Sentence string `json:"sentence,omitempty"`
	// Kind is what the question asks (the blind benchmark: paraphrase,
	// symptom, definition, option, factoid).
	Kind string `json:"kind,omitempty"`
}

// Summary reports what Build wrote.
type Summary struct {
	Dirs    []string
	Domains []DomainSummary
	Missing []Missing
}

// DomainSummary counts one document set.
type DomainSummary struct {
	Name                           string
	Files, Contexts, Candidates    int
	Questions, Tune, Test, Missing int
	// Paraphrases counts the questions sharing at most a third of their
	// content words with their best gold sentence.
	Paraphrases  int
	FilesRefused []string
	// HeldOut: the set is not in docsqa/ (SetSpec.HeldOut).
	HeldOut bool
}

// Missing is a question dropped under AllowMissing.
type Missing struct {
	ID  string `json:"id"`
	Set string `json:"set"`
	// Split is the half the answer's place in the source file belongs to
	// (found without the readers), so that a dropped question can be
	// counted as a miss in its half.
	Split  string `json:"split"`
	Reason string `json:"reason"`
}

// ErrNoGold is wrapped by the error for a question no candidate answers.
var ErrNoGold = errors.New("no candidate holds the answer")

// ErrNotInFile is wrapped by the error for an answer that is nowhere in its
// file's text (a mistake in the question).
var ErrNotInFile = errors.New("answer not in the file")

// ErrHeldOutOrder is wrapped by the error for a held-out set followed by a
// set that is not held out.
var ErrHeldOutOrder = errors.New("held-out sets come last")

type outContext struct {
	ID    int    `json:"context_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
	set   string
	split string
	unit  string
}

type outCandidate struct {
	ID      string `json:"candidate_id"`
	Context int    `json:"context_id"`
	Start   int    `json:"start"`
	End     int    `json:"end"`
	Text    string `json:"text"`
	file    string // set/path
	norm    string
}

type outQuestion struct {
	ID       string   `json:"question_id"`
	Question string   `json:"question"`
	Answers  []string `json:"answers"`
	Gold     []string `json:"gold_candidate_ids"`
	set      string
}

// Build reads the sources and questions and writes the datasets.
func Build(ctx context.Context, cfg Config) (*Summary, error) {
	logw := cfg.Log
	if logw == nil {
		logw = io.Discard
	}
	name := cfg.Name
	if name == "" {
		name = "docsqa"
	}
	norm := normalize
	if cfg.TextDir != "" {
		norm = normalizePlain
	}
	srcPath := filepath.Join(cfg.QuestionsDir, "sources.json")
	var srcs Sources
	if _, err := os.Stat(srcPath); err != nil && fileExists(filepath.Join(cfg.QuestionsDir, blindSources)) {
		// The blind benchmark: one set per document (blind.go).
		srcPath = filepath.Join(cfg.QuestionsDir, blindSources)
		if srcs, err = readBlindSources(cfg.QuestionsDir); err != nil {
			return nil, err
		}
	} else if err := readJSON(srcPath, &srcs); err != nil {
		return nil, err
	}
	if len(srcs.Sets) == 0 {
		return nil, fmt.Errorf("%s: no document sets", srcPath)
	}
	var (
		contexts   []outContext
		candidates []outCandidate
		questions  []outQuestion
		sum        Summary
		titlesOf   = map[string][]string{} // set → titles in order
		splitOf    = map[string]string{}   // title → tune/test
	)
	for i, set := range srcs.Sets {
		ds := DomainSummary{Name: set.Name, HeldOut: set.HeldOut}
		if err := checkSet(srcPath, set); err != nil {
			return nil, err
		}
		if i > 0 && srcs.Sets[i-1].HeldOut && !set.HeldOut {
			return nil, fmt.Errorf("%s: set %s comes after the held-out set %s: %w", srcPath, set.Name, srcs.Sets[i-1].Name, ErrHeldOutOrder)
		}
		refused := map[string]error{}
		fileText := map[string]string{} // set/path → normalised raw text
		fileUnits := map[string][]unit{}
		fileRaw := map[string][]byte{}
		sectionNo := 0
		for _, f := range set.Files {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			path := filepath.Join(cfg.SrcDir, set.Name, filepath.FromSlash(f.Path))
			key := set.Name + "/" + f.Path
			raw, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("set %s: %w (run `make docsqa` to fetch the pinned sources)", set.Name, err)
			}
			binary := bytes.HasPrefix(raw, []byte("%PDF"))
			if cfg.TextDir != "" {
				if raw, err = os.ReadFile(filepath.Join(cfg.TextDir, set.Name+".txt")); err != nil {
					return nil, fmt.Errorf("set %s: rendering: %w", set.Name, err)
				}
				fileText[key] = normalizePlain(string(raw))
				fileRaw[key] = raw
			} else if !binary {
				fileText[key] = normalize(string(raw))
				fileRaw[key] = raw
			}
			ds.Files++
			var units []unit
			switch set.SplitBy {
			case "file":
				units = []unit{{line: 0, name: key, split: f.Split}}
			case "section":
				units = sections(raw, regexp.MustCompile(set.SectionStart), key, &sectionNo)
			case "heading":
				units = []unit{{line: 0, name: key, split: "tune"}}
			}
			headingUnit := map[string]unit{}
			fileUnits[key] = units
			c, err := readDoc(path, cfg.Context)
			if err != nil {
				if !cfg.AllowMissing {
					return nil, fmt.Errorf("set %s: reading %s: %w", set.Name, path, err)
				}
				fmt.Fprintf(logw, "mkdocsqa: %s: refused by the readers: %v\n", key, err)
				refused[key] = err
				ds.FilesRefused = append(ds.FilesRefused, key)
				continue
			}
			// Each sentence's line, found by its text in the file (in
			// document order, so a repeated sentence is found at its own
			// place), else the reader's.
			lt := newLineText(fileRaw[key])
			pos := 0
			ctxNo := map[uint32]int{}
			for _, s := range c.Sentences {
				cx := c.Contexts[s.ContextID]
				n, ok := ctxNo[s.ContextID]
				if !ok {
					src := cx.Source
					hint := sourceLine(src)
					if s.Line > 0 && !cx.Paged {
						hint = int(s.Line)
						src = fmt.Sprintf("%s:%d", key, hint)
					}
					// A short sentence may also occur far ahead: a match
					// far from the reader's line is not taken.
					if line, at := lt.find(s.Text(cx), pos); line > 0 && (hint == 0 || cx.Paged || (line > hint-maxLineDrift && line < hint+maxLineDrift)) {
						src, pos = fmt.Sprintf("%s:%d", key, line), at
					}
					u := unitOf(units, src)
					if set.SplitBy == "heading" {
						path := strings.Split(cx.Title, " › ")
						top := strings.Join(path[:min(len(path), max(1, set.HeadingDepth))], " › ")
						var seen bool
						if u, seen = headingUnit[top]; !seen {
							u = unit{name: key + " § " + top, split: [2]string{"tune", "test"}[sectionNo%2]}
							headingUnit[top] = u
							sectionNo++
						}
					}
					title := u.name
					stem := strings.TrimSuffix(filepath.Base(f.Path), filepath.Ext(f.Path))
					if cx.Title != "" && cx.Title != stem {
						title += " › " + cx.Title
					}
					if _, seen := splitOf[title]; !seen {
						splitOf[title] = u.split
						titlesOf[set.Name] = append(titlesOf[set.Name], title)
					}
					n = len(contexts)
					ctxNo[s.ContextID] = n
					contexts = append(contexts, outContext{ID: n, Title: title, Text: cx.Text, set: set.Name, split: u.split, unit: u.name})
					ds.Contexts++
				}
				text := s.Text(cx)
				candidates = append(candidates, outCandidate{
					ID:      fmt.Sprintf("%s#%d.%d", key, n, len(candidates)),
					Context: n,
					Start:   utf8.RuneCountInString(cx.Text[:s.Start]),
					End:     utf8.RuneCountInString(cx.Text[:s.End]),
					Text:    text,
					file:    key,
					norm:    norm(text),
				})
				ds.Candidates++
			}
		}
		qs, err := readQuestions(filepath.Join(cfg.QuestionsDir, set.Name+".jsonl"), set)
		if err != nil {
			return nil, err
		}
		if err := pinHalves(set, qs, contexts, candidates, splitOf); err != nil {
			return nil, err
		}
		for _, q := range qs {
			key := set.Name + "/" + q.File
			var gold []string
			halves := map[string]bool{}
			for _, a := range q.Answers {
				na := norm(a)
				if fileRaw[key] != nil && !strings.Contains(fileText[key], na) {
					return nil, fmt.Errorf("question %s: %w: %q is nowhere in %s", q.ID, ErrNotInFile, a, key)
				}
				for _, c := range answering(candidates, key, na) {
					if !contains(gold, c.ID) {
						gold = append(gold, c.ID)
						halves[contexts[c.Context].split] = true
					}
				}
			}
			if len(gold) == 0 {
				reason := fmt.Sprintf("no candidate of %s holds %q", key, q.Answers)
				if err, ok := refused[key]; ok {
					reason = fmt.Sprintf("%s was refused: %v", key, err)
				}
				if !cfg.AllowMissing {
					return nil, fmt.Errorf("question %s: %w: %s", q.ID, ErrNoGold, reason)
				}
				half := "" // unknown: the file is not text (PDF)
				if fileRaw[key] != nil {
					line := answerLine(fileRaw[key], q.Answers)
					half = unitOf(fileUnits[key], fmt.Sprintf("%s:%d", key, line)).split
				}
				sum.Missing = append(sum.Missing, Missing{ID: q.ID, Set: set.Name, Split: half, Reason: reason})
				ds.Missing++
				continue
			}
			if len(halves) > 1 {
				return nil, fmt.Errorf("question %s: the answer %q matches candidates in both the tune and the test half: make it more specific", q.ID, q.Answers)
			}
			for h := range halves {
				if h == "tune" {
					ds.Tune++
				} else {
					ds.Test++
				}
			}
			best := 0.0
			for _, g := range gold {
				for _, c := range candidates {
					if c.ID == g {
						best = max(best, wordOverlap(q.Question, c.Text))
					}
				}
			}
			if best <= 1.0/3 {
				ds.Paraphrases++
			}
			questions = append(questions, outQuestion{ID: q.ID, Question: q.Question, Answers: q.Answers, Gold: gold, set: set.Name})
			ds.Questions++
		}
		sum.Domains = append(sum.Domains, ds)
	}
	// The whole benchmark, then each set alone.
	all := filepath.Join(cfg.OutDir, name)
	if err := writeDataset(all, srcs.Sets, "", contexts, candidates, questions, titlesOf, splitOf, cfg.SrcDir, sum.Missing); err != nil {
		return nil, err
	}
	sum.Dirs = append(sum.Dirs, all)
	for _, set := range srcs.Sets {
		dir := filepath.Join(cfg.OutDir, name+"-"+set.Name)
		if err := writeDataset(dir, srcs.Sets, set.Name, contexts, candidates, questions, titlesOf, splitOf, cfg.SrcDir, sum.Missing); err != nil {
			return nil, err
		}
		sum.Dirs = append(sum.Dirs, dir)
	}
	return &sum, nil
}

// readDoc reads one document through reqa's readers and forms its contexts
// as choice says.
func readDoc(path, choice string) (*ingest.Corpus, error) {
	c, err := ingest.ReadInputs([]string{path})
	if err != nil {
		return nil, err
	}
	return c.WithContexts(choice)
}

func checkSet(srcPath string, set SetSpec) error {
	if set.Name == "" || strings.ContainsAny(set.Name, "/\\ ") {
		return fmt.Errorf("%s: set name %q: want a plain name", srcPath, set.Name)
	}
	if len(set.Files) == 0 {
		return fmt.Errorf("%s: set %s: no files", srcPath, set.Name)
	}
	switch set.SplitBy {
	case "file":
		for _, f := range set.Files {
			if f.Split != "tune" && f.Split != "test" {
				return fmt.Errorf("%s: set %s: file %s: split %q: want tune or test", srcPath, set.Name, f.Path, f.Split)
			}
		}
	case "heading":
	case "section":
		if _, err := regexp.Compile(set.SectionStart); err != nil || set.SectionStart == "" {
			return fmt.Errorf("%s: set %s: section_start %q: want a regular expression", srcPath, set.Name, set.SectionStart)
		}
	default:
		return fmt.Errorf("%s: set %s: split_by %q: want file, section or heading", srcPath, set.Name, set.SplitBy)
	}
	return nil
}

// unit is a part of a file that goes to one half: it starts at line (1-based;
// 0 for the whole file).
type unit struct {
	line  int
	name  string
	split string
}

var tagRE = regexp.MustCompile(`<[a-zA-Z/!][^<>]*>`)

// sections cuts a file into units at the lines matching start; the lines
// before the first match belong to the first unit. Units alternate tune,
// test, … counting on from *n across the files of a set.
func sections(raw []byte, start *regexp.Regexp, key string, n *int) []unit {
	var units []unit
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	line := 0
	for sc.Scan() {
		line++
		l := sc.Text()
		if !start.MatchString(l) {
			continue
		}
		name := strings.TrimSpace(html.UnescapeString(tagRE.ReplaceAllString(l, "")))
		name = strings.TrimLeft(name, "# ")
		units = append(units, unit{line: line, name: key + " § " + name})
	}
	if len(units) == 0 {
		units = []unit{{line: 0, name: key}}
	}
	units[0].line = 0
	for i := range units {
		if *n%2 == 0 {
			units[i].split = "tune"
		} else {
			units[i].split = "test"
		}
		*n++
	}
	return units
}

var (
	wordRE      = regexp.MustCompile(`[a-z0-9]+`)
	suffixRE    = regexp.MustCompile(`(ing|ed|es|s)$`)
	stopwords   = map[string]bool{}
	stopwordsEn = "a an the of to in on for and or is are be do does did i my me we you your it its can how what which who when where why with without from by at as that this there not no if so than then into out up about should would will get make use using much many one any all"
)

func init() {
	for _, w := range strings.Fields(stopwordsEn) {
		stopwords[w] = true
	}
}

// contentWords are a text's lower-cased words of two letters or more, stop
// words left out, a plural or -ing/-ed ending cut.
func contentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range wordRE.FindAllString(strings.ToLower(s), -1) {
		if len(w) > 1 && !stopwords[w] {
			out[suffixRE.ReplaceAllString(w, "")] = true
		}
	}
	return out
}

// wordOverlap is the share of the question's content words found in the
// sentence.
func wordOverlap(question, sentence string) float64 {
	q, s := contentWords(question), contentWords(sentence)
	if len(q) == 0 {
		return 0
	}
	n := 0
	for w := range q {
		if s[w] {
			n++
		}
	}
	return float64(n) / float64(len(q))
}

// lineText is a file's text normalised line by line (markup that spans
// lines aside, as normalize does the whole text), to find where a piece of
// text sits in the file without trusting any reader's line numbers.
type lineText struct {
	text   string
	starts []int // offset in text where line i+1 starts
}

func newLineText(raw []byte) *lineText {
	var b strings.Builder
	lt := &lineText{}
	for _, l := range strings.Split(string(raw), "\n") {
		lt.starts = append(lt.starts, b.Len())
		if n := normalize(l); n != "" {
			b.WriteString(n)
			b.WriteByte(' ')
		}
	}
	lt.text = b.String()
	return lt
}

// find returns the 1-based line where s (normalised) first occurs at or
// after offset from, and the offset it occurs at; 0, from when it does not.
func (lt *lineText) find(s string, from int) (int, int) {
	n := normalize(s)
	if n == "" || from > len(lt.text) {
		return 0, from
	}
	i := strings.Index(lt.text[from:], n)
	if i < 0 {
		return 0, from
	}
	i += from
	return sort.Search(len(lt.starts), func(j int) bool { return lt.starts[j] > i }), i
}

// answerLine finds the line of raw where the first answer found starts; 0
// when none is found.
func answerLine(raw []byte, answers []string) int {
	lt := newLineText(raw)
	for _, a := range answers {
		if line, _ := lt.find(a, 0); line > 0 {
			return line
		}
	}
	return 0
}

// sourceLine reads the line out of a context source "path:LINE" (or
// "path:LINE (part i of n)"); 0 when there is none.
var sourceLineRE = regexp.MustCompile(`:(\d+)(?:#\S*)?(?: \(part \d+ of \d+\))?$`)

// maxLineDrift bounds how far from the reader's line a sentence found by
// its text may be.
const maxLineDrift = 500

func sourceLine(source string) int {
	line := 0
	if m := sourceLineRE.FindStringSubmatch(source); m != nil {
		line, _ = strconv.Atoi(m[1])
	}
	return line
}

func unitOf(units []unit, source string) unit {
	line := sourceLine(source)
	u := units[0]
	for _, x := range units {
		if x.line <= line {
			u = x
		}
	}
	return u
}

var (
	mdLinkRE = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	spaceRE  = regexp.MustCompile(`\s+`)
	// A space before punctuation goes, so that "pop</em> ," and "pop," agree.
	spacePunctRE = regexp.MustCompile(` ([,.;:!?)])`)
	quotes       = strings.NewReplacer("\u2018", "'", "\u2019", "'", "\u201c", `"`, "\u201d", `"`, "\u00a0", " ", "*", "", "_", "", "`", "")
)

// normalize makes text from any reader comparable with an answer written
// from the rendered document: markup (HTML tags and entities, Markdown links,
// emphasis and code marks) removed, quotes folded, white space collapsed,
// lower case. Both answers and candidates pass through it.
func normalize(s string) string {
	s = tagRE.ReplaceAllString(s, "")
	s = html.UnescapeString(s)
	// Again: "<stash>" written in the text (&lt;stash&gt; in HTML) goes too,
	// whether a reader kept it escaped, decoded or not at all.
	s = tagRE.ReplaceAllString(s, "")
	s = mdLinkRE.ReplaceAllString(s, "$1")
	s = quotes.Replace(s)
	s = spaceRE.ReplaceAllString(s, " ")
	s = spacePunctRE.ReplaceAllString(s, "$1")
	return strings.ToLower(strings.TrimSpace(s))
}

func readQuestions(path string, set SetSpec) ([]QuestionSpec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("set %s: questions: %w", set.Name, err)
	}
	defer f.Close()
	files := map[string]bool{}
	for _, x := range set.Files {
		files[x.Path] = true
	}
	var out []QuestionSpec
	ids := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var q QuestionSpec
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&q); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		switch {
		case q.ID == "":
			return nil, fmt.Errorf("%s:%d: field \"id\": missing", path, line)
		case ids[q.ID]:
			return nil, fmt.Errorf("%s:%d: field \"id\": duplicate %s", path, line, q.ID)
		case !files[q.File]:
			return nil, fmt.Errorf("%s:%d: field \"file\": %q is not a file of set %s", path, line, q.File, set.Name)
		case strings.TrimSpace(q.Question) == "":
			return nil, fmt.Errorf("%s:%d: field \"question\": empty", path, line)
		case len(q.Answers) == 0:
			return nil, fmt.Errorf("%s:%d: field \"answers\": empty", path, line)
		}
		for _, a := range q.Answers {
			if normalize(a) == "" {
				return nil, fmt.Errorf("%s:%d: field \"answers\": blank answer", path, line)
			}
		}
		if q.Half != "" && q.Half != "tune" && q.Half != "test" {
			return nil, fmt.Errorf("%s:%d: field \"half\": %q: want tune or test", path, line, q.Half)
		}
		ids[q.ID] = true
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no questions", path)
	}
	return out, nil
}

// writeDataset writes one dataset directory (only set's part when set is
// not empty), replacing an older one.
func writeDataset(dir string, sets []SetSpec, only string, contexts []outContext, candidates []outCandidate, questions []outQuestion, titlesOf map[string][]string, splitOf map[string]string, srcDir string, missing []Missing) error {
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	heldOut := map[string]bool{}
	for _, s := range sets {
		heldOut[s.Name] = s.HeldOut
	}
	keep := func(set string) bool {
		if only != "" {
			return set == only
		}
		return !heldOut[set]
	}
	var cx, ca, qs []any
	inSet := map[int]bool{}
	for _, c := range contexts {
		if keep(c.set) {
			cx = append(cx, c)
			inSet[c.ID] = true
		}
	}
	for _, c := range candidates {
		if inSet[c.Context] {
			ca = append(ca, c)
		}
	}
	for _, q := range questions {
		if keep(q.set) {
			qs = append(qs, q)
		}
	}
	for name, rows := range map[string][]any{"contexts": cx, "candidates": ca, "questions": qs} {
		if err := writeJSONL(filepath.Join(tmp, name+".jsonl"), rows); err != nil {
			return err
		}
	}
	split := map[string][]string{"tune": {}, "test": {}}
	domains := map[string][]string{}
	var miss []Missing
	for _, s := range sets {
		if !keep(s.Name) {
			continue
		}
		domains[s.Name] = append([]string{}, titlesOf[s.Name]...)
		for _, t := range titlesOf[s.Name] {
			split[splitOf[t]] = append(split[splitOf[t]], t)
		}
		for _, m := range missing {
			if m.Set == s.Name {
				miss = append(miss, m)
			}
		}
		for _, lf := range s.LicenseFiles {
			b, err := os.ReadFile(filepath.Join(srcDir, s.Name, filepath.FromSlash(lf)))
			if err != nil {
				return fmt.Errorf("set %s: license: %w", s.Name, err)
			}
			dst := filepath.Join(tmp, "LICENSES", s.Name, strings.ReplaceAll(lf, "/", "_"))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				return err
			}
		}
	}
	if err := writeJSON(filepath.Join(tmp, "split.json"), split); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(tmp, "domains.json"), domains); err != nil {
		return err
	}
	if miss == nil {
		miss = []Missing{}
	}
	if err := writeJSON(filepath.Join(tmp, "missing.json"), miss); err != nil {
		return err
	}
	var readme strings.Builder
	fmt.Fprintf(&readme, "Built by cmd/mkdocsqa from pinned documentation (see cmd/mkdocsqa/questions/sources.json, or cmd/mkdocsqa/blind/SOURCES.tsv for the blind benchmark).\n\n")
	for _, s := range sets {
		if keep(s.Name) {
			fmt.Fprintf(&readme, "- %s: %s — license: %s (LICENSES/%s/)\n", s.Name, s.Origin, s.License, s.Name)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, "SOURCES.md"), []byte(readme.String()), 0o644); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

func writeJSONL(path string, rows []any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// pinHalves gives every unit of set that holds the answer of a question
// with a pinned half (QuestionSpec.Half) that half: its contexts and
// their titles (splitOf) move with it.
func pinHalves(set SetSpec, qs []QuestionSpec, contexts []outContext, candidates []outCandidate, splitOf map[string]string) error {
	pinned := map[string]string{} // unit → half
	by := map[string]string{}     // unit → the question that pinned it
	for _, q := range qs {
		if q.Half == "" {
			continue
		}
		key := set.Name + "/" + q.File
		for _, a := range q.Answers {
			for _, c := range answering(candidates, key, normalize(a)) {
				u := contexts[c.Context].unit
				if h, ok := pinned[u]; ok && h != q.Half {
					return fmt.Errorf("question %s is pinned to %s, but %s pins %s to %s", q.ID, q.Half, by[u], u, h)
				}
				pinned[u], by[u] = q.Half, q.ID
			}
		}
	}
	for i := range contexts {
		if h, ok := pinned[contexts[i].unit]; ok && contexts[i].set == set.Name {
			contexts[i].split = h
			splitOf[contexts[i].Title] = h
		}
	}
	return nil
}

// answering returns the candidates of the file key whose normalised text
// holds the normalised answer na.
func answering(candidates []outCandidate, key, na string) []outCandidate {
	var out []outCandidate
	for _, c := range candidates {
		if c.file == key && strings.Contains(c.norm, na) {
			out = append(out, c)
		}
	}
	return out
}
