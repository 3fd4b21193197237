package ingest

import (
	"encoding/json"
	"strings"
)

// Pair is one training example for `reqa tune --pairs`: a question and the
// index sentence(s) that answer it, named by id or by text.
type Pair struct {
	// Question is the question text.
	Question string
	// AnswerIDs name gold sentences: a candidate id from a ReQA dataset, or
	// the index-internal sentence id (`reqa ask --json` prints it as
	// sentence_id) written as a number.
	AnswerIDs []string
	// AnswerTexts give gold sentences by their exact text (surrounding
	// white space ignored).
	AnswerTexts []string
	// Group, if set, names the pair's group (e.g. its document); early
	// stopping holds out whole groups.
	Group string
	// Line is the pair's line in its file, for error messages.
	Line int
}

// ReadPairs reads training pairs from a JSONL file (optionally gzipped), one
// object per line:
//
//	{"question": "…", "answer_id": "…" | 17}
//	{"question": "…", "answer_ids": ["…", 17]}
//	{"question": "…", "answer": "the answer sentence's text"}
//	{"question": "…", "answers": ["…"], "group": "doc-3"}
//
// Each line needs a question and at least one answer. Errors name the
// file, line and field.
func ReadPairs(path string) ([]Pair, error) {
	var out []Pair
	err := jsonLinesFile(path, func(line int, obj map[string]json.RawMessage) error {
		q, err := stringField(path, line, obj, "question", true)
		if err != nil {
			return err
		}
		if strings.TrimSpace(q) == "" {
			return badInput(path, line, "question", "empty")
		}
		p := Pair{Question: q, Line: line}
		if p.Group, err = idField(path, line, obj, "group", false); err != nil {
			return err
		}
		if id, err := idField(path, line, obj, "answer_id", false); err != nil {
			return err
		} else if id != "" {
			p.AnswerIDs = append(p.AnswerIDs, id)
		}
		if raw, ok := obj["answer_ids"]; ok && string(raw) != "null" {
			var ids []json.RawMessage
			if err := json.Unmarshal(raw, &ids); err != nil {
				return badInput(path, line, "answer_ids", "want a list of ids, got %s", truncate(string(raw), 40))
			}
			for _, r := range ids {
				id, err := idField(path, line, map[string]json.RawMessage{"answer_ids": r}, "answer_ids", true)
				if err != nil {
					return err
				}
				p.AnswerIDs = append(p.AnswerIDs, id)
			}
		}
		if a, err := stringField(path, line, obj, "answer", false); err != nil {
			return err
		} else if strings.TrimSpace(a) != "" {
			p.AnswerTexts = append(p.AnswerTexts, strings.TrimSpace(a))
		}
		if raw, ok := obj["answers"]; ok && string(raw) != "null" {
			var as []string
			if err := json.Unmarshal(raw, &as); err != nil {
				return badInput(path, line, "answers", "want a list of strings, got %s", truncate(string(raw), 40))
			}
			for _, a := range as {
				if strings.TrimSpace(a) != "" {
					p.AnswerTexts = append(p.AnswerTexts, strings.TrimSpace(a))
				}
			}
		}
		if len(p.AnswerIDs) == 0 && len(p.AnswerTexts) == 0 {
			return badInput(path, line, "answer_id", "missing: give answer_id, answer_ids, answer or answers")
		}
		out = append(out, p)
		return nil
	})
	return out, err
}
