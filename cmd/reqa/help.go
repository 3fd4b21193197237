package main

import (
	"fmt"
	"strings"

	"github.com/reqa/reqa/ingest/document/formats"
)

// indexUsage is index's line in `reqa --help`: the document formats of the
// registry (package formats) and the record kinds, so it lists what index
// reads today.
func indexUsage() string {
	return "index documents (" + strings.Join(formats.Names(), ", ") + "), JSONL records, SQuAD JSON or a ReQA dataset into one file"
}

// inputsHelp is the paragraph of `reqa --help` on index's inputs: each
// format with its files.
func inputsHelp() string {
	var b strings.Builder
	b.WriteString("What index reads (a .gz suffix aside; directories are walked):\n")
	for _, f := range formats.All {
		fmt.Fprintf(&b, "  %-9s %s\n", f.Name, f.Files)
	}
	b.WriteString("  jsonl     .jsonl, one record per line\n" +
		"  squad     .json, SQuAD JSON (only when named)\n" +
		"  ReQA      a dataset directory (candidates.jsonl…; reqa convert writes one)")
	return b.String()
}
