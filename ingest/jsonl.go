package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/internal/display"

	"github.com/reqa/reqa/store"
)

// jsonLines calls fn for every non-blank line of the input, with its
// 1-based line number. Invalid UTF-8 and malformed JSON are reported with
// file and line; errors of the read itself (cancellation, the memory
// limit, binary data…) come as they are, naming the file.
func jsonLines(in *input, fn func(line int, obj map[string]json.RawMessage) error) error {
	path := in.name
	lr := &lineReader{r: bufio.NewReaderSize(in.r, 1<<16)}
	records := 0
	for {
		b, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
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
				return badInput(path, lr.line, "", "malformed JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
			}
			return badInput(path, lr.line, "", "expected a JSON object {...}, got %s", jsonKind(bytes.TrimSpace(b)))
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

// jsonKind names the kind of JSON value b starts with, for messages.
func jsonKind(b []byte) string {
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// jsonLinesFile is jsonFile with a reader of its own (no memory limit, no
// cancellation).
func jsonLinesFile(path string, fn func(line int, obj map[string]json.RawMessage) error) error {
	r, err := newReader(context.Background(), ReadOptions{})
	if err != nil {
		return err
	}
	return r.jsonFile(path, fn)
}

// jsonFile opens the JSONL file path and calls fn for its lines (see
// jsonLines), checking the file did not change while read.
func (r *reader) jsonFile(path string, fn func(line int, obj map[string]json.RawMessage) error) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return notRegular(path, st.Mode())
	}
	in, err := r.openFile(path, "jsonl")
	if err != nil {
		return err
	}
	defer in.close()
	if err := jsonLines(in, fn); err != nil {
		if cerr := in.changed(false); cerr != nil {
			return cerr
		}
		return err
	}
	if err := in.changed(true); err != nil {
		return err
	}
	return r.settle()
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

func truncate(s string, n int) string { return display.Truncate(s, n) }

// readJSONL reads {"id","title","text"} lines: each line is a context. A
// record id must not repeat (ErrDuplicateID, naming both lines) unless
// ReadOptions.Dedupe, which keeps the last record of an id.
func (r *reader) readJSONL(in *input) error {
	c := r.c
	path := in.name
	before := len(c.Sentences)
	err := jsonLines(in, func(line int, obj map[string]json.RawMessage) error {
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
		where := fmt.Sprintf("%s:%d", path, line)
		if err := r.noteID(id, where); err != nil {
			return err
		}
		lo := uint32(len(c.Contexts))
		c.AddSplitContext(store.Context{ExtID: id, Title: title, Text: text, Source: where})
		if id != "" {
			r.ids[id] = idSeen{where: where, lo: lo, hi: uint32(len(c.Contexts))}
		}
		return r.settle()
	})
	if err == nil && len(c.Sentences) == before {
		// Every text was blank: as for a text file, say so here (a
		// directory then skips the file with a warning).
		return badInput(path, 0, "", "empty file (no sentences)")
	}
	return err
}

// noteID checks a JSONL record id against those seen: a repeat is an
// error naming both lines, or under Dedupe drops the earlier record.
func (r *reader) noteID(id, where string) error {
	if id == "" {
		return nil
	}
	prev, had := r.ids[id]
	u := idUndo{id: id, prev: prev, had: had}
	if had {
		file, line := splitWhere(where)
		if !r.opt.Dedupe {
			return badInputOf(ErrDuplicateID, file, line, "id", "repeated id %s: %s has it too (give every record its own id, or --dedupe to keep the last)",
				truncate(id, 80), prev.where)
		}
		if r.dropped == nil {
			r.dropped = map[uint32]bool{}
		}
		for x := prev.lo; x < prev.hi; x++ {
			r.dropped[x] = true
			u.dropped = append(u.dropped, x)
		}
		u.deduped = true
		r.c.Deduped++
	}
	if r.idLog != nil {
		r.idLog = append(r.idLog, u)
	}
	return nil
}

// splitWhere splits "file:line".
func splitWhere(where string) (string, int) {
	i := strings.LastIndexByte(where, ':')
	n, _ := strconv.Atoi(where[i+1:])
	return where[:i], n
}

// compact removes the contexts (and their sentences) of JSONL records
// replaced under Dedupe, renumbering the rest.
func (r *reader) compact() {
	if len(r.dropped) == 0 {
		return
	}
	c := r.c
	newID := make([]uint32, len(c.Contexts))
	contexts := c.Contexts[:0]
	for i, x := range c.Contexts {
		if r.dropped[uint32(i)] {
			continue
		}
		newID[i] = uint32(len(contexts))
		x.ID = newID[i]
		contexts = append(contexts, x)
	}
	sentences := c.Sentences[:0]
	for _, s := range c.Sentences {
		if r.dropped[s.ContextID] {
			continue
		}
		s.ContextID = newID[s.ContextID]
		s.ID = uint32(len(sentences))
		sentences = append(sentences, s)
	}
	// A file's contexts [lo, hi) become those kept among them.
	keptBefore := make([]uint32, len(c.Contexts)+1)
	for i := range c.Contexts {
		keptBefore[i+1] = keptBefore[i]
		if !r.dropped[uint32(i)] {
			keptBefore[i+1]++
		}
	}
	for i, f := range c.SourceFiles {
		c.SourceFiles[i].Contexts = [2]uint32{keptBefore[f.Contexts[0]], keptBefore[f.Contexts[1]]}
	}
	c.Contexts, c.Sentences = contexts, sentences
	c.Warnings = append(c.Warnings, fmt.Sprintf("--dedupe: %d JSONL records replaced by a later record with the same id", c.Deduped))
	r.dropped = nil
	r.est = index.MemoryEstimator{}
}
