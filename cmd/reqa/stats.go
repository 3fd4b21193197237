package main

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/reqa/reqa/index/encoder/uselite"
	"github.com/reqa/reqa/internal/display"
	"github.com/reqa/reqa/rank"
	"github.com/urfave/cli/v2"
)

func statsCommand() *cli.Command {
	return &cli.Command{
		Name:         "stats",
		Usage:        "show what an index holds",
		ArgsUsage:    "INDEX",
		Flags:        []cli.Flag{jsonFlag("print as JSON"), quietFlag()},
		OnUsageError: onUsage,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("stats: want exactly one INDEX file")
			}
			e, err := rank.Open(c.Args().First())
			if err != nil {
				return err
			}
			defer e.Close()
			m := e.Meta()
			size := e.Store().SizeBytes()
			rankers, err := e.Available()
			if err != nil {
				return err
			}
			def, err := e.Default()
			if err != nil {
				return err
			}
			usage, err := e.Store().Usage()
			if err != nil {
				// Damaged pages: say so and show the rest (reqa verify tells more).
				if !c.Bool("quiet") {
					fmt.Fprintf(c.App.ErrWriter, "reqa: stats: storage not shown: %v (run reqa verify)\n", err)
				}
				usage = nil
			}
			if c.Bool("json") {
				return writeJSON(c.App.Writer, map[string]any{"index": c.Args().First(), "size_bytes": size, "storage": usage, "meta": m, "rankers": rankers, "default_ranker": def})
			}
			w := c.App.Writer
			fmt.Fprintf(w, "index        %s (%s)\n", safeName(c.Args().First()), display.Bytes(size))
			fmt.Fprintf(w, "format       v%d, built by %s at %s\n", m.FormatVersion, m.Builder, m.Created.Format(time.RFC3339))
			fmt.Fprintf(w, "contents     %d contexts, %d sentences\n", m.Contexts, m.Sentences)
			if m.Dataset != "" {
				fmt.Fprintf(w, "dataset      %s (digest %s)\n", m.Dataset, m.DatasetDigest)
			}
			fmt.Fprintf(w, "bm25         %s k1=%g b=%g epsilon=%g\n", m.BM25.Variant, m.BM25.K1, m.BM25.B, m.BM25.Epsilon)
			fmt.Fprintf(w, "rankers      %s (default: %s)\n", strings.Join(rankers, ", "), def)
			if d := m.Dense; d != nil {
				prec := d.Precision
				if prec == "" {
					prec = uselite.PrecisionFP32
				}
				contexts := ""
				if d.ContextVectors != "" {
					contexts = ", context vectors: " + d.ContextVectors
				}
				fmt.Fprintf(w, "dense        %s (%s, %s, %d-d, model %.12s…), λ=%g%s, ANN graph: %v\n", d.Encoder, d.Kind, prec, d.Dim, d.Hash, d.Lambda, contexts, d.Graph)
			}
			if en := m.Engine; en != nil {
				fmt.Fprintf(w, "engine       %s (shards %d, replicas %d; 0: the engine's default): sentences, contexts, BM25 fields and vectors are kept there\n", en.URL, en.Shards, en.Replicas)
				m.Fields = nil
			}
			sort.Slice(m.Fields, func(i, j int) bool { return m.Fields[i].Name < m.Fields[j].Name })
			for _, f := range m.Fields {
				layout := ""
				if f.Layout != "" {
					layout = ", stored by " + f.Layout
				}
				norm := ", text " + f.Norm
				if f.Norm == "" {
					norm = ", text not normalised (rebuild for NFKC matching)"
				}
				fmt.Fprintf(w, "field        %-9s %d docs, %d terms, %d tokens, avgdl %.1f%s%s\n", f.Name, f.Docs, f.Terms, f.Tokens, f.AvgDL, layout, norm)
			}
			var parts []string
			for _, u := range usage {
				if u.Bytes >= 1e5 {
					parts = append(parts, fmt.Sprintf("%s %s", u.Part, display.Bytes(u.Bytes)))
				}
			}
			if len(parts) > 0 {
				fmt.Fprintf(w, "storage      %s\n", strings.Join(parts, ", "))
			}
			return nil
		},
	}
}
