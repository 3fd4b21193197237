package formats

import (
	"bytes"
	"encoding/binary"
)

// The sniffers: each says yes to its own format's first bytes only.

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// textHead is head without a byte-order mark and leading white space.
func textHead(head []byte) []byte {
	return bytes.TrimLeft(bytes.TrimPrefix(head, utf8BOM), " \t\r\n")
}

// sniffPDF: "%PDF-".
func sniffPDF(head []byte) bool { return bytes.HasPrefix(textHead(head), []byte("%PDF-")) }

// sniffHTML: a doctype, <html> or <head> first.
func sniffHTML(head []byte) bool {
	t := textHead(head)
	lower := bytes.ToLower(t[:min(len(t), 64)])
	return bytes.HasPrefix(lower, []byte("<!doctype html")) || bytes.HasPrefix(lower, []byte("<html")) || bytes.HasPrefix(lower, []byte("<head"))
}

// isZip reports whether head starts a zip file.
func isZip(head []byte) bool { return bytes.HasPrefix(head, []byte("PK\x03\x04")) }

// sniffEPUB: a zip whose first entry is the "mimetype" file saying
// EPUB (as EPUB requires).
func sniffEPUB(head []byte) bool {
	return isZip(head) && len(head) > 38 && bytes.HasPrefix(head[30:], []byte("mimetypeapplication/epub+zip"))
}

// sniffODT: a zip whose first entry is a stored "mimetype" file naming
// OpenDocument text (as ODF requires).
func sniffODT(head []byte) bool { return isZip(head) && odtMimetype(head) }

// sniffDOCX: another zip whose first bytes name a part under "word/" or
// the package's content types (Word writes "[Content_Types].xml" first).
func sniffDOCX(head []byte) bool {
	return isZip(head) && !sniffEPUB(head) && !sniffODT(head) &&
		(bytes.Contains(head, []byte("word/")) || bytes.Contains(head, []byte("[Content_Types].xml")))
}

// odtMimetype reports whether the zip data head starts with a stored
// "mimetype" entry whose content is OpenDocument text's media type (or
// one starting with it: a template, a master document).
func odtMimetype(head []byte) bool {
	if len(head) < 30 || binary.LittleEndian.Uint16(head[8:]) != 0 {
		return false // not stored
	}
	nameLen, extraLen := int(binary.LittleEndian.Uint16(head[26:])), int(binary.LittleEndian.Uint16(head[28:]))
	if len(head) < 30+nameLen+extraLen || string(head[30:30+nameLen]) != "mimetype" {
		return false
	}
	return bytes.HasPrefix(head[30+nameLen+extraLen:], []byte("application/vnd.oasis.opendocument.text"))
}
