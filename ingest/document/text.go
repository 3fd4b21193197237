package document

import (
	"strings"
)

// ParseText reads plain text: a paragraph (lines up to a blank line) is a
// block, its lines joined with spaces; there are no headings.
func ParseText(name string, data []byte) (*Document, error) {
	b := newBuilder(name, Text)
	var para []string
	start := 0
	flush := func() {
		if len(para) > 0 {
			b.block(Paragraph, strings.Join(para, " "), start, 0, 0)
		}
		para = para[:0]
	}
	for i, l := range strings.Split(string(blankBOM(data)), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			flush()
			continue
		}
		if len(para) == 0 {
			start = i + 1
		}
		para = append(para, l)
	}
	flush()
	return b.doc, nil
}
