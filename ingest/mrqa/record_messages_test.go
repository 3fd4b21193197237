package mrqa

import (
	"strings"
	"testing"
)

// TestParseLineNamesNoGoTypes checks type errors in MRQA lines name the
// field and a JSON kind, never a Go type.
func TestParseLineNamesNoGoTypes(t *testing.T) {
	for _, line := range []string{
		`{"context": 5, "qas": []}`,
		`{"context": "C.", "qas": {}}`,
		`{"context": "C.", "qas": [{"qid": "q", "question": ["x"], "detected_answers": []}]}`,
		`{"context": "C.", "qas": [{"qid": "q", "question": "Q?", "detected_answers": [{"text": 3, "char_spans": [[0, 0]]}]}]}`,
		`{"context": "C.", "qas": [{"qid": "q", "question": "Q?", "detected_answers": [{"text": "C", "char_spans": "x"}]}]}`,
		`{"header": {"dataset": 5}}`,
	} {
		ln, err := ParseLine([]byte(line))
		msgs := []string{}
		if err != nil {
			msgs = append(msgs, err.Error())
		}
		for _, p := range ln.Problems {
			msgs = append(msgs, p.Field+": "+p.Msg)
		}
		if len(msgs) == 0 {
			t.Errorf("%s: accepted", line)
		}
		for _, m := range msgs {
			for _, bad := range []string{"*string", "[]", "mrqa.", "json.RawMessage", "int64", "float64", "Go "} {
				if strings.Contains(m, bad) {
					t.Errorf("%s: message %q shows %q", line, m, bad)
				}
			}
		}
	}
}
