package mrqa

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// jsonlWriter writes one JSON object per line into a gzipped file.
type jsonlWriter struct {
	f   *os.File
	bw  *bufio.Writer
	gz  *gzip.Writer
	enc *json.Encoder
	n   int
	// done is set once closed.
	done bool
}

func newJSONLWriter(path string) (*jsonlWriter, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	w := &jsonlWriter{f: f}
	w.bw = bufio.NewWriterSize(f, 1<<16)
	w.gz, _ = gzip.NewWriterLevel(w.bw, gzip.BestSpeed)
	w.enc = json.NewEncoder(w.gz)
	w.enc.SetEscapeHTML(false)
	return w, nil
}

func (w *jsonlWriter) write(v any) error {
	w.n++
	return w.enc.Encode(v)
}

func (w *jsonlWriter) close() error {
	if w.done {
		return nil
	}
	w.done = true
	err := w.gz.Close()
	if e := w.bw.Flush(); err == nil {
		err = e
	}
	if e := w.f.Sync(); err == nil {
		err = e
	}
	if e := w.f.Close(); err == nil {
		err = e
	}
	return err
}

// The records of a ReQA dataset, as package ingest reads them.
type contextRec struct {
	ContextID int    `json:"context_id"`
	Title     string `json:"title"`
	Text      string `json:"text"`
}

type candidateRec struct {
	CandidateID string `json:"candidate_id"`
	ContextID   int    `json:"context_id"`
	Start       int    `json:"start"`
	End         int    `json:"end"`
	Text        string `json:"text"`
}

type questionRec struct {
	QuestionID string   `json:"question_id"`
	Question   string   `json:"question"`
	Answers    []string `json:"answers"`
	Gold       []string `json:"gold_candidate_ids"`
}

// outDir writes a dataset into a temporary directory beside the target and
// moves it into place on commit, so that the target holds either nothing
// new or a whole dataset.
type outDir struct {
	target, tmp            string
	contexts, cands, quest *jsonlWriter
	closed                 bool
}

// checkTarget refuses a target that exists and is not an empty directory,
// unless force is set.
func checkTarget(target string, force bool) error {
	st, err := os.Stat(target)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("output %s exists and is not a directory", target)
	}
	ents, err := os.ReadDir(target)
	if err != nil {
		return err
	}
	if len(ents) > 0 && !force {
		return fmt.Errorf("output %s exists and is not empty; choose another --out or pass --force to replace it", target)
	}
	return nil
}

func createOutDir(target string, force bool) (*outDir, error) {
	if err := checkTarget(target, force); err != nil {
		return nil, err
	}
	parent := filepath.Dir(filepath.Clean(target))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(target)+".tmp-")
	if err != nil {
		return nil, err
	}
	o := &outDir{target: target, tmp: tmp}
	for _, x := range []struct {
		name string
		w    **jsonlWriter
	}{{"contexts.jsonl.gz", &o.contexts}, {"candidates.jsonl.gz", &o.cands}, {"questions.jsonl.gz", &o.quest}} {
		w, err := newJSONLWriter(filepath.Join(tmp, x.name))
		if err != nil {
			o.abort()
			return nil, err
		}
		*x.w = w
	}
	return o, nil
}

// writeFile adds a plain file to the dataset.
func (o *outDir) writeFile(name string, b []byte) error {
	return os.WriteFile(filepath.Join(o.tmp, name), b, 0o644)
}

func (o *outDir) closeWriters() error {
	if o.closed {
		return nil
	}
	o.closed = true
	var first error
	for _, w := range []*jsonlWriter{o.contexts, o.cands, o.quest} {
		if w == nil {
			continue
		}
		if err := w.close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// commit moves the finished dataset to the target, replacing an existing
// directory (checked again, in case it appeared meanwhile).
func (o *outDir) commit(force bool) error {
	if err := o.closeWriters(); err != nil {
		o.abort()
		return fmt.Errorf("write %s: %w", o.target, err)
	}
	if err := checkTarget(o.target, force); err != nil {
		o.abort()
		return err
	}
	var old string
	if _, err := os.Stat(o.target); err == nil {
		old = o.tmp + ".old"
		if err := os.Rename(o.target, old); err != nil {
			o.abort()
			return fmt.Errorf("replace %s: %w", o.target, err)
		}
	}
	if err := os.Rename(o.tmp, o.target); err != nil {
		if old != "" {
			_ = os.Rename(old, o.target)
		}
		o.abort()
		return fmt.Errorf("move dataset into %s: %w", o.target, err)
	}
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("remove the replaced dataset %s: %w", old, err)
		}
	}
	if d, err := os.Open(filepath.Dir(filepath.Clean(o.target))); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// abort removes the temporary directory.
func (o *outDir) abort() {
	_ = o.closeWriters()
	_ = os.RemoveAll(o.tmp)
}
