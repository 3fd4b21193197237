//go:build experiment

package document_test

// TestTextSurvey reads every file a list names (one path a line, gzipped or
// not) as plain text and prints how many have headings, how many blocks
// sit under one and how many are list items (BENCHMARKS.md "Plain text
// with its headings and lists"); REQA_TEXT_SHOW names one file to print.
//
//	find /usr/share/doc -name README … > /tmp/txtdocs.lst
//	REQA_TEXT_SURVEY=/tmp/txtdocs.lst go test -tags experiment -run TestTextSurvey -v ./ingest/document/

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest/document"
)

func TestTextSurvey(t *testing.T) {
	list := os.Getenv("REQA_TEXT_SURVEY")
	if list == "" {
		// May skip in CI: an experiment (tag experiment) run by hand.
		t.Skip("set REQA_TEXT_SURVEY to a file listing text files")
	}
	f, err := os.Open(list)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	files, withHead, heads, items, blocks, headed := 0, 0, 0, 0, 0, 0
	for sc.Scan() {
		p := sc.Text()
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if strings.HasSuffix(p, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				continue
			}
			data, _ = io.ReadAll(zr)
		}
		d, _ := document.ParseText(p, data)
		files++
		h := 0
		for _, s := range d.Sections {
			if len(s.Path) > 0 {
				h++
			}
			for _, b := range s.Blocks {
				blocks++
				if len(s.Path) > 0 {
					headed++
				}
				if b.Kind == document.ListItem {
					items++
				}
			}
		}
		heads += h
		if h > 0 {
			withHead++
		}
		if os.Getenv("REQA_TEXT_SHOW") == p {
			for _, s := range d.Sections {
				t.Logf("## %s", s.Heading())
				for _, b := range s.Blocks {
					t.Logf("   %s L%d: %.90s", b.Kind, b.Line, b.Text)
				}
			}
		}
	}
	t.Logf("files %d, with a heading %d, headings %d, blocks %d (under a heading %d), list items %d", files, withHead, heads, blocks, headed, items)
}
