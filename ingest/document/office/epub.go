package office

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"net/url"
	"path"
	"strings"

	"github.com/reqa/reqa/ingest/document"
)

// ParseEPUB reads an EPUB book (EPUB 2 or 3): the zip's
// META-INF/container.xml names the package document (OPF), whose manifest
// and spine give the content documents in reading order. Each XHTML content
// document of the spine is read by the HTML reader into the one document,
// its headings starting sections (a content document that does not start
// with a heading goes on under the heading before it), so that the heading
// paths run through the book. The book's title is the package's first
// dc:title (else the first level-1 heading).
//
// Every section records the content document it is in (Section.Part, its
// path in the zip) and every block the line it starts on in that content
// document, so a block's anchor reads "book.epub:OEBPS/ch3.xhtml:12#slug".
//
// Skipped: the EPUB 3 navigation document (the manifest item with the
// property "nav"), the EPUB 2 NCX (the spine's toc), the table of
// contents page the EPUB 2 guide names unless it holds a paragraph of
// text (Sphinx names the book's root page, text and toctree), spine items that are not XHTML or
// HTML (images, SVG), a spine item listed twice (read once), and what the
// HTML reader skips in a page. Items outside the spine (footnotes only
// linked to, covers) are not read.
//
// Bad input (not a zip, no container, a package document that is missing
// or is not XML, a spine item the manifest or the zip lacks, a content
// document that is not text or is encrypted) is an *Error naming the book
// and the part:
// "book.epub: OEBPS/content.opf: …". Parts are decompressed within bounds
// (64 MiB a part, 256 MiB in all): a zip bomb is refused.
func ParseEPUB(name string, data []byte) (*document.Document, error) {
	return ParseEPUBContext(context.Background(), name, data)
}

// ParseEPUBContext is [ParseEPUB], stopping with ctx's error (wrapped) once ctx is
// done, between the tokens of its XML.
func ParseEPUBContext(ctx context.Context, name string, data []byte) (d *document.Document, err error) {
	defer stopOn(ctx, name, &err)
	defer document.Recover(name, &err)
	zp, err := openZipContext(ctx, name, data)
	if err != nil {
		return nil, err
	}
	opf, err := epubRootfile(zp)
	if err != nil {
		return nil, err
	}
	pkg, err := readEPUBPackage(zp, opf)
	if err != nil {
		return nil, err
	}
	encrypted, err := epubEncrypted(zp)
	if err != nil {
		return nil, err
	}
	b := document.NewBuilderContext(ctx, name, document.EPUB)
	b.Doc.Title = pkg.title
	seen := map[string]bool{}
	for _, ref := range pkg.spine {
		it, ok := pkg.items[ref]
		if !ok {
			return nil, zp.partError(opf, "the spine names item %q, which the manifest does not list", ref)
		}
		if it.nav || seen[it.path] || !epubContent(it) {
			continue
		}
		seen[it.path] = true
		if encrypted[it.path] {
			return nil, zp.partError(it.path, "encrypted (DRM, META-INF/encryption.xml): the book cannot be read as it is")
		}
		src, err := zp.part(it.path)
		if err != nil {
			return nil, err
		}
		src = document.HTMLToUTF8(document.BlankBOM(src))
		if i := bytes.IndexByte(src, 0); i >= 0 {
			return nil, zp.partError(it.path, "line %d: binary data, not XHTML (a NUL byte)", 1+bytes.Count(src[:i], []byte("\n")))
		}
		if it.contents && !epubHasParagraph(ctx, name, it.path, src) {
			continue
		}
		b.Part = it.path
		if err := document.ReadHTML(b, it.path, src, 1, false); err != nil {
			var e *document.Error
			if errors.As(err, &e) {
				return nil, zp.partError(it.path, "line %d: %s", e.Line, e.Msg)
			}
			return nil, zp.partError(it.path, "%v", err)
		}
	}
	return b.Doc, nil
}

// epubHasParagraph reports whether the content document src holds a
// paragraph, as the HTML reader reads it (a contents page is list items
// of links; the HTML reader already drops nav elements and toctrees).
func epubHasParagraph(ctx context.Context, name, part string, src []byte) bool {
	tb := document.NewBuilderContext(ctx, name, document.EPUB)
	tb.Part = part
	if document.ReadHTML(tb, part, src, 1, false) != nil {
		return true // read it for real, and report the error there
	}
	for _, sec := range tb.Doc.Sections {
		for _, bl := range sec.Blocks {
			if bl.Kind == document.Paragraph {
				return true
			}
		}
	}
	return false
}

// epubRootfile returns the path of the package document that
// META-INF/container.xml names (the first rootfile of the OPF media type,
// else the first rootfile).
func epubRootfile(zp *zipParts) (string, error) {
	const container = "META-INF/container.xml"
	var first, opf string
	err := eachPartStart(zp, container, func(_ *xmlDecoder, e xml.StartElement) (bool, error) {
		if e.Name.Local != "rootfile" {
			return false, nil
		}
		p := strings.TrimPrefix(attr(e, "full-path"), "/")
		if p == "" {
			return false, nil
		}
		if first == "" {
			first = p
		}
		if opf == "" && attr(e, "media-type") == "application/oebps-package+xml" {
			opf = p
		}
		return false, nil
	})
	if err != nil {
		return "", err
	}
	if opf == "" {
		opf = first
	}
	if opf == "" {
		return "", zp.partError(container, "names no package document (rootfile)")
	}
	return opf, nil
}

// epubEncrypted returns the parts that META-INF/encryption.xml lists as
// encrypted (a book under DRM; fonts are listed too, when obfuscated).
func epubEncrypted(zp *zipParts) (map[string]bool, error) {
	const encryption = "META-INF/encryption.xml"
	if !zp.has(encryption) {
		return nil, nil
	}
	data, err := zp.part(encryption)
	if err != nil {
		return nil, err
	}
	parts := map[string]bool{}
	d := zp.xmlDecoder(data, false)
	for {
		t, err := d.Token()
		if errors.Is(err, io.EOF) {
			return parts, nil
		}
		if err != nil {
			return nil, zp.partError(encryption, "%s", xmlError(err))
		}
		if e, ok := t.(xml.StartElement); ok && e.Name.Local == "CipherReference" {
			// URIs are relative to the root of the container.
			parts[epubPath(zp, "", attr(e, "URI"))] = true
		}
	}
}

// epubPackage is what ParseEPUB takes from a package document.
type epubPackage struct {
	title string
	items map[string]epubItem // by id
	spine []string            // item ids in reading order
}

type epubItem struct {
	path, mediaType string
	nav             bool // navigation: EPUB 3's nav document or EPUB 2's NCX
	// contents: the page the guide names as the table of contents, read
	// only when it holds a paragraph (Sphinx names its root page, which
	// has the book's first text under its toctree).
	contents bool
}

// dcNamespace is the Dublin Core namespace of a package's metadata.
const dcNamespace = "http://purl.org/dc/elements/1.1/"

// readEPUBPackage reads the package document opf.
func readEPUBPackage(zp *zipParts, opf string) (*epubPackage, error) {
	data, err := zp.part(opf)
	if err != nil {
		return nil, err
	}
	dir := path.Dir(opf)
	pkg := &epubPackage{items: map[string]epubItem{}}
	var toc string
	guideTOC := map[string]bool{}
	d := zp.xmlDecoder(data, false)
	for {
		t, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, zp.partError(opf, "%s", xmlError(err))
		}
		e, ok := t.(xml.StartElement)
		if !ok {
			continue
		}
		switch e.Name.Local {
		case "title":
			if (e.Name.Space == dcNamespace || e.Name.Space == "dc") && pkg.title == "" {
				if pkg.title, err = elementText(d); err != nil {
					return nil, zp.partError(opf, "%s", xmlError(err))
				}
			}
		case "item":
			id := attr(e, "id")
			if _, dup := pkg.items[id]; dup || id == "" {
				continue
			}
			mt := strings.ToLower(strings.TrimSpace(attr(e, "media-type")))
			pkg.items[id] = epubItem{
				path:      epubPath(zp, dir, attr(e, "href")),
				mediaType: mt,
				nav:       mt == "application/x-dtbncx+xml" || hasWord(attr(e, "properties"), "nav"),
			}
		case "spine":
			toc = attr(e, "toc")
		case "itemref":
			if id := attr(e, "idref"); id != "" {
				pkg.spine = append(pkg.spine, id)
			}
		case "reference":
			if strings.EqualFold(attr(e, "type"), "toc") {
				guideTOC[epubPath(zp, dir, attr(e, "href"))] = true
			}
		}
	}
	for id, it := range pkg.items {
		if id == toc || guideTOC[it.path] {
			it.nav, it.contents = id == toc, guideTOC[it.path]
			pkg.items[id] = it
		}
	}
	return pkg, nil
}

// epubPath resolves a manifest href against dir, the package document's
// directory: the fragment is dropped and %-escapes decoded (the escaped
// form is kept when only it names a part of the zip).
func epubPath(zp *zipParts, dir, href string) string {
	href, _, _ = strings.Cut(href, "#")
	join := func(h string) string {
		if strings.HasPrefix(h, "/") {
			return path.Clean(strings.TrimPrefix(h, "/"))
		}
		return path.Join(dir, h)
	}
	p := join(href)
	if u, err := url.PathUnescape(href); err == nil && (zp.has(join(u)) || !zp.has(p)) {
		p = join(u)
	}
	return p
}

// epubContent reports whether a spine item is a content document the HTML
// reader reads: XHTML or HTML by its media type (or, without one, by its
// extension).
func epubContent(it epubItem) bool {
	switch it.mediaType {
	case "application/xhtml+xml", "text/html", "text/x-oeb1-document":
		return true
	case "":
		switch strings.ToLower(path.Ext(it.path)) {
		case ".xhtml", ".html", ".htm":
			return true
		}
	}
	return false
}

// hasWord reports whether the space-separated list s holds w.
func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}
