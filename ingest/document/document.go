package document

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Format names an input format.
type Format string

// The formats Parse reads.
const (
	Markdown Format = "md"
	HTML     Format = "html"
	PDF      Format = "pdf"
	Text     Format = "txt"
	Man      Format = "man"
	RST      Format = "rst"
	AsciiDoc Format = "adoc"
	Org      Format = "org"
	Info     Format = "info"
	EPUB     Format = "epub"
	DOCX     Format = "docx"
	ODT      Format = "odt"
)

// Kind says what a block is.
type Kind string

// Block kinds. Every kind but Code is an answer candidate.
const (
	Paragraph  Kind = "paragraph"
	ListItem   Kind = "list-item"
	TableRow   Kind = "table-row"
	Quote      Kind = "quote"
	Definition Kind = "definition"
	Code       Kind = "code"
)

// Candidate reports whether blocks of kind k hold answer candidates.
func (k Kind) Candidate() bool { return k != Code }

// Block is a run of text of one kind: a paragraph, one list item, one table
// row, a quoted paragraph, a definition, or a code block.
type Block struct {
	Kind Kind
	// Text is the block's text with inline markup removed and white space
	// collapsed (Code keeps its lines). A table row reads
	// "Header1: cell1; Header2: cell2", a definition "term: definition".
	Text string
	// Line is the 1-based line the block starts on, 0 when unknown (PDF);
	// in Org the line of its section's headline (0 before the first);
	// in an EPUB the line of its content document (Section.Part), in a
	// DOCX or ODT the 1-based number of the paragraph it starts at (they
	// have no lines).
	Line int
	// Page is the 1-based PDF page the block starts on, 0 for other formats.
	Page int
	// Group is shared by the blocks of one list, table, definition list or
	// quote, and unique to a lone paragraph or code block: a paragraph in
	// the sense of "text between blank lines".
	Group int
	// Term is the byte length of a definition's term at the start of Text
	// (the term is followed by ": "); 0 when the block has none. A term is
	// a name, never a sentence of its own, whatever it ends with ("!",
	// "?", "-e").
	Term int
	// Parents are the terms of the definitions whose descriptions hold the
	// block, outermost first (HTML: a definition list or list nested in a
	// definition, as man pages nest a command's options under the
	// command); nil elsewhere. They extend the section's heading path for
	// the block.
	Parents []string
}

// Section is a heading and the blocks under it up to the next heading.
type Section struct {
	// Path is the heading path, outermost first (H1 › H2 › H3); empty for
	// the blocks before the first heading.
	Path []string
	// Slug is the GitHub-style anchor of the section's heading ("" before
	// the first heading); repeated headings get "-1", "-2"… as on GitHub.
	// An HTML heading with an id attribute uses the id.
	Slug string
	// Level is the heading level, 1–6 (0 before the first heading).
	Level int
	// Line and Page locate the heading, as in Block.
	Line, Page int
	// Part is the path, in the book, of the EPUB content document the
	// section is in ("OEBPS/ch1.xhtml"), "" for other formats. A section
	// never spans two parts: a content document that does not start with
	// a heading starts a section of its own, with the path of the one
	// before it, no slug and Line 0.
	Part   string
	Blocks []Block
}

// Heading returns the heading path joined with " › ".
func (s Section) Heading() string { return strings.Join(s.Path, PathSep) }

// PathSep joins the headings of a heading path.
const PathSep = " › "

// Document is a parsed file.
type Document struct {
	// Name is the file name given to the parser, used in anchors and errors.
	Name   string
	Format Format
	// Title is the document's title: the HTML <title>, an EPUB's dc:title,
	// a DOCX's core property title, an ODT's meta.xml title or Org's
	// #+TITLE, else the first H1, else "".
	Title string
	// Sections in document order; sections without blocks are kept (their
	// headings belong to the paths of the sections under them).
	Sections []Section
}

// Anchor names where a block is: "name:line#slug" (Markdown, HTML, text;
// DOCX, ODT: the paragraph number for the line), "name:pPAGE#slug" (PDF) or
// "name:part:line#slug" (EPUB: "book.epub:OEBPS/ch1.xhtml:12#setup"); the
// slug is left out when empty.
func (d *Document) Anchor(s Section, b Block) string {
	var a string
	switch {
	case s.Part != "" && b.Line > 0:
		a = d.Name + ":" + s.Part + ":" + strconv.Itoa(b.Line)
	case s.Part != "":
		a = d.Name + ":" + s.Part
	case b.Page > 0:
		a = d.Name + ":p" + strconv.Itoa(b.Page)
	case b.Line > 0:
		a = d.Name + ":" + strconv.Itoa(b.Line)
	default:
		a = d.Name
	}
	if s.Slug != "" {
		a += "#" + s.Slug
	}
	return a
}

// ErrMalformed is wrapped by every *Error.
var ErrMalformed = errors.New("malformed document")

// Error reports a document that cannot be read, at a line or page when known.
type Error struct {
	Name       string
	Line, Page int
	Msg        string
}

func (e *Error) Error() string {
	switch {
	case e.Page > 0:
		return fmt.Sprintf("%s: page %d: %s", e.Name, e.Page, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.Name, e.Line, e.Msg)
	}
	return e.Name + ": " + e.Msg
}

// Unwrap makes errors.Is(err, ErrMalformed) true.
func (e *Error) Unwrap() error { return ErrMalformed }

// Slug returns the GitHub-style anchor of a heading (without the "-N" that
// GitHub adds to repeated headings).
func Slug(heading string) string {
	var sb strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			sb.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// lineIndex maps byte offsets to 1-based line numbers.
type lineIndex []int // offsets of line starts

func newLineIndex(src []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range src {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (l lineIndex) line(off int) int {
	if off < 0 {
		return 0
	}
	lo, hi := 0, len(l)
	for hi-lo > 1 {
		m := (lo + hi) / 2
		if l[m] <= off {
			lo = m
		} else {
			hi = m
		}
	}
	return lo + 1
}
