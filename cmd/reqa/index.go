package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/index/encoder"
	"github.com/reqa/reqa/index/encoder/uselite"
	"github.com/reqa/reqa/index/tokenize"
	"github.com/reqa/reqa/index/weaviate"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/store"
	"github.com/urfave/cli/v2"
)

var bm25Flags = []cli.Flag{
	&cli.StringFlag{Name: "bm25", Value: "gensim", Usage: "BM25 variant: gensim (gensim 3.8, the paper's) or lucene"},
	&cli.Float64Flag{Name: "k1", Usage: "BM25 k1 (default: the variant's)"},
	&cli.Float64Flag{Name: "b", Usage: "BM25 b (default: the variant's)"},
	&cli.StringSliceFlag{Name: "tokenizer", Usage: "tokenizers to index (" + strings.Join(tokenize.Names(), ", ") + "); default all"},
}

func buildOptions(c *cli.Context) (index.Options, error) {
	var p bm25.Params
	switch c.String("bm25") {
	case "gensim":
		p = bm25.Gensim()
	case "lucene":
		p = bm25.Lucene()
	default:
		return index.Options{}, usagef("--bm25 %q: want gensim or lucene", c.String("bm25"))
	}
	if c.IsSet("k1") {
		p.K1 = c.Float64("k1")
	}
	if c.IsSet("b") {
		p.B = c.Float64("b")
	}
	if p.K1 < 0 || p.B < 0 || p.B > 1 {
		return index.Options{}, usagef("BM25 parameters out of range: k1=%v b=%v (want k1 ≥ 0, 0 ≤ b ≤ 1)", p.K1, p.B)
	}
	var toks []string
	for _, t := range c.StringSlice("tokenizer") {
		for _, x := range strings.Split(t, ",") {
			if x = strings.TrimSpace(x); x != "" {
				if !slices.Contains(tokenize.Names(), x) {
					return index.Options{}, usagef("--tokenizer %q: want one of %s", x, strings.Join(tokenize.Names(), ", "))
				}
				toks = append(toks, x)
			}
		}
	}
	if err := ingest.CheckContext(c.String("context")); err != nil {
		return index.Options{}, usagef("--%v", err)
	}
	return index.Options{Tokenizers: toks, BM25: p, Context: c.String("context"), Builder: builder(), Progress: progressPrinter(c)}, nil
}

// indexFlags are index's flags, the BM25 ones included.
func indexFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Required: true, Usage: "index file to write (replaced atomically)"},
		&cli.BoolFlag{Name: "append", Aliases: []string{"a"}, Usage: "add INPUT to the existing index --out instead of replacing it (atomically; the index keeps its tokenizers, BM25 parameters, encoder and λ)"},
		&cli.BoolFlag{Name: "sync", Usage: "bring the existing index --out in line with INPUT, the files it was built from: new files added, changed ones replaced, removed ones deleted (atomically; only their text is tokenized and embedded)"},
		&cli.BoolFlag{Name: "json", Usage: "print the index summary as JSON"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress output"},
		&cli.BoolFlag{Name: "dense", Value: true, Usage: "also embed every sentence and context with the dense encoder (--dense=false: BM25 only)"},
		&cli.StringFlag{Name: "model", Usage: "dense encoder: a Hugging Face / sentence-transformers directory (model.onnx or onnx/model.onnx + tokenizer.json, its pooling, prompts and length read from the files beside them) instead of the embedded USE-Lite"},
		&cli.StringFlag{Name: "query-prefix", Usage: "with --model: text put before every question (e5: \"query: \"; bge: \"Represent this sentence for searching relevant passages: \"); default: the model directory's prompts; kept in the index"},
		&cli.StringFlag{Name: "passage-prefix", Usage: "with --model: text put before every sentence and context (e5: \"passage: \"); default: the model directory's prompts; kept in the index"},
		&cli.Float64Flag{Name: "lambda", Value: defaultLambda, Usage: "dense answer tower: weight of the context in normalize(e_sentence + λ·e_context)"},
		&cli.StringFlag{Name: "context-vectors", Value: index.DefaultContextVectors, Usage: "dense answer tower: how e_context is made — sentences (from its sentences' vectors, each weighted by the tokens it fills of what the model reads of the context: no model run for contexts, about half the embedding work on real documents) or model (the encoder embeds each context's text; P@1 within 0.2 of sentences' on the SQuAD and pooled real-document tune questions; BENCHMARKS.md); the index keeps its choice"},
		&cli.IntFlag{Name: "threads", Usage: "ONNX Runtime threads (0: one per core)"},
		memoryLimitFlag,
		&cli.DurationFlag{Name: "parse-timeout", Value: ingest.DefaultParseTimeout, Usage: "time (wall clock and CPU) a document may take to parse, plus " + ingest.ParseTimePerMiB.String() + " per MiB of it; a file over it is skipped (0: no limit)"},
		&cli.BoolFlag{Name: "parse-in-process", Usage: "parse documents in this process instead of bounded worker processes: faster on many small files, but a reader that loops or exhausts memory stops the run (trusted inputs only)"},
		&cli.StringFlag{Name: "precision", Value: defaultPrecision, Usage: "weights of the embedded USE-Lite: int8 (about 2.7× the sentences per CPU second of fp32, cosine ≥ 0.995 to it, the same P@1 on SQuAD) or fp32 (the exact conversion); with --model, int8 quantizes the model's matrix weights (default: the model as shipped); the index keeps its model, so questions are embedded the same way"},
		&cli.StringFlag{Name: "context", Usage: "what a document's context is: " + strings.Join(ingest.ContextChoices, ", ") + " (default " + ingest.ContextChoices[0] + "; an --append keeps the index's)"},
		&cli.BoolFlag{Name: "force", Usage: "replace --out even when it is not a reqa index (never when it is one of the inputs)"},
		&cli.BoolFlag{Name: "follow-symlinks", Usage: "in directories, also follow symbolic links that lead out of the directory given"},
		&cli.StringSliceFlag{Name: "include", Usage: "in directories, read only files matching this glob on their relative path (*.md: any depth; docs/**/*.md; repeatable)"},
		&cli.StringSliceFlag{Name: "exclude", Usage: "in directories, skip files and directories matching this glob (repeatable)"},
		&cli.BoolFlag{Name: "dedupe", Usage: "JSONL: keep the last of records sharing an id instead of refusing the repeat"},
		&cli.StringFlag{Name: "stdin-kind", Usage: "kind of standard input (INPUT -): " + stdinKinds() + " (default: sniffed)"},
		&cli.StringFlag{Name: "engine", Usage: "keep the sentences, BM25 and vectors in Weaviate instead: weaviate://HOST:PORT[,HOST:PORT…]/COLLECTION; --out then gets a small index file naming it (model, adapter, fusions)"},
		&cli.IntFlag{Name: "shards", Usage: "with --engine: shards of a new collection (0: the engine's default)"},
		&cli.IntFlag{Name: "replicas", Usage: "with --engine: replication factor of a new collection (0: the engine's default)"},
		&cli.BoolFlag{Name: "restart", Usage: "with --engine: re-send every sentence even if an earlier import of the collection finished or got part way"},
	}, append(bm25Flags, engineAuthFlags()...)...)
}

func indexCommand() *cli.Command {
	return &cli.Command{
		Name:         "index",
		Usage:        indexUsage(),
		ArgsUsage:    "INPUT...",
		Flags:        indexFlags(),
		OnUsageError: onUsage,
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usagef("index: no INPUT given (files or directories to index)")
			}
			if err := checkEngineFlags(c); err != nil {
				return err
			}
			opt, err := buildOptions(c)
			if err != nil {
				return err
			}
			if c.Bool("sync") {
				if c.Bool("append") {
					return usagef("index: --sync and --append do not go together")
				}
				if _, err := os.Stat(c.String("out")); err == nil {
					return syncIndex(c, opt)
				}
				fmt.Fprintf(c.App.ErrWriter, "reqa: %s does not exist yet; building it\n", c.String("out"))
			}
			if c.Bool("append") {
				if _, err := os.Stat(c.String("out")); err == nil {
					return appendIndex(c, opt)
				}
				fmt.Fprintf(c.App.ErrWriter, "reqa: %s does not exist yet; building it\n", c.String("out"))
			}
			if err := index.CheckOut(c.String("out"), c.Args().Slice(), c.Bool("force")); err != nil {
				return err
			}
			start := time.Now()
			limit, err := memoryLimit(c)
			if err != nil {
				return err
			}
			corpus, err := readInputs(c, ingest.ReadOptions{MemoryLimit: limit, Dense: c.Bool("dense")})
			if err != nil {
				return err
			}
			if c.IsSet("model") && !c.Bool("dense") {
				return usagef("index: --model needs --dense")
			}
			if !c.IsSet("model") {
				for _, f := range []string{"query-prefix", "passage-prefix"} {
					if c.IsSet(f) {
						return usagef("index: --%s needs --model (the embedded USE-Lite takes no prefixes)", f)
					}
				}
			}
			if err := checkBuildMemory(c, corpus, c.Bool("dense"), 0); err != nil {
				return err
			}
			if c.Bool("dense") {
				if err := withEncoder(c, &opt); err != nil {
					if c.IsSet("dense") || c.IsSet("model") || c.IsSet("precision") || c.IsSet("context-vectors") {
						return err
					}
					fmt.Fprintf(c.App.ErrWriter, "reqa: warning: %v; building a BM25-only index\n", err)
				} else {
					defer opt.Encoder.Close()
				}
			}
			opt.Waiting = func() {
				fmt.Fprintf(c.App.ErrWriter, "reqa: waiting for another reqa writing %s…\n", c.String("out"))
			}
			meta, err := build(c, corpus, opt)
			if err != nil {
				return err
			}
			secs := time.Since(start).Seconds()
			if c.Bool("json") {
				return writeJSON(c.App.Writer, map[string]any{"index": c.String("out"), "contexts": meta.Contexts,
					"sentences": meta.Sentences, "fields": meta.Fields, "seconds": secs})
			}
			fmt.Fprintf(c.App.Writer, "indexed %d sentences from %d contexts into %s in %.1fs (%.0f sentences/s)\n",
				meta.Sentences, meta.Contexts, c.String("out"), secs, float64(meta.Sentences)/secs)
			return nil
		},
	}
}

// build writes the index: into the file, or into the engine --engine
// names and a small file beside it.
func build(c *cli.Context, corpus *ingest.Corpus, opt index.Options) (store.Meta, error) {
	if !c.IsSet("engine") {
		return index.Build(c.Context, corpus, c.String("out"), opt)
	}
	t, err := weaviate.ParseTarget(c.String("engine"))
	if err != nil {
		return store.Meta{}, usagef("index: --engine: %v", err)
	}
	creds, err := engineCredentials(c)
	if err != nil {
		return store.Meta{}, err
	}
	es := index.EngineSpec{Target: t, Restart: c.Bool("restart"), Options: creds,
		Layout: weaviate.Layout{Shards: c.Int("shards"), Replicas: c.Int("replicas"), AsyncReplication: c.Int("replicas") > 1}}
	return index.BuildEngine(c.Context, corpus, c.String("out"), opt, es)
}

// checkEngineFlags refuses flags that do not apply with or without
// --engine.
func checkEngineFlags(c *cli.Context) error {
	if !c.IsSet("engine") {
		for _, f := range []string{"shards", "replicas", "restart"} {
			if c.IsSet(f) {
				return usagef("index: --%s needs --engine", f)
			}
		}
		return nil
	}
	for _, f := range []string{"append", "bm25", "k1", "b"} {
		if c.IsSet(f) {
			return usagef("index: --%s does not apply with --engine (the engine scores BM25 as Lucene, k1 = %g, b = %g; to add to an engine index, `reqa index --append --out FILE` names its engine already)", f, weaviate.BM25K1, weaviate.BM25B)
		}
	}
	if c.IsSet("dense") && !c.Bool("dense") {
		return usagef("index: --engine needs the dense encoder (--dense)")
	}
	return nil
}

// readInputs reads the command's INPUT arguments into a corpus, printing
// its warnings on stderr.
func readInputs(c *cli.Context, ro ingest.ReadOptions) (*ingest.Corpus, error) {
	ro.FollowSymlinks, ro.Dedupe = c.Bool("follow-symlinks"), c.Bool("dedupe")
	ro.Include, ro.Exclude = c.StringSlice("include"), c.StringSlice("exclude")
	ro.StdinKind, ro.Out = c.String("stdin-kind"), c.String("out")
	if !c.Bool("parse-in-process") {
		p, err := parsers(c, ro.MemoryLimit)
		if err != nil {
			return nil, err
		}
		// The workers end with the reading: their memory is the build's.
		defer p.Close()
		ro.Parsers = p
	}
	corpus, err := ingest.ReadInputsContext(c.Context, c.Args().Slice(), ro)
	if errors.Is(err, ingest.ErrMemoryLimit) {
		return nil, fmt.Errorf("%w: index the inputs in parts (`reqa index` the first, then `reqa index --append` the others) or pass --memory-limit off to try anyway", err)
	}
	if err != nil {
		return nil, err
	}
	if len(corpus.Files) > 1 {
		fmt.Fprintln(c.App.ErrWriter, "reqa:", corpus.FileSummary())
	}
	const shown = 10
	for i, w := range corpus.Warnings {
		if i == shown {
			fmt.Fprintf(c.App.ErrWriter, "reqa: warning: … and %d more like these\n", len(corpus.Warnings)-shown)
			break
		}
		fmt.Fprintln(c.App.ErrWriter, "reqa: warning:", w)
	}
	return corpus, nil
}

// parsers starts the pool of document parser workers: this program
// re-executed as `reqa __parse-worker`, each file within --parse-timeout
// and a share of the memory limit (ingest.ParseMemoryFor).
func parsers(c *cli.Context, limit int64) (*ingest.Parsers, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("parser workers: %w (--parse-in-process parses in this process)", err)
	}
	timeout := c.Duration("parse-timeout")
	switch {
	case timeout < 0:
		return nil, usagef("index: --parse-timeout %v: want ≥ 0", timeout)
	case timeout == 0:
		timeout = -1 // no limit
	}
	mem := ingest.ParseMemoryFor(limit)
	return ingest.NewParsers(ingest.ParserOptions{Command: []string{exe, ingest.ParseWorkerArg},
		Workers: ingest.ParseWorkersFor(limit, mem), Timeout: timeout, Memory: mem})
}

// appendIndex runs `reqa index --append` on an existing index.
func appendIndex(c *cli.Context, opt index.Options) error {
	for _, f := range []string{"model", "precision", "query-prefix", "passage-prefix"} {
		if c.IsSet(f) {
			return usagef("index --append: --%s cannot be changed; the index keeps its own model (rebuild without --append to change it)", f)
		}
	}
	out := c.String("out")
	r, err := store.Open(out)
	if err != nil {
		return err
	}
	m := r.Meta()
	r.Close()
	var s index.AppendSettings
	if c.IsSet("dense") {
		d := c.Bool("dense")
		s.Dense = &d
	}
	if c.IsSet("tokenizer") {
		s.Tokenizers = opt.Tokenizers
	}
	if c.IsSet("bm25") {
		s.BM25Variant = opt.BM25.Variant
	}
	if c.IsSet("k1") {
		s.K1 = &opt.BM25.K1
	}
	if c.IsSet("b") {
		s.B = &opt.BM25.B
	}
	if c.IsSet("lambda") {
		l := c.Float64("lambda")
		s.Lambda = &l
	}
	if c.IsSet("context-vectors") {
		how, err := contextVectorsFlag(c)
		if err != nil {
			return err
		}
		s.ContextVectors = &how
	}
	if err := index.CheckAppendSettings(m, s); err != nil {
		return usagef("index --append %s: %v", out, err)
	}
	held := index.AppendHeldBytes(m) // the index's vectors and graph, loaded to be extended
	limit, err := memoryLimit(c)
	if err != nil {
		return err
	}
	start := time.Now()
	corpus, err := readInputs(c, ingest.ReadOptions{MemoryLimit: limit, Dense: m.Dense != nil, HeldBytes: held})
	if err != nil {
		return err
	}
	{
		if err := checkBuildMemory(c, corpus, m.Dense != nil, held); err != nil {
			return err
		}
		for _, old := range m.Sources {
			for _, src := range corpus.Sources {
				if old == src {
					fmt.Fprintf(c.App.ErrWriter, "reqa: warning: %s is already in %s; its text is added again\n", src, out)
				}
			}
		}
	}
	opt.EncoderThreads = c.Int("threads")
	if m.Engine != nil {
		if opt.EngineOptions, err = engineCredentials(c); err != nil {
			return err
		}
	}
	opt.Waiting = func() {
		fmt.Fprintf(c.App.ErrWriter, "reqa: waiting for another reqa writing %s…\n", out)
	}
	meta, err := index.Append(c.Context, corpus, out, opt)
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	if c.Bool("json") {
		return writeJSON(c.App.Writer, map[string]any{"index": out, "appended_contexts": len(corpus.Contexts),
			"appended_sentences": len(corpus.Sentences), "contexts": meta.Contexts, "sentences": meta.Sentences,
			"fields": meta.Fields, "seconds": secs})
	}
	fmt.Fprintf(c.App.Writer, "appended %d sentences from %d contexts to %s in %.1fs (%.0f sentences/s); it now holds %d sentences from %d contexts\n",
		len(corpus.Sentences), len(corpus.Contexts), out, secs, float64(len(corpus.Sentences))/secs, meta.Sentences, meta.Contexts)
	return nil
}

// syncIndex runs `reqa index --sync` on an existing index.
func syncIndex(c *cli.Context, opt index.Options) error {
	for _, f := range []string{"model", "precision", "query-prefix", "passage-prefix", "dense", "tokenizer", "bm25", "k1", "b", "lambda", "context-vectors", "context", "engine"} {
		if c.IsSet(f) {
			return usagef("index --sync: --%s cannot be changed; the index keeps its own settings (rebuild without --sync to change them)", f)
		}
	}
	out := c.String("out")
	files, err := index.IndexedFiles(out)
	if err != nil {
		return err
	}
	r, err := store.Open(out)
	if err != nil {
		return err
	}
	m := r.Meta()
	r.Close()
	held := index.AppendHeldBytes(m)
	limit, err := memoryLimit(c)
	if err != nil {
		return err
	}
	start := time.Now()
	unchanged := func(path string, st os.FileInfo) bool {
		f, ok := files[path]
		return ok && f.Size == st.Size() && f.ModTime.Equal(st.ModTime())
	}
	corpus, err := readInputs(c, ingest.ReadOptions{MemoryLimit: limit, Dense: m.Dense != nil, HeldBytes: held, Unchanged: unchanged})
	if err != nil {
		return err
	}
	if err := checkBuildMemory(c, corpus, m.Dense != nil, held); err != nil {
		return err
	}
	opt.EncoderThreads = c.Int("threads")
	opt.Waiting = func() {
		fmt.Fprintf(c.App.ErrWriter, "reqa: waiting for another reqa writing %s…\n", out)
	}
	res, err := index.Sync(c.Context, corpus, out, opt)
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	if c.Bool("json") {
		return writeJSON(c.App.Writer, map[string]any{"index": out, "added": res.Added, "changed": res.Changed, "removed": res.Removed,
			"unchanged": res.Unchanged, "embedded_sentences": res.Embedded, "tokenized_sentences": res.Tokenized, "written": res.Written, "graph": res.Graph,
			"contexts": res.Meta.Contexts, "sentences": res.Meta.Sentences, "seconds": secs, "upgraded": res.Upgraded})
	}
	fmt.Fprintf(c.App.Writer, "added %d, changed %d, removed %d files; %d sentences embedded", res.Added, res.Changed, res.Removed, res.Embedded)
	if !res.Written {
		fmt.Fprintf(c.App.Writer, " (nothing changed: %s left as it was)\n", out)
		return nil
	}
	if res.Graph != "" {
		fmt.Fprintf(c.App.Writer, "; ANN graph %s", res.Graph)
	}
	if res.Upgraded {
		fmt.Fprint(c.App.Writer, "; upgraded (an index from an earlier reqa: answer vectors, context ids and the graph split for searching in place now stored, read in place by ask)")
	}
	fmt.Fprintf(c.App.Writer, "; %s now holds %d sentences from %d contexts (%.1fs)\n", out, res.Meta.Sentences, res.Meta.Contexts, secs)
	return nil
}

// defaultLambda is the default context weight of the dense answer tower
// (see BENCHMARKS.md for the sweep it comes from).
const defaultLambda = 0.25

// withEncoder sets up the dense encoder in opt: the model directory of
// --model, or the embedded default.
// defaultPrecision is the embedded USE-Lite's default weight precision for
// new indexes (BENCHMARKS.md "Encoder precision": the same P@1 as fp32 on
// SQuAD, about 2.5× the sentences per CPU second).
const defaultPrecision = uselite.PrecisionInt8

// contextVectorsFlag returns --context-vectors as the index stores it.
func contextVectorsFlag(c *cli.Context) (string, error) {
	how, err := index.ParseContextVectors(c.String("context-vectors"))
	if err != nil {
		return "", usagef("--context-vectors: %v", err)
	}
	return how, nil
}

func withEncoder(c *cli.Context, opt *index.Options) error {
	// index's flag; demo and eval's temporary indexes take the default
	how, err := index.ParseContextVectors(index.DefaultContextVectors)
	if c.IsSet("context-vectors") {
		how, err = contextVectorsFlag(c)
	}
	if err != nil {
		return err
	}
	opt.ContextVectors = how
	spec := encoder.Spec{Name: uselite.Name, Kind: encoder.KindUSELite, Dim: uselite.Dim}
	var onnx, vocab []byte
	if dir := c.String("model"); dir != "" {
		var o encoder.DirOptions
		if c.IsSet("precision") {
			o.Precision = c.String("precision")
			if o.Precision != encoder.PrecisionFP32 && o.Precision != encoder.PrecisionInt8 {
				return usagef("index: --precision %q: want %s or %s", o.Precision, encoder.PrecisionFP32, encoder.PrecisionInt8)
			}
		}
		if c.IsSet("query-prefix") {
			p := c.String("query-prefix")
			o.QueryPrefix = &p
		}
		if c.IsSet("passage-prefix") {
			p := c.String("passage-prefix")
			o.PassagePrefix = &p
		}
		spec, onnx, vocab, err = encoder.LoadDirWith(dir, o)
	} else {
		spec.Precision = c.String("precision")
		if spec.Precision == "" { // commands without the flag (eval, demo)
			spec.Precision = defaultPrecision
		}
		onnx, vocab, err = uselite.ModelPrecision(spec.Precision)
		if errors.Is(err, uselite.ErrPrecision) {
			return usagef("index: --precision: %v", err)
		}
	}
	if err != nil {
		return err
	}
	enc, err := encoder.New(spec, onnx, vocab, encoder.Options{Threads: c.Int("threads")})
	if err != nil {
		return err
	}
	opt.Encoder, opt.EncoderModel, opt.EncoderVocab = enc, onnx, vocab
	opt.Lambda = defaultLambda
	if c.IsSet("lambda") {
		opt.Lambda = c.Float64("lambda")
	}
	if opt.Lambda < 0 {
		enc.Close()
		return usagef("--lambda %v: want ≥ 0", opt.Lambda)
	}
	return nil
}

// stdinKinds lists the kinds --stdin-kind takes: "md, html, … or squad".
func stdinKinds() string {
	k := ingest.StdinKinds()
	return strings.Join(k[:len(k)-1], ", ") + " or " + k[len(k)-1]
}
