package store

import (
	"encoding/binary"
	"fmt"
	"strconv"
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
	// Context is the context choice structured documents were indexed with
	// (package ingest's ContextSection and others), empty when the index
	// holds none.
	Context string `json:"context,omitempty"`
	// BM25 holds the scoring parameters used by every field.
	BM25 BM25Params `json:"bm25"`
	// Fields describes each BM25 field held.
	Fields []FieldMeta `json:"fields"`
	// Dense describes the dense encoder and embeddings, when the index has
	// them.
	Dense *DenseMeta `json:"dense,omitempty"`
	// ContextOf is true when the row set RowsContextOf holds every
	// sentence's context id, kept in step with the sentences by every
	// writer since it was added (a writer from before drops the field
	// when it rewrites the meta, so a stale set is never used): a reader
	// then opens the index without reading every sentence record.
	ContextOf bool `json:"context_of,omitempty"`
	// Engine is set when the index's sentences, contexts, BM25 fields and
	// vectors live in an external engine: the file then holds this meta
	// (Fields and Dense describe what the engine holds), the dense model
	// and vocabulary, the question adapter, fusion parameters, and the
	// blobs BlobDenseMoments and BlobExtIDs; no records, postings or
	// vectors.
	Engine *EngineMeta `json:"engine,omitempty"`
}

// EngineMeta says where an index's data lives when it is not in the file.
type EngineMeta struct {
	// Kind is the engine: "weaviate".
	Kind string `json:"kind"`
	// URL addresses the engine and the collection,
	// "weaviate://HOST:PORT[,HOST:PORT…]/COLLECTION".
	URL string `json:"url"`
	// Shards and Replicas are the collection's layout (0: the engine's
	// default).
	Shards   int `json:"shards,omitempty"`
	Replicas int `json:"replicas,omitempty"`
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
	// Answers is true when the row set RowsDenseAnswers holds every
	// sentence's answer vector for Lambda and the blob BlobDenseMoments
	// their moments, kept in step with the vectors by every writer since
	// they were added. A writer from before them drops this field when it
	// rewrites the meta (it does not know it), so stale answer vectors are
	// never taken for current: readers then mix the vectors themselves.
	Answers bool `json:"answers,omitempty"`
	// GraphSlots is true when the graph (Graph) is also stored split for
	// searching in place: its layer 0 as the row set RowsDenseGraphSlots
	// and the rest as BlobDenseGraphUpper, written with BlobDenseGraph by
	// every writer since they were added. A writer from before them drops
	// this field, as it does Answers, so stale slots are never used.
	GraphSlots bool `json:"graph_slots,omitempty"`
	// ContextVectors says how the context vectors e_c were made: "" by
	// the encoder from each context's text (the default, and every index
	// from before the choice); ContextVectorsWindow from the context's
	// sentences' vectors, weighted by how much of what the model reads of
	// the context each takes up, or ContextVectorsSentences as their plain
	// normalized mean (indexes from before ContextVectorsWindow); neither
	// runs the model for a context with sentences (one without is still
	// embedded from its text). Appends and syncs make new contexts' vectors
	// the same way.
	ContextVectors string `json:"context_vectors,omitempty"`
}

// VectorsID identifies the answer vectors the meta describes: the
// encoder's hash and the context weight λ they were combined with. An
// engine collection is tagged with it (Meta.Engine).
func (d DenseMeta) VectorsID() string {
	return d.Hash + " λ=" + strconv.FormatFloat(d.Lambda, 'g', -1, 64)
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
	// Tokenizer is the tokenizer's name ("word", "wpm", "stem").
	Tokenizer string `json:"tokenizer"`
	// WithContext is true when a document is its sentence followed by its
	// whole context, false when it is the sentence alone.
	WithContext bool `json:"with_context"`
	// Layout says how a sentence + context field's postings are stored:
	// "" (one posting per sentence + context document) or "context"
	// (postings over contexts, combined with the sentence field's when
	// read; package bm25's ContextLayout).
	Layout string `json:"layout,omitempty"`
	// Norm is the text normalisation the field's tokens were made with
	// (package index/tokenize's Norm, "nfkc1": soft hyphens and
	// zero-width characters deleted, NFKC, unknown tokens dropped), ""
	// for text tokenized as it is (indexes before format 4). Questions
	// are tokenized with it, and an append keeps it.
	Norm string `json:"norm,omitempty"`
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
	// Source names the file (and line) the context came from; for a
	// structured document, where it starts: "file:line#slug" or
	// "file:pPAGE#slug".
	Source string
	// Doc, Slug and Paged are set on contexts read from structured documents
	// (Markdown, HTML, PDF, text…) and empty otherwise (datasets, JSONL,
	// SQuAD, and indexes built before them): Doc is the document's file
	// name (an EPUB's followed by the content document the context is in,
	// "book.epub:OEBPS/ch1.xhtml", whose lines Line counts), Slug the
	// GitHub-style anchor of the heading the context sits under (Title
	// then holds the heading path, "H1 › H2 › H3"), and Paged
	// says that its sentences' Line fields count PDF pages, not lines.
	Doc   string
	Slug  string
	Paged bool
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
	// Kind is the kind of block the sentence comes from in a structured
	// document (KindText elsewhere) and Line the 1-based line (PDF: page) it
	// starts on, 0 when unknown. See Anchor.
	Kind Kind
	Line uint32
}

// Kind is the kind of document block a sentence comes from.
type Kind uint8

// Block kinds. KindText is a sentence of a context without structure (a
// dataset's, a JSONL line's, or one stored before kinds were).
const (
	KindText Kind = iota
	KindParagraph
	KindListItem
	KindTableRow
	KindQuote
	KindDefinition
	numKinds
)

var kindNames = [numKinds]string{"text", "paragraph", "list-item", "table-row", "quote", "definition"}

// String returns the kind's name: "text", "paragraph", "list-item",
// "table-row", "quote" or "definition".
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ParseKind returns the kind named name.
func ParseKind(name string) (Kind, bool) {
	for i, n := range kindNames {
		if n == name {
			return Kind(i), true
		}
	}
	return 0, false
}

// Anchor names where the sentence is in its source: for a structured
// document "file:line#slug" or "file:pPAGE#slug" (the slug left out when
// empty), else its context's Source.
func (s Sentence) Anchor(c Context) string {
	if c.Doc == "" || s.Line == 0 {
		return c.Source
	}
	a := c.Doc + ":"
	if c.Paged {
		a += "p"
	}
	a += strconv.FormatUint(uint64(s.Line), 10)
	if c.Slug != "" {
		a += "#" + c.Slug
	}
	return a
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

// Records grew fields over time; a record ends after the last field it
// holds and a reader takes the missing ones as zero, so every older record
// reads as it did (and readers that predate a field skip it). A context
// holds ExtID, Title, Text, Source [, Doc, Slug, flags]; a sentence
// ContextID, Start, length, ExtID [, Kind, Line]. The bracketed fields are
// written only when one of them is set, so records without them are
// byte-identical to those written before they existed.

func (c Context) encode() []byte {
	b := appendString(nil, c.ExtID)
	b = appendString(b, c.Title)
	b = appendString(b, c.Text)
	b = appendString(b, c.Source)
	if c.Doc != "" || c.Slug != "" || c.Paged {
		b = appendString(b, c.Doc)
		b = appendString(b, c.Slug)
		var flags uint64
		if c.Paged {
			flags |= 1
		}
		b = binary.AppendUvarint(b, flags)
	}
	return b
}

func (c *Context) decode(id uint32, p []byte) error {
	d := decoder{b: p}
	c.ID = id
	c.ExtID, c.Title, c.Text, c.Source = d.string(), d.string(), d.string(), d.string()
	if d.err == nil && len(d.b) > 0 {
		c.Doc, c.Slug = d.string(), d.string()
		c.Paged = d.uvarint()&1 != 0
	}
	if d.err != nil {
		return fmt.Errorf("context %d: %w", id, d.err)
	}
	return nil
}

func (s Sentence) encode() []byte {
	b := binary.AppendUvarint(nil, uint64(s.ContextID))
	b = binary.AppendUvarint(b, uint64(s.Start))
	b = binary.AppendUvarint(b, uint64(s.End-s.Start))
	b = appendString(b, s.ExtID)
	if s.Kind != KindText || s.Line != 0 {
		b = binary.AppendUvarint(b, uint64(s.Kind))
		b = binary.AppendUvarint(b, uint64(s.Line))
	}
	return b
}

func (s *Sentence) decode(id uint32, p []byte) error {
	d := decoder{b: p}
	s.ID = id
	s.ContextID = uint32(d.uvarint())
	s.Start = int(d.uvarint())
	s.End = s.Start + int(d.uvarint())
	s.ExtID = d.string()
	if d.err == nil && len(d.b) > 0 {
		k, line := d.uvarint(), d.uvarint()
		if d.err == nil && (k >= uint64(numKinds) || line > 1<<32-1) {
			d.err = fmt.Errorf("kind %d or line %d out of range: %w", k, line, ErrCorrupt)
		}
		s.Kind, s.Line = Kind(k), uint32(line)
	}
	if d.err != nil {
		return fmt.Errorf("sentence %d: %w", id, d.err)
	}
	return nil
}
