// This file guards github.com/ledongthuc/pdf, which trusts the file: it
// follows the cross-reference /Prev chain, an object stream's /Extends and
// its /N without bounds, allocates what a predictor's /Columns, an xref
// section or /Size says, and decodes streams of any size. checkStructure
// reads the file's structure first and refuses what would hang or exhaust
// the process; the page tree is walked here (pages), never by the library.

package pdf

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
)

const (
	// maxObjects bounds an object number (xref sections, /Size, /Index).
	maxObjects = 1 << 23
	// maxColumns bounds a PNG predictor's /Columns (bytes in a row).
	maxColumns = 1 << 20
	// maxDecoded bounds what one content, object or xref stream decodes to.
	maxDecoded = 64 << 20
	// maxPageGlyphs bounds the glyphs read from one page, maxGlyphs from
	// the document: a page of text holds a few thousand.
	maxPageGlyphs = 1 << 20
	maxGlyphs     = 1 << 24
	// maxOps bounds the content operators read from the document.
	maxOps = 1 << 26
	// maxPageNodes bounds the nodes of the page tree.
	maxPageNodes = 1 << 22
)

// errStructure is a file whose structure the guard refuses.
type errStructure struct{ msg string }

func (e *errStructure) Error() string { return e.msg }

func refuse(format string, args ...any) error {
	return &errStructure{fmt.Sprintf(format, args...)}
}

// checkStructure checks a PDF's structure before the library reads it: the
// cross-reference chain (each section once, objects numbered below
// maxObjects, /W widths of at most 8 bytes), every /Columns (a direct
// integer up to maxColumns, in the file or in an object stream), every
// FlateDecode stream the reader decodes (content, object and xref streams:
// at most maxDecoded bytes), object streams' /N and /Extends (no cycle).
func checkStructure(ctx context.Context, data []byte) error {
	if err := checkXrefChain(data); err != nil {
		return err
	}
	if err := checkColumns(data); err != nil {
		return err
	}
	return checkStreams(ctx, data)
}

var startxrefRe = regexp.MustCompile(`startxref\s+(\d+)`)

// checkXrefChain follows the cross-reference sections from the last
// startxref along /Prev, each section once.
func checkXrefChain(data []byte) error {
	tail := data[max(0, len(data)-1024):]
	ms := startxrefRe.FindAllSubmatch(tail, -1)
	if ms == nil {
		return nil // the library says what is wrong
	}
	off, err := strconv.ParseInt(string(ms[len(ms)-1][1]), 10, 64)
	if err != nil {
		return nil
	}
	seen := map[int64]bool{}
	for {
		if off < 0 || off >= int64(len(data)) {
			return nil // the library says what is wrong
		}
		if seen[off] {
			return refuse("cross-reference chain loops (/Prev %d is read already)", off)
		}
		seen[off] = true
		l := &lexer{data: data, pos: int(off)}
		var dict map[string]string
		if l.keyword("xref") {
			if err := l.xrefTable(); err != nil {
				return err
			}
			if !l.keyword("trailer") {
				return nil
			}
			dict = l.dict()
		} else {
			// An xref stream: "N G obj << … >> stream".
			l.token()
			l.token()
			if !l.keyword("obj") {
				return nil
			}
			dict = l.dict()
			if err := checkXrefStream(dict); err != nil {
				return err
			}
		}
		if err := checkCount("/Size", dict["Size"]); err != nil {
			return err
		}
		prev, ok := dict["Prev"]
		if !ok {
			return nil
		}
		if off, err = strconv.ParseInt(prev, 10, 64); err != nil {
			return nil // the library refuses a /Prev that is not an integer
		}
	}
}

// checkCount checks an object count or number v (absent is fine).
func checkCount(key, v string) error {
	if v == "" {
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > maxObjects {
		return refuse("cross-reference %s %.40s: not a number of objects up to %d", key, v, maxObjects)
	}
	return nil
}

// xrefTable reads a cross-reference table's sections ("start count" and
// count entries) up to its trailer.
func (l *lexer) xrefTable() error {
	for {
		save := l.pos
		if l.keyword("trailer") {
			l.pos = save
			return nil
		}
		start, count := l.token(), l.token()
		a, err1 := strconv.ParseInt(string(start), 10, 64)
		n, err2 := strconv.ParseInt(string(count), 10, 64)
		if err1 != nil || err2 != nil {
			return nil // the library says what is wrong
		}
		if a < 0 || n < 0 || a+n > maxObjects {
			return refuse("xref section of objects %d to %d: more than %d objects", a, a+n, maxObjects)
		}
		for i := int64(0); i < 3*n; i++ {
			if l.token() == nil {
				return nil
			}
		}
	}
}

// checkXrefStream checks an xref stream's /W and /Index.
func checkXrefStream(dict map[string]string) error {
	for _, w := range arrayItems(dict["W"]) {
		if n, err := strconv.Atoi(w); err != nil || n < 0 || n > 8 {
			return refuse("xref stream /W %.40s: widths must be 0 to 8 bytes", dict["W"])
		}
	}
	idx := arrayItems(dict["Index"])
	for i := 0; i+1 < len(idx); i += 2 {
		a, err1 := strconv.ParseInt(idx[i], 10, 64)
		n, err2 := strconv.ParseInt(idx[i+1], 10, 64)
		if err1 != nil || err2 != nil || a < 0 || n < 0 || a+n > maxObjects {
			return refuse("xref stream /Index %.40s: more than %d objects", dict["Index"], maxObjects)
		}
	}
	return nil
}

// arrayItems returns the items of a flat array "[1 2 3]".
func arrayItems(v string) []string {
	if len(v) < 2 || v[0] != '[' {
		return nil
	}
	l := &lexer{data: []byte(v[1 : len(v)-1])}
	var out []string
	for t := l.token(); t != nil; t = l.token() {
		out = append(out, string(t))
	}
	return out
}

// nameRe matches a PDF name, escapes (#xx) and all.
var nameRe = regexp.MustCompile(`/[^\x00\t\n\f\r ()<>\[\]{}/%]*`)

// checkColumns checks every /Columns in data: a direct integer up to
// maxColumns. Names are compared with their #xx escapes decoded, as the
// library reads them.
func checkColumns(data []byte) error {
	for _, m := range nameRe.FindAllIndex(data, -1) {
		name := data[m[0]+1 : m[1]]
		if !bytes.Equal(name, []byte("Columns")) && !(bytes.IndexByte(name, '#') >= 0 && decodeName(name) == "Columns") {
			continue
		}
		l := &lexer{data: data, pos: m[1]}
		v := l.token()
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil || n < 1 || n > maxColumns {
			return refuse("predictor /Columns %.40s: not a direct number from 1 to %d", v, maxColumns)
		}
	}
	return nil
}

// decodeName decodes a name's #xx escapes.
func decodeName(b []byte) string {
	var out []byte
	for i := 0; i < len(b); i++ {
		if b[i] == '#' && i+2 < len(b) {
			if x, err := strconv.ParseUint(string(b[i+1:i+3]), 16, 8); err == nil {
				out = append(out, byte(x))
				i += 2
				continue
			}
		}
		out = append(out, b[i])
	}
	return string(out)
}

var objRe = regexp.MustCompile(`(\d+)\s+\d+\s+obj\b`)

// checkStreams decodes every FlateDecode stream the reader may decode
// (those without a /Subtype or /Length1: not images, forms or fonts), at
// most maxDecoded bytes each, and checks what object streams hold
// (/Columns, /N, /Extends).
func checkStreams(ctx context.Context, data []byte) error {
	extends := map[string]string{}
	for _, m := range objRe.FindAllSubmatchIndex(data, -1) {
		if err := ctx.Err(); err != nil {
			return err
		}
		l := &lexer{data: data, pos: m[1]}
		dict := l.dict()
		if dict == nil || !l.keyword("stream") {
			continue
		}
		if _, ok := dict["Subtype"]; ok {
			continue
		}
		if _, ok := dict["Length1"]; ok {
			continue
		}
		start := l.pos
		if start < len(data) && data[start] == '\r' {
			start++
		}
		if start < len(data) && data[start] == '\n' {
			start++
		}
		if f := dict["Filter"]; f != "/FlateDecode" && !slices.Equal(arrayItems(f), []string{"/FlateDecode"}) {
			continue
		}
		zr, err := zlib.NewReader(bytes.NewReader(data[start:]))
		if err != nil {
			continue // the library says what is wrong
		}
		objStm := dict["Type"] == "/ObjStm"
		var buf bytes.Buffer
		var w io.Writer = io.Discard
		if objStm {
			w = &buf
		}
		n, err := io.Copy(w, io.LimitReader(zr, maxDecoded+1))
		if n > maxDecoded {
			return refuse("object %s: stream decodes to more than %d MiB", data[m[2]:m[3]], maxDecoded>>20)
		}
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			continue
		}
		if !objStm {
			continue
		}
		id := string(data[m[2]:m[3]])
		if nn, err := strconv.ParseInt(dict["N"], 10, 64); err != nil || nn < 0 || nn > int64(buf.Len()) {
			return refuse("object stream %s: /N %.40s is not the number of objects it holds", id, dict["N"])
		}
		if err := checkColumns(buf.Bytes()); err != nil {
			return err
		}
		if e := dict["Extends"]; e != "" {
			extends[id] = refID(e)
		}
	}
	// /Extends must not come back to an object stream.
	for id := range extends {
		seen := map[string]bool{}
		for x := id; x != ""; x = extends[x] {
			if seen[x] {
				return refuse("object stream %s: /Extends loops", id)
			}
			seen[x] = true
		}
	}
	return nil
}

// refID returns the object number of a reference "12 0 R", "" if v is
// not one.
func refID(v string) string {
	items := arrayItems("[" + v + "]")
	if len(items) == 3 && items[2] == "R" {
		return items[0]
	}
	return ""
}

// lexer reads PDF tokens from data at pos: enough of the syntax to find
// the structure, every step forward, so each read is linear.
type lexer struct {
	data []byte
	pos  int
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isDelim(c byte) bool {
	return c == '(' || c == ')' || c == '<' || c == '>' || c == '[' || c == ']' || c == '{' || c == '}' || c == '/' || c == '%'
}

// skip passes white space and comments.
func (l *lexer) skip() {
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		switch {
		case isSpace(c):
			l.pos++
		case c == '%':
			for l.pos < len(l.data) && l.data[l.pos] != '\n' && l.data[l.pos] != '\r' {
				l.pos++
			}
		default:
			return
		}
	}
}

// keyword reads kw if it comes next.
func (l *lexer) keyword(kw string) bool {
	l.skip()
	if bytes.HasPrefix(l.data[l.pos:], []byte(kw)) {
		end := l.pos + len(kw)
		if end == len(l.data) || isSpace(l.data[end]) || isDelim(l.data[end]) {
			l.pos = end
			return true
		}
	}
	return false
}

// token returns the next token: a name, a number or keyword, or a
// delimiter; strings, arrays and dictionaries whole. nil at the end.
func (l *lexer) token() []byte {
	l.skip()
	if l.pos >= len(l.data) {
		return nil
	}
	start := l.pos
	c := l.data[l.pos]
	switch {
	case c == '(':
		l.literal()
	case c == '<' && l.pos+1 < len(l.data) && l.data[l.pos+1] == '<':
		l.dictEnd()
	case c == '<':
		if i := bytes.IndexByte(l.data[l.pos:], '>'); i >= 0 {
			l.pos += i + 1
		} else {
			l.pos = len(l.data)
		}
	case c == '[':
		l.pos++
		for depth := 1; depth > 0 && l.pos < len(l.data); {
			l.skip()
			if l.pos >= len(l.data) {
				break
			}
			switch l.data[l.pos] {
			case '[':
				depth++
				l.pos++
			case ']':
				depth--
				l.pos++
			default:
				l.token()
			}
		}
	case c == '/':
		l.pos++
		for l.pos < len(l.data) && !isSpace(l.data[l.pos]) && !isDelim(l.data[l.pos]) {
			l.pos++
		}
	case isDelim(c):
		l.pos++
	default:
		for l.pos < len(l.data) && !isSpace(l.data[l.pos]) && !isDelim(l.data[l.pos]) {
			l.pos++
		}
	}
	return l.data[start:l.pos]
}

// literal passes a literal string, balanced parentheses and escapes.
func (l *lexer) literal() {
	depth := 0
	for ; l.pos < len(l.data); l.pos++ {
		switch l.data[l.pos] {
		case '\\':
			l.pos++
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				l.pos++
				return
			}
		}
	}
}

// dictEnd passes a dictionary from its "<<".
func (l *lexer) dictEnd() {
	l.pos += 2
	for l.pos < len(l.data) {
		l.skip()
		if bytes.HasPrefix(l.data[l.pos:], []byte(">>")) {
			l.pos += 2
			return
		}
		if l.token() == nil {
			return
		}
	}
}

// dict reads a dictionary: its keys (escapes decoded) and their values
// as written (a reference "1 0 R" whole); nil if no dictionary is next.
func (l *lexer) dict() map[string]string {
	l.skip()
	if !bytes.HasPrefix(l.data[l.pos:], []byte("<<")) {
		return nil
	}
	l.pos += 2
	d := map[string]string{}
	for l.pos < len(l.data) {
		l.skip()
		if bytes.HasPrefix(l.data[l.pos:], []byte(">>")) {
			l.pos += 2
			return d
		}
		k := l.token()
		if len(k) == 0 {
			return d
		}
		if k[0] != '/' {
			continue
		}
		start := l.pos
		v := l.token()
		if v == nil {
			return d
		}
		// A reference: "12 0 R".
		save := l.pos
		if g := l.token(); g != nil && isInt(g) {
			if l.keyword("R") {
				v = l.data[start:l.pos]
			} else {
				l.pos = save
			}
		} else {
			l.pos = save
		}
		d[decodeName(k[1:])] = string(bytes.TrimSpace(v))
	}
	return d
}

func isInt(b []byte) bool {
	_, err := strconv.Atoi(string(b))
	return err == nil
}

// stop carries an error out of the library by a panic: the context's
// error, or the guard's refusal.
type stop struct{ err error }

func (s stop) Error() string { return s.err.Error() }
func (s stop) Unwrap() error { return s.err }

// guardedFile is the file as the library reads it: every read checks the
// context and counts against a budget, so that no loop the guard did not
// foresee reads forever.
type guardedFile struct {
	ctx    context.Context
	data   *bytes.Reader
	read   int64
	budget int64
}

func newGuardedFile(ctx context.Context, data []byte) *guardedFile {
	return &guardedFile{ctx: ctx, data: bytes.NewReader(data), budget: 4<<30 + 256*int64(len(data))}
}

func (f *guardedFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.ctx.Err(); err != nil {
		panic(stop{err})
	}
	if f.read += int64(len(p)); f.read > f.budget {
		panic(stop{refuse("reading the file more than %d times over: a loop in its structure", f.budget/max(1, f.data.Size()))})
	}
	return f.data.ReadAt(p, off)
}
