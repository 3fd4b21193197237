package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/reqa/reqa/internal/display"
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
	r, err := newReader(context.Background(), ReadOptions{})
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, notRegular(path, st.Mode())
	}
	in, err := r.openFile(path, "squad")
	if err != nil {
		return nil, err
	}
	defer in.close()
	return r.squadFile(in)
}

// squadFile reads and parses the whole input as SQuAD JSON.
func (r *reader) squadFile(in *input) (*SQuADFile, error) {
	path := in.name
	b, err := in.readAll()
	if err != nil {
		return nil, err
	}
	if err := in.changed(true); err != nil {
		return nil, err
	}
	if err := checkUTF8(path, b); err != nil {
		return nil, err
	}
	var f SQuADFile
	if err := json.Unmarshal(b, &f); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, badInput(path, lineOf(b, se.Offset), "", "malformed JSON: %s", strings.TrimPrefix(se.Error(), "json: "))
		case errors.As(err, &te):
			return nil, badInput(path, lineOf(b, te.Offset), te.Field, "want %s, got %s", display.JSONKind(te.Type), jsonValueName(te.Value))
		}
		return nil, badInput(path, 0, "", "malformed SQuAD JSON")
	}
	if f.Data == nil {
		return nil, badInput(path, 0, "data", "missing: not a SQuAD file")
	}
	return &f, nil
}

// jsonValueName names the JSON value kinds encoding/json reports
// ("number", "string", "array", "object", "bool", "number 1e99").
func jsonValueName(v string) string {
	switch {
	case v == "array":
		return "a list"
	case v == "object":
		return "an object"
	case v == "bool":
		return "true or false"
	case v == "string":
		return "a string"
	case strings.HasPrefix(v, "number"):
		if rest := strings.TrimSpace(strings.TrimPrefix(v, "number")); rest != "" {
			return "the number " + truncate(rest, 40)
		}
		return "a number"
	}
	return truncate(v, 40)
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

func (r *reader) readSQuAD(in *input) error {
	path := in.name
	f, err := r.squadFile(in)
	if err != nil {
		return err
	}
	c := r.c
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
