package document

import (
	"regexp"
	"strings"
)

// orgMaxLine is the longest line handed to go-org, which reads lines with
// a bufio.Scanner of the default 64 KiB limit and refuses a file with a
// longer one whole.
const orgMaxLine = 60 << 10

var (
	orgPropertiesRe = regexp.MustCompile(`(?i)^\s*:PROPERTIES:\s*$`)
	orgEndRe        = regexp.MustCompile(`(?i)^\s*:END:\s*$`)
	orgStarsRe      = regexp.MustCompile(`^\*+\s`)
)

// boundOrg returns Org source src with what would refuse it or make
// go-org slow bounded; mark is a character src does not hold. A line
// longer than orgMaxLine is broken at spaces (a newline for a space: the
// paragraph reads the same) or, without one, every orgMaxLine bytes. A
// ":PROPERTIES:" line with no ":END:" line after it before the next
// headline gets mark in front, so that go-org reads it as the text it
// falls back to anyway: go-org reads every such drawer to the file's end
// before giving up, which makes a run of them quadratic (10,000 lines, 130
// KB: 80 s). The caller removes mark from go-org's output.
func boundOrg(src string, mark rune) string {
	lines := strings.Split(src, "\n")
	changed := false
	endAhead := false
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		switch {
		case orgStarsRe.MatchString(l):
			endAhead = false
		case orgEndRe.MatchString(l):
			endAhead = true
		case !endAhead && len(l) < 64 && orgPropertiesRe.MatchString(l):
			lines[i] = string(mark) + l
			changed = true
		}
		if len(l) > orgMaxLine {
			lines[i] = breakLine(lines[i], orgMaxLine)
			changed = true
		}
	}
	if !changed {
		return src
	}
	return strings.Join(lines, "\n")
}

// breakLine breaks l into lines of at most max bytes: at its last space
// before the limit (the space becomes the line end), else at the limit
// (on a UTF-8 character boundary).
func breakLine(l string, max int) string {
	var sb strings.Builder
	sb.Grow(len(l) + len(l)/max + 1)
	for len(l) > max {
		cut := strings.LastIndexByte(l[:max], ' ')
		skip := 1
		if cut <= 0 {
			cut, skip = max, 0
			for cut > 0 && l[cut]&0xc0 == 0x80 {
				cut--
			}
		}
		sb.WriteString(l[:cut])
		sb.WriteByte('\n')
		l = l[cut+skip:]
	}
	sb.WriteString(l)
	return sb.String()
}

// unusedRune returns a private-use character s does not hold.
func unusedRune(s string) rune {
	var seen [0xF900 - 0xE000]bool
	for _, r := range s {
		if r >= 0xE000 && r < 0xF900 {
			seen[r-0xE000] = true
		}
	}
	for i, ok := range seen {
		if !ok {
			return rune(0xE000 + i)
		}
	}
	return 0xFFFF // a noncharacter: s holds every private-use one
}
