package formats

import (
	"strings"

	"github.com/reqa/reqa/ingest/document"
)

// docNames are the names projects give their plain-text documentation
// files: README, INSTALL, FAQ and the like, without an extension or with
// a word after them (Debian's README.Debian, README.source).
var docNames = map[string]bool{"readme": true, "install": true, "faq": true, "todo": true, "hacking": true,
	"bugs": true, "contributing": true}

// codeExts are extensions that make a documentation name a program, a
// build file or an archive (INSTALL.sh, README.in, README.tar), never
// read as text.
var codeExts = map[string]bool{".sh": true, ".py": true, ".pl": true, ".rb": true, ".js": true, ".c": true,
	".h": true, ".go": true, ".json": true, ".xml": true, ".yml": true, ".yaml": true, ".cfg": true,
	".conf": true, ".in": true, ".am": true, ".ac": true, ".bat": true, ".cmd": true, ".ps1": true, ".mk": true,
	".tex": true, ".css": true, ".svg": true, ".tar": true, ".zip": true, ".bz2": true, ".xz": true,
	".zst": true, ".tgz": true, ".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".exe": true, ".so": true}

// docFileName reports whether base, a lower-cased file name with ext its
// extension, names a plain-text documentation file: a name of docNames
// alone, or followed by an extension of letters that is not code's.
func docFileName(base, ext string) bool {
	if !docNames[strings.TrimSuffix(base, ext)] {
		return false
	}
	if ext == "" {
		return true
	}
	if len(ext) > 13 || codeExts[ext] {
		return false
	}
	for _, r := range ext[1:] {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// manSection reports whether ext is a manual page's section suffix: "."
// and a digit 1–9, then lower-case letters or digits (".1", ".3pm",
// ".1ssl", ".8").
func manSection(_, ext string) bool {
	if len(ext) < 2 || ext[0] != '.' || ext[1] < '1' || ext[1] > '9' {
		return false
	}
	for _, c := range ext[2:] {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// LooksLikeRoff reports whether data reads as roff: a line among its first
// 100 starts with a control character ("." or "'"). A file named like a
// manual page that does not (a log rotated to "app.log.1") is plain text.
func LooksLikeRoff(data []byte) bool {
	for i, l := range strings.SplitN(string(data[:min(len(data), 64<<10)]), "\n", 101) {
		if i == 100 {
			break
		}
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			return true
		}
	}
	return false
}

// GuessText names the reader for a plain-text file's data: Markdown when it
// reads as Markdown (two ATX headings, "# Title" between blank lines
// outside fenced code, or one and a fenced block), reStructuredText when it
// reads as that (an explicit markup line — ".. directive::", ".. _target:",
// ".. |substitution|" — and an underlined title), else plain text. Many
// READMEs and FAQs are one of the two without saying so in their name.
func GuessText(data []byte) document.Format {
	head := string(data[:min(len(data), 64<<10)])
	atx, fences, explicit, underlined := 0, 0, 0, 0
	inFence := false
	prev := ""
	lines := strings.Split(head, "\n")
	blank := func(i int) bool { return i < 0 || i >= len(lines) || strings.TrimSpace(lines[i]) == "" }
	for i, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		switch {
		case strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~"):
			fences++
			inFence = !inFence
		case inFence:
		case atxHeading(l) && blank(i-1) && blank(i+1):
			// A heading stands between blank lines; shell comments and
			// root prompts ("# apt update") mostly come in runs.
			atx++
		case strings.HasPrefix(l, ".. ") && rstExplicit(l[3:]):
			explicit++
		case len(l) >= 3 && strings.Trim(l, "=") == "" || len(l) >= 3 && strings.Trim(l, "-") == "":
			if t := strings.TrimSpace(prev); t != "" && strings.Trim(t, "=-") != "" && len(l) >= len(t) {
				underlined++
			}
		}
		prev = l
	}
	switch {
	case atx >= 2 || atx >= 1 && fences >= 2:
		return document.Markdown
	case explicit >= 1 && underlined >= 1:
		return document.RST
	}
	return document.Text
}

// atxHeading reports whether l is a Markdown ATX heading: one to six "#",
// a space, then text.
func atxHeading(l string) bool {
	n := len(l) - len(strings.TrimLeft(l, "#"))
	return n >= 1 && n <= 6 && len(l) > n+1 && l[n] == ' ' && strings.TrimSpace(l[n:]) != ""
}

// rstExplicit reports whether s, what follows ".. " at the start of a
// line, is reStructuredText explicit markup: a directive ("note::"), a
// hyperlink target ("_name: url") or a substitution definition ("|x|").
func rstExplicit(s string) bool {
	if strings.HasPrefix(s, "_") && strings.Contains(s, ":") || strings.HasPrefix(s, "|") && strings.Count(s, "|") >= 2 {
		return true
	}
	name, _, ok := strings.Cut(s, "::")
	return ok && name != "" && strings.IndexFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == ':')
	}) < 0
}

// infoPart reports whether ext is a split Info manual's part: ".info-"
// and a number (find.info-1, find.info-2…).
func infoPart(_, ext string) bool {
	n, ok := strings.CutPrefix(ext, ".info-")
	return ok && n != "" && strings.Trim(n, "0123456789") == ""
}

// guessMan names the reader of a file named like a manual page: roff when
// it looks like roff, else what its text reads as ([GuessText]).
func guessMan(data []byte) document.Format {
	if LooksLikeRoff(data) {
		return document.Man
	}
	return GuessText(data)
}
