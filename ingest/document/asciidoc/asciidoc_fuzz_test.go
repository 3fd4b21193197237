package asciidoc

import (
	"testing"

	"github.com/reqa/reqa/ingest/document"
)

// FuzzAsciiDoc parses arbitrary input as AsciiDoc: never a panic; an error
// is an *Error naming the file; a document satisfies checkDocument.
func FuzzAsciiDoc(f *testing.F) {
	for _, s := range []string{
		"",
		"= T\nA <a@b>\n:x: y\n\n== S\n\ntext *b* _i_ `m` {x} https://u[v] <<a,b>>\n",
		"* a\n** b\n+\nmore\n+\n----\nc\n----\n. d\nt:: u\nv;; w\n",
		"[cols=\"1,2\",options=\"header\"]\n|===\n|a |b\n2+|c\n|===\n,===\nx,\"y\n,===\n",
		"[NOTE]\n====\nn\n====\nTIP: t\n[quote]\n____\nq\n____\n////\nc\n",
		"[[id]]\n== h\n[#id]\n== h\n.title\n[source,go]\n----\nx\n",
		"\xef\xbb\xbfcaf\xe9\r\n\t* \x00\n====\n\xff\n::\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, document.AsciiDoc, data) })
}
