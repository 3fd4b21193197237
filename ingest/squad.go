package ingest

import (
	"encoding/json"
	"fmt"

	"github.com/reqa/reqa/store"
)

// SQuADFile is the shape of a SQuAD v1.1/v2.0 JSON file.
type SQuADFile struct {
	Version string         `json:"version"`
	Data    []SQuADArticle `json:"data"`
}

// SQuADArticle is one article of a SQuAD file.
type SQuADArticle struct {
	Title      string           `json:"title"`
	Paragraphs []SQuADParagraph `json:"paragraphs"`
}

// SQuADParagraph is one context with its questions.
type SQuADParagraph struct {
	Context string `json:"context"`
	QAs     []struct {
		ID       string `json:"id"`
		Question string `json:"question"`
		Answers  []struct {
			Text        string `json:"text"`
			AnswerStart int    `json:"answer_start"`
		} `json:"answers"`
	} `json:"qas"`
}

// ReadSQuADFile parses a SQuAD JSON file (optionally gzipped).
func ReadSQuADFile(path string) (*SQuADFile, error) {
	b, err := readAll(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if err := checkUTF8(path, b); err != nil {
		return nil, err
	}
	var f SQuADFile
	if err := json.Unmarshal(b, &f); err != nil {
		if se, ok := err.(*json.SyntaxError); ok {
			return nil, badInput(path, lineOf(b, se.Offset), "", "malformed JSON: %v", err)
		}
		if te, ok := err.(*json.UnmarshalTypeError); ok {
			return nil, badInput(path, lineOf(b, te.Offset), te.Field, "want %s, got %s", te.Type, te.Value)
		}
		return nil, badInput(path, 0, "", "malformed SQuAD JSON: %v", err)
	}
	if f.Data == nil {
		return nil, badInput(path, 0, "data", "missing: not a SQuAD file")
	}
	return &f, nil
}

func lineOf(b []byte, off int64) int {
	line := 1
	for i := int64(0); i < off && i < int64(len(b)); i++ {
		if b[i] == '\n' {
			line++
		}
	}
	return line
}

func readSQuAD(c *Corpus, path string) error {
	f, err := ReadSQuADFile(path)
	if err != nil {
		return err
	}
	before := len(c.Sentences)
	for ai, a := range f.Data {
		for pi, p := range a.Paragraphs {
			c.AddSplitContext(store.Context{Title: a.Title, Text: p.Context, Source: fmt.Sprintf("%s#data[%d].paragraphs[%d]", path, ai, pi)})
		}
	}
	if len(c.Sentences) == before {
		return badInput(path, 0, "data", "empty (no paragraphs with text)")
	}
	return nil
}
