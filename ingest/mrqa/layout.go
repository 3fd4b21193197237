package mrqa

import (
	"sort"
	"strings"
)

// doc is one output context made from (part of) an MRQA context.
type doc struct {
	// Title is the document's title, if the layout has one.
	Title string
	// Text is the document's text, made of runs of the raw context.
	Text string
	// segs map runs of Text to runs of the raw context.
	segs []seg
	// titles are the byte ranges of the raw context that are titles.
	titles []Span
}

// seg says that Text[local:local+n] is raw[raw:raw+n].
type seg struct{ raw, local, n int }

// tagNames are the special tokens MRQA inserts into contexts.
var tagNames = []string{"[DOC]", "[TLE]", "[PAR]", "[SEP]"}

// piece is a tag or a run of text between tags in a raw context.
type piece struct {
	tag      string // "" for text
	raw      Span   // bytes; for text, trimmed of white space
	textPart string
}

// scanTags cuts raw into tags and trimmed text runs (empty runs dropped).
func scanTags(raw string) []piece {
	var out []piece
	text := func(lo, hi int) {
		for lo < hi && isSpaceByte(raw[lo]) {
			lo++
		}
		for hi > lo && isSpaceByte(raw[hi-1]) {
			hi--
		}
		if lo < hi {
			out = append(out, piece{raw: Span{lo, hi}, textPart: raw[lo:hi]})
		}
	}
	start := 0
	for i := 0; i < len(raw); {
		j := strings.IndexByte(raw[i:], '[')
		if j < 0 {
			break
		}
		i += j
		matched := ""
		for _, t := range tagNames {
			if strings.HasPrefix(raw[i:], t) {
				matched = t
				break
			}
		}
		if matched == "" {
			i++
			continue
		}
		text(start, i)
		out = append(out, piece{tag: matched, raw: Span{i, i + len(matched)}})
		i += len(matched)
		start = i
	}
	text(start, len(raw))
	return out
}

// isSpaceByte reports ASCII white space; runs are trimmed of it only, so
// that byte ranges stay exact.
func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// docBuilder accumulates a doc's title and text runs.
type docBuilder struct {
	d       doc
	b       strings.Builder
	titleB  []string
	started bool
}

func (db *docBuilder) addText(p piece) {
	if db.b.Len() > 0 {
		db.b.WriteByte(' ')
	}
	db.d.segs = append(db.d.segs, seg{raw: p.raw.Start, local: db.b.Len(), n: p.raw.End - p.raw.Start})
	db.b.WriteString(p.textPart)
	db.started = true
}

func (db *docBuilder) addTitle(p piece) {
	db.titleB = append(db.titleB, p.textPart)
	db.d.titles = append(db.d.titles, p.raw)
	db.started = true
}

func (db *docBuilder) finish() doc {
	db.d.Text = db.b.String()
	db.d.Title = strings.Join(db.titleB, " ")
	return db.d
}

// splitLayout makes the docs of a raw MRQA context under a layout. Every
// layout but LayoutPlain joins the text runs of a doc with one space.
func splitLayout(raw string, l Layout) []doc {
	if l == LayoutPlain {
		return []doc{{Text: raw, segs: []seg{{0, 0, len(raw)}}}}
	}
	pieces := scanTags(raw)
	var docs []doc
	cur := &docBuilder{}
	inTitle := false
	flush := func() {
		if cur.started {
			docs = append(docs, cur.finish())
		}
		cur = &docBuilder{}
		inTitle = false
	}
	for _, p := range pieces {
		switch l {
		case LayoutUntagged:
			if p.tag == "" {
				if inTitle && cur.d.Title == "" && len(cur.titleB) == 0 {
					cur.titleB = append(cur.titleB, p.textPart)
				}
				cur.addText(p)
			}
			inTitle = p.tag == "[TLE]"
		case LayoutSnippets:
			switch p.tag {
			case "[DOC]":
				flush()
			case "[TLE]":
				inTitle = true
			case "[PAR]", "[SEP]":
				inTitle = false
			case "":
				if inTitle {
					cur.addTitle(p)
				} else {
					cur.addText(p)
				}
			}
		case LayoutDocuments:
			switch p.tag {
			case "[PAR]", "[DOC]":
				flush()
			case "[TLE]":
				inTitle = true
			case "[SEP]":
				inTitle = false
			case "":
				if inTitle {
					cur.addTitle(p)
				} else {
					cur.addText(p)
				}
			}
		}
	}
	if l == LayoutUntagged {
		d := cur.finish()
		d.titles = nil
		return []doc{d}
	}
	flush()
	return docs
}

// spanPlace says where a raw answer span falls.
type spanPlace int

const (
	placeText   spanPlace = iota // inside one run of one doc's text
	placeTitle                   // inside a title
	placeAcross                  // across a tag, a title edge or two docs
)

// locate maps a raw byte span to a doc and a byte span of its text.
func locate(docs []doc, sp Span) (int, Span, spanPlace) {
	for di, d := range docs {
		for _, t := range d.titles {
			if sp.Start >= t.Start && sp.End <= t.End {
				return di, Span{}, placeTitle
			}
		}
		segs := d.segs
		i := sort.Search(len(segs), func(i int) bool { return segs[i].raw+segs[i].n > sp.Start })
		if i < len(segs) && segs[i].raw <= sp.Start {
			s := segs[i]
			if sp.End <= s.raw+s.n {
				return di, Span{s.local + sp.Start - s.raw, s.local + sp.End - s.raw}, placeText
			}
			return di, Span{}, placeAcross
		}
	}
	return -1, Span{}, placeAcross
}
