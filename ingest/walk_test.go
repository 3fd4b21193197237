package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestWalkSymlinks checks a directory walk follows links within the tree
// (each file once, loops cut) and skips, with one warning each, links out
// of it unless FollowSymlinks.
func TestWalkSymlinks(t *testing.T) {
	outside := writeFiles(t, map[string]string{"secret.txt": "Outside secret text.", "dir/more.txt": "Outside directory text."})
	tree := writeFiles(t, map[string]string{"a.txt": "Inside text.", "sub/b.md": "Sub text."})
	links := map[string]string{
		"to-secret.txt": filepath.Join(outside, "secret.txt"),
		"to-dir":        filepath.Join(outside, "dir"),
		"to-a.txt":      "a.txt",       // within: the same file, read once
		"sub/to-sub":    ".",           // a loop
		"sub/up":        "..",          // a loop through the root
		"broken.txt":    "missing.txt", // broken
		"to-sub":        "sub",         // within: a directory already walked
		"sub/rel.txt":   "../a.txt",    // within, relative
		"via-abs.txt":   filepath.Join(tree, "sub", "b.md"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(tree, name)); err != nil {
			t.Fatal(err)
		}
	}
	c, err := ReadInputs([]string{tree})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(sentenceTexts(c), "|")
	if got != "Inside text.|Sub text." {
		t.Fatalf("read %q, want each file of the tree once and nothing from outside", got)
	}
	warnings := strings.Join(c.Warnings, "\n")
	for _, want := range []string{"to-secret.txt: a symbolic link to " + filepath.Join(outside, "secret.txt") + ", outside", "to-dir: a symbolic link", "broken.txt: a broken symbolic link"} {
		if !strings.Contains(warnings, want) {
			t.Errorf("no warning %q in:\n%s", want, warnings)
		}
	}
	if n := strings.Count(warnings, "outside"); n != 2 {
		t.Errorf("%d warnings about links out of the tree, want 2:\n%s", n, warnings)
	}
	c, err = ReadInputsContext(context.Background(), []string{tree}, ReadOptions{FollowSymlinks: true})
	if err != nil {
		t.Fatal(err)
	}
	got = strings.Join(sentenceTexts(c), "|")
	if got != "Inside text.|Sub text.|Outside directory text.|Outside secret text." {
		t.Fatalf("FollowSymlinks read %q", got)
	}
	// A link named on the command line is followed.
	if c, err = ReadInputs([]string{filepath.Join(tree, "to-secret.txt")}); err != nil || len(c.Sentences) != 1 {
		t.Fatalf("named link: %v", err)
	}
}

// TestWalkReport checks a directory of mixed files: what is read, skipped
// and refused is listed with its kind and reason, and counted.
func TestWalkReport(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.md":            "# Title\n\nMarkdown text.",
		"b.txt":           "Plain text.",
		"c.text.gz":       "",
		"d.jsonl":         `{"id": 1, "text": "Record text."}`,
		"bad.jsonl":       `{"id": 1, "text": "Fine."}` + "\n" + `{"text": 5}`,
		"e.html":          "<p>Some HTML.</p>",
		"f.pdf":           "%PDF-1.4",
		"g.png":           "\x89PNG",
		"h.json":          `{"data": []}`,
		"Makefile":        "all:",
		"README":          "Readme text.",
		"INSTALL.sh":      "echo install",
		"bin.txt":         "Text then\x00binary",
		"empty.md":        "   \n",
		"latin1.txt":      "caf\xe9",
		".hidden/x.txt":   "Hidden text.",
		"docs/deep/z.txt": "Deep text.",
	})
	os.WriteFile(filepath.Join(dir, "c.text.gz"), gzipped(t, []byte("Gzipped text.")), 0o644)
	mkfifo(t, filepath.Join(dir, "pipe.txt"))
	c, err := ReadInputs([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sentenceTexts(c), "|"); got != "Readme text.|Markdown text.|Plain text.|Gzipped text.|Record text.|Deep text.|Some HTML." {
		t.Fatalf("read %q", got)
	}
	status := map[string]string{}
	for _, f := range c.Files {
		rel, _ := filepath.Rel(dir, f.Path)
		status[rel] = f.Kind + " " + string(f.Status)
		if f.Status != FileRead && f.Reason == "" {
			t.Errorf("%s %s without a reason", rel, f.Status)
		}
	}
	want := map[string]string{
		"a.md": "md read", "b.txt": "txt read", "c.text.gz": "txt read", "d.jsonl": "jsonl read", "docs/deep/z.txt": "txt read",
		"bad.jsonl": "jsonl refused", "e.html": "html read", "f.pdf": "pdf refused", "latin1.txt": "txt refused",
		"bin.txt": "txt skipped", "empty.md": "md skipped", "pipe.txt": "txt skipped",
		"g.png": "other skipped", "h.json": "other skipped", "Makefile": "other skipped", ".hidden": "dir skipped",
		"README": "txt read", "INSTALL.sh": "other skipped",
	}
	if !reflect.DeepEqual(status, want) {
		t.Fatalf("files:\n got %v\nwant %v", status, want)
	}
	counts := c.FileCounts()
	wantCounts := []KindCount{{"html", 1, 0, 0}, {"jsonl", 1, 0, 1}, {"md", 1, 1, 0}, {"pdf", 0, 0, 1}, {"txt", 4, 2, 1}, {"other", 0, 4, 0}, {"dir", 0, 1, 0}}
	if !reflect.DeepEqual(counts, wantCounts) {
		t.Fatalf("counts %+v, want %+v", counts, wantCounts)
	}
	if s := c.FileSummary(); s != "files: html 1 read; jsonl 1 read, 1 refused; md 1 read, 1 skipped; pdf 1 refused; txt 4 read, 2 skipped, 1 refused; other 4 skipped; directories 1 skipped" {
		t.Fatalf("summary %q", s)
	}
	warnings := strings.Join(c.Warnings, "\n")
	for _, f := range []string{"bad.jsonl:2", "bin.txt", "pipe.txt", "latin1.txt:1", "f.pdf", "empty.md"} {
		if !strings.Contains(warnings, filepath.Join(dir, f)) {
			t.Errorf("no warning about %s in:\n%s", f, warnings)
		}
	}
	// Named, the refused files are errors.
	for _, f := range []string{"bad.jsonl", "bin.txt", "latin1.txt"} {
		if _, err := ReadInputs([]string{filepath.Join(dir, f)}); !errors.Is(err, ErrBadInput) {
			t.Errorf("%s named: got %v", f, err)
		}
	}
}

// TestWalkIncludeExclude checks the glob filters of directory walks.
func TestWalkIncludeExclude(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"README.md": "Readme text.", "notes.txt": "Notes text.", "docs/guide.md": "Guide text.",
		"docs/api/ref.md": "Reference text.", "docs/api/draft.txt": "Draft text.", "vendor/lib/x.md": "Vendored text.",
	})
	cases := []struct {
		include, exclude []string
		want             string
	}{
		{nil, nil, "Readme text.|Draft text.|Reference text.|Guide text.|Notes text.|Vendored text."},
		{[]string{"*.md"}, nil, "Readme text.|Reference text.|Guide text.|Vendored text."},
		{[]string{"docs/*.md"}, nil, "Guide text."},
		{[]string{"docs/**/*.md"}, nil, "Reference text.|Guide text."},
		{[]string{"**/api/*"}, nil, "Draft text.|Reference text."},
		{nil, []string{"vendor"}, "Readme text.|Draft text.|Reference text.|Guide text.|Notes text."},
		{[]string{"*.md"}, []string{"vendor/**", "docs/api"}, "Readme text.|Guide text."},
		{nil, []string{"*.txt", "/README.md"}, "Reference text.|Guide text.|Vendored text."},
	}
	for _, tc := range cases {
		c, err := ReadInputsContext(context.Background(), []string{dir}, ReadOptions{Include: tc.include, Exclude: tc.exclude})
		if err != nil {
			t.Fatalf("include %q exclude %q: %v", tc.include, tc.exclude, err)
		}
		if got := strings.Join(sentenceTexts(c), "|"); got != tc.want {
			t.Errorf("include %q exclude %q: read %q, want %q", tc.include, tc.exclude, got, tc.want)
		}
	}
	if _, err := ReadInputsContext(context.Background(), []string{dir}, ReadOptions{Include: []string{"[a-"}}); err == nil {
		t.Fatal("malformed pattern accepted")
	}
	_, err := ReadInputsContext(context.Background(), []string{dir}, ReadOptions{Include: []string{"*.pdf"}})
	if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "not matched by --include") && !strings.Contains(err.Error(), "skipped") {
		t.Fatalf("nothing included: got %v", err)
	}
}

func TestMatchGlob(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"*.md", "a.md", true},
		{"*.md", "x/y/a.md", true},
		{"*.md", "a.md.txt", false},
		{"docs/*.md", "docs/a.md", true},
		{"docs/*.md", "docs/x/a.md", false},
		{"docs/**/*.md", "docs/a.md", true},
		{"docs/**/*.md", "docs/x/y/a.md", true},
		{"docs/**", "docs/x/y/a.md", true},
		{"docs/**", "doc/a.md", false},
		{"**/test/*", "a/test/b", true},
		{"**/test/*", "test/b", true},
		{"**/test/*", "a/test/b/c", false},
		{"/README.md", "README.md", true},
		{"/README.md", "x/README.md", false}, // anchored at the root
		{"a/README.md", "x/a/README.md", false},
		{"**", "anything/at/all", true},
		{"[ab].txt", "b.txt", true},
		{"?.txt", "ab.txt", false},
		{"[a-", "a", false},
	}
	for _, tc := range cases {
		if got := MatchGlob(tc.pattern, tc.name); got != tc.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

// TestWalkSphinxSources: a Sphinx HTML build's _sources directory (beside
// its objects.inv or searchindex.js) repeats the pages as text and is
// skipped, with the reason listed; elsewhere a _sources directory is read.
// A page of site chrome only (a generated index) is skipped as empty.
func TestWalkSphinxSources(t *testing.T) {
	for _, tc := range []struct {
		name   string
		marker string
		want   string
	}{
		{"inventory", "objects.inv", "The page says this."},
		{"search index", "searchindex.js", "The page says this."},
		{"no build", "", "The source says this.|The page says this."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"page.html": "<p>The page says this.</p>", "_sources/page.rst.txt": "The source says this.",
				"genindex.html": `<h1>Index</h1><table class="indextable"><tr><td><a href="page.html">this</a></td></tr></table>`}
			if tc.marker != "" {
				files[tc.marker] = "x"
			}
			tree := writeFiles(t, files)
			c, err := ReadInputs([]string{tree})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(sentenceTexts(c), "|"); got != tc.want {
				t.Fatalf("read %q, want %q", got, tc.want)
			}
			skipped, index := false, false
			for _, f := range c.Files {
				skipped = skipped || f.Status == FileSkipped && strings.HasSuffix(f.Path, "_sources") && strings.Contains(f.Reason, "Sphinx")
				index = index || f.Status == FileSkipped && strings.HasSuffix(f.Path, "genindex.html") && strings.HasPrefix(f.Reason, "empty page")
			}
			if !index {
				t.Errorf("files %+v: a page of site chrome only is not listed as skipped (empty page)", c.Files)
			}
			if skipped != (tc.marker != "") {
				t.Errorf("files %+v: _sources listed as skipped: %v", c.Files, skipped)
			}
		})
	}
}
