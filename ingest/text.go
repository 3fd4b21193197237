package ingest

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reqa/reqa/index/sentence"
	"github.com/reqa/reqa/ingest/document"
	"github.com/reqa/reqa/store"
)

// Document kinds readDocument takes, as the reading layer names them.
const (
	KindMarkdown = "md"
	KindHTML     = "html"
	KindPDF      = "pdf"
	KindText     = "txt"
	KindMan      = "man"
	KindRST      = "rst"
	KindAsciiDoc = "adoc"
	KindOrg      = "org"
	KindInfo     = "info"
	KindEPUB     = "epub"
	KindDOCX     = "docx"
	KindODT      = "odt"
)

// DocumentKind returns the document kind of a file name by its extension
// (".gz" aside): md for .md/.markdown, html for .html/.htm/.xhtml, pdf for
// .pdf, txt for .txt/.text, rst for .rst/.rest, adoc for
// .adoc/.asciidoc (not .asc, which is mostly an ASCII-armoured PGP key or
// signature), org for .org (Org mode), info for GNU Info files
// (.info and a split manual's .info-1, .info-2…), epub for .epub, docx for
// .docx, odt for .odt, man for .man and manual page section suffixes
// (.1–.9, optionally followed by letters or digits: .3pm, .1ssl,
// .3posix); txt for a plain-text documentation file named as projects
// name them (README, INSTALL, FAQ, TODO, HACKING, BUGS or CONTRIBUTING,
// in any case, alone or followed by a word: README.Debian, README.source;
// not README.sh); "" for anything else.
func DocumentKind(name string) string {
	ext := strings.ToLower(filepath.Ext(strings.TrimSuffix(strings.ToLower(name), ".gz")))
	switch ext {
	case ".md", ".markdown":
		return KindMarkdown
	case ".html", ".htm", ".xhtml":
		return KindHTML
	case ".pdf":
		return KindPDF
	case ".txt", ".text":
		return KindText
	case ".man":
		return KindMan
	case ".rst", ".rest":
		return KindRST
	case ".adoc", ".asciidoc":
		return KindAsciiDoc
	case ".org":
		return KindOrg
	case ".info":
		return KindInfo
	case ".epub":
		return KindEPUB
	case ".docx":
		return KindDOCX
	case ".odt":
		return KindODT
	}
	if n, ok := strings.CutPrefix(ext, ".info-"); ok && n != "" && strings.Trim(n, "0123456789") == "" {
		return KindInfo
	}
	if manSection(ext) {
		return KindMan
	}
	if docFileName(filepath.Base(strings.TrimSuffix(strings.ToLower(name), ".gz")), ext) {
		return KindText
	}
	return ""
}

// docNames are the names projects give their plain-text documentation
// files: README, INSTALL, FAQ and the like, without an extension or with
// a word after them (Debian's README.Debian, README.source).
var docNames = map[string]bool{"readme": true, "install": true, "faq": true, "todo": true, "hacking": true,
	"bugs": true, "contributing": true}

// codeExts are extensions that make a documentation name a program, a
// build file or an archive (INSTALL.sh, README.in, README.tar), never
// read as text.
var codeExts = map[string]bool{".sh": true, ".py": true, ".pl": true, ".rb": true, ".js": true, ".c": true,
	".h": true, ".go": true, ".json": true, ".xml": true, ".yml": true, ".yaml": true, ".cfg": true,
	".conf": true, ".in": true, ".am": true, ".ac": true, ".bat": true, ".cmd": true, ".ps1": true, ".mk": true,
	".tex": true, ".css": true, ".svg": true, ".tar": true, ".zip": true, ".bz2": true, ".xz": true,
	".zst": true, ".tgz": true, ".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".exe": true, ".so": true}

// docFileName reports whether base, a lower-cased file name with ext its
// extension, names a plain-text documentation file: a name of docNames
// alone, or followed by an extension of letters that is not code's.
func docFileName(base, ext string) bool {
	if !docNames[strings.TrimSuffix(base, ext)] {
		return false
	}
	if ext == "" {
		return true
	}
	if len(ext) > 13 || codeExts[ext] {
		return false
	}
	for _, r := range ext[1:] {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// manSection reports whether ext is a manual page's section suffix: "."
// and a digit 1–9, then lower-case letters or digits (".1", ".3pm",
// ".1ssl", ".8").
func manSection(ext string) bool {
	if len(ext) < 2 || ext[0] != '.' || ext[1] < '1' || ext[1] > '9' {
		return false
	}
	for _, c := range ext[2:] {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// looksLikeRoff reports whether data reads as roff: a line among its first
// 100 starts with a control character ("." or "'"). A file named like a
// manual page that does not (a log rotated to "app.log.1") is plain text.
func looksLikeRoff(data []byte) bool {
	for i, l := range strings.SplitN(string(data[:min(len(data), 64<<10)]), "\n", 101) {
		if i == 100 {
			break
		}
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			return true
		}
	}
	return false
}

// textFormat is the reader for a plain-text file's data: Markdown when it
// reads as Markdown (two ATX headings, "# Title" between blank lines
// outside fenced code, or one and a fenced block), reStructuredText when it
// reads as that (an explicit markup line — ".. directive::", ".. _target:",
// ".. |substitution|" — and an underlined title), else plain text. Many
// READMEs and FAQs are one of the two without saying so in their name.
func textFormat(data []byte) document.Format {
	head := string(data[:min(len(data), 64<<10)])
	atx, fences, explicit, underlined := 0, 0, 0, 0
	inFence := false
	prev := ""
	lines := strings.Split(head, "\n")
	blank := func(i int) bool { return i < 0 || i >= len(lines) || strings.TrimSpace(lines[i]) == "" }
	for i, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		switch {
		case strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~"):
			fences++
			inFence = !inFence
		case inFence:
		case atxHeading(l) && blank(i-1) && blank(i+1):
			// A heading stands between blank lines; shell comments and
			// root prompts ("# apt update") mostly come in runs.
			atx++
		case strings.HasPrefix(l, ".. ") && rstExplicit(l[3:]):
			explicit++
		case len(l) >= 3 && strings.Trim(l, "=") == "" || len(l) >= 3 && strings.Trim(l, "-") == "":
			if t := strings.TrimSpace(prev); t != "" && strings.Trim(t, "=-") != "" && len(l) >= len(t) {
				underlined++
			}
		}
		prev = l
	}
	switch {
	case atx >= 2 || atx >= 1 && fences >= 2:
		return document.Markdown
	case explicit >= 1 && underlined >= 1:
		return document.RST
	}
	return document.Text
}

// atxHeading reports whether l is a Markdown ATX heading: one to six "#",
// a space, then text.
func atxHeading(l string) bool {
	n := len(l) - len(strings.TrimLeft(l, "#"))
	return n >= 1 && n <= 6 && len(l) > n+1 && l[n] == ' ' && strings.TrimSpace(l[n:]) != ""
}

// rstExplicit reports whether s, what follows ".. " at the start of a
// line, is reStructuredText explicit markup: a directive ("note::"), a
// hyperlink target ("_name: url") or a substitution definition ("|x|").
func rstExplicit(s string) bool {
	if strings.HasPrefix(s, "_") && strings.Contains(s, ":") || strings.HasPrefix(s, "|") && strings.Count(s, "|") >= 2 {
		return true
	}
	name, _, ok := strings.Cut(s, "::")
	return ok && name != "" && strings.IndexFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == ':')
	}) < 0
}

// readDocument reads data, the bytes of the file name, as a document of kind
// (KindMarkdown, KindHTML, KindPDF, KindText, KindRST, KindAsciiDoc, KindOrg, KindInfo, KindEPUB, KindDOCX, KindODT or KindMan; a manual page that
// does not look like roff is read as plain text; plain text that reads as
// Markdown or reStructuredText as that: [textFormat]) into c: its structure is
// kept (see [Corpus.WithContexts]); each group of blocks — a paragraph, a
// list, a table, a definition list, a quote — becomes a context titled with
// its heading path, each of its blocks' sentences a candidate (a table row
// is one candidate), code blocks none. A file without a sentence is an
// *InputError whose message starts with "empty".
func readDocument(c *Corpus, name, kind string, data []byte) error {
	var f document.Format
	switch kind {
	case KindMarkdown, "markdown":
		f = document.Markdown
	case KindHTML, "htm":
		f = document.HTML
	case KindPDF:
		f = document.PDF
	case KindText, "text":
		f = textFormat(data)
	case KindMan:
		f = document.Man
		if !looksLikeRoff(data) {
			f = textFormat(data)
		}
	case KindRST, "rest":
		f = document.RST
	case KindAsciiDoc, "asciidoc":
		f = document.AsciiDoc
	case KindOrg:
		f = document.Org
	case KindInfo:
		f = document.Info // its encoding may be Latin-1: the reader decodes it
	case KindEPUB:
		f = document.EPUB
	case KindDOCX:
		f = document.DOCX
	case KindODT:
		f = document.ODT
	default:
		return badInput(name, 0, "", "unsupported document kind %q (want md, html, pdf, txt, rst, adoc, org, info, epub, docx, odt or man)", kind)
	}
	if f == document.Markdown || f == document.Text || f == document.RST || f == document.AsciiDoc || f == document.Org {
		if err := checkUTF8(name, data); err != nil {
			return err
		}
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return badInput(name, 0, "", "empty file (no text)")
	}
	d, err := document.Parse(name, f, data)
	if err != nil {
		var de *document.Error
		if errors.As(err, &de) {
			msg := de.Msg
			if de.Page > 0 {
				msg = fmt.Sprintf("page %d: %s", de.Page, msg)
			}
			return badInput(name, de.Line, "", "%s", msg)
		}
		return badInput(name, 0, "", "%v", err)
	}
	before := len(c.Sentences)
	c.addDocument(d)
	if len(c.Sentences) == before {
		switch f {
		case document.PDF:
			return badInput(name, 0, "", "empty file (no text found: a scanned PDF needs OCR first, e.g. ocrmypdf)")
		case document.HTML:
			// A generated index, a search page: all site chrome.
			return badInput(name, 0, "", "empty page (no text outside navigation, indexes, footers and other site chrome)")
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
