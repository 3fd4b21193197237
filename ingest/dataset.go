package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"unicode/utf8"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/store"
)

// Dataset is a ReQA retrieval set: a corpus whose sentence boundaries are
// given, and questions whose gold answers are candidate sentences.
type Dataset struct {
	// Name is the dataset's name (its directory's base name).
	Name string
	// Dir is where it was read from.
	Dir string
	// Corpus holds the contexts and candidate sentences, with ExtID set to
	// the dataset's context_id and candidate_id.
	Corpus *Corpus
	// Questions in file order.
	Questions []Question
	// Split maps a split name ("tune", "test") to the article titles in it;
	// nil when the dataset has no split.json.
	Split map[string][]string
}

// Question is one dataset question.
type Question struct {
	// ID is the dataset's question id.
	ID string
	// Text is the question.
	Text string
	// Answers are the answer strings, for display.
	Answers []string
	// Gold lists the candidate ids of every sentence holding an answer.
	Gold []string
	// Titles lists the titles of the gold sentences' contexts.
	Titles []string
}

// datasetFile finds NAME.jsonl or NAME.jsonl.gz in dir.
func datasetFile(dir, name string) (string, bool) {
	for _, p := range []string{name + ".jsonl", name + ".jsonl.gz"} {
		full := filepath.Join(dir, p)
		if st, err := os.Stat(full); err == nil && !st.IsDir() {
			return full, true
		}
	}
	return filepath.Join(dir, name+".jsonl"), false
}

// IsDataset reports whether dir looks like a ReQA dataset directory.
func IsDataset(dir string) bool {
	_, ok := datasetFile(dir, "candidates")
	return ok
}

// ReadDataset reads a ReQA dataset directory laid out like MultiReQA's:
// contexts.jsonl (context_id, title, text), candidates.jsonl (candidate_id,
// context_id, start, end in Unicode code points, text), questions.jsonl
// (question_id, question, answers, gold_candidate_ids), each optionally
// gzipped, and an optional split.json ({"tune": [titles], "test": [titles]}).
// Candidates keep their file order.
func ReadDataset(dir string) (*Dataset, error) {
	r, err := newReader(context.Background(), ReadOptions{})
	if err != nil {
		return nil, err
	}
	return r.readDataset(dir)
}

func (r *reader) readDataset(dir string) (*Dataset, error) {
	abs, _ := filepath.Abs(dir)
	d := &Dataset{Name: filepath.Base(abs), Dir: dir, Corpus: &Corpus{Corpus: index.Corpus{Sources: []string{dir}}}}
	c := d.Corpus
	r.c = c
	ctxPath, ok := datasetFile(dir, "contexts")
	if !ok {
		return nil, badInput(ctxPath, 0, "", "missing: a ReQA dataset needs contexts.jsonl(.gz)")
	}
	byExt := map[string]uint32{}
	err := r.jsonFile(ctxPath, func(line int, obj map[string]json.RawMessage) error {
		id, err := idField(ctxPath, line, obj, "context_id", true)
		if err != nil {
			return err
		}
		title, err := stringField(ctxPath, line, obj, "title", false)
		if err != nil {
			return err
		}
		text, err := stringField(ctxPath, line, obj, "text", true)
		if err != nil {
			return err
		}
		if _, dup := byExt[id]; dup {
			return badInput(ctxPath, line, "context_id", "duplicate id %s", id)
		}
		byExt[id] = c.AddContext(store.Context{ExtID: id, Title: title, Text: text, Source: fmt.Sprintf("%s:%d", ctxPath, line)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Code point → byte offset tables, built lazily per context.
	offsets := map[uint32][]int{}
	candPath, _ := datasetFile(dir, "candidates")
	candIDs := map[string]uint32{}
	err = r.jsonFile(candPath, func(line int, obj map[string]json.RawMessage) error {
		id, err := idField(candPath, line, obj, "candidate_id", true)
		if err != nil {
			return err
		}
		ctxExt, err := idField(candPath, line, obj, "context_id", true)
		if err != nil {
			return err
		}
		ctxID, ok := byExt[ctxExt]
		if !ok {
			return badInput(candPath, line, "context_id", "unknown context %s", ctxExt)
		}
		start, err := intField(candPath, line, obj, "start")
		if err != nil {
			return err
		}
		end, err := intField(candPath, line, obj, "end")
		if err != nil {
			return err
		}
		text, err := stringField(candPath, line, obj, "text", false)
		if err != nil {
			return err
		}
		ctx := c.Contexts[ctxID]
		tab, ok := offsets[ctxID]
		if !ok {
			tab = make([]int, 0, len(ctx.Text)+1)
			for i := range ctx.Text {
				tab = append(tab, i)
			}
			tab = append(tab, len(ctx.Text))
			offsets[ctxID] = tab
		}
		if start < 0 || end < start || end >= len(tab) {
			return badInput(candPath, line, "end", "span [%d,%d) outside context %s of %d code points", start, end, ctxExt, len(tab)-1)
		}
		bs, be := tab[start], tab[end]
		if _, ok := obj["text"]; ok && ctx.Text[bs:be] != text {
			return badInput(candPath, line, "text", "does not match the context at [%d,%d): %q", start, end, truncate(ctx.Text[bs:be], 60))
		}
		if _, dup := candIDs[id]; dup {
			return badInput(candPath, line, "candidate_id", "duplicate id %s", truncate(id, 80))
		}
		sid := uint32(len(c.Sentences))
		candIDs[id] = sid
		c.Sentences = append(c.Sentences, store.Sentence{ID: sid, ContextID: ctxID, Start: bs, End: be, ExtID: id})
		return nil
	})
	if err != nil {
		return nil, err
	}
	qPath, ok := datasetFile(dir, "questions")
	if ok {
		err = r.jsonFile(qPath, func(line int, obj map[string]json.RawMessage) error {
			var q Question
			var err error
			if q.ID, err = idField(qPath, line, obj, "question_id", true); err != nil {
				return err
			}
			if q.Text, err = stringField(qPath, line, obj, "question", true); err != nil {
				return err
			}
			if raw, ok := obj["answers"]; ok {
				if err := json.Unmarshal(raw, &q.Answers); err != nil {
					return badInput(qPath, line, "answers", "want a list of strings")
				}
			}
			raw, ok := obj["gold_candidate_ids"]
			if !ok {
				return badInput(qPath, line, "gold_candidate_ids", "missing")
			}
			if err := json.Unmarshal(raw, &q.Gold); err != nil {
				return badInput(qPath, line, "gold_candidate_ids", "want a list of strings")
			}
			if len(q.Gold) == 0 {
				return badInput(qPath, line, "gold_candidate_ids", "empty: a question needs a gold sentence")
			}
			seen := map[string]bool{}
			for _, g := range q.Gold {
				sid, ok := candIDs[g]
				if !ok {
					return badInput(qPath, line, "gold_candidate_ids", "unknown candidate %s", truncate(g, 80))
				}
				t := c.Contexts[c.Sentences[sid].ContextID].Title
				if !seen[t] {
					seen[t] = true
					q.Titles = append(q.Titles, t)
				}
			}
			d.Questions = append(d.Questions, q)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	splitPath := filepath.Join(dir, "split.json")
	if b, err := r.readSmallFile(splitPath); err != nil {
		return nil, err
	} else if b != nil {
		if !utf8.Valid(b) {
			return nil, badInput(splitPath, 0, "", "invalid UTF-8")
		}
		if err := json.Unmarshal(b, &d.Split); err != nil {
			return nil, badInput(splitPath, 0, "", "want {\"tune\": [titles], \"test\": [titles]}")
		}
	}
	c.Dataset = d.Name
	c.Digest = digest(c)
	return d, nil
}

// readSmallFile reads the optional file path whole (nil when it does not
// exist).
func (r *reader) readSmallFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
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
	b, err := in.readAll()
	if err != nil {
		return nil, err
	}
	return b, in.changed(true)
}

func intField(path string, line int, obj map[string]json.RawMessage, name string) (int, error) {
	raw, ok := obj[name]
	if !ok {
		return 0, badInput(path, line, name, "missing")
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil {
		return 0, badInput(path, line, name, "want an integer, got %s", truncate(string(raw), 40))
	}
	return n, nil
}

// SplitQuestions returns the questions whose gold contexts have a title in
// the named split; "all" (or "") returns every question.
func (d *Dataset) SplitQuestions(split string) ([]Question, error) {
	if split == "" || split == "all" {
		return d.Questions, nil
	}
	titles, ok := d.Split[split]
	if !ok {
		if d.Split == nil {
			return nil, fmt.Errorf("dataset %s has no split.json, so --split %s is unavailable", d.Dir, split)
		}
		return nil, fmt.Errorf("dataset %s: split.json has no %q list", d.Dir, split)
	}
	in := map[string]bool{}
	for _, t := range titles {
		in[t] = true
	}
	var out []Question
	for _, q := range d.Questions {
		for _, t := range q.Titles {
			if in[t] {
				out = append(out, q)
				break
			}
		}
	}
	return out, nil
}
