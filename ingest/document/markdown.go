package document

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

var markdown = goldmark.New(
	goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList),
	// Before the paragraph parser (1000): a marker line is not a paragraph.
	goldmark.WithParserOptions(parser.WithBlockParsers(util.Prioritized(admonitionParser{}, 950))),
)

// ParseMarkdown reads CommonMark with GFM tables: ATX and setext headings
// start sections; paragraphs, list items (without their markers), table rows
// (with their header) and block quotes are blocks; fenced and indented code
// are Code blocks; YAML ("---") or TOML ("+++") front matter, link reference
// definitions, HTML comments and images are skipped; emphasis, links, code
// spans and inline HTML become their text; MkDocs admonitions ("!!! note
// \"Title\"" and an indented body; "???" and "???+" folded ones) and GitHub
// alerts ("> [!NOTE]") are quotes without their markers and titles. HTML
// blocks are read by the HTML reader (so <h1 align="center">Name</h1> is a
// heading). A word in double underscores that reads as a Python-style name
// (lower case, digits and underscores: __init__, __main__) keeps its
// underscores instead of becoming bold.
func ParseMarkdown(name string, src []byte) (*Document, error) {
	return ParseMarkdownContext(context.Background(), name, src)
}

// ParseMarkdownContext is [ParseMarkdown], stopping with ctx's error
// (wrapped) once ctx is done: before and after goldmark parses (which it
// does in linear time, see boundMarkdown) and between blocks.
func ParseMarkdownContext(ctx context.Context, name string, src []byte) (d *Document, err error) {
	defer Recover(name, &err)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	src = boundMarkdown(blankFrontMatter(BlankBOM(src)))
	root := markdown.Parser().Parse(text.NewReader(src))
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	m := &mdReader{b: NewBuilderContext(ctx, name, Markdown), name: name, src: src, lines: newLineIndex(src)}
	if err := m.blocks(root, Paragraph, 0, 0); err != nil {
		return nil, err
	}
	return m.b.Doc, nil
}

type mdReader struct {
	b     *Builder
	name  string
	src   []byte
	lines lineIndex
}

var frontMatter = regexp.MustCompile(`\A *(---|\+\+\+)[ \t]*\r?\n`)

// blankFrontMatter returns src with its front matter, if any, turned into
// blank lines (so that line numbers stay right).
func blankFrontMatter(src []byte) []byte {
	m := frontMatter.FindSubmatch(src)
	if m == nil {
		return src
	}
	fence := string(m[1])
	rest := src[len(m[0]):]
	off := len(m[0])
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		l := rest
		if i >= 0 {
			l = rest[:i]
		}
		t := strings.TrimRight(string(l), " \t\r")
		end := off + len(l)
		if t == fence || (fence == "---" && t == "...") {
			out := append([]byte(nil), src...)
			for j := 0; j < end; j++ {
				if out[j] != '\n' {
					out[j] = ' '
				}
			}
			return out
		}
		if i < 0 {
			break
		}
		rest = rest[i+1:]
		off += i + 1
	}
	return src // no closing fence: not front matter
}

// line returns the line a node starts on.
func (m *mdReader) line(n ast.Node) int {
	for ; n != nil; n = n.FirstChild() {
		if p := n.Pos(); p >= 0 {
			return m.lines.line(p)
		}
		if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
			return m.lines.line(n.Lines().At(0).Start)
		}
		if t, ok := n.(*ast.Text); ok {
			return m.lines.line(t.Segment.Start)
		}
	}
	return 0
}

// blocks reads the block children of n as blocks of kind in group.
func (m *mdReader) blocks(n ast.Node, kind Kind, group, depth int) error {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		m.b.Check()
		if depth >= MaxNesting {
			m.b.Block(kind, m.flatText(c), m.line(c), 0, group)
			continue
		}
		switch v := c.(type) {
		case *ast.Heading:
			m.b.Heading(v.Level, m.inline(v), "", m.line(v), 0)
		case *ast.Paragraph, *ast.TextBlock:
			t := m.inline(v)
			if _, quoted := n.(*ast.Blockquote); quoted && c == n.FirstChild() {
				t = dropAlertMarker(t)
			}
			m.b.Block(kind, t, m.line(v), 0, group)
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			m.b.Block(Code, m.rawLines(v), m.line(v), 0, 0)
		case *ast.Blockquote, *admonitionNode:
			if err := m.blocks(v, Quote, m.b.NewGroup(), depth+1); err != nil {
				return err
			}
		case *ast.List:
			if tocList(v) {
				continue // a table of contents: links to this document's sections
			}
			g := group
			if kind != ListItem || g == 0 {
				g = m.b.NewGroup()
			}
			for it := v.FirstChild(); it != nil; it = it.NextSibling() {
				if err := m.blocks(it, ListItem, g, depth+1); err != nil {
					return err
				}
			}
		case *ast.HTMLBlock:
			raw := m.rawLines(v)
			if v.HasClosure() {
				raw += string(v.ClosureLine.Value(m.src))
			}
			if err := ReadHTML(m.b, m.name, []byte(raw), m.line(v), false); err != nil {
				return err
			}
		case *ast.ThematicBreak, *ast.LinkReferenceDefinition:
		case *east.Table:
			m.table(v)
		default:
			if err := m.blocks(v, kind, group, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

func (m *mdReader) rawLines(n ast.Node) string {
	var sb strings.Builder
	lines := n.Lines()
	for i := range lines.Len() {
		s := lines.At(i)
		sb.Write(s.Value(m.src))
	}
	return sb.String()
}

func (m *mdReader) table(t *east.Table) {
	g := m.b.NewGroup()
	var header []string
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, Collapse(m.inline(c)))
		}
		if _, ok := r.(*east.TableHeader); ok {
			header = cells
			continue
		}
		m.b.Block(TableRow, RowText(header, cells), m.line(r), 0, g)
	}
}

// inline returns the text of n's inline children.
func (m *mdReader) inline(n ast.Node) string {
	var sb strings.Builder
	m.inlineTo(&sb, n, 0)
	return sb.String()
}

func (m *mdReader) inlineTo(sb *strings.Builder, n ast.Node, depth int) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if depth >= MaxNesting*4 {
			sb.WriteString(m.flatText(c))
			continue
		}
		switch v := c.(type) {
		case *ast.Text:
			seg := v.Segment.Value(m.src)
			if !v.IsRaw() {
				seg = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(seg)))
			}
			sb.Write(seg)
			if v.SoftLineBreak() || v.HardLineBreak() {
				sb.WriteByte(' ')
			}
		case *ast.String:
			sb.Write(v.Value)
		case *ast.CodeSpan:
			for t := v.FirstChild(); t != nil; t = t.NextSibling() {
				switch x := t.(type) {
				case *ast.Text:
					sb.Write(x.Segment.Value(m.src))
				case *ast.String:
					sb.Write(x.Value)
				}
			}
		case *ast.Emphasis:
			inner := m.inline(v)
			if v.Level == 2 && m.dunder(v, inner) {
				inner = "__" + inner + "__"
			}
			sb.WriteString(inner)
		case *ast.AutoLink:
			sb.Write(v.URL(m.src))
		case *ast.Image, *east.TaskCheckBox:
		case *ast.RawHTML:
			var raw []byte
			for i := range v.Segments.Len() {
				s := v.Segments.At(i)
				raw = append(raw, s.Value(m.src)...)
			}
			if isBreakTag(raw) {
				sb.WriteByte(' ')
			}
		default:
			m.inlineTo(sb, v, depth+1)
		}
	}
}

var breakTag = regexp.MustCompile(`(?i)^<br\s*/?>$`)

func isBreakTag(b []byte) bool { return breakTag.Match(bytes.TrimSpace(b)) }

var pythonName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// dunder reports whether the strong emphasis e, whose text is inner, was
// written __name__ with a Python-style name.
func (m *mdReader) dunder(e *ast.Emphasis, inner string) bool {
	t, ok := e.FirstChild().(*ast.Text)
	if !ok || e.FirstChild() != e.LastChild() || !pythonName.MatchString(inner) {
		return false
	}
	s := t.Segment.Start
	return s >= 2 && m.src[s-1] == '_' && m.src[s-2] == '_'
}

// flatText returns all the text under n, for structure nested deeper than
// the readers follow; it walks without recursion.
func (m *mdReader) flatText(n ast.Node) string {
	var sb strings.Builder
	stack := []ast.Node{n}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch v := x.(type) {
		case *ast.Text:
			sb.Write(v.Segment.Value(m.src))
			sb.WriteByte(' ')
			continue
		case *ast.String:
			sb.Write(v.Value)
			continue
		}
		if x.Type() == ast.TypeBlock && x.FirstChild() == nil {
			sb.WriteString(m.rawLines(x))
			sb.WriteByte(' ')
		}
		var kids []ast.Node
		for c := x.FirstChild(); c != nil; c = c.NextSibling() {
			kids = append(kids, c)
		}
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, kids[i])
		}
	}
	return sb.String()
}

// tocList reports whether l is a table of contents: every item is a single
// link to an anchor of this document ("[Transactions](#transactions)"),
// optionally followed by a list of the same kind.
func tocList(l *ast.List) bool {
	items := 0
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		items++
		para := it.FirstChild()
		if para == nil {
			return false
		}
		if _, ok := para.(*ast.Paragraph); !ok {
			if _, ok := para.(*ast.TextBlock); !ok {
				return false
			}
		}
		link, ok := para.FirstChild().(*ast.Link)
		if !ok || para.FirstChild() != para.LastChild() || !strings.HasPrefix(string(link.Destination), "#") {
			return false
		}
		if rest := para.NextSibling(); rest != nil {
			sub, ok := rest.(*ast.List)
			if !ok || rest.NextSibling() != nil || !tocList(sub) {
				return false
			}
		}
	}
	return items > 0
}

// alertMarker is the marker a GitHub alert opens its quote with
// ("> [!NOTE]", "> [!WARNING]"…).
var alertMarker = regexp.MustCompile(`(?i)^\[!(note|tip|important|warning|caution)\]\s*`)

// dropAlertMarker returns the text of an alert's first paragraph without
// its marker, a label like an admonition's.
func dropAlertMarker(t string) string {
	return alertMarker.ReplaceAllString(t, "")
}
