package formats

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/reqa/reqa/ingest/document"
	"github.com/reqa/reqa/ingest/document/asciidoc"
	"github.com/reqa/reqa/ingest/document/info"
	"github.com/reqa/reqa/ingest/document/office"
	"github.com/reqa/reqa/ingest/document/pdf"
	"github.com/reqa/reqa/ingest/document/roff"
	"github.com/reqa/reqa/ingest/document/rst"
)

// Format is a document format reqa reads: how its files are named and
// recognised, and its reader.
type Format struct {
	// Name is the format's name: the kind users give (--stdin-kind) and
	// files are listed under.
	Name document.Format
	// Exts are the extensions of its files, lower case with the dot (a
	// ".gz" after them aside).
	Exts []string
	// Match, when set, recognises the other names of its files by their
	// lower-cased base name and extension (README, ls.1, find.info-2).
	Match func(base, ext string) bool
	// Files names its files in messages (".md, .markdown").
	Files string
	// Sniff, when set, reports whether a file's first bytes are of the
	// format; no two formats sniff the same bytes.
	Sniff func(head []byte) bool
	// Binary formats are read without the text check: containers their
	// reader checks.
	Binary bool
	// UTF8 formats must be valid UTF-8 (checked before parsing, naming the
	// line); the others decode what they hold (HTML's charset, Latin-1).
	UTF8 bool
	// NULMarks formats are text holding "\x00\x08" marks (GNU Info's index
	// entries), which the text check lets pass.
	NULMarks bool
	// Guess, when set, names the format a file's data is really in (plain
	// text that reads as Markdown); "" keeps this one.
	Guess func(data []byte) document.Format
	// Empty is the message for a file of the format without a sentence
	// ("" for the general one).
	Empty string
	// ParseContext reads data, the contents of the file name, stopping
	// with ctx's error (wrapped) once ctx is done: every reader looks at
	// ctx between its tokens, lines, blocks or pages.
	ParseContext func(ctx context.Context, name string, data []byte) (*document.Document, error)
	// Parse is ParseContext without a context (set from it when nil).
	Parse func(name string, data []byte) (*document.Document, error)
}

func init() {
	for i := range All {
		if read := All[i].ParseContext; All[i].Parse == nil {
			All[i].Parse = func(name string, data []byte) (*document.Document, error) {
				return read(context.Background(), name, data)
			}
		}
	}
}

// All are the document formats reqa reads, in the order messages list them.
var All = []Format{
	{Name: document.Markdown, Exts: []string{".md", ".markdown"}, Files: ".md, .markdown", UTF8: true, ParseContext: document.ParseMarkdownContext},
	{Name: document.HTML, Exts: []string{".html", ".htm", ".xhtml"}, Files: ".html, .htm", Sniff: sniffHTML, ParseContext: document.ParseHTMLContext,
		// A generated index, a search page: all site chrome.
		Empty: "empty page (no text outside navigation, indexes, footers and other site chrome)"},
	{Name: document.PDF, Exts: []string{".pdf"}, Files: ".pdf", Sniff: sniffPDF, Binary: true, ParseContext: pdf.ParseContext,
		Empty: "empty file (no text found: a scanned PDF needs OCR first, e.g. ocrmypdf)"},
	{Name: document.Text, Exts: []string{".txt", ".text"}, Match: docFileName, Files: ".txt", UTF8: true, Guess: GuessText, ParseContext: document.ParseTextContext},
	{Name: document.RST, Exts: []string{".rst", ".rest"}, Files: ".rst", UTF8: true, ParseContext: rst.ParseContext},
	// Not .asc, which is mostly an ASCII-armoured PGP key or signature.
	{Name: document.AsciiDoc, Exts: []string{".adoc", ".asciidoc"}, Files: ".adoc", UTF8: true, ParseContext: asciidoc.ParseContext},
	{Name: document.Org, Exts: []string{".org"}, Files: ".org", UTF8: true, ParseContext: document.ParseOrgContext},
	// Its encoding may be Latin-1: the reader decodes it.
	{Name: document.Info, Exts: []string{".info"}, Match: infoPart, Files: ".info", NULMarks: true, ParseContext: info.ParseContext},
	{Name: document.EPUB, Exts: []string{".epub"}, Files: ".epub", Sniff: sniffEPUB, Binary: true, ParseContext: office.ParseEPUBContext},
	{Name: document.DOCX, Exts: []string{".docx"}, Files: ".docx", Sniff: sniffDOCX, Binary: true, ParseContext: office.ParseDOCXContext},
	{Name: document.ODT, Exts: []string{".odt"}, Files: ".odt", Sniff: sniffODT, Binary: true, ParseContext: office.ParseODTContext},
	{Name: document.Man, Exts: []string{".man"}, Match: manSection, Files: "manual page (.1–.9, .man)", Guess: guessMan, ParseContext: roff.ParseContext},
}

// ByName returns the format named name, nil if there is none.
func ByName(name string) *Format {
	for i := range All {
		if string(All[i].Name) == name {
			return &All[i]
		}
	}
	return nil
}

// Names returns the formats' names, in the order of All.
func Names() []string {
	names := make([]string, len(All))
	for i, f := range All {
		names[i] = string(f.Name)
	}
	return names
}

// Detect returns the format of a file: the one its name says (a ".gz"
// suffix aside) when name is not "", else the one its first bytes head say;
// nil when neither says one.
func Detect(name string, head []byte) *Format {
	if name != "" {
		return byFileName(name)
	}
	for i := range All {
		if All[i].Sniff != nil && All[i].Sniff(head) {
			return &All[i]
		}
	}
	return nil
}

// byFileName returns the format a file name says: by its extension, else
// by the formats' Match.
func byFileName(name string) *Format {
	lower := strings.TrimSuffix(strings.ToLower(name), ".gz")
	ext := filepath.Ext(lower)
	for i := range All {
		for _, e := range All[i].Exts {
			if e == ext {
				return &All[i]
			}
		}
	}
	base := filepath.Base(lower)
	for i := range All {
		if All[i].Match != nil && All[i].Match(base, ext) {
			return &All[i]
		}
	}
	return nil
}

// Reader returns the format data is read in: f, or the one its Guess
// names (a manual page that is not roff is plain text, plain text that
// reads as Markdown is Markdown).
func (f *Format) Reader(data []byte) *Format {
	if f.Guess != nil {
		if g := ByName(string(f.Guess(data))); g != nil {
			return g
		}
	}
	return f
}

// Parse reads data, the contents of the file name, in format f (no
// guessing).
func Parse(name string, f document.Format, data []byte) (*document.Document, error) {
	return ParseContext(context.Background(), name, f, data)
}

// ParseContext is [Parse], stopping with ctx's error (wrapped) once ctx is
// done.
func ParseContext(ctx context.Context, name string, f document.Format, data []byte) (*document.Document, error) {
	if ff := ByName(string(f)); ff != nil {
		return ff.ParseContext(ctx, name, data)
	}
	return nil, fmt.Errorf("%s: unknown document format %q", name, f)
}
