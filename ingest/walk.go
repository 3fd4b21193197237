package ingest

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/reqa/reqa/ingest/document"
	"github.com/reqa/reqa/ingest/document/formats"
)

// FileStatus says what happened to a file met while reading the inputs.
type FileStatus string

// The statuses of a file: read into the corpus; skipped (not a kind read
// in directories, filtered out, hidden, a symbolic link out of the tree, a
// FIFO or device, binary, empty); refused (its content is bad input).
const (
	FileRead    FileStatus = "read"
	FileSkipped FileStatus = "skipped"
	FileRefused FileStatus = "refused"
)

// FileResult is one file met while reading the inputs.
type FileResult struct {
	// Path is the file's path as met (under the directory given).
	Path string
	// Kind is the kind it was read as ("md", "html", "pdf", "txt", "rst", "adoc", "org", "info", "epub", "docx", "odt", "man",
	// "jsonl", "squad", "dataset"), "dir" for a directory skipped whole,
	// or "other" for a file of no kind reqa reads.
	Kind   string
	Status FileStatus
	// Reason says why a file was skipped or refused.
	Reason string
}

// KindCount counts the files of one kind by status.
type KindCount struct {
	Kind                   string
	Read, Skipped, Refused int
}

// FileCounts counts Corpus.Files by kind (sorted by kind, "other" and
// "dir" last).
func (c *Corpus) FileCounts() []KindCount {
	by := map[string]*KindCount{}
	for _, f := range c.Files {
		k := by[f.Kind]
		if k == nil {
			k = &KindCount{Kind: f.Kind}
			by[f.Kind] = k
		}
		switch f.Status {
		case FileRead:
			k.Read++
		case FileSkipped:
			k.Skipped++
		case FileRefused:
			k.Refused++
		}
	}
	out := make([]KindCount, 0, len(by))
	for _, k := range by {
		out = append(out, *k)
	}
	rank := func(k string) int {
		switch k {
		case "other":
			return 1
		case "dir":
			return 2
		}
		return 0
	}
	sort.Slice(out, func(i, j int) bool {
		if ri, rj := rank(out[i].Kind), rank(out[j].Kind); ri != rj {
			return ri < rj
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}

// FileSummary sums up Corpus.Files in one line, e.g. "files: md 12 read,
// 1 refused; txt 3 read; other 5 skipped".
func (c *Corpus) FileSummary() string {
	var parts []string
	for _, k := range c.FileCounts() {
		var s []string
		for _, n := range []struct {
			n    int
			what string
		}{{k.Read, "read"}, {k.Skipped, "skipped"}, {k.Refused, "refused"}} {
			if n.n > 0 {
				s = append(s, fmt.Sprintf("%d %s", n.n, n.what))
			}
		}
		name := k.Kind
		if name == "dir" {
			name = "directories"
		}
		parts = append(parts, name+" "+strings.Join(s, ", "))
	}
	return "files: " + strings.Join(parts, "; ")
}

// dirKinds are the kinds a directory walk reads: every document format's,
// and the record kinds read in directories.
var dirKinds = func() map[string]bool {
	kinds := map[string]bool{}
	for _, f := range formats.All {
		kinds[string(f.Name)] = true
	}
	for _, k := range recordKinds {
		kinds[k.kind] = k.inDirs
	}
	return kinds
}()

// dirFiles names the files a directory walk reads, for messages: ".md,
// .markdown, .html, .htm, … or .jsonl files".
func dirFiles() string {
	var names []string
	for _, f := range formats.All {
		names = append(names, f.Files)
	}
	for _, k := range recordKinds {
		if k.inDirs {
			names = append(names, k.ext)
		}
	}
	return orList(names) + " files"
}

// walkFile is a file a walk found to read.
type walkFile struct {
	path string
	kind string
}

// readDir walks root and reads the files found in sorted path order.
func (r *reader) readDir(root string) error {
	rootReal, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("input %s: %w", root, err)
	}
	if rootReal, err = filepath.Abs(rootReal); err != nil {
		return fmt.Errorf("input %s: %w", root, err)
	}
	w := &walker{r: r, root: root, rootReal: rootReal, visited: map[fileID]bool{}}
	if err := w.walk(root, ""); err != nil {
		return err
	}
	sort.Slice(w.files, func(i, j int) bool { return w.files[i].path < w.files[j].path })
	if len(w.files) == 0 {
		return badInput(root, 0, "", "no %s to read in directory (%s)", dirFiles(), r.c.FileSummary())
	}
	seen := map[fileID]string{}
	for _, f := range w.files {
		st, err := os.Stat(f.path)
		if err == nil {
			if id, ok := idOf(st); ok {
				if first, dup := seen[id]; dup {
					w.skip(f.path, f.kind, "the same file as "+first+" (a link to it)", false)
					continue
				}
				seen[id] = f.path
			}
		}
		if err := r.readDirFile(f, st, err); err != nil {
			return err
		}
	}
	return nil
}

// readDirFile reads one file found by a walk: bad input skips (binary,
// empty) or refuses it and the walk goes on; anything else stops it.
func (r *reader) readDirFile(f walkFile, st os.FileInfo, err error) error {
	c := r.c
	nc, ns, nw, est := len(c.Contexts), len(c.Sentences), len(c.Warnings), r.est
	r.idLog = []idUndo{}
	if err == nil {
		err = r.readFile(f.path, f.kind, st)
	}
	undo := r.idLog
	r.idLog = nil
	if err == nil {
		r.note(f.path, f.kind, FileRead, "")
		return nil
	}
	var ie *InputError
	if !errors.As(err, &ie) {
		r.note(f.path, f.kind, FileRefused, err.Error())
		return err
	}
	// Take back what the file added before the error.
	c.Contexts, c.Sentences, c.Warnings, r.est = c.Contexts[:nc], c.Sentences[:ns], c.Warnings[:nw], est
	r.undoIDs(undo)
	r.pending = 0
	status := FileRefused
	switch {
	case errors.Is(err, ErrBinary), errors.Is(err, ErrNotRegular), errors.Is(err, ErrReaderFailed):
		status = FileSkipped
	case ie.Line == 0 && strings.HasPrefix(ie.Msg, "empty"):
		status = FileSkipped
	}
	r.note(f.path, f.kind, status, ie.Msg)
	c.Warnings = append(c.Warnings, fmt.Sprintf("%s (%s)", err, status))
	return nil
}

// fileID identifies a directory, to cut symbolic link loops.
type fileID struct{ dev, ino uint64 }

func idOf(st os.FileInfo) (fileID, bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{uint64(s.Dev), uint64(s.Ino)}, true
}

type walker struct {
	r        *reader
	root     string
	rootReal string
	visited  map[fileID]bool
	files    []walkFile
}

// walk lists dir (rel is its path relative to the root, "" for the root).
func (w *walker) walk(dir, rel string) error {
	if err := w.r.ctx.Err(); err != nil {
		return fmt.Errorf("walk %s: %w", dir, err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return w.unreadableDir(dir, rel, err)
	}
	if id, ok := idOf(st); ok {
		if w.visited[id] {
			w.skip(dir, "dir", "already walked (a symbolic link back into the tree, or a loop)", true)
			return nil
		}
		w.visited[id] = true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return w.unreadableDir(dir, rel, err)
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		relp := path.Join(rel, e.Name())
		mode := e.Type()
		if mode&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(p)
			if err != nil {
				w.skip(p, "other", "a broken symbolic link", true)
				continue
			}
			if abs, err := filepath.Abs(target); err == nil {
				target = abs
			}
			if !within(target, w.rootReal) && !w.r.opt.FollowSymlinks {
				w.skip(p, kindOrOther(p), fmt.Sprintf("a symbolic link to %s, outside %s (follow such links with --follow-symlinks)", target, w.root), true)
				continue
			}
			tst, err := os.Stat(p)
			if err != nil {
				w.skip(p, "other", "unreadable symbolic link: "+err.Error(), true)
				continue
			}
			mode = tst.Mode().Type()
		}
		switch {
		case mode.IsDir():
			if strings.HasPrefix(e.Name(), ".") {
				w.skip(p, "dir", "a hidden directory", false)
				continue
			}
			if matchAny(w.r.opt.Exclude, relp) {
				w.skip(p, "dir", "excluded by --exclude", false)
				continue
			}
			if e.Name() == "_sources" && sphinxBuild(dir) {
				w.skip(p, "dir", "a Sphinx build's copy of its pages' sources (the pages are read as HTML)", false)
				continue
			}
			if err := w.walk(p, relp); err != nil {
				return err
			}
		case mode.IsRegular():
			kind, ext := kindOfName(e.Name())
			if !dirKinds[kind] {
				why := "not a kind reqa reads in directories"
				if ext != "" {
					why = fmt.Sprintf("%s files are not read in directories", ext)
				}
				if kind == "squad" {
					why = ".json files are read only when named (as SQuAD JSON)"
				}
				w.skip(p, "other", why, false)
				continue
			}
			if matchAny(w.r.opt.Exclude, relp) {
				w.skip(p, kind, "excluded by --exclude", false)
				continue
			}
			if len(w.r.opt.Include) > 0 && !matchAny(w.r.opt.Include, relp) {
				w.skip(p, kind, "not matched by --include", false)
				continue
			}
			if kind == string(document.Man) && !isManPage(p) {
				w.skip(p, "other", "named like a manual page (a section number) but not roff", false)
				continue
			}
			w.files = append(w.files, walkFile{path: p, kind: kind})
		default:
			w.skip(p, kindOrOther(p), describeMode(mode), true)
		}
	}
	return nil
}

// isManPage reports whether the file at p, named like a manual page, is
// one: a ".man" file, or its first 8 KB (decompressed when gzipped) read
// as roff. A walk does not read what only shares the naming, a log
// rotated to "app.log.1" or a library "libz.so.1"; named as an input, such
// a file is read as plain text.
func isManPage(p string) bool {
	if strings.EqualFold(filepath.Ext(p), ".man") {
		return true
	}
	f, err := os.Open(p)
	if err != nil {
		return true // reading it reports the error
	}
	defer f.Close()
	var rd io.Reader = f
	if strings.EqualFold(filepath.Ext(p), ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return true // reading it reports the error
		}
		defer z.Close()
		rd = z
	}
	head := make([]byte, 8<<10)
	n, _ := io.ReadFull(rd, head)
	return formats.LooksLikeRoff(head[:n])
}

// sphinxBuild reports whether dir is the root of a Sphinx HTML build: it
// holds the inventory or the search index every such build writes. Its
// _sources directory repeats every page as reStructuredText (or Markdown)
// text, so a walk would read each page twice.
func sphinxBuild(dir string) bool {
	for _, name := range []string{"objects.inv", "searchindex.js"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && st.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// unreadableDir skips a directory that cannot be listed, or fails on the
// root.
func (w *walker) unreadableDir(dir, rel string, err error) error {
	if rel == "" {
		return fmt.Errorf("input %s: %w", dir, err)
	}
	w.skip(dir, "dir", "unreadable directory: "+err.Error(), true)
	return nil
}

// skip lists a file skipped, with a warning when warn.
func (w *walker) skip(p, kind, why string, warn bool) {
	w.r.note(p, kind, FileSkipped, why)
	if warn {
		w.r.c.Warnings = append(w.r.c.Warnings, fmt.Sprintf("%s: %s (skipped)", p, why))
	}
}

func kindOrOther(p string) string {
	if k, _ := kindOfName(p); k != "" {
		return k
	}
	return "other"
}

// within reports whether path p lies in directory dir (both absolute and
// clean).
func within(p, dir string) bool {
	if p == dir {
		return true
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// MatchGlob reports whether the slash-separated relative path name matches
// the glob pattern of ReadOptions.Include and Exclude:
//
//   - a pattern without a slash matches the last element of the path, at
//     any depth ("*.md" matches "a/b/c.md");
//   - a pattern with a slash matches the whole path, element by element
//     ("docs/*.md" matches "docs/a.md", not "docs/x/a.md"; "/README.md"
//     only the README.md at the top);
//   - "**" as a whole element matches any number of elements, none
//     included ("docs/**/*.md" matches "docs/a.md" and "docs/x/y/a.md");
//   - within an element, "*", "?", "[…]" and "\" work as in path.Match
//     ("*" never crosses a slash).
//
// A malformed pattern matches nothing (ReadInputsContext refuses it first).
func MatchGlob(pattern, name string) bool {
	name = strings.Trim(name, "/")
	if !strings.Contains(pattern, "/") {
		if pattern == "**" {
			return true
		}
		ok, _ := path.Match(pattern, path.Base(name))
		return ok
	}
	return matchParts(strings.Split(strings.TrimPrefix(pattern, "/"), "/"), strings.Split(name, "/"))
}

func matchParts(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for i := 0; i <= len(name); i++ {
				if matchParts(pat, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if MatchGlob(p, name) {
			return true
		}
	}
	return false
}

// checkGlob refuses a malformed pattern.
func checkGlob(pattern string) error {
	if pattern == "" {
		return errors.New("glob pattern: empty")
	}
	for _, el := range strings.Split(strings.TrimPrefix(pattern, "/"), "/") {
		if _, err := path.Match(el, ""); err != nil {
			return fmt.Errorf("glob pattern %q: malformed (element %q)", pattern, el)
		}
	}
	return nil
}
