package document

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"regexp"
	"strconv"
	"strings"

	"github.com/niklasfasching/go-org/org"
)

// ParseOrg reads Org mode as go-org parses it, through the HTML go-org
// writes (see ParseHTML): headlines start sections ("*" is level 1, a
// CUSTOM_ID property is the slug), paragraphs, list items, description
// list items ("term :: text", definitions), table rows (with the row above
// the first hline as their header) and quote blocks are blocks; src and
// example blocks and fixed-width lines (": text") are code. The #+TITLE
// keyword is the document's title. A headline's TODO keyword, priority and
// tags, property drawers, planning lines (SCHEDULED:, DEADLINE:, CLOSED:),
// comments, keywords (#+OPTIONS…), footnote references and definitions,
// raw HTML (#+HTML:, export blocks, @@html:…@@) and headlines tagged
// noexport or marked COMMENT are dropped; #+INCLUDE and #+SETUPFILE are
// never followed, and macros ({{{name}}}) are expanded as go-org does, to
// a bounded depth. Inline markup loses its marks, links read as their
// description (or their address), timestamps as written by go-org
// ("<2024-05-01 Wed>"). Org has no line numbers in go-org's output: a
// section's heading and every block under it carry the line of the
// headline in the Org source (found by matching headline text in order),
// blocks before the first headline 0. Input not in UTF-8 has its bad bytes
// replaced. A line longer than 60 KiB is broken at spaces (go-org reads no
// longer lines); a property drawer that is never closed is read as text
// without go-org looking for its end. A panic of go-org is turned into an
// *Error.
func ParseOrg(name string, data []byte) (*Document, error) {
	return ParseOrgContext(context.Background(), name, data)
}

// ParseOrgContext is [ParseOrg], stopping with ctx's error (wrapped) once
// ctx is done: before and after go-org parses and writes (in linear time,
// see boundOrg), and between the tokens of its HTML.
func ParseOrgContext(ctx context.Context, name string, data []byte) (d *Document, err error) {
	defer Recover(name, &err)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxOrgBytes {
		return nil, &Error{Name: name, Msg: fmt.Sprintf("org: larger than %d bytes", maxOrgBytes)}
	}
	src := strings.ToValidUTF8(string(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))), "\uFFFD")
	src = strings.ReplaceAll(src, "\r\n", "\n")
	conf := org.New()
	conf.Log = log.New(io.Discard, "", 0)
	conf.ReadFile = func(string) ([]byte, error) { return nil, errors.New("not read") }
	conf.AutoLink = false
	mark := unusedRune(src)
	od := conf.Parse(strings.NewReader(boundOrg(src, mark)), name)
	if od.Error != nil {
		return nil, &Error{Name: name, Msg: "org: " + od.Error.Error()}
	}
	w := &orgWriter{HTMLWriter: org.NewHTMLWriter(), headlines: orgHeadlines(src)}
	w.TopLevelHLevel = 1
	w.ExtendingWriter = w
	out, err := od.Write(w)
	if err != nil {
		return nil, &Error{Name: name, Msg: "org: " + err.Error()}
	}
	out = strings.ReplaceAll(out, string(mark), "")
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	b := NewBuilderContext(ctx, name, Org)
	b.Doc.Title = orgTitle(conf, name, od.Get("TITLE"))
	if err := ReadHTML(b, name, []byte(out), 1, false); err != nil {
		return nil, err
	}
	// A headline's section gets its Org line and slug; the blocks under
	// it its line.
	for i := range b.Doc.Sections {
		s := &b.Doc.Sections[i]
		s.Line = 0
		if n, err := strconv.Atoi(strings.TrimPrefix(s.Slug, orgHeadlineID)); err == nil && n >= 0 && n < len(w.written) && strings.HasPrefix(s.Slug, orgHeadlineID) {
			h := w.written[n]
			s.Line, s.Slug = h.line, h.custom
			if s.Slug == "" {
				s.Slug = b.slug(s.Path[len(s.Path)-1])
			}
		}
		for j := range s.Blocks {
			s.Blocks[j].Line = s.Line
		}
	}
	return b.Doc, nil
}

// orgTitle returns the text of a #+TITLE value, its markup removed.
func orgTitle(conf *org.Configuration, name, title string) string {
	if strings.TrimSpace(title) == "" {
		return ""
	}
	td := conf.Parse(strings.NewReader(title), name)
	if td.Error != nil || len(td.Nodes) == 0 {
		return Collapse(title)
	}
	nodes := td.Nodes
	if p, ok := nodes[0].(org.Paragraph); ok && len(nodes) == 1 {
		nodes = p.Children
	}
	tw := &orgWriter{HTMLWriter: org.NewHTMLWriter()}
	tw.ExtendingWriter = tw
	tw.doc = orgNoOutput(td)
	tw.HTMLWriter.Before(tw.doc)
	org.WriteNodes(tw, nodes...)
	tb := NewBuilder(name, Org)
	if ReadHTML(tb, name, []byte("<p>"+tw.String()+"</p>"), 1, false) != nil || len(tb.Doc.Sections) == 0 || len(tb.Doc.Sections[0].Blocks) == 0 {
		return Collapse(title)
	}
	return tb.Doc.Sections[0].Blocks[0].Text
}

// orgFootnoteSection reports whether h is the section Org keeps footnote
// definitions in: a headline "Footnotes" holding nothing else.
func orgFootnoteSection(h org.Headline) bool {
	if strings.TrimSpace(org.String(h.Title...)) != "Footnotes" {
		return false
	}
	for _, c := range h.Children {
		if _, ok := c.(org.FootnoteDefinition); !ok {
			return false
		}
	}
	return true
}

// maxOrgBytes is the largest Org file read (the bound of a part of a zip
// container).
const maxOrgBytes = 64 << 20

// maxOrgMacroDepth bounds how deep macros expand in macros.
const maxOrgMacroDepth = 8

// orgHeadline is a headline line of the Org source: its level, its text
// after the stars and its 1-based line number.
type orgHeadline struct {
	level int
	text  string
	line  int
}

var orgHeadlineRe = regexp.MustCompile(`^([*]+)\s+(.*)`) // go-org's

// orgHeadlines returns the lines of src that look like headlines (some may
// be in blocks, where go-org reads them as text).
func orgHeadlines(src string) []orgHeadline {
	var hs []orgHeadline
	for i, l := range strings.Split(src, "\n") {
		if m := orgHeadlineRe.FindStringSubmatch(l); m != nil {
			hs = append(hs, orgHeadline{len(m[1]), m[2], i + 1})
		}
	}
	return hs
}

// orgWriter is go-org's HTML writer without the parts that are not text
// of the document: the title (Document.Title has it), table of contents,
// footnotes, TODO keywords, priorities and tags, planning lines, raw HTML
// and includes. The id of a headline's heading element names the headline
// in written.
type orgWriter struct {
	*org.HTMLWriter
	doc       *org.Document
	headlines []orgHeadline // headline-like lines of the source not matched yet
	written   []orgWritten  // the headlines written, in order
	macros    int           // depth of macro expansion
}

func (w *orgWriter) Before(d *org.Document) {
	w.doc = d
	w.HTMLWriter.Before(orgNoOutput(d))
}

// orgNoOutput returns d with the title, table of contents and footnotes
// turned off: HTMLWriter.Before writes nothing with it, and records it for
// the options the rest of the writer looks up.
func orgNoOutput(d *org.Document) *org.Document {
	c := *d
	c.BufferSettings = map[string]string{}
	for k, v := range d.BufferSettings {
		c.BufferSettings[k] = v
	}
	c.BufferSettings["OPTIONS"] = "toc:nil title:nil f:nil " + d.Get("OPTIONS")
	return &c
}

func (w *orgWriter) After(*org.Document)                            {}
func (w *orgWriter) WriteFootnoteLink(org.FootnoteLink)             {}
func (w *orgWriter) WriteFootnoteDefinition(org.FootnoteDefinition) {}
func (w *orgWriter) WriteKeyword(org.Keyword)                       {}
func (w *orgWriter) WriteInclude(org.Include)                       {}
func (w *orgWriter) WriteInlineBlock(org.InlineBlock)               {}

func (w *orgWriter) WriteBlock(b org.Block) {
	if b.Name == "EXPORT" {
		return // raw HTML or another backend's text
	}
	w.HTMLWriter.WriteBlock(b)
}

func (w *orgWriter) WriteMacro(m org.Macro) {
	if w.macros >= maxOrgMacroDepth {
		return
	}
	w.macros++
	w.HTMLWriter.WriteMacro(m)
	w.macros--
}

// orgPlanning matches a planning line.
var orgPlanning = regexp.MustCompile(`^\s*(SCHEDULED|DEADLINE|CLOSED):`)

func (w *orgWriter) WriteHeadline(h org.Headline) {
	if h.IsExcluded(w.doc) || orgFootnoteSection(h) {
		return
	}
	custom, _ := h.Properties.Get("CUSTOM_ID")
	fmt.Fprintf(w, "\n<h%d id=\"%s%d\">", min(h.Lvl, 6), orgHeadlineID, len(w.written))
	w.written = append(w.written, orgWritten{w.headlineLine(h), custom})
	org.WriteNodes(w, h.Title...)
	fmt.Fprintf(w, "</h%d>\n", min(h.Lvl, 6))
	children := h.Children
	if len(children) > 0 {
		if p, ok := children[0].(org.Paragraph); ok && orgPlanning.MatchString(org.String(p)) {
			// The planning line is the paragraph's first line: the text
			// after its line break stays.
			children = children[1:]
			for i, c := range p.Children {
				if _, ok := c.(org.LineBreak); ok {
					p.Children = p.Children[i+1:]
					children = append([]org.Node{p}, children...)
					break
				}
			}
		}
	}
	org.WriteNodes(w, children...)
}

// WriteNodeWithMeta writes a headline after #+CAPTION or #+ATTR_HTML as
// itself.
func (w *orgWriter) WriteNodeWithMeta(n org.NodeWithMeta) {
	if _, ok := n.Node.(org.Headline); ok {
		org.WriteNodes(w, n.Node)
		return
	}
	w.HTMLWriter.WriteNodeWithMeta(n)
}

// orgHeadlineID prefixes the id of the heading element of the N-th
// headline written (orgWriter.written).
const orgHeadlineID = "reqa-org-headline-"

// orgWritten is a headline written: its Org line (0 if unknown) and
// CUSTOM_ID.
type orgWritten struct {
	line   int
	custom string
}

// headlineLine returns the Org line of h: the first headline-like line not
// matched yet with h's level whose text holds h's title, or 0.
func (w *orgWriter) headlineLine(h org.Headline) int {
	title := strings.TrimSpace(org.String(h.Title...))
	for i, c := range w.headlines {
		if c.level == h.Lvl && strings.Contains(c.text, title) {
			w.headlines = w.headlines[i+1:]
			return c.line
		}
	}
	return 0
}
