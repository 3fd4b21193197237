package store

import (
	"encoding/binary"
	"fmt"
	"time"
)

// Meta describes an index: what it holds and how it was built.
type Meta struct {
	// FormatVersion is the on-disk format version (set by Commit).
	FormatVersion int `json:"format_version"`
	// Builder names the program that built the index, e.g. "reqa 0.1.0 (go1.26.8)".
	Builder string `json:"builder"`
	// Created is when the build was committed.
	Created time.Time `json:"created"`
	// Contexts and Sentences count the records held.
	Contexts  int `json:"contexts"`
	Sentences int `json:"sentences"`
	// Sources lists the inputs the index was built from.
	Sources []string `json:"sources,omitempty"`
	// Dataset names the ReQA dataset the index was built from, if any, and
	// DatasetDigest fingerprints its candidates so an evaluation can check it
	// was given the index of the very dataset it evaluates.
	Dataset       string `json:"dataset,omitempty"`
	DatasetDigest string `json:"dataset_digest,omitempty"`
	// BM25 holds the scoring parameters used by every field.
	BM25 BM25Params `json:"bm25"`
	// Fields describes each BM25 field held.
	Fields []FieldMeta `json:"fields"`
	// Dense describes the dense encoder and embeddings, when the index has
	// them.
	Dense *DenseMeta `json:"dense,omitempty"`
}

// DenseMeta describes an index's dense embeddings.
type DenseMeta struct {
	// Encoder, Kind, Dim and Hash identify the encoder (its model and
	// vocabulary are stored as blobs).
	Encoder string `json:"encoder"`
	Kind    string `json:"kind"`
	Dim     int    `json:"dim"`
	Hash    string `json:"hash"`
	// Precision is the encoder's weight precision, "fp32" or "int8" for
	// the embedded USE-Lite (encoder.Spec.Precision); "" (indexes from
	// before the choice, other models) is fp32. Questions are embedded by
	// the model stored with the index, so with the same precision.
	Precision string `json:"precision,omitempty"`
	// Lambda is the default context weight λ in normalize(e_s + λ·e_c).
	Lambda float64 `json:"lambda"`
	// Graph is true when an ANN graph over the answer vectors is stored.
	Graph bool `json:"graph"`
	// GraphLambda is the λ the graph's vectors were built with.
	GraphLambda float64 `json:"graph_lambda"`
}

// BM25Params are BM25's free parameters.
type BM25Params struct {
	// Variant is "gensim" (gensim 3.8 summarization.bm25, the MultiReQA
	// paper's scorer) or "lucene".
	Variant string  `json:"variant"`
	K1      float64 `json:"k1"`
	B       float64 `json:"b"`
	// Epsilon is gensim's floor for negative idf, as a fraction of the mean idf.
	Epsilon float64 `json:"epsilon"`
}

// FieldMeta describes one BM25 field: a tokenizer applied to one document form.
type FieldMeta struct {
	// Name is the field's key in the index, e.g. "wpm/ctx".
	Name string `json:"name"`
	// Tokenizer is the tokenizer's name ("word", "wpm").
	Tokenizer string `json:"tokenizer"`
	// WithContext is true when a document is its sentence followed by its
	// whole context, false when it is the sentence alone.
	WithContext bool `json:"with_context"`
	// Layout says how a sentence + context field's postings are stored:
	// "" (one posting per sentence + context document) or "context"
	// (postings over contexts, combined with the sentence field's when
	// read; package bm25's ContextLayout).
	Layout string `json:"layout,omitempty"`
	// Docs is the number of documents (one per sentence).
	Docs int `json:"docs"`
	// Terms is the vocabulary size.
	Terms int `json:"terms"`
	// Tokens is the total number of tokens over all documents.
	Tokens int64 `json:"tokens"`
	// AvgDL is the mean document length in tokens.
	AvgDL float64 `json:"avgdl"`
	// MeanIDF is the mean raw idf over the vocabulary (gensim's floor base).
	MeanIDF float64 `json:"mean_idf"`
	// Digest and DigestTerms fingerprint the term dictionary (see
	// FieldWriter.Digest and Reader.VerifyField).
	Digest      uint32 `json:"digest"`
	DigestTerms int    `json:"digest_terms"`
}

// Field returns the field named name and whether it exists.
func (m Meta) Field(name string) (FieldMeta, bool) {
	for _, f := range m.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return FieldMeta{}, false
}

// Context is a passage that sentences come from: a paragraph, a document or a
// dataset context.
type Context struct {
	// ID is the context's index-internal id, dense from 0.
	ID uint32
	// ExtID is the context's id in its source (a dataset context_id, a
	// JSONL "id"), if any.
	ExtID string
	// Title is the title of the document the context belongs to.
	Title string
	// Text is the whole passage.
	Text string
	// Source names the file (and line) the context came from.
	Source string
}

// Sentence is one answer candidate: a span of its context.
type Sentence struct {
	// ID is the sentence's index-internal id, dense from 0 in input order
	// (ties in ranking are broken by it).
	ID uint32
	// ContextID is the context the sentence belongs to.
	ContextID uint32
	// Start and End are byte offsets of the sentence in its context's Text.
	Start, End int
	// ExtID is the candidate's id in its source dataset, if any.
	ExtID string
}

// Text returns the sentence's text cut from its context.
func (s Sentence) Text(c Context) string {
	if s.Start < 0 || s.End > len(c.Text) || s.Start > s.End {
		return ""
	}
	return c.Text[s.Start:s.End]
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = fmt.Errorf("bad varint: %w", ErrCorrupt)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)) {
		d.err = fmt.Errorf("string overruns record: %w", ErrCorrupt)
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (c Context) encode() []byte {
	b := appendString(nil, c.ExtID)
	b = appendString(b, c.Title)
	b = appendString(b, c.Text)
	return appendString(b, c.Source)
}

func (c *Context) decode(id uint32, p []byte) error {
	d := decoder{b: p}
	c.ID = id
	c.ExtID, c.Title, c.Text, c.Source = d.string(), d.string(), d.string(), d.string()
	if d.err != nil {
		return fmt.Errorf("context %d: %w", id, d.err)
	}
	return nil
}

func (s Sentence) encode() []byte {
	b := binary.AppendUvarint(nil, uint64(s.ContextID))
	b = binary.AppendUvarint(b, uint64(s.Start))
	b = binary.AppendUvarint(b, uint64(s.End-s.Start))
	return appendString(b, s.ExtID)
}

func (s *Sentence) decode(id uint32, p []byte) error {
	d := decoder{b: p}
	s.ID = id
	s.ContextID = uint32(d.uvarint())
	s.Start = int(d.uvarint())
	s.End = s.Start + int(d.uvarint())
	s.ExtID = d.string()
	if d.err != nil {
		return fmt.Errorf("sentence %d: %w", id, d.err)
	}
	return nil
}
