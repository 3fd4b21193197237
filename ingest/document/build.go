// This file holds what the readers share: the Builder that assembles a
// Document, and small helpers for text.

package document

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// BlankBOM returns data with a leading UTF-8 byte order mark turned into
// spaces (offsets and line numbers stay).
func BlankBOM(data []byte) []byte {
	if len(data) >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf {
		out := append([]byte(nil), data...)
		out[0], out[1], out[2] = ' ', ' ', ' '
		return out
	}
	return data
}

// MaxNesting bounds how deep the readers follow nested structure (lists in
// lists, quotes in quotes, elements in elements); deeper content is read as
// text of the enclosing block. Real documents stay far below it.
const MaxNesting = 64

// Builder assembles a Document for a reader: headings open sections, blocks
// go to the current one. Doc is the document built; Part, when set, is the
// EPUB content document being read (Section.Part).
type Builder struct {
	Doc   *Document
	stack []string // heading texts by level-1; "" for a skipped level
	slugs map[string]int
	group int
	Part  string

	ctx    context.Context // nil: never done
	checks int             // Check calls, to look at ctx every so often
	blocks int             // blocks and headings added
}

// MaxBlocks bounds the blocks and headings of one document: what a reader
// holds grows with them, and an input made of millions of empty or tiny
// elements (16 MiB of "<p>a</p>") would otherwise take gigabytes. A large
// manual has tens of thousands.
const MaxBlocks = 1 << 19

// NewBuilder returns a Builder of a document named name in format f.
func NewBuilder(name string, f Format) *Builder {
	return &Builder{Doc: &Document{Name: name, Format: f}, slugs: map[string]int{}}
}

// NewBuilderContext is NewBuilder for a reader that stops once ctx is done:
// [Builder.Check] and every block added look at it.
func NewBuilderContext(ctx context.Context, name string, f Format) *Builder {
	b := NewBuilder(name, f)
	if ctx != nil && ctx.Done() != nil {
		b.ctx = ctx
	}
	return b
}

// Context returns the context the Builder stops on (Background when none).
func (b *Builder) Context() context.Context {
	if b.ctx == nil {
		return context.Background()
	}
	return b.ctx
}

// stopped carries a context's error out of a reader, by a panic that
// [Recover] turns back into the error.
type stopped struct{ err error }

// Check stops the reader (a panic [Recover] turns into the context's error,
// wrapped) once the Builder's context is done. Readers call it between
// tokens, lines and pages; it looks at the context every 256 calls.
func (b *Builder) Check() {
	if b.ctx == nil {
		return
	}
	if b.checks++; b.checks%256 != 0 {
		return
	}
	if err := b.ctx.Err(); err != nil {
		panic(stopped{err})
	}
}

// count counts a block or heading added: past MaxBlocks the reader stops
// with an *Error.
func (b *Builder) count() {
	if b.blocks++; b.blocks > MaxBlocks {
		panic(&Error{Name: b.Doc.Name, Msg: fmt.Sprintf("more than %d blocks (paragraphs, items, rows, headings): not read", MaxBlocks)})
	}
	b.Check()
}

// Heading starts a section. id, if not empty, is used as the slug.
func (b *Builder) Heading(level int, text, id string, line, page int) {
	text = strings.TrimSpace(strings.TrimRight(Collapse(text), "¶"))
	if text == "" {
		return
	}
	level = min(max(level, 1), 6)
	b.count()
	if level == 1 && b.Doc.Title == "" && b.Doc.Format != HTML {
		b.Doc.Title = text
	}
	if len(b.stack) >= level {
		b.stack = b.stack[:level-1]
	}
	for len(b.stack) < level-1 {
		b.stack = append(b.stack, "")
	}
	b.stack = append(b.stack, text)
	var path []string
	for _, h := range b.stack {
		if h != "" {
			path = append(path, h)
		}
	}
	slug := id
	if slug == "" {
		slug = b.slug(text)
	}
	b.Doc.Sections = append(b.Doc.Sections, Section{Path: path, Slug: slug, Level: level, Line: line, Page: page, Part: b.Part})
}

// slug returns GitHub's anchor for a heading: lower case, punctuation
// dropped but for '-' and '_', spaces as '-', and "-N" added to the N-th
// repeat.
func (b *Builder) slug(text string) string {
	s := Slug(text)
	n := b.slugs[s]
	b.slugs[s] = n + 1
	if n > 0 {
		return s + "-" + strconv.Itoa(n)
	}
	return s
}

// StyleLevel returns the heading level of style st when levels go by the
// order in which styles first appear (reStructuredText's rule, and plain
// text's underlines): its 1-based place in *styles, where a new style is
// added last.
func StyleLevel[S comparable](styles *[]S, st S) int {
	for k, s := range *styles {
		if s == st {
			return k + 1
		}
	}
	*styles = append(*styles, st)
	return len(*styles)
}

// NewGroup returns a fresh group number.
func (b *Builder) NewGroup() int {
	b.group++
	return b.group
}

// Block adds a block to the current section; text is collapsed (but for
// code) and empty blocks are dropped. group 0 means a group of its own.
func (b *Builder) Block(kind Kind, text string, line, page, group int) {
	b.TermBlock(kind, text, 0, nil, line, page, group)
}

// TermBlock is Block for a definition whose text starts with a term of
// term bytes (already collapsed) and ": ", or for a block under parents
// (Block.Parents).
func (b *Builder) TermBlock(kind Kind, text string, term int, parents []string, line, page, group int) {
	if kind == Code {
		text = strings.Trim(strings.ToValidUTF8(text, "\uFFFD"), "\n")
		if strings.TrimSpace(text) == "" {
			return
		}
	} else if text = Collapse(text); text == "" {
		return
	}
	b.count()
	if group == 0 {
		group = b.NewGroup()
	}
	if n := len(b.Doc.Sections); n == 0 {
		b.Doc.Sections = append(b.Doc.Sections, Section{Part: b.Part})
	} else if last := b.Doc.Sections[n-1]; last.Part != b.Part {
		// A content document that does not start with a heading goes on
		// with the section before it, in a section of its own.
		b.Doc.Sections = append(b.Doc.Sections, Section{Path: last.Path, Level: last.Level, Part: b.Part})
	}
	s := &b.Doc.Sections[len(b.Doc.Sections)-1]
	if term > len(text) {
		term = 0
	}
	s.Blocks = append(s.Blocks, Block{Kind: kind, Text: text, Line: line, Page: page, Group: group, Term: term, Parents: parents})
}

// Collapse trims s and turns every run of white space into one space.
func Collapse(s string) string {
	var sb strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || r == '\u00a0' {
			space = sb.Len() > 0
			continue
		}
		if space {
			sb.WriteByte(' ')
			space = false
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// RowText renders a table row with its header: "H1: c1; H2: c2". Cells
// under an empty header, or past the header's width, read as themselves;
// empty cells are left out.
func RowText(header, cells []string) string {
	var parts []string
	for i, c := range cells {
		c = Collapse(c)
		if c == "" {
			continue
		}
		if i < len(header) && header[i] != "" && header[i] != c {
			parts = append(parts, header[i]+": "+c)
		} else {
			parts = append(parts, c)
		}
	}
	return strings.Join(parts, "; ")
}

// CodeLine reports whether a line looks like code rather than prose: a
// prompt or comment, braces, or columns aligned with runs of spaces; with
// weak, also a statement's or a pipeline's end (";", "\\", "|"), which a
// line of prose may end with too.
func CodeLine(s string, weak bool) bool {
	for _, p := range []string{"$ ", "# ", "#!", "#include", "#define", "{", "}", "//", "/*", "% "} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	for _, p := range []string{"{", "}", "*/"} {
		if strings.HasSuffix(s, p) {
			return true
		}
	}
	if weak && (strings.HasSuffix(s, ";") || strings.HasSuffix(s, "\\") || strings.HasSuffix(s, "|")) {
		return true
	}
	return strings.Contains(s, "   ")
}

// DecodeLatin1 returns b as a string: UTF-8 as it is, anything else read
// as Latin-1 (man pages older than groff's preconv were written in it).
func DecodeLatin1(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	rs := make([]rune, len(b))
	for i, c := range b {
		rs[i] = rune(c)
	}
	return string(rs)
}

// Recover turns a parser's panic into an *Error.
//
// A reader stopped by [Builder.Check] returns the context's error wrapped
// with name; one past [MaxBlocks] the *Error saying so.
func Recover(name string, err *error) {
	if r := recover(); r != nil {
		switch r := r.(type) {
		case stopped:
			*err = fmt.Errorf("%s: %w", name, r.err)
		case *Error:
			*err = r
		default:
			*err = &Error{Name: name, Msg: fmt.Sprintf("cannot parse: %v", r)}
		}
	}
}

// Indent is the number of leading spaces of l, a tab counting as one.
func Indent(l string) int {
	return len(l) - len(strings.TrimLeft(l, " \t"))
}
