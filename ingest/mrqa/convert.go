package mrqa

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reqa/reqa/index/sentence"
	"github.com/reqa/reqa/ingest"
)

// GoldRule says which sentences an answer span makes gold.
type GoldRule string

const (
	// GoldContain is the paper's rule: a span makes gold the sentence that
	// holds all of it; a span crossing a sentence boundary is excluded.
	GoldContain GoldRule = "contain"
	// GoldStart makes gold the sentence holding the span's first character,
	// crossing spans included. The shared squad-multireqa-test set was built
	// this way.
	GoldStart GoldRule = "start"
)

// Drop reasons, the keys of DatasetReport.Dropped.
const (
	DropOnlyInTitles  = "answer only in titles"
	DropCrossing      = "every answer span crosses a sentence boundary"
	DropNotCandidate  = "answer not in a candidate sentence"
	DropNotCovered    = "context not covered by the annotations"
	DropNoValidSpan   = "no valid answer span"
	DropDuplicateQID  = "duplicate question id"
	DropNoDetectedAns = "no answer span"
)

// Options control Convert.
type Options struct {
	// Dataset names the dataset of every input, overriding MRQA headers and
	// file names.
	Dataset string
	// Boundaries lists MultiReQA annotation files: when set, candidates are
	// the annotated sentences, with their official ids, instead of the
	// splitter's.
	Boundaries []string
	// IDLinks lists MRQA files whose questions carry both an original id
	// ("id", SQuAD's for MRQA's SQuAD files) and the MRQA "qid". With them,
	// SQuAD JSON paragraphs are matched to annotated contexts by question
	// ids, as MRQA input is, rather than by fitting boundaries to the text.
	IDLinks []string
	// Gold is the gold rule; default GoldContain.
	Gold GoldRule
	// Split, when set, is written as split.json ({"tune": [titles], "test":
	// [titles]}).
	Split map[string][]string
	// Strict stops at the first bad record instead of skipping it.
	Strict bool
	// Force replaces a non-empty output directory.
	Force bool
	// MaxExamples bounds the examples kept per kind of problem; default 10.
	MaxExamples int
	// Progress, if set, is called now and then while an MRQA file is read,
	// with the bytes read (compressed, as stored) and the file's size.
	Progress func(file string, done, total int64)
}

// Report says what Convert did.
type Report struct {
	// Out is the dataset directory written.
	Out string `json:"out"`
	// Gold is the gold rule used.
	Gold GoldRule `json:"gold_rule"`
	// Sentences is "splitter" or "annotations".
	Sentences string `json:"sentences"`
	// Inputs lists each input with its format and dataset.
	Inputs []InputReport `json:"inputs"`
	// Datasets holds the counts per dataset, in order of appearance.
	Datasets []*DatasetReport `json:"datasets"`
	// BadRecords counts records (lines, questions or answer spans) skipped
	// as malformed; BadExamples shows the first few as file:line: field: msg.
	BadRecords  int      `json:"bad_records"`
	BadExamples []string `json:"bad_examples,omitempty"`
	// Boundaries reports how the annotations were matched, when used.
	Boundaries *BoundaryReport `json:"boundaries,omitempty"`
	// Warnings lists other non-fatal remarks.
	Warnings []string `json:"warnings,omitempty"`
}

// InputReport describes one input.
type InputReport struct {
	Path    string `json:"path"`
	Format  Format `json:"format"`
	Dataset string `json:"dataset"`
	Split   string `json:"split,omitempty"`
}

// DatasetReport counts one dataset's conversion.
type DatasetReport struct {
	Name   string `json:"dataset"`
	Layout string `json:"layout"`
	// InputContexts counts input contexts (MRQA lines, SQuAD paragraphs);
	// Contexts counts output contexts (a SearchQA or HotpotQA input context
	// gives several).
	InputContexts int `json:"input_contexts"`
	Contexts      int `json:"contexts"`
	Candidates    int `json:"candidates"`
	// InputQuestions counts well-formed input questions; Questions those
	// written; Dropped says why the others were not.
	InputQuestions int            `json:"input_questions"`
	Questions      int            `json:"questions"`
	Dropped        map[string]int `json:"dropped"`
	// MultiGold counts questions with more than one gold sentence.
	MultiGold int `json:"multi_gold"`
	// Spans counts valid answer spans; SpansGold those that made a sentence
	// gold; SpansCrossing those excluded for crossing a sentence boundary
	// (or a tag); SpansInTitles those inside a title; SpansOutside those in
	// no candidate (between sentences, or in a sentence that is not a
	// candidate).
	Spans         int `json:"spans"`
	SpansGold     int `json:"spans_gold"`
	SpansCrossing int `json:"spans_crossing"`
	SpansInTitles int `json:"spans_in_titles"`
	SpansOutside  int `json:"spans_outside"`
}

// BoundaryReport says how annotated contexts were matched to input
// contexts.
type BoundaryReport struct {
	Files []string `json:"files"`
	// Annotated counts annotated contexts; Matched those used.
	Annotated int `json:"annotated_contexts"`
	Matched   int `json:"matched"`
	// ByQID and ByText count matches made by question ids and, for inputs
	// without MRQA question ids (SQuAD JSON), by fitting the boundaries to
	// the text; Ambiguous counts text matches that had an equally good
	// alternative.
	ByQID     int `json:"by_qid"`
	ByText    int `json:"by_text"`
	Ambiguous int `json:"ambiguous"`
	// QIDMismatch counts qid matches whose question ids differ from the
	// annotation's.
	QIDMismatch int `json:"qid_mismatch"`
	// NotCovered counts input contexts no annotation covers (left out, with
	// their questions); Unused counts annotated contexts of the converted
	// datasets that no input context matched.
	NotCovered         int      `json:"not_covered"`
	NotCoveredExamples []string `json:"not_covered_examples,omitempty"`
	Unused             int      `json:"unused"`
	UnusedExamples     []string `json:"unused_examples,omitempty"`
	// BadSpans counts annotated sentences that do not fit their context
	// (outside it, or across documents) and were left out.
	BadSpans         int      `json:"bad_spans"`
	BadSpanExamples  []string `json:"bad_span_examples,omitempty"`
	DatasetsCovered  []string `json:"datasets"`
	TextFitMismatch  int      `json:"text_fit_mismatch"`
	TextFitMismatchX []string `json:"text_fit_mismatch_examples,omitempty"`
}

// ErrBadRecords is returned (wrapped) by Convert when the dataset was
// written but some records were skipped; the Report says which.
var ErrBadRecords = errors.New("bad records skipped")

// unit is one input context on its way through conversion.
type unit struct {
	file  string
	line  int    // 1-based line of an MRQA file, 0 for SQuAD JSON
	field string // SQuAD JSON location ("data[0].paragraphs[3]")
	ds    Dataset
	title string
	ctx   *Context
	group *annGroup
	byTxt bool
}

func (u *unit) where() string {
	if u.line > 0 {
		return fmt.Sprintf("%s:%d", u.file, u.line)
	}
	return u.file + "#" + u.field
}

// converter holds the state of one conversion.
type converter struct {
	ctx      context.Context
	opt      Options
	out      *outDir
	ann      *Annotations
	rep      *Report
	byName   map[string]*DatasetReport
	links    map[string]string
	dups     *dupCheck
	candDups *dupCheck
	nextID   int
	titles   map[string]bool
}

// Convert reads MRQA files (JSON lines, optionally gzipped) and SQuAD JSON
// files and writes one ReQA dataset into outDir: contexts.jsonl.gz,
// candidates.jsonl.gz, questions.jsonl.gz and, when opt.Split is set,
// split.json. The dataset is written into a temporary directory beside
// outDir and moved into place at the end; on error nothing is left behind.
// An existing outDir must be empty unless opt.Force is set.
//
// Bad records are skipped, counted and reported (the first few with
// file:line and field); Convert then returns the report with an error
// wrapping ErrBadRecords, the dataset being written all the same. With
// opt.Strict the first bad record is an error (an *ingest.InputError) and
// nothing is written. Refused datasets (NewsQA, RACE, DROP, DuoRC) are an
// error before anything is read.
func Convert(ctx context.Context, inputs []string, outDir string, opt Options) (*Report, error) {
	if len(inputs) == 0 {
		return nil, errors.New("convert: no input given")
	}
	if opt.Gold == "" {
		opt.Gold = GoldContain
	}
	if opt.Gold != GoldContain && opt.Gold != GoldStart {
		return nil, fmt.Errorf("convert: unknown gold rule %q (want %s or %s)", opt.Gold, GoldContain, GoldStart)
	}
	if opt.MaxExamples <= 0 {
		opt.MaxExamples = 10
	}
	for name := range opt.Split {
		if name != "tune" && name != "test" {
			return nil, fmt.Errorf("convert: split %q: want only \"tune\" and \"test\" lists", name)
		}
	}
	c := &converter{ctx: ctx, opt: opt, rep: &Report{Out: outDir, Gold: opt.Gold, Sentences: "splitter"},
		byName: map[string]*DatasetReport{}}
	if opt.Split != nil {
		c.titles = map[string]bool{}
	}
	if err := checkTarget(outDir, opt.Force); err != nil {
		return nil, fmt.Errorf("convert: %w", err)
	}
	// Resolve every input's format and dataset first: a refused dataset or
	// an unreadable input stops the conversion before anything is written.
	plans, err := c.plan(inputs)
	if err != nil {
		return nil, err
	}
	if err := c.loadBoundaries(plans); err != nil {
		return nil, err
	}
	out, err := createOutDir(outDir, opt.Force)
	if err != nil {
		return nil, fmt.Errorf("convert: %w", err)
	}
	c.out = out
	spools, err := os.MkdirTemp(filepath.Dir(filepath.Clean(outDir)), "."+filepath.Base(outDir)+".ids-")
	if err != nil {
		out.abort()
		return nil, fmt.Errorf("convert: %w", err)
	}
	defer os.RemoveAll(spools)
	if c.dups, err = newDupCheck(spools); err == nil {
		c.candDups, err = newDupCheck(spools)
	}
	if err != nil {
		out.abort()
		return nil, fmt.Errorf("convert: %w", err)
	}
	defer c.dups.close()
	defer c.candDups.close()
	for _, pl := range plans {
		var err error
		if pl.f == FormatSQuAD {
			err = c.convertSQuAD(pl.path, pl.ds)
		} else {
			err = c.convertMRQA(pl.path, pl.ds)
		}
		if err != nil {
			out.abort()
			return nil, err
		}
	}
	if c.ann != nil {
		used := map[string]bool{}
		for _, pl := range plans {
			used[pl.ds.Name] = true
		}
		br := c.rep.Boundaries
		for _, g := range c.ann.unused(used) {
			br.Unused++
			if len(br.UnusedExamples) < opt.MaxExamples {
				br.UnusedExamples = append(br.UnusedExamples, fmt.Sprintf("%s (%s:%d)", truncate(g.key, 80), g.file, g.spans[0].line))
			}
		}
	}
	if err := c.removeDuplicates(); err != nil {
		out.abort()
		return nil, err
	}
	if opt.Split != nil {
		for _, name := range []string{"tune", "test"} {
			for _, t := range opt.Split[name] {
				if !c.titles[t] {
					c.rep.Warnings = append(c.rep.Warnings, fmt.Sprintf("split %s: no context has title %q", name, t))
				}
			}
		}
		b, err := json.MarshalIndent(opt.Split, "", " ")
		if err == nil {
			err = out.writeFile("split.json", append(b, '\n'))
		}
		if err != nil {
			out.abort()
			return nil, fmt.Errorf("convert: write split.json: %w", err)
		}
	}
	if err := ctx.Err(); err != nil {
		out.abort()
		return nil, fmt.Errorf("convert: %w", err)
	}
	if out.cands.n == 0 {
		out.abort()
		return c.rep, fmt.Errorf("convert: no candidate sentences were produced from %s; nothing written", strings.Join(inputs, ", "))
	}
	if err := out.commit(opt.Force); err != nil {
		return nil, fmt.Errorf("convert: %w", err)
	}
	if c.rep.BadRecords > 0 {
		return c.rep, fmt.Errorf("convert: wrote %s, leaving out %d bad record(s) (%w)", outDir, c.rep.BadRecords, ErrBadRecords)
	}
	return c.rep, nil
}

// plan is one input, its format and dataset.
type plan struct {
	path string
	f    Format
	ds   Dataset
}

// plan resolves every input's format and dataset, refusing the datasets
// MultiReQA leaves out.
func (c *converter) plan(inputs []string) ([]plan, error) {
	opt := c.opt
	var datasetOverride *Dataset
	if opt.Dataset != "" {
		d, err := DatasetByName(opt.Dataset)
		if err != nil {
			return nil, fmt.Errorf("convert: --dataset: %w", err)
		}
		datasetOverride = &d
	}
	var plans []plan
	for _, p := range inputs {
		f, err := detectFormat(p)
		if err != nil {
			return nil, fmt.Errorf("convert: %w", err)
		}
		ir := InputReport{Path: p, Format: f}
		var ds Dataset
		switch {
		case f == FormatSQuAD:
			ds, _ = DatasetByName("SQuAD")
			if datasetOverride != nil {
				ds = *datasetOverride
			}
		default:
			h, err := readHeader(p)
			if err != nil {
				return nil, fmt.Errorf("convert: %w", err)
			}
			switch {
			case datasetOverride != nil:
				ds = *datasetOverride
				if h != nil && h.Dataset != "" {
					if hd, err := DatasetByName(h.Dataset); err == nil && hd.Name != ds.Name {
						c.rep.Warnings = append(c.rep.Warnings, fmt.Sprintf("%s: header says dataset %q; converting it as %s (--dataset)", p, h.Dataset, ds.Name))
					}
				}
			case h != nil && h.Dataset != "":
				ds, err = DatasetByName(h.Dataset)
				if err != nil {
					return nil, fmt.Errorf("convert: %s: header: %w", p, err)
				}
			default:
				d, ok := datasetFromPath(p)
				if !ok {
					return nil, fmt.Errorf("convert: %s has no MRQA header and its name names no known dataset; say which with --dataset", p)
				}
				ds = d
				c.rep.Warnings = append(c.rep.Warnings, fmt.Sprintf("%s: no MRQA header; dataset %s taken from the file name", p, ds.Name))
			}
			if h != nil {
				ir.Split = h.Split
			}
		}
		if ds.Refused != "" {
			return nil, fmt.Errorf("convert: %w", refusal(ds, p))
		}
		if !ds.Known {
			c.rep.Warnings = append(c.rep.Warnings, fmt.Sprintf("%s: dataset %s has no rules of its own; its contexts are used as they are", p, ds.Name))
		}
		ir.Dataset = ds.Name
		c.rep.Inputs = append(c.rep.Inputs, ir)
		plans = append(plans, plan{p, f, ds})
	}
	return plans, nil
}

// loadBoundaries reads the annotations and id links, if any, and checks
// that they annotate the inputs' datasets.
func (c *converter) loadBoundaries(plans []plan) error {
	opt := c.opt
	if len(opt.IDLinks) > 0 && len(opt.Boundaries) == 0 {
		return errors.New("convert: id links only serve to match annotations; give boundaries too")
	}
	if len(opt.Boundaries) > 0 {
		ann, err := ReadAnnotations(opt.Boundaries...)
		if err != nil {
			return fmt.Errorf("convert: boundaries: %w", err)
		}
		c.ann = ann
		c.rep.Sentences = "annotations"
		c.rep.Boundaries = &BoundaryReport{Files: ann.Files, Annotated: ann.NumContexts()}
		have := ann.datasets()
		for d := range have {
			c.rep.Boundaries.DatasetsCovered = append(c.rep.Boundaries.DatasetsCovered, d)
		}
		sort.Strings(c.rep.Boundaries.DatasetsCovered)
		if len(opt.IDLinks) > 0 {
			if c.links, err = readIDLinks(opt.IDLinks); err != nil {
				return fmt.Errorf("convert: %w", err)
			}
		}
		for _, pl := range plans {
			if !have[pl.ds.Name] {
				return fmt.Errorf("convert: the boundaries (%s) annotate %s, not dataset %s of %s",
					strings.Join(opt.Boundaries, ", "), strings.Join(c.rep.Boundaries.DatasetsCovered, ", "), pl.ds.Name, pl.path)
			}
		}
	}
	return nil
}

// readHeader returns the header of an MRQA file, or nil when its first
// line is not one.
func readHeader(path string) (*Header, error) {
	in, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	br := bufio.NewReaderSize(in, 1<<16)
	for {
		b, err := readLine(br)
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		if len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		// Only a header is decoded here; a context line is left to the
		// conversion.
		if !strings.Contains(string(b[:min(len(b), 4096)]), `"header"`) {
			return nil, nil
		}
		ln, err := ParseLine(b)
		if err != nil || ln.Header == nil {
			return nil, nil
		}
		return ln.Header, nil
	}
}

func (c *converter) dataset(ds Dataset) *DatasetReport {
	r := c.byName[ds.Name]
	if r == nil {
		r = &DatasetReport{Name: ds.Name, Layout: ds.Layout.String(), Dropped: map[string]int{}}
		c.byName[ds.Name] = r
		c.rep.Datasets = append(c.rep.Datasets, r)
	}
	return r
}

// bad records one bad record, or returns it as the error in strict mode.
func (c *converter) bad(e *ingest.InputError) error {
	if c.opt.Strict {
		return e
	}
	c.rep.BadRecords++
	if len(c.rep.BadExamples) < c.opt.MaxExamples {
		c.rep.BadExamples = append(c.rep.BadExamples, e.Error())
	}
	return nil
}

func (c *converter) problems(u *unit, ps []Problem) error {
	for _, p := range ps {
		f := p.Field
		if u.field != "" {
			f = u.field + "." + f
		}
		if err := c.bad(&ingest.InputError{File: u.file, Line: u.line, Field: f, Msg: p.Msg}); err != nil {
			return err
		}
	}
	return nil
}

// convertMRQA streams an MRQA file, one context line at a time.
func (c *converter) convertMRQA(path string, ds Dataset) error {
	in, err := openInput(path)
	if err != nil {
		return fmt.Errorf("convert: %w", err)
	}
	defer in.Close()
	br := bufio.NewReaderSize(in, 1<<20)
	rep := c.dataset(ds)
	records := 0
	for line := 1; ; line++ {
		if err := c.ctx.Err(); err != nil {
			return fmt.Errorf("convert: %w", err)
		}
		b, err := readLine(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("convert: read %s:%d: %w", path, line, err)
		}
		if c.opt.Progress != nil && line%256 == 0 {
			c.opt.Progress(path, in.raw.n.Load(), in.size)
		}
		if len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		records++
		ln, err := ParseLine(b)
		if err != nil {
			var p *Problem
			if !errors.As(err, &p) {
				p = &Problem{Msg: err.Error()}
			}
			if err := c.bad(&ingest.InputError{File: path, Line: line, Field: p.Field, Msg: p.Msg}); err != nil {
				return err
			}
			continue
		}
		if ln.Header != nil {
			if records != 1 {
				if err := c.bad(&ingest.InputError{File: path, Line: line, Field: "header", Msg: "a header line after the first record"}); err != nil {
					return err
				}
			}
			continue
		}
		u := &unit{file: path, line: line, ds: ds, ctx: ln.Context}
		rep.InputContexts++
		if err := c.problems(u, ln.Problems); err != nil {
			return err
		}
		if c.ann != nil {
			c.matchByQID(u, u.ctx.QIDs)
		}
		if err := c.process(u); err != nil {
			return err
		}
	}
	if c.opt.Progress != nil {
		c.opt.Progress(path, in.size, in.size)
	}
	if records == 0 {
		return c.bad(&ingest.InputError{File: path, Msg: "empty file (no JSON lines)"})
	}
	return nil
}

// matchByQID attaches the annotated context holding the unit's question
// ids.
func (c *converter) matchByQID(u *unit, qids []string) {
	g, exact := c.ann.byQIDs(u.ds.Name, qids)
	if g == nil || g.used {
		return
	}
	g.used = true
	u.group = g
	br := c.rep.Boundaries
	br.Matched++
	br.ByQID++
	if !exact {
		br.QIDMismatch++
	}
}

// convertSQuAD converts a SQuAD JSON file, one paragraph per context.
func (c *converter) convertSQuAD(path string, ds Dataset) error {
	f, err := ingest.ReadSQuADFile(path)
	if err != nil {
		return fmt.Errorf("convert: %w", err)
	}
	rep := c.dataset(ds)
	var units []*unit
	for ai, a := range f.Data {
		for pi, p := range a.Paragraphs {
			u := &unit{file: path, field: fmt.Sprintf("data[%d].paragraphs[%d]", ai, pi), ds: ds, title: a.Title}
			ctx, probs := squadContext(p)
			u.ctx = ctx
			rep.InputContexts++
			if err := c.problems(u, probs); err != nil {
				return err
			}
			units = append(units, u)
		}
	}
	if c.ann != nil {
		var rest []*unit
		for _, u := range units {
			qids := u.ctx.QIDs
			if c.links != nil {
				qids = make([]string, 0, len(u.ctx.QIDs))
				for _, id := range u.ctx.QIDs {
					if q, ok := c.links[id]; ok {
						qids = append(qids, q)
					}
				}
			}
			c.matchByQID(u, qids)
			if u.group == nil {
				rest = append(rest, u)
			}
		}
		c.matchByText(rest)
	}
	for i, u := range units {
		if err := c.ctx.Err(); err != nil {
			return fmt.Errorf("convert: %w", err)
		}
		if err := c.process(u); err != nil {
			return err
		}
		units[i] = nil
	}
	return nil
}

// readIDLinks maps original question ids to MRQA qids, from MRQA files
// whose questions have both.
func readIDLinks(paths []string) (map[string]string, error) {
	links := map[string]string{}
	for _, p := range paths {
		in, err := openInput(p)
		if err != nil {
			return nil, err
		}
		br := bufio.NewReaderSize(in, 1<<20)
		for line := 1; ; line++ {
			b, err := readLine(br)
			if err == io.EOF {
				break
			}
			if err != nil {
				in.Close()
				return nil, fmt.Errorf("read %s:%d: %w", p, line, err)
			}
			var r struct {
				QAs []struct {
					ID  any    `json:"id"`
					QID string `json:"qid"`
				} `json:"qas"`
			}
			if json.Unmarshal(b, &r) != nil {
				continue
			}
			for _, q := range r.QAs {
				if id, ok := q.ID.(string); ok && id != "" && q.QID != "" {
					links[id] = q.QID
				}
			}
		}
		in.Close()
	}
	if len(links) == 0 {
		return nil, fmt.Errorf("id links %s: no question with both \"id\" and \"qid\"", strings.Join(paths, ", "))
	}
	return links, nil
}

// squadContext turns a SQuAD paragraph into a Context: question ids are
// SQuAD's, spans start at answer_start and run for the answer's length.
func squadContext(p ingest.SQuADParagraph) (*Context, []Problem) {
	c := &Context{Text: p.Context}
	var probs []Problem
	var idx *cpIndex
	seen := map[string]bool{}
	for k, q := range p.QAs {
		field := fmt.Sprintf("qas[%d]", k)
		qid, pr := parseQID(field+".id", rawString(q.ID))
		if pr != nil {
			probs = append(probs, *pr)
			continue
		}
		if seen[qid] {
			probs = append(probs, Problem{field + ".id", fmt.Sprintf("duplicate id %q in this paragraph", qid)})
			continue
		}
		seen[qid] = true
		c.QIDs = append(c.QIDs, qid)
		if strings.TrimSpace(q.Question) == "" {
			probs = append(probs, Problem{field + ".question", "missing or empty"})
			continue
		}
		qa := QA{QID: qid, Question: q.Question, Field: field}
		for l, a := range q.Answers {
			qa.Answers = append(qa.Answers, a.Text)
			af := fmt.Sprintf("%s.answers[%d]", field, l)
			if a.Text == "" {
				probs = append(probs, Problem{af + ".text", "missing or empty"})
				continue
			}
			if idx == nil {
				idx = newCPIndex(c.Text)
			}
			n := len([]rune(a.Text))
			sp, msg := checkSpan(idx, a.AnswerStart, a.AnswerStart+n-1, a.Text)
			if msg != "" {
				probs = append(probs, Problem{af + ".answer_start", msg})
				continue
			}
			qa.Spans = append(qa.Spans, sp)
		}
		c.QAs = append(c.QAs, qa)
	}
	return c, probs
}

func rawString(s string) *json.RawMessage {
	if s == "" {
		return nil
	}
	b, _ := json.Marshal(s)
	r := json.RawMessage(b)
	return &r
}

// cand is one candidate sentence of a doc, in bytes of the doc's text.
type cand struct {
	id   string
	span Span
}

// process converts one input context: its docs, candidates and questions.
func (c *converter) process(u *unit) error {
	rep := c.dataset(u.ds)
	docs := splitLayout(u.ctx.Text, u.ds.Layout)
	if u.ds.Layout == LayoutPlain && u.title != "" {
		docs[0].Title = u.title
	}
	cands := make([][]cand, len(docs))
	if c.ann != nil {
		if u.group == nil {
			br := c.rep.Boundaries
			br.NotCovered++
			if len(br.NotCoveredExamples) < c.opt.MaxExamples {
				br.NotCoveredExamples = append(br.NotCoveredExamples, u.where())
			}
			for range u.ctx.QAs {
				rep.InputQuestions++
				rep.Dropped[DropNotCovered]++
			}
			return nil
		}
		c.annotatedCands(u, docs, cands)
	} else {
		prefix := u.ds.Name + "_" + strings.Join(u.ctx.QIDs, "/")
		if len(u.ctx.QIDs) == 0 {
			prefix = fmt.Sprintf("%s_c%d", u.ds.Name, c.nextID)
		}
		for di, d := range docs {
			for si, sp := range sentence.Split(d.Text) {
				if markupOnly(d.Text[sp.Start:sp.End]) {
					continue
				}
				id := fmt.Sprintf("%s/_%d", prefix, si)
				if u.ds.Layout.multiDoc() {
					id = fmt.Sprintf("%s/_%d_%d", prefix, di, si)
				}
				cands[di] = append(cands[di], cand{id: id, span: Span{sp.Start, sp.End}})
			}
		}
	}
	// Contexts and candidates.
	idxs := make([]*cpIndex, len(docs))
	for di, d := range docs {
		if len(cands[di]) == 0 {
			continue
		}
		id := c.nextID
		c.nextID++
		if err := c.out.contexts.write(contextRec{ContextID: id, Title: d.Title, Text: d.Text}); err != nil {
			return fmt.Errorf("convert: write contexts: %w", err)
		}
		if c.titles != nil {
			c.titles[d.Title] = true
		}
		rep.Contexts++
		x := newCPIndex(d.Text)
		idxs[di] = x
		for _, cd := range cands[di] {
			if u.field != "" {
				c.candDups.fields[uint64(c.out.cands.n)] = u.field
			}
			if err := c.candDups.add(cd.id, uint64(c.out.cands.n), u, 0); err != nil {
				return fmt.Errorf("convert: spool candidate ids: %w", err)
			}
			rec := candidateRec{CandidateID: cd.id, ContextID: id, Start: x.cpAt(cd.span.Start), End: x.cpAt(cd.span.End),
				Text: d.Text[cd.span.Start:cd.span.End]}
			if err := c.out.cands.write(rec); err != nil {
				return fmt.Errorf("convert: write candidates: %w", err)
			}
			rep.Candidates++
		}
	}
	// Questions.
	var raw *cpIndex
	for qi, qa := range u.ctx.QAs {
		rep.InputQuestions++
		if len(qa.Spans) == 0 {
			rep.Dropped[DropNoValidSpan]++
			continue
		}
		if raw == nil {
			raw = newCPIndex(u.ctx.Text)
		}
		var gold []string
		inGold := map[string]bool{}
		var nTitle, nCross, nOutside int
		for _, sp := range qa.Spans {
			rep.Spans++
			bs, be := trimSpan(u.ctx.Text, raw.byteAt(sp.Start), raw.byteAt(sp.End))
			di, local, place := locate(docs, Span{bs, be})
			switch place {
			case placeTitle:
				nTitle++
				rep.SpansInTitles++
				continue
			case placeAcross:
				nCross++
				rep.SpansCrossing++
				continue
			}
			hit, crossing := c.goldOf(cands[di], local)
			switch {
			case hit != "":
				rep.SpansGold++
				if !inGold[hit] {
					inGold[hit] = true
					gold = append(gold, hit)
				}
			case crossing:
				nCross++
				rep.SpansCrossing++
			default:
				nOutside++
				rep.SpansOutside++
			}
		}
		if len(gold) == 0 {
			switch {
			case nTitle > 0 && nCross == 0 && nOutside == 0:
				rep.Dropped[DropOnlyInTitles]++
			case nCross > 0 && nOutside == 0:
				rep.Dropped[DropCrossing]++
			default:
				rep.Dropped[DropNotCandidate]++
			}
			continue
		}
		sortGold(gold, cands)
		answers := qa.Answers
		if answers == nil {
			answers = []string{}
		}
		ord := uint64(c.out.quest.n)
		if err := c.out.quest.write(questionRec{QuestionID: qa.QID, Question: qa.Question, Answers: answers, Gold: gold}); err != nil {
			return fmt.Errorf("convert: write questions: %w", err)
		}
		if u.field != "" {
			c.dups.fields[ord] = joinField(u.field, qa.Field+".id")
		}
		if err := c.dups.add(qa.QID, ord, u, qaIndex(qa.Field, qi)); err != nil {
			return fmt.Errorf("convert: spool question ids: %w", err)
		}
		rep.Questions++
		if len(gold) > 1 {
			rep.MultiGold++
		}
	}
	return nil
}

func joinField(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// qaIndex is the index in "qas[k]", or def.
func qaIndex(field string, def int) int {
	var k int
	if _, err := fmt.Sscanf(field, "qas[%d]", &k); err == nil {
		return k
	}
	return def
}

// goldOf applies the gold rule to a span (bytes of a doc's text): the
// candidate it makes gold, if any, and whether it crosses a boundary.
func (c *converter) goldOf(cs []cand, sp Span) (string, bool) {
	crossing := false
	for _, cd := range cs {
		switch c.opt.Gold {
		case GoldStart:
			if cd.span.Start <= sp.Start && sp.Start < cd.span.End {
				return cd.id, false
			}
		default:
			if cd.span.Start <= sp.Start && sp.End <= cd.span.End {
				return cd.id, false
			}
			if sp.Start < cd.span.End && sp.End > cd.span.Start {
				crossing = true
			}
		}
	}
	return "", crossing
}

// sortGold orders gold ids as their candidates are written.
func sortGold(gold []string, cands [][]cand) {
	if len(gold) < 2 {
		return
	}
	pos := map[string]int{}
	n := 0
	for _, cs := range cands {
		for _, cd := range cs {
			pos[cd.id] = n
			n++
		}
	}
	sort.SliceStable(gold, func(i, j int) bool { return pos[gold[i]] < pos[gold[j]] })
}

// trimSpan trims white space off both ends of a byte span of s.
func trimSpan(s string, b, e int) (int, int) {
	for b < e && unicode.IsSpace(rune(s[b])) && s[b] < 0x80 {
		b++
	}
	for e > b && unicode.IsSpace(rune(s[e-1])) && s[e-1] < 0x80 {
		e--
	}
	return b, e
}

// markupOnly reports whether a sentence is nothing but markup tags (and
// punctuation): NaturalQuestions contexts keep the HTML of their Wikipedia
// page as tags such as <P>, </Td> or <Th_colspan="2">, and a sentence made
// of them alone ("</P>") is not a candidate. A tag here is '<', an optional
// '/', a letter, then anything but white space and '<' up to '>'.
func markupOnly(s string) bool {
	tags := 0
	for i := 0; i < len(s); {
		if s[i] == '<' {
			if n := tagLen(s[i:]); n > 0 {
				tags++
				i += n
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
		i += size
	}
	return tags > 0
}

// tagLen returns the length of the markup tag s starts with, or 0.
func tagLen(s string) int {
	i := 1
	if i < len(s) && s[i] == '/' {
		i++
	}
	if i >= len(s) || !(s[i] >= 'A' && s[i] <= 'Z' || s[i] >= 'a' && s[i] <= 'z') {
		return 0
	}
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == '>':
			return i + 1
		case c == '<' || isSpaceByte(c):
			return 0
		}
	}
	return 0
}

// annotatedCands turns the unit's annotated sentences into candidates of
// its docs. Annotation offsets are code points into the context as MultiReQA
// saw it: the raw context for LayoutPlain, the untagged text for
// LayoutUntagged, and the docs' texts joined by one space for the
// multi-document layouts.
func (c *converter) annotatedCands(u *unit, docs []doc, cands [][]cand) {
	br := c.rep.Boundaries
	idxs := make([]*cpIndex, len(docs))
	base := make([]int, len(docs))
	off := 0
	for i, d := range docs {
		idxs[i] = newCPIndex(d.Text)
		base[i] = off
		off += idxs[i].len() + 1
	}
	badSpan := func(s annSpan, msg string) {
		br.BadSpans++
		if len(br.BadSpanExamples) < c.opt.MaxExamples {
			br.BadSpanExamples = append(br.BadSpanExamples, fmt.Sprintf("%s:%d: %s: %s (input %s)", u.group.file, s.line, truncate(s.id, 60), msg, u.where()))
		}
	}
	for _, s := range u.group.spans {
		di := -1
		if s.doc >= 0 && u.ds.Layout.multiDoc() {
			di = s.doc
		} else {
			for i := range docs {
				if s.start >= base[i] && s.end <= base[i]+idxs[i].len() {
					di = i
					break
				}
			}
		}
		if di < 0 || di >= len(docs) {
			badSpan(s, fmt.Sprintf("[%d, %d) is in no document of the context", s.start, s.end))
			continue
		}
		lo, hi := s.start-base[di], s.end-base[di]
		if lo < 0 || hi > idxs[di].len() {
			badSpan(s, fmt.Sprintf("[%d, %d) is outside document %d (%d characters from %d)", s.start, s.end, di, idxs[di].len(), base[di]))
			continue
		}
		cands[di] = append(cands[di], cand{id: s.id, span: Span{idxs[di].byteAt(lo), idxs[di].byteAt(hi)}})
	}
	for _, cs := range cands {
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].span.Start < cs[j].span.Start })
	}
}
