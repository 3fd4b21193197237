package ingest

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/reqa/reqa/store"
)

var (
	mdLink     = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	mdEmphasis = regexp.MustCompile("(\\*\\*|__|`)")
	mdHeading  = regexp.MustCompile(`^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$`)
)

// readText reads a plain text or Markdown file's bytes b: each paragraph
// (lines up to a blank line) is a context whose lines are joined with
// single spaces.
func readText(c *Corpus, path string, b []byte, markdown bool) error {
	if err := checkUTF8(path, b); err != nil {
		return err
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return badInput(path, 0, "", "empty file (no text)")
	}
	title := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	lines := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	var para []string
	paraLine := 0
	inFence := false
	before := len(c.Sentences)
	flush := func() {
		if len(para) > 0 {
			text := strings.Join(para, " ")
			c.AddSplitContext(store.Context{Title: title, Text: text, Source: fmt.Sprintf("%s:%d", path, paraLine)})
		}
		para = para[:0]
	}
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		if markdown {
			if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
				flush()
				inFence = !inFence
				continue
			}
			if inFence {
				continue
			}
			if m := mdHeading.FindStringSubmatch(l); m != nil {
				flush()
				title = cleanMarkdown(m[2])
				continue
			}
			if strings.HasPrefix(trimmed, "<!--") || trimmed == "---" || trimmed == "***" || strings.HasPrefix(trimmed, "|") {
				flush()
				continue
			}
			trimmed = cleanMarkdown(trimmed)
		}
		if trimmed == "" {
			flush()
			continue
		}
		if len(para) == 0 {
			paraLine = i + 1
		}
		para = append(para, trimmed)
	}
	flush()
	if len(c.Sentences) == before {
		return badInput(path, 0, "", "empty file (no sentences)")
	}
	return nil
}

// cleanMarkdown drops inline Markdown markup: links keep their text,
// emphasis markers and code ticks go.
func cleanMarkdown(s string) string {
	s = mdLink.ReplaceAllString(s, "$1")
	s = mdEmphasis.ReplaceAllString(s, "")
	for _, p := range []string{"> ", "- ", "* ", "+ "} {
		if strings.HasPrefix(s, p) {
			s = s[len(p):]
			break
		}
	}
	return strings.TrimSpace(s)
}
