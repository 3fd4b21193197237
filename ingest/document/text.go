package document

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ParseText reads plain text as READMEs, FAQs and notes write it:
//
//   - a paragraph (lines up to a blank line) is a block, its lines joined
//     with spaces;
//   - a line underlined (or over- and underlined) with a run of one of
//     = - ~ * # + ^ _, at least three long, is a heading, its level set by
//     the order in which each style first appears (as reStructuredText
//     does); a line alone between blank lines written in capitals
//     ("INSTALLATION", "KNOWN BUGS") is a heading one level below every
//     underlined style;
//   - a line starting with a bullet ("- ", "* ", "+ ", "• ") or a number or
//     letter and a dot or parenthesis ("1. ", "2) ", "a. ") starts a list
//     item, which runs until the next item or a blank line; the items of
//     one list, blank lines between them or not, share a group;
//   - a rule alone on its line (a run of such characters between blank
//     lines) separates paragraphs and is not text.
func ParseText(name string, data []byte) (*Document, error) {
	return ParseTextContext(context.Background(), name, data)
}

// ParseTextContext is [ParseText], stopping with ctx's error (wrapped) once
// ctx is done, between lines.
func ParseTextContext(ctx context.Context, name string, data []byte) (d *Document, err error) {
	defer Recover(name, &err)
	lines := strings.Split(string(BlankBOM(data)), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	b := NewBuilderContext(ctx, name, Text)
	t := textReader{b: b, lines: lines}
	t.read()
	return b.Doc, nil
}

// textReader holds ParseText's state.
type textReader struct {
	b     *Builder
	lines []string
	// styles are the underline styles in order of first appearance (an
	// overlined style is its character preceded by "^").
	styles []string
	// para is the paragraph being read: its lines and first line number.
	para  []string
	start int
	// item is the list item being read (its lines and first line) and
	// list the group of the list it belongs to (0: no list).
	item      []string
	itemStart int
	list      int
}

// read walks the lines.
func (t *textReader) read() {
	ls := t.lines
	for i := 0; i < len(ls); i++ {
		t.b.Check()
		l := ls[i]
		if strings.TrimSpace(l) == "" {
			t.flush()
			continue
		}
		// An overlined heading: rule, title, the same rule.
		if r := ruleChar(l); r != 0 && i+2 < len(ls) && t.startsBlock() && ruleChar(ls[i+2]) == r && isTitle(strings.TrimLeft(ls[i+1], " \t")) {
			t.heading("^"+string(r), ls[i+1], i+2)
			i += 2
			continue
		}
		// An underlined heading: a title starting a paragraph, then a rule.
		if i+1 < len(ls) && t.startsBlock() && isTitle(l) {
			if r := ruleChar(ls[i+1]); r != 0 {
				t.heading(string(r), l, i+1)
				i++
				continue
			}
		}
		// A rule outside a paragraph separates blocks and ends a list.
		if ruleChar(l) != 0 && len(t.para) == 0 {
			t.flushItem()
			t.list = 0
			continue
		}
		// A capitalised heading alone between blank lines.
		if t.startsBlock() && (i == 0 || strings.TrimSpace(ls[i-1]) == "") && (i+1 == len(ls) || strings.TrimSpace(ls[i+1]) == "") && isCaps(l) {
			t.heading("", l, i+1)
			continue
		}
		if text, ok := listItem(l); ok {
			t.flush()
			if t.list == 0 {
				t.list = t.b.NewGroup()
			}
			t.item, t.itemStart = []string{strings.TrimSpace(l[text:])}, i+1
			continue
		}
		if len(t.item) > 0 {
			t.item = append(t.item, strings.TrimSpace(l))
			continue
		}
		if len(t.para) == 0 {
			t.start = i + 1
			t.list = 0
		}
		t.para = append(t.para, strings.TrimSpace(l))
	}
	t.flush()
}

// startsBlock reports whether no paragraph or list item is being read.
func (t *textReader) startsBlock() bool { return len(t.para) == 0 && len(t.item) == 0 }

// heading adds a heading of the given style ("" for capitals) on line.
func (t *textReader) heading(style, text string, line int) {
	t.flush()
	t.list = 0
	level := len(t.styles) + 1
	if style != "" {
		level = StyleLevel(&t.styles, style)
	}
	t.b.Heading(min(level, 6), strings.TrimSpace(text), "", line, 0)
}

// flush ends the paragraph or list item being read.
func (t *textReader) flush() {
	t.flushItem()
	if len(t.para) > 0 {
		t.b.Block(Paragraph, strings.Join(t.para, " "), t.start, 0, 0)
		t.para = t.para[:0]
	}
}

// flushItem ends the list item being read.
func (t *textReader) flushItem() {
	if len(t.item) > 0 {
		t.b.Block(ListItem, strings.Join(t.item, " "), t.itemStart, 0, t.list)
		t.item = nil
	}
}

// ruleChar returns the character a line repeats when it is a rule — at
// least three of one of = - ~ * # + ^ _ and nothing else but surrounding
// white space — else 0.
func ruleChar(l string) rune {
	s := strings.TrimSpace(l)
	if len(s) < 3 || !strings.ContainsRune("=-~*#+^_", rune(s[0])) {
		return 0
	}
	for i := 1; i < len(s); i++ {
		if s[i] != s[0] {
			return 0
		}
	}
	return rune(s[0])
}

// isTitle reports whether l can be a heading's text: not indented, at most
// 80 characters, holding a letter or digit, not itself a rule or a list
// item.
func isTitle(l string) bool {
	if l == "" || l[0] == ' ' || l[0] == '\t' || utf8.RuneCountInString(l) > 80 || ruleChar(l) != 0 {
		return false
	}
	if _, ok := listItem(l); ok {
		return false
	}
	return strings.IndexFunc(l, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// isCaps reports whether l reads as a heading in capitals: a title of at
// most 60 characters with at least three letters, all upper case, not
// ending in a sentence's punctuation.
func isCaps(l string) bool {
	if !isTitle(l) || utf8.RuneCountInString(l) > 60 || strings.ContainsAny(l[len(l)-1:], ".,;!?") {
		return false
	}
	n := 0
	for _, r := range l {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsUpper(r) {
			n++
		}
	}
	return n >= 3
}

// listItem reports whether l starts a list item and where its text starts:
// after a bullet ("-", "*", "+", "•") or a number or letter followed by "."
// or ")" (at most three digits, or one letter), then a space.
func listItem(l string) (text int, ok bool) {
	i := Indent(l)
	s := l[i:]
	for _, bullet := range []string{"- ", "* ", "+ ", "• "} {
		if strings.HasPrefix(s, bullet) && strings.TrimSpace(s[len(bullet):]) != "" {
			return i + len(bullet) + Indent(s[len(bullet):]), true
		}
	}
	j := 0
	for j < len(s) && j < 3 && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == 0 && len(s) > 0 && s[0] >= 'a' && s[0] <= 'z' {
		j = 1
	}
	if j == 0 || j+1 >= len(s) || (s[j] != '.' && s[j] != ')') || s[j+1] != ' ' || strings.TrimSpace(s[j+2:]) == "" {
		return 0, false
	}
	return i + j + 2 + Indent(s[j+2:]), true
}
