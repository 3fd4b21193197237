package mrqa

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reqa/reqa/internal/display"
)

// Header is the first line of an MRQA file: {"header": {"dataset": …,
// "split": …}}.
type Header struct {
	Dataset string `json:"dataset"`
	Split   string `json:"split"`
}

// Context is one MRQA context line: a context text and its questions.
type Context struct {
	// Text is the raw context, tags included.
	Text string
	// QIDs lists the id of every question of the context, in file order,
	// including questions rejected for other faults: candidate ids are made
	// of them.
	QIDs []string
	// QAs are the well-formed questions.
	QAs []QA
}

// QA is one question of a context.
type QA struct {
	// QID is the question's unique id (MRQA's "qid", SQuAD's "id").
	QID string
	// Question is the question text, unchanged.
	Question string
	// Answers lists every accepted answer ("answers"), or the detected
	// answer texts when the record has none.
	Answers []string
	// Spans are the answer spans found in the context: code point offsets,
	// End exclusive (MRQA's inclusive ends plus one). Every span lies inside
	// the context and matches its answer text.
	Spans []Span
	// Field locates the question in its record ("qas[3]").
	Field string
}

// Span is a range [Start, End) of code points (or, where said, bytes).
type Span struct {
	Start, End int
}

// Problem is a fault in one part of a record; the part is left out and the
// rest of the record is used.
type Problem struct {
	// Field locates the fault ("qas[2].detected_answers[0].char_spans[1]").
	Field string
	// Msg says what is wrong.
	Msg string
}

// Error formats the problem.
func (p Problem) Error() string {
	if p.Field == "" {
		return p.Msg
	}
	return fmt.Sprintf("field %q: %s", p.Field, p.Msg)
}

// Line is one parsed MRQA line: a header or a context.
type Line struct {
	Header  *Header
	Context *Context
	// Problems lists the faults of parts left out of Context.
	Problems []Problem
}

// rawLine and friends decode a line; pointers tell missing fields from
// empty ones, and raw messages confine a type error to the question or
// answer that has it.
type rawLine struct {
	Header  *json.RawMessage   `json:"header"`
	Context *string            `json:"context"`
	QAs     *[]json.RawMessage `json:"qas"`
}

type rawQA struct {
	QID      *json.RawMessage   `json:"qid"`
	Question *string            `json:"question"`
	Answers  []json.RawMessage  `json:"answers"`
	Detected *[]json.RawMessage `json:"detected_answers"`
}

type rawDetected struct {
	Text      *string            `json:"text"`
	CharSpans *[]json.RawMessage `json:"char_spans"`
}

// ParseLine parses one line of an MRQA file. A line that is not a JSON
// object, or that lacks the "context" string or the "qas" list, is an error
// (*Problem). Faults confined to one question (missing "qid", "question" or
// "detected_answers", a wrong type) or to one answer span (not a pair of
// integers, outside the context, not matching the answer text) leave that
// question or span out and are listed in Line.Problems. Answer spans are
// checked against the context in code points, as Python counts them; a
// span matches when the context's text there equals the answer text, or
// equals it ignoring case and runs of white space.
func ParseLine(b []byte) (Line, error) {
	b = bytes.TrimSpace(b)
	if !utf8.Valid(b) {
		return Line{}, &Problem{Msg: "invalid UTF-8"}
	}
	var raw rawLine
	if err := json.Unmarshal(b, &raw); err != nil {
		return Line{}, jsonProblem("", err)
	}
	if raw.Header != nil && raw.Context == nil {
		var h Header
		if err := json.Unmarshal(*raw.Header, &h); err != nil {
			return Line{}, jsonProblem("header", err)
		}
		return Line{Header: &h}, nil
	}
	if raw.Context == nil {
		return Line{}, &Problem{Field: "context", Msg: "missing (neither a header nor a context line)"}
	}
	if raw.QAs == nil {
		return Line{}, &Problem{Field: "qas", Msg: "missing"}
	}
	c := &Context{Text: *raw.Context}
	ln := Line{Context: c}
	var idx *cpIndex
	seen := map[string]bool{}
	for i, rq := range *raw.QAs {
		field := fmt.Sprintf("qas[%d]", i)
		var q rawQA
		if err := json.Unmarshal(rq, &q); err != nil {
			ln.Problems = append(ln.Problems, *jsonProblem(field, err))
			continue
		}
		qid, p := parseQID(field+".qid", q.QID)
		if p != nil {
			ln.Problems = append(ln.Problems, *p)
			continue
		}
		if seen[qid] {
			ln.Problems = append(ln.Problems, Problem{field + ".qid", fmt.Sprintf("duplicate qid %q in this context", qid)})
			continue
		}
		seen[qid] = true
		c.QIDs = append(c.QIDs, qid)
		if q.Question == nil {
			ln.Problems = append(ln.Problems, Problem{field + ".question", "missing"})
			continue
		}
		if strings.TrimSpace(*q.Question) == "" {
			ln.Problems = append(ln.Problems, Problem{field + ".question", "empty"})
			continue
		}
		if q.Detected == nil {
			ln.Problems = append(ln.Problems, Problem{field + ".detected_answers", "missing"})
			continue
		}
		qa := QA{QID: qid, Question: *q.Question, Field: field}
		for j, ra := range q.Answers {
			var s string
			if err := json.Unmarshal(ra, &s); err != nil {
				ln.Problems = append(ln.Problems, Problem{fmt.Sprintf("%s.answers[%d]", field, j), "want a string"})
				continue
			}
			qa.Answers = append(qa.Answers, s)
		}
		var detTexts []string
		for j, rd := range *q.Detected {
			df := fmt.Sprintf("%s.detected_answers[%d]", field, j)
			var d rawDetected
			if err := json.Unmarshal(rd, &d); err != nil {
				ln.Problems = append(ln.Problems, *jsonProblem(df, err))
				continue
			}
			if d.Text == nil {
				ln.Problems = append(ln.Problems, Problem{df + ".text", "missing"})
				continue
			}
			if d.CharSpans == nil {
				ln.Problems = append(ln.Problems, Problem{df + ".char_spans", "missing"})
				continue
			}
			detTexts = append(detTexts, *d.Text)
			for k, rs := range *d.CharSpans {
				sf := fmt.Sprintf("%s.char_spans[%d]", df, k)
				var pair []int
				if err := json.Unmarshal(rs, &pair); err != nil || len(pair) != 2 {
					ln.Problems = append(ln.Problems, Problem{sf, "want [start, end], two integers"})
					continue
				}
				if idx == nil {
					idx = newCPIndex(c.Text)
				}
				sp, p := checkSpan(idx, pair[0], pair[1], *d.Text)
				if p != "" {
					ln.Problems = append(ln.Problems, Problem{sf, p})
					continue
				}
				qa.Spans = append(qa.Spans, sp)
			}
		}
		if len(qa.Answers) == 0 {
			qa.Answers = detTexts
		}
		c.QAs = append(c.QAs, qa)
	}
	return ln, nil
}

// parseQID decodes a question id: a non-empty string (or an integer)
// without '/' or white space, which would make candidate ids ambiguous.
func parseQID(field string, raw *json.RawMessage) (string, *Problem) {
	if raw == nil || string(*raw) == "null" {
		return "", &Problem{field, "missing"}
	}
	var s string
	if err := json.Unmarshal(*raw, &s); err != nil {
		var n json.Number
		if err := json.Unmarshal(*raw, &n); err != nil {
			return "", &Problem{field, "want a string"}
		}
		s = n.String()
	}
	if s == "" {
		return "", &Problem{field, "empty"}
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return r == '/' || unicode.IsSpace(r) }); i >= 0 {
		return "", &Problem{field, fmt.Sprintf("%q holds %q, which candidate ids use as a separator", truncate(s, 40), s[i:i+1])}
	}
	return s, nil
}

// checkSpan validates MRQA's inclusive [start, end] code point span against
// the context and the answer text, returning it as [start, end+1).
func checkSpan(idx *cpIndex, start, end int, text string) (Span, string) {
	n := idx.len()
	if start < 0 || end < start || end >= n {
		return Span{}, fmt.Sprintf("[%d, %d] outside the context of %d characters (want 0 ≤ start ≤ end < %d)", start, end, n, n)
	}
	got := idx.s[idx.byteAt(start):idx.byteAt(end+1)]
	if got != text && !sameFolded(got, text) {
		return Span{}, fmt.Sprintf("[%d, %d] is %q in the context, not the answer text %q", start, end, truncate(got, 40), truncate(text, 40))
	}
	return Span{start, end + 1}, ""
}

// sameFolded compares two strings ignoring case and runs of white space.
func sameFolded(a, b string) bool {
	return strings.EqualFold(strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " "))
}

// jsonProblem turns a JSON decoding error into a Problem naming the field.
func jsonProblem(prefix string, err error) *Problem {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" && te.Type != nil && te.Type.Kind().String() == "struct" {
			return &Problem{Field: prefix, Msg: fmt.Sprintf("want a JSON object, got JSON %s", te.Value)}
		}
		f := te.Field
		if prefix != "" && f != "" {
			f = prefix + "." + f
		} else if f == "" {
			f = prefix
		}
		return &Problem{Field: f, Msg: fmt.Sprintf("want %s, got JSON %s", display.JSONKind(te.Type), te.Value)}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &Problem{Field: prefix, Msg: fmt.Sprintf("malformed JSON at byte %d: %v", se.Offset, err)}
	}
	return &Problem{Field: prefix, Msg: fmt.Sprintf("malformed: %v", err)}
}

func truncate(s string, n int) string { return display.Truncate(s, n) }
