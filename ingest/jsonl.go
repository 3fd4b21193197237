package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/reqa/reqa/store"
)

// jsonLines calls fn for every non-blank line of a JSONL file (optionally
// gzipped), with its 1-based line number. Invalid UTF-8 and malformed JSON
// are reported with file and line.
func jsonLines(path string, fn func(line int, obj map[string]json.RawMessage) error) error {
	rc, err := openMaybeGzip(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	defer rc.Close()
	lr := &lineReader{r: bufio.NewReaderSize(rc, 1<<16)}
	records := 0
	for {
		b, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return badInput(path, lr.line+1, "", "read: %v", err)
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if !utf8.Valid(b) {
			return badInput(path, lr.line, "", "invalid UTF-8")
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(b, &obj); err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				return badInput(path, lr.line, "", "malformed JSON at byte %d: %v", se.Offset, err)
			}
			return badInput(path, lr.line, "", "expected a JSON object: %v", err)
		}
		records++
		if err := fn(lr.line, obj); err != nil {
			return err
		}
	}
	if records == 0 {
		return badInput(path, 0, "", "empty file (no JSON lines)")
	}
	return nil
}

// stringField decodes obj[name] as a string; required fields must exist.
func stringField(path string, line int, obj map[string]json.RawMessage, name string, required bool) (string, error) {
	raw, ok := obj[name]
	if !ok || string(raw) == "null" {
		if required {
			return "", badInput(path, line, name, "missing")
		}
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", badInput(path, line, name, "want a string, got %s", truncate(string(raw), 40))
	}
	return s, nil
}

// idField decodes obj[name] as a string or an integer.
func idField(path string, line int, obj map[string]json.RawMessage, name string, required bool) (string, error) {
	raw, ok := obj[name]
	if !ok || string(raw) == "null" {
		if required {
			return "", badInput(path, line, name, "missing")
		}
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		if _, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			return string(n), nil
		}
	}
	return "", badInput(path, line, name, "want a string or an integer, got %s", truncate(string(raw), 40))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// readJSONL reads {"id","title","text"} lines: each line is a context.
func readJSONL(c *Corpus, path string) error {
	before := len(c.Sentences)
	err := jsonLines(path, func(line int, obj map[string]json.RawMessage) error {
		id, err := idField(path, line, obj, "id", false)
		if err != nil {
			return err
		}
		title, err := stringField(path, line, obj, "title", false)
		if err != nil {
			return err
		}
		text, err := stringField(path, line, obj, "text", true)
		if err != nil {
			return err
		}
		c.AddSplitContext(store.Context{ExtID: id, Title: title, Text: text, Source: fmt.Sprintf("%s:%d", path, line)})
		return nil
	})
	if err == nil && len(c.Sentences) == before {
		// Every text was blank: as for a text file, say so here (a
		// directory then skips the file with a warning).
		return badInput(path, 0, "", "empty file (no sentences)")
	}
	return err
}
