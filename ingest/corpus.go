package ingest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/index/sentence"
	"github.com/reqa/reqa/store"
)

// ErrBadInput is wrapped by every *InputError.
var ErrBadInput = errors.New("bad input")

// InputError reports bad input at a place in a file.
type InputError struct {
	// File is the input file.
	File string
	// Line is the 1-based line number, or 0 when the error is about the
	// whole file.
	Line int
	// Field names the JSON field at fault, if any.
	Field string
	// Msg says what is wrong.
	Msg string
	// Err, if set, is a sentinel saying what kind of bad input this is
	// (ErrBinary, ErrNotRegular, ErrDuplicateID, ErrDecompressionBomb…).
	Err error
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		fmt.Fprintf(&b, "field %q: ", e.Field)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap makes errors.Is(err, ErrBadInput) true, and errors.Is(err,
// e.Err) when Err is set.
func (e *InputError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrBadInput, e.Err}
	}
	return []error{ErrBadInput}
}

func badInput(file string, line int, field, format string, args ...any) error {
	return &InputError{File: file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// badInputOf is badInput with a sentinel saying what kind of bad input it is.
func badInputOf(kind error, file string, line int, field, format string, args ...any) error {
	return &InputError{File: file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...), Err: kind}
}

// Corpus is what the readers make of their inputs: the contexts and
// sentences to index (an [index.Corpus], whose contexts Form shapes as a
// context choice says) and what reading found on the way. It is an
// [index.Input]: index.Build and index.Append take it as it is.
type Corpus struct {
	index.Corpus
	// Warnings collects non-fatal problems (skipped files and the like).
	Warnings []string
	// Files lists every file met while reading the inputs — read, skipped
	// or refused, with the reason — in the order met; [Corpus.FileCounts]
	// and [Corpus.FileSummary] count them by kind.
	Files []FileResult
	// Deduped counts the JSONL records replaced by a later record with
	// the same id (ReadOptions.Dedupe).
	Deduped int
	// docs keeps the structure of the documents read (text.go).
	docs *documents
}

// Bounds on what one context and one sentence of free text may hold.
// Every sentence's BM25 document is the sentence followed by its whole
// context, so indexing a context costs its sentence count times its length:
// a long paragraph (a 100 MB single-line file is one) would take quadratic
// time and memory. A longer passage is cut at sentence boundaries into
// consecutive contexts of at most MaxContextBytes, and a sentence longer than
// MaxSentenceBytes (text without sentence ends) into pieces at white space;
// each cut is reported in Corpus.Warnings. SQuAD v1.1 paragraphs (at most
// 4,065 bytes) are never cut. ReQA datasets, whose spans are given, are not
// affected.
const (
	MaxContextBytes  = 4 << 10
	MaxSentenceBytes = 2 << 10
)

// AddSplitContext appends a context and its sentences as found by the
// English sentence splitter (sentence.English: Punkt with abbreviations, so
// "Dr. Smith" stays whole; the MultiReQA boundaries come from datasets). A
// context with no sentence (only white space) is dropped; a context or
// sentence over the bounds above is cut.
func (c *Corpus) AddSplitContext(ctx store.Context) {
	spans := sentence.English.Split(ctx.Text)
	if len(spans) == 0 {
		return
	}
	spans, cutSentences := splitLongSentences(ctx.Text, spans, MaxSentenceBytes)
	if cutSentences > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %d sentences over %d bytes cut at white space", ctx.Source, cutSentences, MaxSentenceBytes))
	}
	if len(ctx.Text) <= MaxContextBytes {
		c.addSpans(ctx, spans, 0)
		return
	}
	// Consecutive windows of whole sentences, each at most MaxContextBytes
	// (a single longer sentence — only possible if MaxSentenceBytes were
	// larger — gets a window of its own).
	windows := sentenceWindows(spans)
	if len(windows) == 1 {
		c.addSpans(ctx, spans, 0)
		return
	}
	c.Warnings = append(c.Warnings, fmt.Sprintf("%s: passage of %d bytes cut into %d contexts of at most %d bytes", ctx.Source, len(ctx.Text), len(windows), MaxContextBytes))
	for n, w := range windows {
		part := ctx
		lo, hi := w[0].Start, w[len(w)-1].End
		part.Text = ctx.Text[lo:hi]
		part.Source = fmt.Sprintf("%s (part %d of %d)", ctx.Source, n+1, len(windows))
		if ctx.ExtID != "" {
			part.ExtID = fmt.Sprintf("%s#%d", ctx.ExtID, n+1)
		}
		c.addSpans(part, w, lo)
	}
}

// addSpans appends ctx and its sentences, whose spans are offsets into a
// text that ctx.Text starts at byte off of.
func (c *Corpus) addSpans(ctx store.Context, spans []sentence.Span, off int) {
	id := c.AddContext(ctx)
	for _, sp := range spans {
		c.Sentences = append(c.Sentences, store.Sentence{ID: uint32(len(c.Sentences)), ContextID: id, Start: sp.Start - off, End: sp.End - off})
	}
}

// splitLongSentences cuts every span of text longer than max bytes into
// pieces of at most max bytes, at the last white space before the limit
// (at a character boundary when there is none), dropping blank pieces. It
// returns the spans and how many were cut.
func splitLongSentences(text string, spans []sentence.Span, max int) ([]sentence.Span, int) {
	long := 0
	for _, sp := range spans {
		if sp.End-sp.Start > max {
			long++
		}
	}
	if long == 0 {
		return spans, 0
	}
	out := make([]sentence.Span, 0, len(spans)+long)
	for _, sp := range spans {
		start := sp.Start
		for start < sp.End {
			for start < sp.End && isSpace(text[start]) {
				start++
			}
			if start == sp.End {
				break
			}
			end := sp.End
			if end-start > max {
				end = start + max
				cut := strings.LastIndexAny(text[start:end], " \t\n\r\f\v")
				if cut > 0 {
					end = start + cut
				} else {
					for end > start && !utf8.RuneStart(text[end]) {
						end--
					}
					if end == start { // cannot happen with valid UTF-8 and max ≥ 4
						end = start + max
					}
				}
			}
			e := end
			for e > start && isSpace(text[e-1]) {
				e--
			}
			if e > start && strings.TrimSpace(text[start:e]) != "" {
				out = append(out, sentence.Span{Start: start, End: e})
			}
			start = end
		}
	}
	return out, long
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v'
}

// checkUTF8 reports the first line holding invalid UTF-8.
func checkUTF8(path string, b []byte) error {
	if utf8.Valid(b) {
		return nil
	}
	line := 1
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		var l []byte
		if i < 0 {
			l, b = b, nil
		} else {
			l, b = b[:i], b[i+1:]
		}
		if !utf8.Valid(l) {
			return badInput(path, line, "", "invalid UTF-8")
		}
		line++
	}
	return badInput(path, 0, "", "invalid UTF-8")
}

// lineReader reads lines of any length, counting them.
type lineReader struct {
	r    *bufio.Reader
	line int
}

func (l *lineReader) next() ([]byte, error) {
	b, err := l.r.ReadBytes('\n')
	if len(b) == 0 && err != nil {
		return nil, err
	}
	l.line++
	return bytes.TrimRight(b, "\r\n"), nil
}

// digest fingerprints a dataset's candidates.
func digest(c *Corpus) string {
	h := sha256.New()
	for _, s := range c.Sentences {
		ctx := c.Contexts[s.ContextID]
		fmt.Fprintf(h, "%s\x00%s\x00", s.ExtID, s.Text(ctx))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// sentenceWindows cuts spans into consecutive runs of whole sentences, each
// at most MaxContextBytes long (a single longer sentence gets a run of its
// own).
func sentenceWindows(spans []sentence.Span) [][]sentence.Span {
	var windows [][]sentence.Span
	for i := 0; i < len(spans); {
		j := i + 1
		for j < len(spans) && spans[j].End-spans[i].Start <= MaxContextBytes {
			j++
		}
		windows = append(windows, spans[i:j])
		i = j
	}
	return windows
}
