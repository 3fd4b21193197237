package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/index/encoder"
	"github.com/reqa/reqa/index/encoder/uselite"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/fuse"
	"github.com/reqa/reqa/rank/report"
	"github.com/reqa/reqa/store"
)

func onUsage(c *cli.Context, err error, _ bool) error {
	return usagef("%s: %v (see reqa %s --help)", c.Command.Name, err, c.Command.Name)
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressPrinter returns a progress callback that redraws one line on a
// terminal stderr and prints nothing otherwise.
func progressPrinter(c *cli.Context) func(stage string, done, total int) {
	f, ok := c.App.ErrWriter.(*os.File)
	if !ok || !isTerminal(f) || c.Bool("quiet") {
		return nil
	}
	start := time.Now()
	last := time.Time{}
	lastStage := ""
	var mu sync.Mutex // tokenizer workers report concurrently
	return func(stage string, done, total int) {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		if stage != lastStage {
			start, lastStage = now, stage
		}
		if now.Sub(last) < 100*time.Millisecond && done < total {
			return
		}
		last = now
		// A rate and an ETA only once the stage has run long enough for
		// them to mean something (a first report came out as "+Inf/s").
		speed := ""
		if secs := now.Sub(start).Seconds(); secs >= 0.2 && done > 0 {
			rate := float64(done) / secs
			speed = fmt.Sprintf(" (%.0f/s)", rate)
			if done < total {
				speed += fmt.Sprintf(" ETA %s", (time.Duration(float64(total-done)/rate) * time.Second).Round(time.Second))
			}
		}
		fmt.Fprintf(f, "\r\033[K%s %d/%d%s", stage, done, total, speed)
		if done >= total {
			fmt.Fprintln(f)
		}
	}
}

var bm25Flags = []cli.Flag{
	&cli.StringFlag{Name: "bm25", Value: "gensim", Usage: "BM25 variant: gensim (gensim 3.8, the paper's) or lucene"},
	&cli.Float64Flag{Name: "k1", Usage: "BM25 k1 (default: the variant's)"},
	&cli.Float64Flag{Name: "b", Usage: "BM25 b (default: the variant's)"},
	&cli.StringSliceFlag{Name: "tokenizer", Usage: "tokenizers to index (word, wpm); default both"},
}

func buildOptions(c *cli.Context) (ingest.Options, error) {
	var p bm25.Params
	switch c.String("bm25") {
	case "gensim":
		p = bm25.Gensim()
	case "lucene":
		p = bm25.Lucene()
	default:
		return ingest.Options{}, usagef("--bm25 %q: want gensim or lucene", c.String("bm25"))
	}
	if c.IsSet("k1") {
		p.K1 = c.Float64("k1")
	}
	if c.IsSet("b") {
		p.B = c.Float64("b")
	}
	if p.K1 < 0 || p.B < 0 || p.B > 1 {
		return ingest.Options{}, usagef("BM25 parameters out of range: k1=%v b=%v (want k1 ≥ 0, 0 ≤ b ≤ 1)", p.K1, p.B)
	}
	var toks []string
	for _, t := range c.StringSlice("tokenizer") {
		for _, x := range strings.Split(t, ",") {
			if x = strings.TrimSpace(x); x != "" {
				if x != "word" && x != "wpm" {
					return ingest.Options{}, usagef("--tokenizer %q: want word or wpm", x)
				}
				toks = append(toks, x)
			}
		}
	}
	return ingest.Options{Tokenizers: toks, BM25: p, Builder: builder(), Progress: progressPrinter(c)}, nil
}

func indexCommand() *cli.Command {
	return &cli.Command{
		Name:      "index",
		Usage:     "index text, Markdown, JSONL, SQuAD JSON or a ReQA dataset into one file",
		ArgsUsage: "INPUT...",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Required: true, Usage: "index file to write (replaced atomically)"},
			&cli.BoolFlag{Name: "append", Aliases: []string{"a"}, Usage: "add INPUT to the existing index --out instead of replacing it (atomically; the index keeps its tokenizers, BM25 parameters, encoder and λ)"},
			&cli.BoolFlag{Name: "json", Usage: "print the index summary as JSON"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress output"},
			&cli.BoolFlag{Name: "dense", Value: true, Usage: "also embed every sentence and context with the dense encoder (--dense=false: BM25 only)"},
			&cli.StringFlag{Name: "model", Usage: "dense encoder: a Hugging Face–layout directory (model.onnx + tokenizer.json) instead of the embedded USE-Lite"},
			&cli.Float64Flag{Name: "lambda", Value: defaultLambda, Usage: "dense answer tower: weight of the context in normalize(e_sentence + λ·e_context)"},
			&cli.StringFlag{Name: "precision", Value: defaultPrecision, Usage: "weights of the embedded USE-Lite: int8 (about 2.7× the sentences per CPU second of fp32, cosine ≥ 0.995 to it, the same P@1 on SQuAD) or fp32 (the exact conversion); the index keeps its model, so questions are embedded the same way"},
			&cli.IntFlag{Name: "threads", Usage: "ONNX Runtime threads (0: one per core)"},
			memoryLimitFlag,
		}, bm25Flags...),
		OnUsageError: onUsage,
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usagef("index: no INPUT given (files or directories to index)")
			}
			opt, err := buildOptions(c)
			if err != nil {
				return err
			}
			if c.Bool("append") {
				if _, err := os.Stat(c.String("out")); err == nil {
					return appendIndex(c, opt)
				}
				fmt.Fprintf(c.App.ErrWriter, "reqa: %s does not exist yet; building it\n", c.String("out"))
			}
			start := time.Now()
			corpus, err := readInputs(c)
			if err != nil {
				return err
			}
			if c.IsSet("model") && !c.Bool("dense") {
				return usagef("index: --model needs --dense")
			}
			if c.IsSet("model") && c.IsSet("precision") {
				return usagef("index: --precision applies to the embedded USE-Lite, not to --model")
			}
			if err := checkBuildMemory(c, corpus, c.Bool("dense"), 0); err != nil {
				return err
			}
			if c.Bool("dense") {
				if err := withEncoder(c, &opt); err != nil {
					if c.IsSet("dense") || c.IsSet("model") || c.IsSet("precision") {
						return err
					}
					fmt.Fprintf(c.App.ErrWriter, "reqa: warning: %v; building a BM25-only index\n", err)
				} else {
					defer opt.Encoder.Close()
				}
			}
			meta, err := ingest.Build(c.Context, corpus, c.String("out"), opt)
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

// readInputs reads the command's INPUT arguments into a corpus, printing
// its warnings on stderr.
func readInputs(c *cli.Context) (*ingest.Corpus, error) {
	corpus, err := ingest.ReadInputs(c.Args().Slice())
	if err != nil {
		return nil, err
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

// appendIndex runs `reqa index --append` on an existing index.
func appendIndex(c *cli.Context, opt ingest.Options) error {
	for _, f := range []string{"model", "precision", "lambda", "tokenizer", "bm25", "k1", "b", "dense"} {
		if c.IsSet(f) {
			return usagef("index --append: --%s cannot be changed; the index keeps its own (rebuild without --append to change it)", f)
		}
	}
	start := time.Now()
	corpus, err := readInputs(c)
	if err != nil {
		return err
	}
	out := c.String("out")
	if r, err := store.Open(out); err == nil {
		m := r.Meta()
		var held int64 // the index's vectors and graph, loaded to be extended
		if m.Dense != nil {
			held = int64(m.Sentences) * 4500
		}
		if err := checkBuildMemory(c, corpus, m.Dense != nil, held); err != nil {
			r.Close()
			return err
		}
		for _, old := range r.Meta().Sources {
			for _, src := range corpus.Sources {
				if old == src {
					fmt.Fprintf(c.App.ErrWriter, "reqa: warning: %s is already in %s; its text is added again\n", src, out)
				}
			}
		}
		r.Close()
	}
	opt.EncoderThreads = c.Int("threads")
	opt.Waiting = func() {
		fmt.Fprintf(c.App.ErrWriter, "reqa: waiting for another reqa writing %s…\n", out)
	}
	meta, err := ingest.Append(c.Context, corpus, out, opt)
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

// defaultLambda is the default context weight of the dense answer tower
// (see BENCHMARKS.md for the sweep it comes from).
const defaultLambda = 0.25

// defaultPrecision is the embedded USE-Lite's default weight precision for
// new indexes (BENCHMARKS.md: the same P@1 as fp32 on SQuAD, about 2.5× the
// sentences per CPU second).
const defaultPrecision = uselite.PrecisionInt8

// withEncoder sets up the dense encoder in opt: the model directory of
// --model, or the embedded default.
func withEncoder(c *cli.Context, opt *ingest.Options) error {
	spec := encoder.Spec{Name: uselite.Name, Kind: encoder.KindUSELite, Dim: uselite.Dim}
	var onnx, vocab []byte
	var err error
	if dir := c.String("model"); dir != "" {
		spec, onnx, vocab, err = encoder.LoadDir(dir)
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

func askCommand() *cli.Command {
	return &cli.Command{
		Name:      "ask",
		Usage:     "answer a question from an index",
		ArgsUsage: "QUESTION",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "index", Aliases: []string{"i"}, Required: true, Usage: "index file"},
			&cli.IntFlag{Name: "k", Value: 5, Usage: "number of answers"},
			&cli.StringFlag{Name: "ranker", Aliases: []string{"r"}, Usage: "ranker: bm25-word, bm25-wpm, dense, fusion-rrf, fusion-minmax, fusion-zscore, fusion-adaptive, fusion-learned, fusion-rerank (default: the index's best fusion when it has embeddings, else bm25-wpm)"},
			&cli.BoolFlag{Name: "exact", Usage: "dense: score every candidate instead of searching the ANN graph"},
			&cli.BoolFlag{Name: "no-adapter", Usage: "dense: ignore the question adapter stored by reqa tune"},
			&cli.IntFlag{Name: "threads", Usage: "ONNX Runtime threads per run (0: 1)"},
			&cli.BoolFlag{Name: "no-context", Usage: "score the sentence alone, not sentence + context"},
			&cli.BoolFlag{Name: "json", Usage: "print answers as JSON"},
		},
		OnUsageError: onUsage,
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usagef("ask: no QUESTION given")
			}
			if c.Int("k") < 1 {
				return usagef("ask: --k %d: want at least 1", c.Int("k"))
			}
			q := strings.Join(c.Args().Slice(), " ")
			e, err := rank.Open(c.String("index"))
			if err != nil {
				return err
			}
			defer e.Close()
			r, err := resolveRanker(e, c.String("ranker"), !c.Bool("no-context"),
				rank.DenseOptions{ANN: !c.Bool("exact"), K: c.Int("k"), Threads: c.Int("threads"), NoAdapter: c.Bool("no-adapter")})
			if errors.Is(err, rank.ErrUnknownRanker) {
				return usagef("ask: %v", err)
			}
			if err != nil {
				return err
			}
			answers, err := e.Ask(r, q, c.Int("k"))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				if answers == nil {
					answers = []rank.Answer{}
				}
				return writeJSON(c.App.Writer, map[string]any{"question": q, "ranker": r.Name(), "answers": answers})
			}
			printAnswers(c.App.Writer, q, r.Name(), answers)
			return nil
		},
	}
}

// resolveRanker picks the ranker for ask: name, or the default.
func resolveRanker(e *rank.Engine, name string, withContext bool, dopt rank.DenseOptions) (rank.Ranker, error) {
	stored, err := e.StoredFusions()
	if err != nil {
		return nil, err
	}
	if name == "" {
		if e.Meta().Dense == nil {
			return e.Ranker("bm25-wpm", withContext)
		}
		if len(stored) == 0 {
			return e.Fused(rank.DefaultFusion(), withContext, dopt)
		}
		name = stored[0].Name
	}
	if name == "dense" {
		return e.DenseRanker(withContext, dopt)
	}
	if strings.HasPrefix(name, "fusion-") {
		dopt.ANN = false // fusion normalises over every candidate's score
		for _, p := range stored {
			if p.Name == name {
				return e.Fused(p, withContext, dopt)
			}
		}
		if e.Meta().Dense != nil {
			switch name {
			case "fusion-rrf":
				return e.Fused(rank.DefaultRRF(), withContext, dopt)
			case "fusion-zscore":
				return e.Fused(rank.DefaultFusion(), withContext, dopt)
			}
		}
		return nil, fmt.Errorf("%w %q: the index holds no tuned parameters for it (run `reqa fuse --index FILE DATASET_DIR`)", rank.ErrUnknownRanker, name)
	}
	return e.Ranker(name, withContext)
}

func printAnswers(w io.Writer, q, ranker string, answers []rank.Answer) {
	if len(answers) == 0 {
		fmt.Fprintf(w, "no answer: no candidate shares a term with %q (%s)\n", q, ranker)
		return
	}
	for _, a := range answers {
		fmt.Fprintf(w, "%d. [%s %.3f%s] %s\n", a.Rank, ranker, a.Score, inputScores(a), a.Sentence)
		where := a.Title
		if a.Source != "" {
			if where != "" {
				where += " — "
			}
			where += a.Source
		}
		if where != "" {
			fmt.Fprintf(w, "   from: %s\n", where)
		}
		fmt.Fprintf(w, "   context: %s\n\n", markSentence(a))
	}
}

// inputScores formats a fused answer's per-ranker scores.
func inputScores(a rank.Answer) string {
	if len(a.Scores) == 0 {
		return ""
	}
	names := make([]string, 0, len(a.Scores))
	for n := range a.Scores {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, " | %s %.3f", n, a.Scores[n])
	}
	return b.String()
}

// markSentence returns the context with the answer sentence between ⟦ and ⟧.
func markSentence(a rank.Answer) string {
	if a.Start < 0 || a.End > len(a.Context) || a.Start > a.End {
		return a.Context
	}
	return a.Context[:a.Start] + "⟦" + a.Context[a.Start:a.End] + "⟧" + a.Context[a.End:]
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func evalCommand() *cli.Command {
	return &cli.Command{
		Name:      "eval",
		Usage:     "evaluate rankers on ReQA datasets (P@1, MRR, P@5, R@10), side by side when there are several",
		ArgsUsage: "DATASET_DIR...",
		Flags: append([]cli.Flag{
			&cli.GenericFlag{Name: "index", Aliases: []string{"i"}, Value: &pathList{}, Usage: "index built from DATASET_DIR (default: build a temporary one); with several datasets, one --index per dataset in the same order"},
			&cli.StringSliceFlag{Name: "ranker", Aliases: []string{"r"}, Usage: "ranker to evaluate, repeatable (default: every ranker the index supports)"},
			&cli.BoolFlag{Name: "no-context", Usage: "sentence-only ablation: documents are the sentence alone"},
			&cli.StringFlag{Name: "split", Value: "all", Usage: "questions to evaluate: all, tune or test (split.json)"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			&cli.StringFlag{Name: "report", Usage: "also write the full report (report.md, report.json, sweep.svg: analyses, ablation, failures) into this directory (one subdirectory per dataset when there are several)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress output"},
			&cli.Float64Flag{Name: "lambda", Value: defaultLambda, Usage: "dense: context weight λ (default: the index's)"},
			&cli.BoolFlag{Name: "no-adapter", Usage: "dense: ignore the question adapter stored by reqa tune"},
			&cli.IntFlag{Name: "threads", Usage: "ONNX Runtime threads (0: one per core)"},
		}, bm25Flags...),
		OnUsageError: onUsage,
		Action:       evalAction,
	}
}

// evalReport is `reqa eval --json`'s output.
type evalReport struct {
	report.Header
	Results []rank.Result `json:"results"`
	Fusions []fuse.Params `json:"fusions,omitempty"`
}

// evalQuestions maps dataset questions to the index's sentence ids.
func evalQuestions(e *rank.Engine, qs []ingest.Question, indexPath string) ([]rank.EvalQuestion, error) {
	eqs := make([]rank.EvalQuestion, len(qs))
	for i, q := range qs {
		eqs[i] = rank.EvalQuestion{ID: q.ID, Text: q.Text}
		for _, g := range q.Gold {
			id, ok := e.SentenceByExtID(g)
			if !ok {
				return nil, fmt.Errorf("eval: question %s: gold candidate %s is not in index %s", q.ID, g, indexPath)
			}
			eqs[i].Gold = append(eqs[i].Gold, id)
		}
	}
	return eqs, nil
}

// fusionParams finds the parameters of every fusion ranker requested: the
// index's stored ones, else learned now on the dataset's tune split.
func fusionParams(c *cli.Context, e *rank.Engine, ds *ingest.Dataset, rankers []string, indexPath string, dopt rank.DenseOptions) (map[string]fuse.Params, error) {
	out := map[string]fuse.Params{}
	var missing []string
	stored, err := e.StoredFusions()
	if err != nil {
		return nil, err
	}
	for _, name := range rankers {
		m, ok := strings.CutPrefix(name, "fusion-")
		if !ok {
			continue
		}
		if !slices.Contains(rank.FusionMethods, m) {
			return nil, usagef("eval: unknown fusion %q (known: fusion-rrf, fusion-minmax, fusion-zscore, fusion-adaptive, fusion-learned, fusion-rerank)", name)
		}
		if e.Meta().Dense == nil {
			return nil, usagef("eval: %s needs an index with embeddings (the dense ranker)", name)
		}
		found := false
		for _, p := range stored {
			if p.Name == name {
				out[name], found = p, true
			}
		}
		if !found {
			missing = append(missing, m)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	tqs, err := ds.SplitQuestions("tune")
	if err != nil {
		return nil, fmt.Errorf("eval: fusion needs tuned weights: the index has none and %w", err)
	}
	tune, err := evalQuestions(e, tqs, indexPath)
	if err != nil {
		return nil, err
	}
	if !c.Bool("quiet") {
		fmt.Fprintf(c.App.ErrWriter, "reqa: tuning %s on the %d questions of %s's tune split\n", strings.Join(missing, ", "), len(tune), ds.Name)
	}
	res, err := e.TuneFusions(c.Context, missing, rank.DefaultFusionInputs, tune, !c.Bool("no-context"), dopt, ds.Name+" tune split")
	if err != nil {
		return nil, err
	}
	for _, r := range res {
		out[r.Params.Name] = r.Params
	}
	return out, nil
}

func statsCommand() *cli.Command {
	return &cli.Command{
		Name:         "stats",
		Usage:        "show what an index holds",
		ArgsUsage:    "INDEX",
		Flags:        []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print as JSON"}},
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
			usage, err := e.Store().Usage()
			if err != nil {
				// Damaged pages: say so and show the rest (reqa verify tells more).
				fmt.Fprintf(c.App.ErrWriter, "reqa: stats: storage not shown: %v (run reqa verify)\n", err)
				usage = nil
			}
			if c.Bool("json") {
				return writeJSON(c.App.Writer, map[string]any{"index": c.Args().First(), "size_bytes": size, "storage": usage, "meta": m, "rankers": e.Rankers()})
			}
			w := c.App.Writer
			fmt.Fprintf(w, "index        %s (%.1f MB)\n", c.Args().First(), float64(size)/1e6)
			fmt.Fprintf(w, "format       v%d, built by %s at %s\n", m.FormatVersion, m.Builder, m.Created.Format(time.RFC3339))
			fmt.Fprintf(w, "contents     %d contexts, %d sentences\n", m.Contexts, m.Sentences)
			if m.Dataset != "" {
				fmt.Fprintf(w, "dataset      %s (digest %s)\n", m.Dataset, m.DatasetDigest)
			}
			fmt.Fprintf(w, "bm25         %s k1=%g b=%g epsilon=%g\n", m.BM25.Variant, m.BM25.K1, m.BM25.B, m.BM25.Epsilon)
			fmt.Fprintf(w, "rankers      %s\n", strings.Join(e.Rankers(), ", "))
			if d := m.Dense; d != nil {
				prec := d.Precision
				if prec == "" {
					prec = uselite.PrecisionFP32
				}
				fmt.Fprintf(w, "dense        %s (%s, %s, %d-d, model %.12s…), λ=%g, ANN graph: %v\n", d.Encoder, d.Kind, prec, d.Dim, d.Hash, d.Lambda, d.Graph)
			}
			sort.Slice(m.Fields, func(i, j int) bool { return m.Fields[i].Name < m.Fields[j].Name })
			for _, f := range m.Fields {
				layout := ""
				if f.Layout != "" {
					layout = ", stored by " + f.Layout
				}
				fmt.Fprintf(w, "field        %-9s %d docs, %d terms, %d tokens, avgdl %.1f%s\n", f.Name, f.Docs, f.Terms, f.Tokens, f.AvgDL, layout)
			}
			var parts []string
			for _, u := range usage {
				if u.Bytes >= 1e5 {
					parts = append(parts, fmt.Sprintf("%s %.1f MB", u.Part, float64(u.Bytes)/1e6))
				}
			}
			if len(parts) > 0 {
				fmt.Fprintf(w, "storage      %s\n", strings.Join(parts, ", "))
			}
			return nil
		},
	}
}

func fuseCommand() *cli.Command {
	return &cli.Command{
		Name:      "fuse",
		Usage:     "learn fusion weights on a dataset's tune split and store them in its index",
		ArgsUsage: "DATASET_DIR",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "index", Aliases: []string{"i"}, Required: true, Usage: "index built from DATASET_DIR, with embeddings"},
			&cli.StringSliceFlag{Name: "method", Usage: "fusion methods (rrf, minmax, zscore, adaptive, learned, rerank); default all"},
			&cli.StringSliceFlag{Name: "input", Usage: "rankers to fuse (also NAME/sent for the sentence-only form, ctxmax:NAME, ctxrel:NAME); default bm25-wpm, bm25-word and dense"},
			&cli.Float64Flag{Name: "rrf-k", Value: 60, Usage: "reciprocal-rank fusion's k"},
			&cli.IntFlag{Name: "threads", Usage: "ONNX Runtime threads per run (0: 1)"},
			&cli.BoolFlag{Name: "json", Usage: "print the learned parameters as JSON"},
		},
		OnUsageError: onUsage,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("fuse: want exactly one DATASET_DIR")
			}
			path := c.String("index")
			ds, e, err := openDenseDatasetIndex("fuse", c.Args().First(), path)
			if err != nil {
				return err
			}
			methods := c.StringSlice("method")
			if len(methods) == 0 {
				methods = rank.FusionMethods
			}
			for _, m := range methods {
				if !slices.Contains(rank.FusionMethods, m) {
					e.Close()
					return usagef("fuse: unknown method %q (rrf, minmax, zscore, adaptive, learned, rerank)", m)
				}
			}
			inputs := c.StringSlice("input")
			if len(inputs) == 0 {
				inputs = rank.DefaultFusionInputs
			}
			tqs, err := ds.SplitQuestions("tune")
			if err != nil {
				e.Close()
				return err
			}
			tune, err := evalQuestions(e, tqs, path)
			if err != nil {
				e.Close()
				return err
			}
			if c.Float64("rrf-k") <= 0 {
				e.Close()
				return usagef("fuse: --rrf-k %v: want > 0", c.Float64("rrf-k"))
			}
			res, err := e.TuneFusions(c.Context, methods, inputs, tune, true, rank.DenseOptions{Threads: c.Int("threads")}, ds.Name+" tune split")
			e.Close()
			if err != nil {
				return err
			}
			for i := range res {
				if res[i].Params.Method == "rrf" {
					res[i].Params.K = c.Float64("rrf-k")
				}
			}
			var ps []fuse.Params
			for _, r := range res {
				ps = append(ps, r.Params)
			}
			if err := rank.SaveFusions(path, ps); err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(c.App.Writer, ps)
			}
			fmt.Fprintf(c.App.Writer, "learned on %d tune questions of %s; stored in %s (ask uses %s by default)\n", len(tune), ds.Name, path, ps[0].Name)
			for _, p := range ps {
				fmt.Fprintf(c.App.Writer, "  %-16s tune P@1 %.2f  inputs %s  %s\n", p.Name, p.TuneP1, strings.Join(p.Inputs, "+"), describeParams(p))
			}
			return nil
		},
	}
}

// describeParams summarises learned fusion parameters.
func describeParams(p fuse.Params) string {
	switch p.Method {
	case "rrf":
		return fmt.Sprintf("k=%g", p.K)
	case "adaptive":
		return fmt.Sprintf("margin bounds %.3g, weights %v", p.Bounds, p.BucketWeights)
	case "rerank":
		if p.Rerank != nil {
			return fmt.Sprintf("re-ranker: %d candidate × %d question features over the top %d of %s",
				len(p.Rerank.Features), len(p.Rerank.QFeatures), p.Rerank.Depth, strings.Join(p.Rerank.PoolInputs, ", "))
		}
	}
	return fmt.Sprintf("weights %v", p.Weights)
}

// openDenseDatasetIndex reads a dataset and opens the index built from it,
// which must have embeddings (for fuse and tune).
func openDenseDatasetIndex(cmd, dir, path string) (*ingest.Dataset, *rank.Engine, error) {
	ds, err := ingest.ReadDataset(dir)
	if err != nil {
		return nil, nil, err
	}
	e, err := rank.Open(path)
	if err != nil {
		return nil, nil, err
	}
	if e.Meta().DatasetDigest != ds.Corpus.Digest {
		e.Close()
		return nil, nil, fmt.Errorf("%s: index %s was not built from dataset %s", cmd, path, ds.Dir)
	}
	if e.Meta().Dense == nil {
		e.Close()
		return nil, nil, fmt.Errorf("%s: index %s has no embeddings; rebuild it with `reqa index --dense`", cmd, path)
	}
	return ds, e, nil
}
