package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// The blind benchmark (cmd/mkdocsqa/blind): documents nobody tuned on,
// questions written by people given only an independent rendering of each
// document. Its sources are SOURCES.tsv (one document a row, pinned, with
// its license; `make blindqa-src` fetches them into SRC/NAME/) and
// split.json (whole documents to tune or test); each document is a set of
// its own, its questions in NAME.jsonl.
const (
	blindSources = "SOURCES.tsv"
	blindSplit   = "split.json"
)

// blindColumns are the columns SOURCES.tsv must have.
var blindColumns = []string{"name", "format", "source", "path", "file", "license", "license_file", "converter", "part", "sha256"}

// readBlindSources makes the sets of the blind benchmark from dir's
// SOURCES.tsv and split.json: one set per document, split by file.
func readBlindSources(dir string) (Sources, error) {
	path := filepath.Join(dir, blindSources)
	f, err := os.Open(path)
	if err != nil {
		return Sources{}, err
	}
	defer f.Close()
	var split map[string][]string
	if err := readJSON(filepath.Join(dir, blindSplit), &split); err != nil {
		return Sources{}, err
	}
	half := map[string]string{}
	for _, h := range []string{"tune", "test"} {
		for _, n := range split[h] {
			if half[n] != "" {
				return Sources{}, fmt.Errorf("%s: %s is in both halves", filepath.Join(dir, blindSplit), n)
			}
			half[n] = h
		}
	}
	sc := bufio.NewScanner(f)
	var srcs Sources
	col := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		row := strings.Split(sc.Text(), "\t")
		if line == 1 {
			for i, c := range row {
				col[c] = i
			}
			for _, c := range blindColumns {
				if _, ok := col[c]; !ok {
					return Sources{}, fmt.Errorf("%s:1: no column %q", path, c)
				}
			}
			continue
		}
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		if len(row) != len(col) {
			return Sources{}, fmt.Errorf("%s:%d: %d fields, want %d", path, line, len(row), len(col))
		}
		get := func(c string) string { return row[col[c]] }
		name := get("name")
		h, ok := half[name]
		if !ok {
			return Sources{}, fmt.Errorf("%s:%d: document %s is in neither half of %s", path, line, name, blindSplit)
		}
		origin := get("source") + " " + get("path")
		if c := get("converter"); c != "-" {
			origin += ", converted by " + c
		}
		srcs.Sets = append(srcs.Sets, SetSpec{Name: name, Origin: origin, License: get("license"),
			LicenseFiles: []string{filepath.Base(get("license_file"))}, SplitBy: "file",
			Files: []FileSpec{{Path: get("file"), Split: h}}})
		delete(half, name)
	}
	if err := sc.Err(); err != nil {
		return Sources{}, fmt.Errorf("%s: %w", path, err)
	}
	for n := range half {
		return Sources{}, fmt.Errorf("%s: %s names %s, which %s does not list", filepath.Join(dir, blindSplit), blindSplit, n, blindSources)
	}
	return srcs, nil
}

// foldText makes an independent rendering and reqa's readers comparable
// beyond normalize: compatibility forms folded (NFKC: a PDF's "ﬁ"
// ligature is "fi"), hyphens between letters dropped (hyphenBreakRE), and the
// underscores some renderers lose read as spaces.
func foldText(s string) string {
	s = norm.NFKC.String(s)
	s = hyphenBreakRE.ReplaceAllString(s, "$1$2")
	return strings.ReplaceAll(s, "_", " ")
}

// normalizePlain is normalize for text without markup (an independent
// rendering, what reqa's readers make of a document): quotes folded, white
// space collapsed, lower case, after foldText. It removes nothing that
// looks like a tag: a rendering's "<file>" is text.
func normalizePlain(s string) string {
	s = quotes.Replace(foldText(s))
	s = spaceRE.ReplaceAllString(s, " ")
	s = spacePunctRE.ReplaceAllString(s, "$1")
	return strings.ToLower(strings.TrimSpace(s))
}

// hyphenBreakRE matches a hyphen between letters, with or without white
// space after it: a word hyphenated across a line end by a renderer (or so
// seen in a rendering whose white space was collapsed: a writer's "host-
// specific") is then the same as the word reqa's reader keeps whole, with
// its hyphen or without. Round 1's dataset is the same with it as with the
// line-end rule before it (2026-12-03).
var hyphenBreakRE = regexp.MustCompile(`(\pL)-\s*(\pL)`)

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
