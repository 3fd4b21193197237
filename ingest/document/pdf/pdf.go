package pdf

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
	"github.com/reqa/reqa/ingest/document"
)

// Parse reads the text of a PDF with the pure-Go github.com/ledongthuc/pdf:
// glyphs are put back into lines by their positions (a space where the gap
// between two glyphs is wider than a fifth of the type size; widths from
// the font, a composite font's W array included), lines into paragraphs (a
// new one after a wider vertical gap, a list marker, a first-line indent or
// a change of type size; a full line that stops mid-sentence goes on in
// the indented line under it, a hanging indent), a word hyphenated at a
// line end is rejoined, a URL broken at a line end is put back together
// and the other line ends become spaces. Footnotes (smaller type at a
// page's foot) are paragraphs of their own, and the paragraph they
// interrupt goes on over the page break. Lines in type clearly larger than the
// body text's and short enough are headings (the largest size is level 1).
// Lines set in a fixed-pitch font (by the font descriptor's flag or a
// typewriter face's name) are Code blocks. A line holding only a number (a page number), a table-of-contents line
// (dot leaders and a page number), the pages of a table of contents and
// running headers and footers (the same first or last line on three pages
// or more, or a first or last line set apart from the text at the same
// height on three pages or more) are dropped. Blocks carry
// their page; there are no line numbers. An encrypted PDF (one that needs a
// password), one the parser cannot read, or a page it cannot read is an
// *Error naming the page; a PDF without text (scanned pages) reads as a
// document without blocks.
//
// The file's structure is checked first (see guard.go): a cross-reference
// chain that loops, a predictor's /Columns over 1 MiB, more than 8 M
// objects, a stream decoding to more than 64 MiB, a page tree that holds
// itself, more than 1 M glyphs on a page or 16 M in the file are an *Error.
func Parse(name string, data []byte) (*document.Document, error) {
	return ParseContext(context.Background(), name, data)
}

// ParseContext is [Parse], stopping with ctx's error (wrapped) once ctx is
// done: between pages, within a page's content, and whenever the library
// reads the file.
func ParseContext(ctx context.Context, name string, data []byte) (d *document.Document, err error) {
	defer document.Recover(name, &err)
	if err := checkStructure(ctx, data); err != nil {
		return nil, pdfError(ctx, name, 0, err)
	}
	r, err := pdf.NewReader(newGuardedFile(ctx, data), int64(len(data)))
	if err != nil {
		return nil, pdfError(ctx, name, 0, err)
	}
	pages, err := pageTree(ctx, r)
	if err != nil {
		return nil, pdfError(ctx, name, 0, err)
	}
	var lines []pdfLine
	var budget budget
	for i, pg := range pages {
		if err := ctx.Err(); err != nil {
			return nil, pdfError(ctx, name, i+1, err)
		}
		ls, err := pageLines(ctx, pg, i+1, &budget)
		if err != nil {
			return nil, pdfError(ctx, name, i+1, err)
		}
		lines = append(lines, ls...)
	}
	b := document.NewBuilder(name, document.PDF)
	pdfBlocks(b, lines)
	return b.Doc, nil
}

// pdfError is err as the reader returns it: ctx's error wrapped with the
// file's name once ctx is done, else an *Error naming the file and page.
func pdfError(ctx context.Context, name string, page int, err error) error {
	if e := ctx.Err(); e != nil {
		return fmt.Errorf("%s: %w", name, e)
	}
	var s stop
	if errors.As(err, &s) {
		err = s.err
	}
	return &document.Error{Name: name, Page: page, Msg: "pdf: " + err.Error()}
}

// page is a leaf of the page tree with the resources it inherits.
type page struct {
	v, res pdf.Value
}

// pageTree returns the pages in order, walking the tree once: a Pages node
// met again (a tree that holds itself) is an error, and the resources a
// page inherits come from the walk, never from its /Parent chain (which
// may loop).
func pageTree(ctx context.Context, r *pdf.Reader) (pages []page, err error) {
	defer func() {
		if e := recover(); e != nil {
			pages, err = nil, fmt.Errorf("cannot read the page tree: %v", e)
			if s, ok := e.(stop); ok {
				err = s
			}
		}
	}()
	root := r.Trailer().Key("Root").Key("Pages")
	type node struct {
		v, res pdf.Value
		id     string
	}
	seen := map[string]bool{}
	stack := []node{{v: root, res: root.Key("Resources")}}
	for n := 0; len(stack) > 0; n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if n > maxPageNodes {
			return nil, refuse("page tree of more than %d nodes", maxPageNodes)
		}
		nd := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch nd.v.Key("Type").Name() {
		case "Page":
			pages = append(pages, page{nd.v, nd.res})
		case "Pages":
			if nd.id != "" {
				if seen[nd.id] {
					return nil, refuse("page tree: object %s holds itself", nd.id)
				}
				seen[nd.id] = true
			}
			kids := nd.v.Key("Kids")
			ids := refIDs(kids.String(), kids.Len())
			for i := kids.Len() - 1; i >= 0; i-- {
				kid := kids.Index(i)
				res := kid.Key("Resources")
				if res.IsNull() {
					res = nd.res
				}
				stack = append(stack, node{kid, res, ids[i]})
			}
		}
	}
	return pages, nil
}

// refIDs returns the object numbers of an array's n items from its text
// ("[3 0 R 4 0 R]"), "" for an item that is not a reference.
func refIDs(text string, n int) []string {
	items := arrayItems(text)
	ids := make([]string, 0, n)
	for i := 0; i < len(items) && len(ids) < n; {
		if i+2 < len(items) && items[i+2] == "R" && isInt([]byte(items[i])) && isInt([]byte(items[i+1])) {
			ids = append(ids, items[i]+" "+items[i+1])
			i += 3
			continue
		}
		ids = append(ids, "")
		i++
	}
	for len(ids) < n {
		ids = append(ids, "")
	}
	return ids
}

// budget counts what a document's pages have cost.
type budget struct {
	glyphs, ops int
}

type pdfLine struct {
	page  int
	text  string
	size  float64 // type size
	x, y  float64 // start of the line
	right float64 // end of the line's last glyph
	mono  bool    // most of its glyphs are in a fixed-pitch font (code)
}

// pageLines returns page p's text lines in content order.
func pageLines(ctx context.Context, pg page, p int, bud *budget) (lines []pdfLine, err error) {
	defer func() {
		if e := recover(); e != nil {
			lines, err = nil, fmt.Errorf("cannot read the page: %v", e)
			if s, ok := e.(stop); ok {
				err = s
			}
		}
	}()
	gs := pageGlyphs(ctx, pg, bud)
	var cur *pdfLine
	var sb strings.Builder
	var lastEnd, lastSize float64
	lastSpace := true
	mono, glyphs := 0, 0 // of the current line
	end := func() {
		if cur != nil {
			cur.mono = 2*mono > glyphs
			cur.right = lastEnd
			cur.text = strings.TrimSpace(sb.String())
			if cur.text != "" {
				lines = append(lines, *cur)
			}
		}
		cur = nil
		sb.Reset()
	}
	for _, g := range gs {
		size := math.Abs(g.size)
		if size == 0 || math.IsNaN(size) || math.IsInf(size, 0) {
			size = 1
		}
		w := g.w
		if w <= 0 || math.IsNaN(w) {
			w = 0
		}
		if cur == nil || math.Abs(g.y-cur.y) > 0.4*math.Max(size, lastSize) || g.x < lastEnd-2*size {
			end()
			cur = &pdfLine{page: p, size: size, x: g.x, y: g.y}
			lastSpace = true
			mono, glyphs = 0, 0
		} else if gap := g.x - lastEnd; gap > 0.15*math.Max(size, lastSize) && !lastSpace && g.s != " " {
			sb.WriteByte(' ')
		}
		cur.size = math.Max(cur.size, size)
		if strings.TrimSpace(g.s) != "" {
			glyphs++
			if g.mono {
				mono++
			}
		}
		sb.WriteString(ligatures.Replace(g.s))
		lastSpace = strings.TrimSpace(g.s) == ""
		lastEnd, lastSize = g.x+w, size
	}
	end()
	return lines, nil
}

// pdfBlocks turns lines into headings and paragraphs.
func pdfBlocks(b *document.Builder, lines []pdfLine) {
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

	var para, code strings.Builder
	var paraPage, codePage int
	var prev *pdfLine
	var head []pdfLine
	flushPara := func() {
		if para.Len() > 0 {
			text, kind := para.String(), document.Paragraph
			if startsBullet(text) {
				_, n := utf8.DecodeRuneInString(text)
				text, kind = text[n+1:], document.ListItem
			}
			b.Block(kind, text, 0, paraPage, 0)
		}
		para.Reset()
	}
	flushCode := func() {
		if code.Len() > 0 {
			b.Block(document.Code, code.String(), 0, codePage, 0)
		}
		code.Reset()
	}
	flushHead := func() {
		if len(head) > 0 {
			var t []string
			for _, h := range head {
				t = append(t, h.text)
			}
			b.Heading(level(round1(head[0].size)), strings.Join(t, " "), "", 0, head[0].page)
		}
		head = head[:0]
	}
	running := runningLines(lines, body)
	toc := tocPages(lines)
	compounds := hyphenated(lines)
	rights := pageRights(lines)
	notes := footnotes(lines, body, running)
	// The body paragraph a page's footnotes interrupt, taken up again after
	// them (it may go on over the page break).
	var body0 struct {
		para string
		page int
		prev *pdfLine
		set  bool
	}
	for i := range lines {
		l := lines[i]
		if isPageNumber(l.text) || running[i] || toc[l.page] || tocEntry.MatchString(l.text) {
			continue
		}
		if notes[i] && !body0.set {
			flushHead()
			flushCode()
			body0.para, body0.page, body0.prev, body0.set = para.String(), paraPage, prev, true
			para.Reset()
			prev = nil
			l.text = noteMark.ReplaceAllString(l.text, "$1")
		} else if !notes[i] && body0.set {
			flushCode()
			flushPara()
			para.WriteString(body0.para)
			paraPage, prev, body0.set = body0.page, body0.prev, false
		}
		if l.mono && inlineCode(prev, l, para.String()) {
			// A path or URL wrapped onto its own line in the middle of a
			// sentence is part of that sentence, not a code block.
			joinLine(&para, l.text, compounds)
			cont := *prev // the paragraph's type, at this line's place
			cont.y, cont.page = l.y, l.page
			prev = &cont
			continue
		}
		if l.mono {
			// Lines in a fixed-pitch font are code: kept line by line,
			// never candidates.
			flushHead()
			flushPara()
			if code.Len() == 0 {
				codePage = l.page
			} else {
				code.WriteByte('\n')
			}
			code.WriteString(l.text)
			prev = nil
			continue
		}
		flushCode()
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
		var newPara bool
		if prev != nil && prev.page != l.page {
			// A paragraph goes on over a page break when it did not end a
			// sentence and the text goes on in the same type.
			last, _ := utf8.DecodeLastRuneInString(para.String())
			newPara = para.Len() == 0 || strings.ContainsRune(".!?:", last) && !urlBreak(para.String(), l.text) ||
				round1(prev.size) != round1(l.size) || startsBullet(l.text)
		} else {
			newPara = prev == nil || round1(prev.size) != round1(l.size) ||
				prev.y-l.y > 1.6*l.size || prev.y < l.y || startsBullet(l.text) ||
				l.x > prev.x+0.8*l.size && !hanging(*prev, l, para.String(), rights[l.page])
		}
		if newPara {
			flushPara()
			paraPage = l.page
			para.WriteString(l.text)
		} else {
			joinLine(&para, l.text, compounds)
		}
		prev = &lines[i]
	}
	flushHead()
	flushPara()
	flushCode()
	if body0.set {
		para.WriteString(body0.para)
		paraPage = body0.page
		flushPara()
	}
}

// noteMark is a footnote's number set before its first word ("1The …").
var noteMark = regexp.MustCompile(`^[0-9]{1,3}(\pL)`)

// footnotes marks each page's footnotes: the lines at its foot, below the
// last line in body type (size body), set in smaller type, the first of
// them not in a fixed-pitch font (small code at a page's foot is code).
// Running footers and page numbers (running) are not footnotes.
func footnotes(lines []pdfLine, body float64, running map[int]bool) map[int]bool {
	out := map[int]bool{}
	for end := len(lines) - 1; end >= 0; {
		start := end
		for start > 0 && lines[start-1].page == lines[end].page {
			start--
		}
		var run []int
		for i := end; i >= start; i-- {
			if running[i] || isPageNumber(lines[i].text) {
				continue
			}
			if round1(lines[i].size) >= body {
				for _, j := range run {
					out[j] = !lines[run[len(run)-1]].mono
				}
				break
			}
			run = append(run, i)
		}
		end = start - 1
	}
	return out
}

// runningLines marks running headers and footers: a page's first or last
// line whose text, digits aside, is the first or last line of at least
// two other pages too; or, when the text changes from page to page (the
// current chapter and section, as LaTeX's book classes print them), a
// first (last) line set apart from the line below (above) it by more than
// twice its type size, in type no larger than the body's (size body),
// above (below) every line that is not a page's first (last), at the same
// height (within two points) as such a line on at least two other pages.
func runningLines(lines []pdfLine, body float64) map[int]bool {
	key := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsDigit(r) || unicode.IsSpace(r) {
				return -1
			}
			return r
		}, s)
	}
	var edges []int // indexes of the first and last lines of each page
	for i, l := range lines {
		if isPageNumber(l.text) {
			continue
		}
		if len(edges) == 0 || lines[edges[len(edges)-1]].page != l.page {
			edges = append(edges, i)
		}
	}
	for i := range lines {
		if i+1 == len(lines) || lines[i+1].page != lines[i].page {
			j := i
			for j >= 0 && lines[j].page == lines[i].page && isPageNumber(lines[j].text) {
				j--
			}
			if j >= 0 && lines[j].page == lines[i].page {
				edges = append(edges, j)
			}
		}
	}
	pages := map[string]map[int]bool{}
	for _, i := range edges {
		k := key(lines[i].text)
		if pages[k] == nil {
			pages[k] = map[int]bool{}
		}
		pages[k][lines[i].page] = true
	}
	out := map[int]bool{}
	for _, i := range edges {
		if k := key(lines[i].text); k != "" && len(pages[k]) >= 3 {
			out[i] = true
		}
	}
	// Apart lines: in the margin above (below) every line that is not a
	// page's first (last), the same height on three pages or more.
	maxInner, minInner := math.Inf(-1), math.Inf(1)
	for i, l := range lines {
		if isPageNumber(l.text) {
			continue
		}
		if i > 0 && lines[i-1].page == l.page {
			maxInner = max(maxInner, l.y)
		}
		if i+1 < len(lines) && lines[i+1].page == l.page && !isPageNumber(lines[i+1].text) {
			minInner = min(minInner, l.y)
		}
	}
	apart := map[float64]map[int]bool{} // pages by height, to the point
	var cands []int
	for _, i := range edges {
		l := lines[i]
		if out[i] || round1(l.size) > body {
			continue
		}
		first := i == 0 || lines[i-1].page != l.page
		var next pdfLine
		if first && i+1 < len(lines) && lines[i+1].page == l.page {
			next = lines[i+1]
		} else if !first && i > 0 && lines[i-1].page == l.page {
			next = lines[i-1]
		} else {
			continue
		}
		if math.Abs(l.y-next.y) <= 2*l.size || (first && l.y <= maxInner) || (!first && l.y >= minInner) {
			continue
		}
		y := math.Round(l.y)
		if apart[y] == nil {
			apart[y] = map[int]bool{}
		}
		apart[y][l.page] = true
		cands = append(cands, i)
	}
	for _, i := range cands {
		// The same height within two points: a header set a point lower
		// on one page (an accent in it) is still the running header.
		y, pages := math.Round(lines[i].y), map[int]bool{}
		for d := -2.0; d <= 2 && len(pages) < 3; d++ {
			for p := range apart[y+d] {
				if pages[p] = true; len(pages) >= 3 {
					break
				}
			}
		}
		out[i] = len(pages) >= 3
	}
	return out
}

// tocPages marks the pages of a table of contents (or an index): pages
// on which at least half of the lines of five or more are entries with dot
// leaders and a page number. Every line of such a page is dropped,
// including entries wrapped onto a line of their own and those without
// leaders.
func tocPages(lines []pdfLine) map[int]bool {
	total, entries := map[int]int{}, map[int]int{}
	for _, l := range lines {
		if isPageNumber(l.text) {
			continue
		}
		total[l.page]++
		if tocEntry.MatchString(l.text) {
			entries[l.page]++
		}
	}
	out := map[int]bool{}
	for p, n := range total {
		if n >= 5 && 2*entries[p] >= n {
			out[p] = true
		}
	}
	return out
}

// joinLine appends a wrapped line to a paragraph: a URL broken at a line
// end goes on without a space (see urlBreak), a word hyphenated at the
// end of the previous line is rejoined ("configu-" + "ration"), unless the
// document writes the hyphenated word on one line elsewhere (compounds
// holds those, lower-cased: "well-known" stays whole); other line ends
// become a space.
func joinLine(para *strings.Builder, next string, compounds map[string]bool) {
	s := para.String()
	if urlBreak(s, next) {
		para.WriteString(next)
		return
	}
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
			head := s[strings.LastIndexFunc(s[:len(s)-1], func(r rune) bool { return !unicode.IsLetter(r) && r != '-' })+1:]
			tail := next
			if i := strings.IndexFunc(next, func(r rune) bool { return !unicode.IsLetter(r) }); i >= 0 {
				tail = next[:i]
			}
			para.Reset()
			if compounds[strings.ToLower(head+tail)] {
				para.WriteString(s)
			} else {
				para.WriteString(s[:len(s)-1])
			}
			para.WriteString(next)
			return
		}
	}
	para.WriteByte(' ')
	para.WriteString(next)
}

// urlBreak reports whether a paragraph ends in a URL broken at a line end
// that the line next goes on with: the paragraph's last word ends with a
// scheme ("https:") and next starts with "//"; or it has a scheme
// ("https://") or starts "www.", and either ends with "/", "-", "_", "#",
// "?", "=", "&" or "~" and next starts with a letter or digit, or ends with
// "." and next starts with a lower-case letter or digit ("https://www." +
// "debian.org/"; a sentence after a URL and a full stop starts with a
// capital).
func urlBreak(para, next string) bool {
	word := strings.ToLower(para[strings.LastIndexFunc(para, unicode.IsSpace)+1:])
	if strings.HasSuffix(word, "http:") || strings.HasSuffix(word, "https:") || strings.HasSuffix(word, "ftp:") {
		return strings.HasPrefix(next, "//")
	}
	if !strings.Contains(word, "://") && !strings.HasPrefix(word, "www.") {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(word)
	first, _ := utf8.DecodeRuneInString(next)
	switch {
	case strings.ContainsRune("/-_#?=&~", last):
		return unicode.IsLetter(first) || unicode.IsDigit(first)
	case last == '.':
		return unicode.IsLower(first) || unicode.IsDigit(first)
	}
	return false
}

// startsBullet reports whether a line starts with a list marker and a space.
func startsBullet(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return bullets[r] && n < len(s) && s[n] == ' '
}

// pageRights returns each page's right margin: where its lines of text
// (code aside) end, the 95th percentile, so that a line running into the
// margin (a long URL) does not move it.
func pageRights(lines []pdfLine) map[int]float64 {
	ends := map[int][]float64{}
	for _, l := range lines {
		if !l.mono && !isPageNumber(l.text) {
			ends[l.page] = append(ends[l.page], l.right)
		}
	}
	out := map[int]float64{}
	for p, e := range ends {
		sort.Float64s(e)
		out[p] = e[(len(e)-1)*95/100]
	}
	return out
}

// hanging reports whether line l, indented further than prev, is the next
// line of prev's paragraph set with a hanging indent (a list item or a
// definition whose term starts the first line, the lines after it indented)
// rather than the indented first line of a new paragraph: prev stops
// mid-sentence (para, the paragraph so far, does not end with ".", "!",
// "?" or ":") and is full, l's first word would not have fit after it
// before the page's right margin (right).
func hanging(prev, l pdfLine, para string, right float64) bool {
	last, _ := utf8.DecodeLastRuneInString(para)
	if para == "" || strings.ContainsRune(".!?:", last) {
		return false
	}
	word := l.text
	if i := strings.IndexByte(word, ' '); i >= 0 {
		word = word[:i]
	}
	// A glyph is about half the type size wide on average; one for the space.
	return prev.right+0.5*l.size*float64(utf8.RuneCountInString(word)+1) > right
}

// hyphenated returns the hyphenated words written within lines, lower-cased.
func hyphenated(lines []pdfLine) map[string]bool {
	out := map[string]bool{}
	for _, l := range lines {
		for _, w := range strings.FieldsFunc(l.text, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) {
			w = strings.Trim(w, "-")
			if strings.Contains(w, "-") {
				out[strings.ToLower(w)] = true
			}
		}
	}
	return out
}

// bullets are the list markers a PDF paragraph may start with.
var bullets = map[rune]bool{'•': true, '◦': true, '▪': true, '‣': true, '∙': true, '·': true, '–': true, '\uFFFD': true}

// tocEntry matches a table-of-contents line: dot (or colon) leaders and a
// page number, "2.1 NAME ........ 2".
var tocEntry = regexp.MustCompile(`(?:[.:·…] ?){5,}\s*[0-9ivxlc]+$`)

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

type glyph struct {
	x, y, w, size float64
	s             string
	mono          bool
}

type pdfFont struct {
	enc    pdf.TextEncoding
	first  int
	widths []float64
	mono   bool // fixed pitch
	// A composite (Type0) font with an Identity CMap: two bytes a glyph,
	// widths from its descendant font's W array (dw when not listed).
	cid  bool
	cidW map[int]float64
	dw   float64
}

// newPDFFont reads what glyph placement needs from a page's font.
func newPDFFont(pf pdf.Font) *pdfFont {
	f := &pdfFont{enc: pf.Encoder(), first: pf.FirstChar(), widths: pf.Widths(), mono: monoFont(pf)}
	if pf.V.Key("Subtype").Name() != "Type0" || !strings.HasPrefix(pf.V.Key("Encoding").Name(), "Identity-") {
		return f
	}
	d := pf.V.Key("DescendantFonts").Index(0)
	f.cid, f.cidW, f.dw = true, cidWidths(d.Key("W")), 1000
	if dw := d.Key("DW"); dw.Kind() == pdf.Integer || dw.Kind() == pdf.Real {
		f.dw = dw.Float64()
	}
	if d.Key("FontDescriptor").Key("Flags").Int64()&1 != 0 {
		f.mono = true
	}
	return f
}

// cidWidths reads a CID font's W array: "c [w1 w2 …]" gives codes c, c+1, …
// their widths; "first last w" gives every code from first to last width w.
// At most 1<<16 codes are read.
func cidWidths(w pdf.Value) map[int]float64 {
	out := map[int]float64{}
	for i := 0; i+1 < w.Len() && len(out) < 1<<16; {
		c := int(w.Index(i).Int64())
		if ws := w.Index(i + 1); ws.Kind() == pdf.Array {
			for j := range min(ws.Len(), 1<<16) {
				out[c+j] = ws.Index(j).Float64()
			}
			i += 2
			continue
		}
		if i+2 >= w.Len() {
			break
		}
		last, width := int(w.Index(i+1).Int64()), w.Index(i+2).Float64()
		for k := c; k <= last && k-c < 1<<16; k++ {
			out[k] = width
		}
		i += 3
	}
	return out
}

// monoFont reports whether a font is fixed-pitch: its descriptor says so
// (flag bit 1) or its name is that of a typewriter or code face.
func monoFont(f pdf.Font) bool {
	if f.V.Key("FontDescriptor").Key("Flags").Int64()&1 != 0 {
		return true
	}
	name := strings.ToLower(f.BaseFont())
	for _, m := range []string{"mono", "courier", "cmtt", "sftt", "lmtt", "typewriter", "consol", "code"} {
		if strings.Contains(name, m) {
			return true
		}
	}
	return false
}

type matrix [3][3]float64

var ident = matrix{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}

func (m matrix) mul(n matrix) matrix {
	var z matrix
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				z[i][j] += m[i][k] * n[k][j]
			}
		}
	}
	return z
}

func translate(tx, ty float64) matrix { return matrix{{1, 0, 0}, {0, 1, 0}, {tx, ty, 1}} }

// pageGlyphs interprets a page's content stream for its text, as
// pdf.Page.Content does, but reads each font's encoding and widths once
// (Content looks them up again for every glyph, which takes seconds on a
// manual whose fonts live in compressed object streams).
//
// It stops (by a panic of a stop) when ctx is done, after maxPageGlyphs
// glyphs on the page or when the document's budget is spent.
func pageGlyphs(ctx context.Context, pg page, bud *budget) []glyph {
	strm := pg.v.Key("Contents")
	if strm.Kind() == pdf.Null {
		return nil
	}
	fonts := map[string]*pdfFont{}
	font := func(name string) *pdfFont {
		if f, ok := fonts[name]; ok {
			return f
		}
		f := newPDFFont(pdf.Font{V: pg.res.Key("Font").Key(name)})
		fonts[name] = f
		return f
	}
	type state struct {
		tc, tw, th, tl, tfs, rise float64
		tf                        *pdfFont
		tm, tlm, ctm              matrix
	}
	g := state{th: 1, ctm: ident, tm: ident, tlm: ident}
	var stack []state
	var out []glyph
	show := func(raw string) {
		if g.tf == nil || g.tf.enc == nil {
			return
		}
		if len(out)+len(raw) > maxPageGlyphs {
			panic(stop{refuse("more than %d glyphs on the page", maxPageGlyphs)})
		}
		if g.tf.cid {
			for i := 0; i+1 < len(raw); i += 2 {
				w0, ok := g.tf.cidW[int(raw[i])<<8|int(raw[i+1])]
				if !ok {
					w0 = g.tf.dw
				}
				trm := matrix{{g.tfs * g.th, 0, 0}, {0, g.tfs, 0}, {0, g.rise, 1}}.mul(g.tm).mul(g.ctm)
				out = append(out, glyph{x: trm[2][0], y: trm[2][1], w: w0 / 1000 * trm[0][0], size: trm[0][0], s: g.tf.enc.Decode(raw[i : i+2]), mono: g.tf.mono})
				g.tm = translate((w0/1000*g.tfs+g.tc)*g.th, 0).mul(g.tm)
			}
			return
		}
		dec := g.tf.enc.Decode(raw)
		n := 0
		for _, ch := range dec {
			var w0 float64
			var space bool
			if n < len(raw) {
				if i := int(raw[n]) - g.tf.first; i >= 0 && i < len(g.tf.widths) {
					w0 = g.tf.widths[i]
				}
				space = raw[n] == ' '
			}
			n++
			trm := matrix{{g.tfs * g.th, 0, 0}, {0, g.tfs, 0}, {0, g.rise, 1}}.mul(g.tm).mul(g.ctm)
			out = append(out, glyph{x: trm[2][0], y: trm[2][1], w: w0 / 1000 * trm[0][0], size: trm[0][0], s: string(ch), mono: g.tf.mono})
			tx := w0/1000*g.tfs + g.tc
			if space {
				tx += g.tw
			}
			g.tm = translate(tx*g.th, 0).mul(g.tm)
		}
	}
	num := func(args []pdf.Value, i int) float64 {
		if i < len(args) {
			return args[i].Float64()
		}
		return 0
	}
	mat := func(args []pdf.Value) matrix {
		var m matrix
		for i := range 6 {
			m[i/2][i%2] = num(args, i)
		}
		m[2][2] = 1
		return m
	}
	pdf.Interpret(strm, func(stk *pdf.Stack, op string) {
		if bud.ops++; bud.ops%1024 == 0 {
			if err := ctx.Err(); err != nil {
				panic(stop{err})
			}
			if bud.ops > maxOps {
				panic(stop{refuse("more than %d content operators in the file", maxOps)})
			}
		}
		if len(out) > maxPageGlyphs {
			panic(stop{refuse("more than %d glyphs on the page", maxPageGlyphs)})
		}
		if bud.glyphs+len(out) > maxGlyphs {
			panic(stop{refuse("more than %d glyphs in the file", maxGlyphs)})
		}
		n := stk.Len()
		args := make([]pdf.Value, n)
		for i := n - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "cm":
			g.ctm = mat(args).mul(g.ctm)
		case "q":
			if len(stack) < 1024 {
				stack = append(stack, g)
			}
		case "Q":
			if len(stack) > 0 {
				g = stack[len(stack)-1]
				stack = stack[:len(stack)-1]
			}
		case "BT":
			g.tm, g.tlm = ident, ident
		case "T*":
			g.tlm = translate(0, -g.tl).mul(g.tlm)
			g.tm = g.tlm
		case "Tc":
			g.tc = num(args, 0)
		case "Tw":
			g.tw = num(args, 0)
		case "Tz":
			g.th = num(args, 0) / 100
		case "TL":
			g.tl = num(args, 0)
		case "Ts":
			g.rise = num(args, 0)
		case "TD":
			g.tl = -num(args, 1)
			fallthrough
		case "Td":
			g.tlm = translate(num(args, 0), num(args, 1)).mul(g.tlm)
			g.tm = g.tlm
		case "Tm":
			g.tm = mat(args)
			g.tlm = g.tm
		case "Tf":
			if len(args) == 2 {
				g.tf, g.tfs = font(args[0].Name()), args[1].Float64()
			}
		case "\"":
			if len(args) != 3 {
				return
			}
			g.tw, g.tc = args[0].Float64(), args[1].Float64()
			args = args[2:]
			fallthrough
		case "'":
			g.tlm = translate(0, -g.tl).mul(g.tlm)
			g.tm = g.tlm
			fallthrough
		case "Tj":
			if len(args) == 1 {
				show(args[0].RawString())
			}
		case "TJ":
			if len(args) != 1 {
				return
			}
			v := args[0]
			for i := range v.Len() {
				x := v.Index(i)
				if x.Kind() == pdf.String {
					show(x.RawString())
				} else {
					g.tm = translate(-x.Float64()/1000*g.tfs*g.th, 0).mul(g.tm)
				}
			}
		}
	})
	bud.glyphs += len(out)
	return out
}

// inlineCode reports whether the fixed-pitch line l goes on the paragraph
// para (whose last line is prev) instead of starting a code block: the
// paragraph stops mid-sentence (not after ".", "!", "?" or ":", which
// introduce a block; a URL broken at the line end is mid-sentence) and l follows at an ordinary line distance on the
// same page.
func inlineCode(prev *pdfLine, l pdfLine, para string) bool {
	if prev == nil || para == "" || prev.page != l.page || prev.y <= l.y || prev.y-l.y > 1.6*prev.size {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(strings.TrimSpace(para))
	return !strings.ContainsRune(".!?:", last) || urlBreak(para, l.text)
}
