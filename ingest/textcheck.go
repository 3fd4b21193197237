package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"unicode"
	"unicode/utf8"

	xunicode "golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// textStream checks that src holds text and hands it on as UTF-8: a UTF-8
// byte-order mark is dropped; UTF-16 with a byte-order mark is decoded, and
// UTF-16 without one when the NULs of its first 8 KB sit at alternate
// positions and the decoded text is printable; any other NUL byte — in the
// first 8 KB (git's rule for binary files) or later — is refused with
// ErrBinary. Whether the UTF-8 is valid is left to the readers, which name
// the line.
//
// sizeHint, when positive, is the size of the data: a small file gets a
// small buffer. With infoMarks, a NUL followed by a backspace is text: GNU
// Info marks its index and image entries with "\x00\x08[".
func textStream(name string, src io.Reader, sizeHint int64, infoMarks bool) (io.Reader, error) {
	n := sniffBytes
	if sizeHint > 0 && sizeHint < sniffBytes {
		n = max(16, int(sizeHint)+1)
	}
	br := bufio.NewReaderSize(src, n)
	head, err := br.Peek(n)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	switch {
	case bytes.HasPrefix(head, utf8BOM):
		br.Discard(len(utf8BOM))
		return &nulGuard{name: name, r: br, marks: infoMarks}, nil
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}):
		return utf16Stream(name, br, xunicode.LittleEndian, xunicode.UseBOM), nil
	case bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		return utf16Stream(name, br, xunicode.BigEndian, xunicode.UseBOM), nil
	}
	i := nulAt(head, infoMarks)
	if i < 0 {
		return &nulGuard{name: name, r: br, marks: infoMarks}, nil
	}
	if order, ok := utf16Order(head); ok {
		return utf16Stream(name, br, order, xunicode.IgnoreBOM), nil
	}
	return nil, badInputOf(ErrBinary, name, 1+bytes.Count(head[:i], []byte("\n")), "",
		"binary data, not text (a NUL byte at byte %d); if it is UTF-16 text, save it as UTF-8 or with a byte-order mark", i)
}

func utf16Stream(name string, r io.Reader, order xunicode.Endianness, bom xunicode.BOMPolicy) io.Reader {
	return &nulGuard{name: name, r: transform.NewReader(r, xunicode.UTF16(order, bom).NewDecoder())}
}

// utf16Order reports whether head (a file's first bytes, holding a NUL)
// looks like UTF-16 without a byte-order mark: at least 30% of the bytes
// at one parity are NUL and almost none at the other (Latin-script UTF-16),
// and it decodes to printable text.
func utf16Order(head []byte) (xunicode.Endianness, bool) {
	units := len(head) / 2
	if units < 2 {
		return xunicode.LittleEndian, false
	}
	var even, odd int
	for i := 0; i+1 < len(head); i += 2 {
		if head[i] == 0 {
			even++
		}
		if head[i+1] == 0 {
			odd++
		}
	}
	var order xunicode.Endianness
	switch {
	case odd*10 >= units*3 && even*20 <= units:
		order = xunicode.LittleEndian
	case even*10 >= units*3 && odd*20 <= units:
		order = xunicode.BigEndian
	default:
		return xunicode.LittleEndian, false
	}
	dec, _, err := transform.Bytes(xunicode.UTF16(order, xunicode.IgnoreBOM).NewDecoder(), head[:units*2])
	if err != nil || !printable(dec) {
		return xunicode.LittleEndian, false
	}
	return order, true
}

// printable reports whether at least 95% of the runes of b are letters,
// marks, numbers, punctuation, symbols or white space (and none is NUL or
// the replacement character, bar one at the end for a cut surrogate pair).
func printable(b []byte) bool {
	var good, all int
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		b = b[n:]
		all++
		if r == 0 || (r == utf8.RuneError && len(b) > 0) {
			return false
		}
		if unicode.IsGraphic(r) || unicode.IsSpace(r) {
			good++
		}
	}
	return all > 0 && good*100 >= all*95
}

// nulAt returns the offset of the first NUL byte in b that is not text,
// or -1: with marks, a NUL before a backspace (or at b's end, where the
// next byte is not known yet) is an Info mark.
func nulAt(b []byte, marks bool) int {
	for off := 0; ; {
		i := bytes.IndexByte(b[off:], 0)
		if i < 0 {
			return -1
		}
		off += i
		if !marks || off+1 < len(b) && b[off+1] != '\b' {
			return off
		}
		off++
	}
}

// nulGuard refuses a NUL byte anywhere in the stream (marks: but for
// Info's, see nulAt).
type nulGuard struct {
	name  string
	r     io.Reader
	marks bool
	line  int
	off   int64
	// endNUL: the last byte read was a NUL, which the next must follow
	// with a backspace.
	endNUL bool
}

func (g *nulGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	i := nulAt(p[:n], g.marks)
	if g.endNUL && n > 0 && p[0] != '\b' {
		return 0, badInputOf(ErrBinary, g.name, g.line+1, "", "binary data, not text (a NUL byte at byte %d)", g.off-1)
	}
	if n > 0 {
		g.endNUL = g.marks && p[n-1] == 0
	}
	if g.endNUL && errors.Is(err, io.EOF) {
		return 0, badInputOf(ErrBinary, g.name, g.line+1+bytes.Count(p[:n], []byte("\n")), "", "binary data, not text (a NUL byte at byte %d)", g.off+int64(n)-1)
	}
	if i >= 0 {
		return 0, badInputOf(ErrBinary, g.name, g.line+1+bytes.Count(p[:i], []byte("\n")), "",
			"binary data, not text (a NUL byte at byte %d)", g.off+int64(i))
	}
	g.line += bytes.Count(p[:n], []byte("\n"))
	g.off += int64(n)
	return n, err
}

// isJSONObject reports whether b is one JSON object.
func isJSONObject(b []byte) bool {
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}
