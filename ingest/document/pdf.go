package document

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// ParsePDF reads the text of a PDF with the pure-Go github.com/ledongthuc/pdf:
// glyphs are put back into lines by their positions (a space where the gap
// between two glyphs is wider than a fifth of the type size), lines into
// paragraphs (a new one after a wider vertical gap, a first-line indent or
// a change of type size), a word hyphenated at a line end is rejoined and
// the other line ends become spaces. Lines in type clearly larger than the
// body text's and short enough are headings (the largest size is level 1).
// A line holding only a number (a page number) is dropped. Blocks carry
// their page; there are no line numbers. An encrypted PDF (one that needs a
// password), one the parser cannot read, or a page it cannot read is an
// *Error naming the page; a PDF without text (scanned pages) reads as a
// document without blocks.
func ParsePDF(name string, data []byte) (d *Document, err error) {
	defer recoverError(name, &err)
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, &Error{Name: name, Msg: "pdf: " + err.Error()}
	}
	var lines []pdfLine
	for p := 1; p <= r.NumPage(); p++ {
		ls, err := pageLines(r, p)
		if err != nil {
			return nil, &Error{Name: name, Page: p, Msg: "pdf: " + err.Error()}
		}
		lines = append(lines, ls...)
	}
	b := newBuilder(name, PDF)
	pdfBlocks(b, lines)
	return b.doc, nil
}

type pdfLine struct {
	page     int
	text     string
	size     float64 // type size
	x, y     float64 // start of the line
}

// pageLines returns page p's text lines in content order.
func pageLines(r *pdf.Reader, p int) (lines []pdfLine, err error) {
	defer func() {
		if e := recover(); e != nil {
			lines, err = nil, fmt.Errorf("cannot read the page: %v", e)
		}
	}()
	pg := r.Page(p)
	if pg.V.IsNull() {
		return nil, nil
	}
	glyphs := pg.Content().Text
	var cur *pdfLine
	var sb strings.Builder
	var lastEnd, lastSize float64
	lastSpace := true
	end := func() {
		if cur != nil {
			cur.text = strings.TrimSpace(sb.String())
			if cur.text != "" {
				lines = append(lines, *cur)
			}
		}
		cur = nil
		sb.Reset()
	}
	for _, g := range glyphs {
		size := math.Abs(g.FontSize)
		if size == 0 || math.IsNaN(size) || math.IsInf(size, 0) {
			size = 1
		}
		w := g.W
		if w <= 0 || math.IsNaN(w) {
			w = 0
		}
		if cur == nil || math.Abs(g.Y-cur.y) > 0.4*math.Max(size, lastSize) || g.X < lastEnd-2*size {
			end()
			cur = &pdfLine{page: p, size: size, x: g.X, y: g.Y}
			lastSpace = true
		} else if gap := g.X - lastEnd; gap > 0.2*math.Max(size, lastSize) && !lastSpace && g.S != " " {
			sb.WriteByte(' ')
		}
		cur.size = math.Max(cur.size, size)
		sb.WriteString(ligatures.Replace(g.S))
		lastSpace = strings.TrimSpace(g.S) == ""
		lastEnd, lastSize = g.X+w, size
	}
	end()
	return lines, nil
}

// pdfBlocks turns lines into headings and paragraphs.
func pdfBlocks(b *builder, lines []pdfLine) {
	// The body size is the size of most characters.
	count := map[float64]int{}
	for _, l := range lines {
		count[round1(l.size)] += utf8.RuneCountInString(l.text)
	}
	body, most := 0.0, -1
	for s, n := range count {
		if n > most || n == most && s < body {
			body, most = s, n
		}
	}
	isHeading := func(l pdfLine) bool {
		return round1(l.size) >= body*1.15 && utf8.RuneCountInString(l.text) <= 150 && strings.IndexFunc(l.text, unicode.IsLetter) >= 0
	}
	var sizes []float64
	seen := map[float64]bool{}
	for _, l := range lines {
		if s := round1(l.size); isHeading(l) && !seen[s] {
			seen[s] = true
			sizes = append(sizes, s)
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(sizes)))
	level := func(s float64) int {
		for i, x := range sizes {
			if x == s {
				return min(i+1, 6)
			}
		}
		return 6
	}

	var para strings.Builder
	var paraPage int
	var prev *pdfLine
	var head []pdfLine
	flushPara := func() {
		if para.Len() > 0 {
			b.block(Paragraph, para.String(), 0, paraPage, 0)
		}
		para.Reset()
	}
	flushHead := func() {
		if len(head) > 0 {
			var t []string
			for _, h := range head {
				t = append(t, h.text)
			}
			b.heading(level(round1(head[0].size)), strings.Join(t, " "), "", 0, head[0].page)
		}
		head = head[:0]
	}
	for i := range lines {
		l := lines[i]
		if isPageNumber(l.text) {
			continue
		}
		if isHeading(l) {
			flushPara()
			if len(head) > 0 && (round1(head[0].size) != round1(l.size) || head[0].page != l.page) {
				flushHead()
			}
			head = append(head, l)
			prev = &lines[i]
			continue
		}
		flushHead()
		newPara := prev == nil || prev.page != l.page || round1(prev.size) != round1(l.size) ||
			prev.y-l.y > 1.6*l.size || prev.y < l.y || l.x > prev.x+0.8*l.size
		if newPara {
			flushPara()
			paraPage = l.page
			para.WriteString(l.text)
		} else {
			joinLine(&para, l.text)
		}
		prev = &lines[i]
	}
	flushHead()
	flushPara()
}

// joinLine appends a wrapped line to a paragraph: a word hyphenated at the
// end of the previous line is rejoined ("hyphen-" + "ation"), other line
// ends become a space.
func joinLine(para *strings.Builder, next string) {
	s := para.String()
	last, _ := utf8.DecodeLastRuneInString(s)
	if last == '\u00ad' {
		para.Reset()
		para.WriteString(strings.TrimSuffix(s, "\u00ad"))
		para.WriteString(next)
		return
	}
	if last == '-' && len(s) >= 2 {
		before, _ := utf8.DecodeLastRuneInString(s[:len(s)-1])
		first, _ := utf8.DecodeRuneInString(next)
		if unicode.IsLetter(before) && unicode.IsLower(first) {
			para.Reset()
			para.WriteString(s[:len(s)-1])
			para.WriteString(next)
			return
		}
	}
	para.WriteByte(' ')
	para.WriteString(next)
}

func isPageNumber(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 6 {
		return false
	}
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// ligatures spells out the Latin ligatures PDF fonts draw as one glyph.
var ligatures = strings.NewReplacer("\ufb00", "ff", "\ufb01", "fi", "\ufb02", "fl", "\ufb03", "ffi", "\ufb04", "ffl", "\ufb05", "st", "\ufb06", "st")

func round1(x float64) float64 { return math.Round(x*10) / 10 }
