package document

import (
	"bytes"
	"regexp"
)

// Bounds of the Markdown pre-pass ([boundMarkdown]). Goldmark has no limits
// of its own: it walks every open container for every line and scans
// ahead for every link or emphasis opener, so deep nesting and long runs
// of openers take quadratic time (issue 33: 200 KB of ">" 35 s, 50,000
// "[a](" 40 s, 3,000 nested list items 86 s).
const (
	// mdMaxDepth is how many block quote and list markers a line keeps.
	// Goldmark also holds 24 bytes per line for each block open on it
	// until the next blank line (10 MB of lists nested 0–200 deep took
	// 950 MB), so the bound is half the reader's MaxNesting.
	mdMaxDepth = MaxNesting / 2
	// mdMaxIndent is the widest leading indentation (in columns, a tab
	// to the next multiple of 4) kept outside fenced code: with two
	// columns a level, mdMaxDepth levels of lists.
	mdMaxIndent = 2 * mdMaxDepth
	// mdMaxBrackets is how many link brackets ("[", "]") and
	// mdMaxOpeners how many emphasis, code span and HTML openers ("*",
	// "_", "`", "<") one paragraph (or table row) keeps as markup; the
	// ones after are escaped and read as the characters they are.
	mdMaxBrackets = 512
	mdMaxOpeners  = 1024
)

// mdTableDelimiter matches a GFM table's delimiter row ("|---|:--:|",
// "--- | ---"): the rows under it are read cell by cell.
var mdTableDelimiter = regexp.MustCompile(`^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`)

// boundMarkdown returns src (the same slice when nothing is bounded) with
// what would make goldmark slow bounded, line numbers kept: a line's block
// quote and list markers past mdMaxDepth are removed (the text reads as
// at that depth, as the reader reads deeper blocks anyway), leading
// indentation wider than mdMaxIndent is narrowed to it outside fenced
// code, and past mdMaxBrackets or mdMaxOpeners in one paragraph (lines up
// to a blank line or a new list item, quote or heading; a table's rows one
// by one) openers are escaped with a backslash, which goldmark reads as
// the character itself. Every step is linear in the length of src.
func boundMarkdown(src []byte) []byte {
	var out []byte // nil until a line changes
	var fence []byte
	brackets, openers := 0, 0
	table := false // in a table's rows, under its delimiter row
	var esc []int
	for off := 0; off < len(src); {
		end := bytes.IndexByte(src[off:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += off + 1
		}
		line, lineOff := src[off:end], off
		off = end
		// The line's container markers (">", "-", "+", "*" and "1." or
		// "1)" followed by a space) and the white space around them.
		i, markers, change := 0, 0, false
		for {
			j := skipIndent(line[i:])
			change = change || indentWidth(line[i:i+j]) > mdMaxIndent
			n := containerMarker(line[i+j:])
			if n == 0 {
				break
			}
			markers++
			change = change || markers > mdMaxDepth
			i += j + n
		}
		ind := skipIndent(line[i:])
		body := line[i+ind:]
		blank := len(bytes.TrimSpace(body)) == 0
		if blank {
			table = false
		} else if !table && bytes.IndexByte(body, '|') >= 0 && mdTableDelimiter.Match(bytes.TrimRight(body, "\r\n")) {
			table = true
		}
		if markers > 0 || blank || body[0] == '#' || table {
			brackets, openers = 0, 0
		}
		if f := fenceOf(body); fence != nil || f != nil && ind < 4 {
			switch {
			case fence == nil:
				fence = f
			case f != nil && bytes.HasPrefix(f, fence) && len(bytes.TrimSpace(body[len(f):])) == 0:
				fence = nil
			}
			body = nil // fenced code is kept as it is
		}
		// Openers past the paragraph's allowance are escaped.
		esc = esc[:0]
		for k, c := range body {
			switch c {
			case '[', ']':
				if brackets++; brackets > mdMaxBrackets {
					esc = append(esc, k)
				}
			case '*', '_', '`', '<':
				if openers++; openers > mdMaxOpeners {
					esc = append(esc, k)
				}
			}
		}
		if !change && len(esc) == 0 {
			if out != nil {
				out = append(out, line...)
			}
			continue
		}
		if out == nil {
			out = append(make([]byte, 0, len(src)+len(src)/8), src[:lineOff]...)
		}
		// The line again, bounded.
		i, markers = 0, 0
		for {
			j := skipIndent(line[i:])
			if w := indentWidth(line[i : i+j]); w > mdMaxIndent {
				out = append(out, bytes.Repeat([]byte{' '}, mdMaxIndent)...)
			} else if markers <= mdMaxDepth {
				out = append(out, line[i:i+j]...)
			}
			n := containerMarker(line[i+j:])
			if n == 0 {
				i += j
				break
			}
			if markers++; markers <= mdMaxDepth {
				out = append(out, line[i+j:i+j+n]...)
			}
			i += j + n
		}
		rest := line[i:]
		prev := 0
		for _, k := range esc {
			k += len(rest) - len(body)
			if k > 0 && rest[k-1] == '\\' {
				continue // escaped already
			}
			out = append(append(out, rest[prev:k]...), '\\')
			prev = k
		}
		out = append(out, rest[prev:]...)
	}
	if out == nil {
		return src
	}
	return out
}

// containerMarker returns the length of the block quote or list marker l
// starts with, with the space after it, 0 if it starts with none.
func containerMarker(l []byte) int {
	if len(l) == 0 {
		return 0
	}
	switch l[0] {
	case '>':
		if len(l) > 1 && (l[1] == ' ' || l[1] == '\t') {
			return 2
		}
		return 1
	case '-', '+', '*':
		if len(l) > 1 && (l[1] == ' ' || l[1] == '\t') {
			return 2
		}
		return 0
	}
	n := 0
	for n < len(l) && n < 9 && l[n] >= '0' && l[n] <= '9' {
		n++
	}
	if n > 0 && n+1 < len(l) && (l[n] == '.' || l[n] == ')') && (l[n+1] == ' ' || l[n+1] == '\t') {
		return n + 2
	}
	return 0
}

// skipIndent returns the length of l's leading spaces and tabs, stopping
// before a final line end.
func skipIndent(l []byte) int {
	i := 0
	for i < len(l)-1 && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	return i
}

// indentWidth is the width in columns of white space ws.
func indentWidth(ws []byte) int {
	w := 0
	for _, c := range ws {
		if c == '\t' {
			w += 4 - w%4
		} else {
			w++
		}
	}
	return w
}

// fenceOf returns the code fence l starts with ("```", "~~~~"), nil if
// none.
func fenceOf(l []byte) []byte {
	if len(l) < 3 || l[0] != '`' && l[0] != '~' {
		return nil
	}
	n := 0
	for n < len(l) && l[n] == l[0] {
		n++
	}
	if n < 3 {
		return nil
	}
	return l[:n]
}
