package document

import (
	"regexp"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Admonitions in Markdown, as MkDocs (Python-Markdown's admonition
// extension) and pymdownx.details write them: a marker line "!!! type",
// "??? type" or "???+ type", optionally followed by a quoted title, then
// the admonition's body indented by four spaces (blank lines may come in
// between). CommonMark alone reads the marker as a paragraph ("!!! note …",
// which the sentence splitter cuts into "!" and "!!") and a body after a
// blank line as indented code, never a candidate. The admonition block
// parser below gives goldmark a container node instead, whose body is read
// like a quote's, without its marker and title (a label, like the
// "admonition-title" paragraph of Sphinx's and MkDocs' HTML).

// kindAdmonition is the AST node kind of an admonition.
var kindAdmonition = ast.NewNodeKind("Admonition")

// admonitionNode is an admonition: its children are its body's blocks.
type admonitionNode struct {
	ast.BaseBlock
	// Class is the admonition's type ("note", "warning"…), Title its quoted
	// title ("" when none).
	Class, Title string
}

func (n *admonitionNode) Kind() ast.NodeKind { return kindAdmonition }

func (n *admonitionNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"Class": n.Class, "Title": n.Title}, nil)
}

// admonitionMarker matches a marker line (the indentation before it is
// goldmark's to check: at most three spaces).
var admonitionMarker = regexp.MustCompile(`^(?:!!!|\?\?\?\+?)[ \t]+([A-Za-z][\w-]*)(?:[ \t]+"([^"\n]*)")?[ \t]*\r?\n?$`)

type admonitionParser struct{}

func (admonitionParser) Trigger() []byte { return []byte{'!', '?'} }

func (admonitionParser) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, _ := reader.PeekLine()
	pos := pc.BlockOffset()
	if pos < 0 || pos >= len(line) {
		return nil, parser.NoChildren
	}
	m := admonitionMarker.FindSubmatch(line[pos:])
	if m == nil {
		return nil, parser.NoChildren
	}
	reader.AdvanceToEOL()
	return &admonitionNode{Class: string(m[1]), Title: string(m[2])}, parser.HasChildren
}

func (admonitionParser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	line, _ := reader.PeekLine()
	if util.IsBlank(line) {
		reader.AdvanceToEOL()
		return parser.Continue | parser.HasChildren
	}
	if w, _ := util.IndentWidth(line, reader.LineOffset()); w < 4 {
		return parser.Close
	}
	pos, padding := util.IndentPosition(line, reader.LineOffset(), 4)
	reader.AdvanceAndSetPadding(pos, padding)
	return parser.Continue | parser.HasChildren
}

func (admonitionParser) Close(node ast.Node, reader text.Reader, pc parser.Context) {}

func (admonitionParser) CanInterruptParagraph() bool { return true }

func (admonitionParser) CanAcceptIndentedLine() bool { return false }
