package ingest

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reqa/reqa/index/sentence"
	"github.com/reqa/reqa/ingest/document"
	"github.com/reqa/reqa/ingest/document/formats"
	"github.com/reqa/reqa/store"
)

// DocumentKind returns the document kind of a file name by its extension
// (".gz" aside), or by the names the formats' files go by (README and the
// like are txt, ls.1 and perl.3pm man, find.info-2 info): the name of its
// format in formats.All, "" for anything else.
func DocumentKind(name string) string {
	if f := formats.Detect(name, nil); f != nil {
		return string(f.Name)
	}
	return ""
}

// readDocument reads data, the bytes of the file name, as a document of kind
// (the name of a format in formats.All; a manual page that does not look like
// roff is read as plain text, plain text that reads as Markdown or
// reStructuredText as that: [formats.Format.Reader]) into c: its structure is
// kept (see [Corpus.WithContexts]); each group of blocks — a paragraph, a
// list, a table, a definition list, a quote — becomes a context titled with
// its heading path, each of its blocks' sentences a candidate (a table row
// is one candidate), code blocks none. A file without a sentence is an
// *InputError whose message starts with "empty".
func readDocument(c *Corpus, name, kind string, data []byte) error {
	d, format, err := parseDocument(name, kind, data)
	if err != nil {
		return err
	}
	return addParsed(c, name, format, d)
}

// parseDocument parses data, the bytes of the file name, as a document of
// kind: the format's reader is chosen ([formats.Format.Reader]), the text
// checked (UTF-8, not empty) and parsed. It returns the document and the
// format it was read in. This is what a parser worker runs (see
// [Parsers]); readDocument runs it in process.
func parseDocument(name, kind string, data []byte) (*document.Document, document.Format, error) {
	f := formats.ByName(kind)
	if f == nil {
		return nil, "", badInput(name, 0, "", "unsupported document kind %q (want %s)", kind, orList(formats.Names()))
	}
	f = f.Reader(data)
	if f.UTF8 {
		if err := checkUTF8(name, data); err != nil {
			return nil, f.Name, err
		}
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil, f.Name, badInput(name, 0, "", "empty file (no text)")
	}
	d, err := f.Parse(name, data)
	if err != nil {
		var de *document.Error
		if errors.As(err, &de) {
			msg := de.Msg
			if de.Page > 0 {
				msg = fmt.Sprintf("page %d: %s", de.Page, msg)
			}
			return nil, f.Name, badInput(name, de.Line, "", "%s", msg)
		}
		return nil, f.Name, badInput(name, 0, "", "%v", err)
	}
	return d, f.Name, nil
}

// addParsed adds d, the document parsed from the file name in format, to c.
func addParsed(c *Corpus, name string, format document.Format, d *document.Document) error {
	before := len(c.Sentences)
	c.addDocument(d)
	if len(c.Sentences) == before {
		if f := formats.ByName(string(format)); f != nil && f.Empty != "" {
			return badInput(name, 0, "", "%s", f.Empty)
		}
		return badInput(name, 0, "", "empty file (no sentences)")
	}
	return nil
}

// documents is what a corpus keeps of its documents' structure so that
// WithContexts can regroup their contexts.
type documents struct {
	n   int                   // documents read
	ctx map[uint32]docContext // by context id
	// formed is the context choice the contexts were formed with by
	// WithContexts ("" while they are as read; ctx is then empty).
	formed string
}

// docContext places a context read from a document.
type docContext struct {
	doc, section int    // document (in reading order) and section in it
	path         string // heading path, "" before the first heading
	// under is the path of the definitions the context's blocks are
	// nested in (document.Block.Parents joined), "" for most.
	under string
	// code holds the section's code blocks that come before the context
	// (codeAfter: after it, when it is the section's last context); they
	// are shown in section contexts, never candidates.
	codeBefore, codeAfter string
}

var storeKinds = map[document.Kind]store.Kind{
	document.Paragraph: store.KindParagraph, document.ListItem: store.KindListItem,
	document.TableRow: store.KindTableRow, document.Quote: store.KindQuote,
	document.Definition: store.KindDefinition,
}

// addDocument adds a parsed document's contexts and sentences to c.
func (c *Corpus) addDocument(d *document.Document) {
	if c.docs == nil {
		c.docs = &documents{ctx: map[uint32]docContext{}}
	}
	c.docs.n++
	base := strings.TrimSuffix(filepath.Base(d.Name), filepath.Ext(d.Name))
	if strings.HasSuffix(strings.ToLower(d.Name), ".gz") {
		base = strings.TrimSuffix(base, filepath.Ext(base))
	}
	for si, s := range d.Sections {
		title := s.Heading()
		if title == "" {
			title = d.Title
		}
		if title == "" {
			title = base
		}
		var code []string
		last := -1
		for i := 0; i < len(s.Blocks); {
			b := s.Blocks[i]
			if b.Kind == document.Code {
				code = append(code, b.Text)
				i++
				continue
			}
			j := i + 1
			for j < len(s.Blocks) && s.Blocks[j].Group == b.Group && s.Blocks[j].Kind != document.Code && slices.Equal(s.Blocks[j].Parents, b.Parents) {
				j++
			}
			tmpl := store.Context{Title: title, Doc: d.Name, Slug: s.Slug, Paged: d.Format == document.PDF}
			if s.Part != "" {
				// An EPUB's lines are those of the content document.
				tmpl.Doc += ":" + s.Part
			}
			under := strings.Join(b.Parents, document.PathSep)
			if under != "" {
				tmpl.Title += document.PathSep + under
			}
			for n, id := range c.addBlocks(tmpl, d, s, s.Blocks[i:j]) {
				dc := docContext{doc: c.docs.n, section: si, path: s.Heading(), under: under}
				if n == 0 {
					dc.codeBefore = strings.Join(code, "\n")
					code = nil
				}
				c.docs.ctx[id] = dc
				last = int(id)
			}
			i = j
		}
		if len(code) > 0 && last >= 0 {
			dc := c.docs.ctx[uint32(last)]
			dc.codeAfter = strings.Join(code, "\n")
			c.docs.ctx[uint32(last)] = dc
		}
	}
}

// addBlocks adds blocks of one group as contexts of at most MaxContextBytes
// (cut between blocks; a longer block is cut between sentences as
// AddSplitContext does) and returns their ids.
func (c *Corpus) addBlocks(tmpl store.Context, d *document.Document, s document.Section, blocks []document.Block) []uint32 {
	var ids []uint32
	var text strings.Builder
	var sents []store.Sentence
	source := ""
	emit := func() {
		if len(sents) == 0 {
			text.Reset()
			return
		}
		ctx := tmpl
		ctx.Text, ctx.Source = text.String(), source
		id := c.AddContext(ctx)
		for _, x := range sents {
			x.ID, x.ContextID = uint32(len(c.Sentences)), id
			c.Sentences = append(c.Sentences, x)
		}
		ids = append(ids, id)
		text.Reset()
		sents = sents[:0]
	}
	for _, b := range blocks {
		spans := []sentence.Span{{Start: 0, End: len(b.Text)}}
		if b.Kind != document.TableRow {
			spans = sentence.English.Split(b.Text)
		}
		spans = keepTerm(spans, b.Term)
		spans, cut := splitLongSentences(b.Text, spans, MaxSentenceBytes)
		if cut > 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %d sentences over %d bytes cut at white space", d.Anchor(s, b), cut, MaxSentenceBytes))
		}
		if len(spans) == 0 {
			continue
		}
		line := uint32(max(b.Line, b.Page))
		kind := storeKinds[b.Kind]
		if text.Len() > 0 && text.Len()+1+len(b.Text) > MaxContextBytes {
			emit()
		}
		if len(b.Text) <= MaxContextBytes {
			if text.Len() == 0 {
				source = d.Anchor(s, b)
			} else {
				text.WriteByte('\n')
			}
			off := text.Len()
			text.WriteString(b.Text)
			for _, sp := range spans {
				sents = append(sents, store.Sentence{Start: off + sp.Start, End: off + sp.End, Kind: kind, Line: line})
			}
			continue
		}
		// A block longer than a context: consecutive windows of whole
		// sentences, each a context.
		emit()
		windows := sentenceWindows(spans)
		for n, w := range windows {
			lo := w[0].Start
			source = fmt.Sprintf("%s (part %d of %d)", d.Anchor(s, b), n+1, len(windows))
			text.WriteString(b.Text[lo:w[len(w)-1].End])
			for _, sp := range w {
				sents = append(sents, store.Sentence{Start: sp.Start - lo, End: sp.End - lo, Kind: kind, Line: line})
			}
			emit()
		}
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: passage of %d bytes cut into %d contexts of at most %d bytes", d.Anchor(s, b), len(b.Text), len(windows), MaxContextBytes))
	}
	emit()
	return ids
}

// keepTerm joins the first sentences of a definition while they end inside
// its term (term bytes, then ": "): the splitter reads a term such as "!",
// "?" or "e.g." as a sentence end, but a term names what the definition
// says and belongs to its first sentence.
func keepTerm(spans []sentence.Span, term int) []sentence.Span {
	for term > 0 && len(spans) > 1 && spans[0].End <= term+1 {
		spans[1].Start = spans[0].Start
		spans = spans[1:]
	}
	return spans
}

// headed is the context's heading path with the definitions it is nested
// in (what a paragraph+heading context starts with).
func (dc docContext) headed() string {
	switch {
	case dc.under == "":
		return dc.path
	case dc.path == "":
		return dc.under
	}
	return dc.path + document.PathSep + dc.under
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
