package mrqa

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/reqa/reqa/ingest"
)

// annSpan is one annotated sentence.
type annSpan struct {
	id         string
	doc, sent  int // doc is -1 for ids without a document index
	start, end int // code points, end exclusive
	line       int
}

// annGroup is the annotated sentences of one MRQA context: every candidate
// id up to its last "/_".
type annGroup struct {
	key     string
	dataset string
	qids    []string
	spans   []annSpan // sorted by (doc, sent)
	file    string
	used    bool
}

// lastEnd is the end of the group's last sentence.
func (g *annGroup) lastEnd() int {
	e := 0
	for _, s := range g.spans {
		e = max(e, s.end)
	}
	return e
}

// Annotations holds MultiReQA sentence-boundary annotations, indexed by
// context (candidate id prefix) and by question id.
type Annotations struct {
	groups map[string]*annGroup
	byQID  map[string]*annGroup
	order  []*annGroup // file order of first appearance
	// Files lists the annotation files read.
	Files []string
}

// NumContexts returns the number of annotated contexts.
func (a *Annotations) NumContexts() int { return len(a.order) }

// parseCandidateID splits "<Dataset>_<qid>/<qid>/…/_<sent>" or
// "…/_<doc>_<sent>" into the context key, dataset, qids and indices.
func parseCandidateID(id string) (key, dataset string, qids []string, doc, sent int, err error) {
	cut := strings.LastIndex(id, "/_")
	if cut < 0 {
		return "", "", nil, 0, 0, fmt.Errorf("%q has no \"/_<index>\" suffix", truncate(id, 60))
	}
	key, suffix := id[:cut], id[cut+2:]
	us := strings.IndexByte(key, '_')
	if us <= 0 {
		return "", "", nil, 0, 0, fmt.Errorf("%q does not start with \"<Dataset>_\"", truncate(id, 60))
	}
	dataset = key[:us]
	qids = strings.Split(key[us+1:], "/")
	for _, q := range qids {
		if q == "" {
			return "", "", nil, 0, 0, fmt.Errorf("%q has an empty question id", truncate(id, 60))
		}
	}
	doc = -1
	parts := strings.Split(suffix, "_")
	nums := make([]int, len(parts))
	for i, p := range parts {
		n, e := strconv.Atoi(p)
		if e != nil || n < 0 || p == "" || strings.IndexFunc(p, func(r rune) bool { return !unicode.IsDigit(r) }) >= 0 {
			return "", "", nil, 0, 0, fmt.Errorf("%q: index %q is not a number", truncate(id, 60), suffix)
		}
		nums[i] = n
	}
	switch len(nums) {
	case 1:
		sent = nums[0]
	case 2:
		doc, sent = nums[0], nums[1]
	default:
		return "", "", nil, 0, 0, fmt.Errorf("%q: index %q has more than two parts", truncate(id, 60), suffix)
	}
	return key, dataset, qids, doc, sent, nil
}

// ReadAnnotations reads MultiReQA annotation files (JSON lines of
// candidate_id, response_start, response_end; optionally gzipped). Every
// fault is an error naming file, line and field: annotations are small and
// a damaged file should be replaced, not half used.
func ReadAnnotations(paths ...string) (*Annotations, error) {
	a := &Annotations{groups: map[string]*annGroup{}, byQID: map[string]*annGroup{}}
	for _, p := range paths {
		if err := a.read(p); err != nil {
			return nil, err
		}
		a.Files = append(a.Files, p)
	}
	for _, g := range a.order {
		sort.Slice(g.spans, func(i, j int) bool {
			if g.spans[i].doc != g.spans[j].doc {
				return g.spans[i].doc < g.spans[j].doc
			}
			return g.spans[i].sent < g.spans[j].sent
		})
		for i := 1; i < len(g.spans); i++ {
			if g.spans[i].doc == g.spans[i-1].doc && g.spans[i].sent == g.spans[i-1].sent {
				return nil, &ingest.InputError{File: g.file, Line: g.spans[i].line, Field: "candidate_id", Msg: fmt.Sprintf("duplicate candidate id %s", truncate(g.spans[i].id, 80))}
			}
		}
	}
	return a, nil
}

func (a *Annotations) read(path string) error {
	rc, err := openInput(path)
	if err != nil {
		return err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 1<<16)
	bad := func(line int, field, format string, args ...any) error {
		return &ingest.InputError{File: path, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	n := 0
	for line := 1; ; line++ {
		b, err := readLine(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			return bad(line, "", "read: %v", err)
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		var r struct {
			ID    *string `json:"candidate_id"`
			Start *int    `json:"response_start"`
			End   *int    `json:"response_end"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			p := jsonProblem("", err)
			return bad(line, p.Field, "%s", p.Msg)
		}
		switch {
		case r.ID == nil:
			return bad(line, "candidate_id", "missing")
		case r.Start == nil:
			return bad(line, "response_start", "missing")
		case r.End == nil:
			return bad(line, "response_end", "missing")
		case *r.Start < 0 || *r.End < *r.Start:
			return bad(line, "response_end", "span [%d, %d) is not a range", *r.Start, *r.End)
		}
		key, ds, qids, doc, sent, err := parseCandidateID(*r.ID)
		if err != nil {
			return bad(line, "candidate_id", "%v", err)
		}
		g := a.groups[key]
		if g == nil {
			g = &annGroup{key: key, dataset: ds, qids: qids, file: path}
			a.groups[key] = g
			a.order = append(a.order, g)
			for _, q := range qids {
				if o := a.byQID[q]; o != nil {
					return bad(line, "candidate_id", "question id %s is in two contexts (%s… and %s…)", q, truncate(o.key, 40), truncate(key, 40))
				}
				a.byQID[q] = g
			}
		}
		g.spans = append(g.spans, annSpan{id: *r.ID, doc: doc, sent: sent, start: *r.Start, end: *r.End, line: line})
		n++
	}
	if n == 0 {
		return bad(0, "", "no annotations (empty file)")
	}
	return nil
}

// byQIDs finds the annotated context of an MRQA context by its question
// ids: the group holding most of them. exact is false when the group's ids
// are not the same set.
func (a *Annotations) byQIDs(dataset string, qids []string) (g *annGroup, exact bool) {
	count := map[*annGroup]int{}
	for _, q := range qids {
		if x := a.byQID[q]; x != nil && x.dataset == dataset {
			count[x]++
		}
	}
	best := 0
	for x, n := range count {
		if n > best || (n == best && g != nil && x.key < g.key) {
			g, best = x, n
		}
	}
	if g == nil {
		return nil, false
	}
	return g, best == len(qids) && best == len(g.qids)
}

// unused returns the annotated contexts of the given datasets that no input
// context used.
func (a *Annotations) unused(datasets map[string]bool) []*annGroup {
	var out []*annGroup
	for _, g := range a.order {
		if !g.used && datasets[g.dataset] {
			out = append(out, g)
		}
	}
	return out
}

// datasets lists the dataset prefixes present.
func (a *Annotations) datasets() map[string]bool {
	m := map[string]bool{}
	for _, g := range a.order {
		m[g.dataset] = true
	}
	return m
}
