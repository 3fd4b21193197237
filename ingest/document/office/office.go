package office

import (
	"strings"

	"github.com/reqa/reqa/ingest/document"
)

// officeBlock is one paragraph or table of a word processor's document
// (DOCX, ODT) as its reader classified it; emitOffice turns a document's
// blocks, in order, into sections and blocks.
type officeBlock struct {
	text  string
	line  int
	level int  // heading level, 0 for none
	title bool // the document's Title paragraph (a level-1 heading)
	code  bool // a code paragraph: consecutive ones are one Code block
	quote bool
	// list names the list the paragraph is an item of (0: none);
	// consecutive items of one list are one group.
	list int
	// table, when set, is a table (the other fields unused): its header
	// (nil for none) and its rows' cells and lines.
	table *officeTable
}

type officeTable struct {
	header []string
	rows   [][]string
	lines  []int
}

// emitOffice adds a document's blocks to b. When a Title paragraph is
// present the other headings sit one level below it; code paragraphs that
// follow each other are one Code block of their lines; items of one list
// that follow each other, and quotes that follow each other, share a
// group; an empty paragraph is dropped and ends nothing but code.
func emitOffice(b *document.Builder, blocks []officeBlock) {
	shift := 0
	for _, p := range blocks {
		if p.title {
			shift = 1
			break
		}
	}
	var code strings.Builder
	codeLine, list, listGroup, quote := 0, 0, 0, 0
	endCode := func() {
		if code.Len() > 0 {
			b.Block(document.Code, code.String(), codeLine, 0, 0)
		}
		code.Reset()
	}
	for _, p := range blocks {
		if tb := p.table; tb != nil {
			endCode()
			list, quote = 0, 0
			group := b.NewGroup()
			for i, cells := range tb.rows {
				b.Block(document.TableRow, document.RowText(tb.header, cells), tb.lines[i], 0, group)
			}
			continue
		}
		if p.code && p.level == 0 {
			if code.Len() == 0 {
				codeLine = p.line
			} else {
				code.WriteByte('\n')
			}
			code.WriteString(strings.ReplaceAll(strings.ReplaceAll(p.text, "\r\n", "\n"), "\r", "\n"))
			continue
		}
		endCode()
		if strings.TrimSpace(p.text) == "" {
			continue
		}
		switch {
		case p.level > 0:
			level := p.level
			if !p.title {
				level += shift
			}
			b.Heading(level, p.text, "", p.line, 0)
			list, quote = 0, 0
		case p.list > 0:
			if list != p.list {
				list, listGroup = p.list, b.NewGroup()
			}
			quote = 0
			b.Block(document.ListItem, p.text, p.line, 0, listGroup)
		case p.quote:
			if quote == 0 {
				quote = b.NewGroup()
			}
			list = 0
			b.Block(document.Quote, p.text, p.line, 0, quote)
		default:
			list, quote = 0, 0
			b.Block(document.Paragraph, p.text, p.line, 0, 0)
		}
	}
	endCode()
}
