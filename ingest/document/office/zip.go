package office

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/reqa/reqa/ingest/document"
	"golang.org/x/net/html/charset"
)

// Bounds on what the zip readers (EPUB, DOCX, ODT) decompress: a part is
// refused before it is decompressed when its header says it is larger than
// maxPartBytes, or than what is left of maxZipBytes for the parts of one
// document. A header that lies is caught as the part is read: archive/zip
// refuses data past the size the header gives (the reader stops at the
// bound besides). A zip bomb is thus refused before its expansion is held
// in memory. Real books and Word documents stay far below both: a
// 1,000-page book is a few MB of XHTML.
const (
	maxPartBytes = 64 << 20
	maxZipBytes  = 256 << 20
)

// zipParts reads the parts of a zip container.
type zipParts struct {
	ctx   context.Context
	name  string // the container's file name, for errors
	z     *zip.Reader
	files map[string]*zip.File
	read  int64 // bytes decompressed so far
}

// openZip opens data, the contents of the file name, as a zip archive.
func openZip(name string, data []byte) (*zipParts, error) {
	return openZipContext(context.Background(), name, data)
}

// openZipContext is openZip whose parts' XML decoders stop once ctx is done.
func openZipContext(ctx context.Context, name string, data []byte) (*zipParts, error) {
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if errors.Is(err, zip.ErrInsecurePath) && z != nil {
		err = nil // names are looked up, never written to disk
	}
	if err != nil {
		return nil, &document.Error{Name: name, Msg: "not a zip archive: " + err.Error()}
	}
	zp := &zipParts{ctx: ctx, name: name, z: z, files: map[string]*zip.File{}}
	for _, f := range z.File {
		if _, dup := zp.files[f.Name]; !dup {
			zp.files[f.Name] = f
		}
	}
	return zp, nil
}

// has reports whether the archive holds the part path.
func (zp *zipParts) has(path string) bool {
	_, ok := zp.files[path]
	return ok
}

// partError returns an *Error naming the container and the part.
func (zp *zipParts) partError(path, format string, args ...any) *document.Error {
	return &document.Error{Name: zp.name, Msg: path + ": " + fmt.Sprintf(format, args...)}
}

// part returns the decompressed part path, within the bounds above.
func (zp *zipParts) part(path string) ([]byte, error) {
	f, ok := zp.files[path]
	if !ok {
		return nil, zp.partError(path, "missing from the archive")
	}
	limit := int64(min(maxPartBytes, maxZipBytes-zp.read))
	if f.UncompressedSize64 > uint64(maxPartBytes) {
		return nil, zp.partError(path, "expands to %d bytes, more than the %d MiB a part may (a zip bomb?)", f.UncompressedSize64, maxPartBytes>>20)
	}
	if limit <= 0 || f.UncompressedSize64 > uint64(limit) {
		return nil, zp.partError(path, "the parts read expand to more than %d MiB (a zip bomb?)", maxZipBytes>>20)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, zp.partError(path, "%v", err)
	}
	defer rc.Close()
	var buf bytes.Buffer
	buf.Grow(int(min(f.UncompressedSize64, 1<<20))) // a header may lie
	n, err := buf.ReadFrom(io.LimitReader(rc, limit+1))
	zp.read += n
	if errors.Is(err, zip.ErrFormat) || errors.Is(err, zip.ErrChecksum) || errors.Is(err, io.ErrUnexpectedEOF) {
		// A part longer than its header says, cut short or damaged.
		return nil, zp.partError(path, "corrupt data: %v", err)
	}
	if err != nil {
		return nil, zp.partError(path, "%v", err)
	}
	if n > limit {
		return nil, zp.partError(path, "expands past the %d MiB a part may (a zip bomb?)", min(limit, maxPartBytes)>>20)
	}
	return buf.Bytes(), nil
}

// newXMLDecoder returns a decoder of an XML part: entities of HTML are
// known, and a part in another encoding than UTF-8 is decoded by its
// declaration.
func (zp *zipParts) xmlDecoder(data []byte, strict bool) *xmlDecoder {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = strict
	if !strict {
		// Not xml.HTMLAutoClose: these parts are XML, where an EPUB
		// package's <meta property="…">…</meta> has content.
		d.Entity = xml.HTMLEntity
	}
	d.CharsetReader = charset.NewReaderLabel
	return &xmlDecoder{Decoder: d, ctx: zp.ctx}
}

// maxXMLDepth bounds how deeply a part's elements nest. The readers follow
// document.MaxNesting levels and skip deeper ones, but xml.Decoder keeps
// every open element: 6 M nested <w:p> took a gigabyte.
const maxXMLDepth = 1 << 12

// xmlDecoder is an xml.Decoder whose Token refuses elements nested deeper
// than maxXMLDepth and returns ctx's error once ctx is done.
type xmlDecoder struct {
	*xml.Decoder
	ctx           context.Context
	depth, tokens int
}

// Token is xml.Decoder.Token, within the bounds above.
func (d *xmlDecoder) Token() (xml.Token, error) {
	if d.tokens++; d.tokens%1024 == 0 && d.ctx != nil {
		if err := d.ctx.Err(); err != nil {
			return nil, err
		}
	}
	t, err := d.Decoder.Token()
	switch t.(type) {
	case xml.StartElement:
		if d.depth++; d.depth > maxXMLDepth {
			line, _ := d.InputPos()
			return nil, &xml.SyntaxError{Msg: fmt.Sprintf("elements nested deeper than %d", maxXMLDepth), Line: line}
		}
	case xml.EndElement:
		d.depth--
	}
	return t, err
}

// stopOn makes *err the context's error, wrapped with name, when ctx is
// done: deferred by each reader, whose messages would otherwise bury it.
func stopOn(ctx context.Context, name string, err *error) {
	if *err != nil && ctx.Err() != nil {
		*err = fmt.Errorf("%s: %w", name, ctx.Err())
	}
}

// xmlError describes an error of an XML decoder reading a part: the line
// and the message.
func xmlError(err error) string {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("line %d: xml: %s", se.Line, se.Msg)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "xml: unexpected end of the part"
	}
	return "xml: " + err.Error()
}

// skipElement skips the rest of the element whose start the decoder has
// just read, without recursion (a part nested a million deep must not
// exhaust the stack, as xml.Decoder.Skip would).
func skipElement(d *xmlDecoder) error {
	return eachStart(d, func(xml.StartElement, int) {})
}

// eachStart reads the rest of the element whose start the decoder has
// just read, calling f with every start element inside it and its depth
// (1: a child).
func eachStart(d *xmlDecoder, f func(e xml.StartElement, depth int)) error {
	for depth := 1; depth > 0; {
		t, err := d.Token()
		if err != nil {
			return err
		}
		switch t := t.(type) {
		case xml.EndElement:
			depth--
		case xml.StartElement:
			f(t, depth)
			depth++
		}
	}
	return nil
}

// attr returns the value of the attribute of e with the local name local
// (in any namespace), "" when it has none.
func attr(e xml.StartElement, local string) string {
	for _, a := range e.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// elementText returns the text of the element whose start the decoder has
// just read (its descendants' too), collapsed.
func elementText(d *xmlDecoder) (string, error) {
	s, err := rawText(d)
	return document.Collapse(s), err
}

// rawText returns the character data of the element whose start the
// decoder has just read (its descendants' too) as it is, at most
// maxPartBytes of it.
func rawText(d *xmlDecoder) (string, error) {
	var sb strings.Builder
	for depth := 1; depth > 0; {
		t, err := d.Token()
		if err != nil {
			return "", err
		}
		switch t := t.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			if sb.Len() < maxPartBytes {
				sb.Write(t)
			}
		}
	}
	return sb.String(), nil
}

// eachChild reads the rest of the element whose start the decoder has
// just read, calling f with each child element's start; f must read that
// child to its end (skipElement does when it wants none of it). Character
// data between the children is ignored.
func eachChild(d *xmlDecoder, f func(e xml.StartElement) error) error {
	for {
		t, err := d.Token()
		if err != nil {
			return err
		}
		switch t := t.(type) {
		case xml.EndElement:
			return nil
		case xml.StartElement:
			if err := f(t); err != nil {
				return err
			}
		}
	}
}

// cellTableText is a table nested in a cell read as the cell's text: its
// rows joined by "; ", "" when it has none.
func cellTableText(rows [][]string) string {
	var out []string
	for _, cells := range rows {
		if s := document.RowText(nil, cells); s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, "; ")
}

// eachPartStart reads the part p as XML, calling f with the decoder and
// every start element in document order until f reports done; an XML
// error is an *Error naming the part.
func eachPartStart(zp *zipParts, p string, f func(d *xmlDecoder, e xml.StartElement) (done bool, err error)) error {
	data, err := zp.part(p)
	if err != nil {
		return err
	}
	d := zp.xmlDecoder(data, false)
	for {
		t, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return zp.partError(p, "%s", xmlError(err))
		}
		if e, ok := t.(xml.StartElement); ok {
			done, err := f(d, e)
			if err != nil {
				return zp.partError(p, "%s", xmlError(err))
			}
			if done {
				return nil
			}
		}
	}
}

// dcTitle returns the first non-empty dc:title of the part p (a DOCX's
// docProps/core.xml, an ODT's meta.xml), "" without one (or without the
// part).
func dcTitle(zp *zipParts, p string) (string, error) {
	if !zp.has(p) {
		return "", nil
	}
	var title string
	err := eachPartStart(zp, p, func(d *xmlDecoder, e xml.StartElement) (bool, error) {
		if e.Name.Local != "title" || e.Name.Space != dcNamespace {
			return false, nil
		}
		var err error
		title, err = elementText(d)
		return title != "", err
	})
	return title, err
}
