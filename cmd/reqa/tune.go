package main

import (
	"fmt"
	"github.com/reqa/reqa/index"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/reqa/reqa/index/adapter"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/internal/display"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/eval"
)

func tuneCommand() *cli.Command {
	return &cli.Command{
		Name:      "tune",
		Usage:     "fine-tune the question tower on a dataset split or on question–answer pairs (an adapter on the frozen embeddings) and store it in the index",
		ArgsUsage: "DATASET_DIR | --pairs FILE | --self",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "index", Aliases: []string{"i"}, Required: true, Usage: "index built from DATASET_DIR, with embeddings"},
			&cli.StringFlag{Name: "split", Value: "tune", Usage: "split whose questions train the adapter (all: every question)"},
			&cli.StringFlag{Name: "pairs", Usage: "train on this JSONL of {\"question\", \"answer_id\" | \"answer_ids\" | \"answer\" | \"answers\", \"group\"} instead of a dataset: ids are candidate ids or the index's sentence ids (ask --json's sentence_id), answers are sentence texts; any index with embeddings"},
			&cli.BoolFlag{Name: "self", Usage: "label-free: train on pseudo-questions made from the indexed text itself (headings asking for their sections' sentences, sentences with their rarest words removed asking for themselves, \"X is a …\" asking \"what is X?\"); any index with embeddings"},
			&cli.StringSliceFlag{Name: "self-kinds", Usage: "with --self: pseudo-question kinds (heading, cloze, definition; default all)"},
			&cli.IntFlag{Name: "self-max", Value: 4000, Usage: "with --self: at most this many pseudo-questions"},
			&cli.StringFlag{Name: "kind", Value: "linear", Usage: "adapter shape: linear, lowrank or mlp"},
			&cli.IntFlag{Name: "hidden", Usage: "rank of a lowrank adapter (default 64) or hidden width of an mlp (default 256)"},
			&cli.IntFlag{Name: "epochs", Value: 10, Usage: "maximum passes over the training questions"},
			&cli.IntFlag{Name: "batch", Value: 256, Usage: "questions per in-batch softmax"},
			&cli.Float64Flag{Name: "temperature", Value: 0.03, Usage: "softmax temperature τ"},
			&cli.Float64Flag{Name: "lr", Usage: "Adam learning rate (default 1e-3; 5e-4 for mlp)"},
			&cli.Float64Flag{Name: "weight-decay", Value: 100, Usage: "decoupled weight decay: each step shrinks the adapter toward the identity by 1 − lr·decay; 0: none"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed for initialisation, hold-out and shuffles"},
			&cli.Float64Flag{Name: "val-fraction", Value: 0.1, Usage: "fraction of the questions held out for early stopping; 0: none"},
			&cli.IntFlag{Name: "patience", Value: 3, Usage: "epochs without a better validation P@1 before stopping"},
			&cli.BoolFlag{Name: "hard-negatives", Value: true, Usage: "add the other sentences of the gold sentence's context as negatives (measured +0.6–1.0 P@1 on SQuAD; --hard-negatives=false to skip)"},
			&cli.IntFlag{Name: "negatives", Usage: "extra random negatives from the whole candidate pool per batch"},
			&cli.BoolFlag{Name: "all-golds", Value: true, Usage: "draw each question's positive among all its gold sentences (--all-golds=false: the first only)"},
			&cli.IntFlag{Name: "threads", Usage: "ONNX Runtime threads per run (0: 1)"},
			jsonFlag("print the training result as JSON (progress stays on stderr)"),
			quietFlag(),
		},
		OnUsageError: onUsage,
		Action:       tuneAction,
	}
}

func tuneAction(c *cli.Context) error {
	kind, err := checkTuneFlags(c)
	if err != nil {
		return err
	}
	path := c.String("index")
	e, eqs, groups, source, split, err := tuneQuestions(c, path)
	if err != nil {
		return err
	}
	defer e.Close()
	t0 := time.Now()
	data, err := eval.AdapterData(c.Context, e, eqs, groups, c.Int("threads"))
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	if !c.Bool("quiet") {
		fmt.Fprintf(c.App.ErrWriter, "embedded %d questions in %v\n", len(eqs), time.Since(t0).Round(time.Millisecond))
	}
	t1 := time.Now()
	ad, rep, err := adapter.Train(c.Context, data, tuneOptions(c, kind, e.Meta().Dense.Hash))
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	took := time.Since(t1)
	e.Close()
	if err := index.SaveAdapter(path, ad); err != nil {
		return fmt.Errorf("tune: storing the adapter: %w", err)
	}
	size := len(ad.Marshal())
	out := c.App.Writer
	if c.Bool("json") {
		res := tuneResult{Index: path, Dataset: source, Split: split, Kind: ad.Kind.String(),
			Weights: ad.Params(), Bytes: size, TrainQuestions: rep.TrainQuestions, Epochs: rep.Epochs,
			BestEpoch: rep.BestEpoch, Losses: rep.Losses, Seconds: took.Seconds()}
		if res.Losses == nil {
			res.Losses = []float64{}
		}
		if rep.ValQuestions > 0 {
			res.Validation = &tuneValidation{Questions: rep.ValQuestions, BaseP1: rep.BaseValP1, P1: rep.ValP1,
				BaseMRR: rep.BaseValMRR, MRR: rep.ValMRR}
		}
		return writeJSON(out, res)
	}
	fmt.Fprintf(out, "trained a %s adapter (%d weights, %s) on %d questions of %s split %s in %v; stored in %s\n",
		ad.Kind, ad.Params(), display.Bytes(int64(size)), rep.TrainQuestions, safeName(source), split, took.Round(time.Millisecond), safeName(path))
	if rep.ValQuestions > 0 {
		fmt.Fprintf(out, "  validation (%d held-out questions): P@1 %.2f → %.2f, MRR %.2f → %.2f (epoch %d of %d)\n",
			rep.ValQuestions, rep.BaseValP1, rep.ValP1, rep.BaseValMRR, rep.ValMRR, rep.BestEpoch, rep.Epochs)
	}
	return nil
}

// checkTuneFlags checks tune's arguments and returns the adapter's kind.
func checkTuneFlags(c *cli.Context) (adapter.Kind, error) {
	pairs := c.String("pairs")
	self := c.Bool("self")
	switch {
	case self && (pairs != "" || c.NArg() != 0 || c.IsSet("split")):
		return 0, usagef("tune: --self trains on the index's own text: no DATASET_DIR, --pairs or --split")
	case !self && (c.IsSet("self-kinds") || c.IsSet("self-max")):
		return 0, usagef("tune: --self-kinds and --self-max need --self")
	case self && c.Int("self-max") <= 0:
		return 0, usagef("tune: --self-max %d: want > 0", c.Int("self-max"))
	case self:
	case pairs != "" && c.NArg() != 0:
		return 0, usagef("tune: give either DATASET_DIR or --pairs FILE, not both")
	case pairs != "" && c.IsSet("split"):
		return 0, usagef("tune: --split applies to a dataset, not to --pairs")
	case pairs == "" && c.NArg() != 1:
		return 0, usagef("tune: want exactly one DATASET_DIR (or --pairs FILE)")
	}
	kind, err := adapter.ParseKind(c.String("kind"))
	if err != nil {
		return 0, usagef("tune: --kind %q: want linear, lowrank or mlp", c.String("kind"))
	}
	switch {
	case c.Int("epochs") <= 0:
		return 0, usagef("tune: --epochs %d: want > 0", c.Int("epochs"))
	case c.Int("batch") < 2:
		return 0, usagef("tune: --batch %d: want ≥ 2", c.Int("batch"))
	case c.Float64("temperature") <= 0:
		return 0, usagef("tune: --temperature %v: want > 0", c.Float64("temperature"))
	case c.Float64("lr") < 0:
		return 0, usagef("tune: --lr %v: want > 0", c.Float64("lr"))
	case c.Float64("weight-decay") < 0:
		return 0, usagef("tune: --weight-decay %v: want ≥ 0", c.Float64("weight-decay"))
	case c.Float64("val-fraction") < 0 || c.Float64("val-fraction") >= 1:
		return 0, usagef("tune: --val-fraction %v: want 0 ≤ f < 1", c.Float64("val-fraction"))
	case c.Int("hidden") < 0:
		return 0, usagef("tune: --hidden %d: want > 0", c.Int("hidden"))
	}
	return kind, nil
}

// tuneQuestions opens the index at path and reads the training questions:
// the --pairs file's, or the dataset split's (grouped by article). It
// returns where they came from (source, split) for the report.
func tuneQuestions(c *cli.Context, path string) (e *rank.Index, eqs []eval.Question, groups []int, source, split string, err error) {
	if pairs := c.String("pairs"); pairs != "" {
		e, eqs, groups, err = pairQuestions(path, pairs)
		return e, eqs, groups, pairs, "pairs", err
	}
	if c.Bool("self") {
		e, eqs, groups, err = selfQuestions(c, path)
		return e, eqs, groups, path, "pseudo-questions", err
	}
	ds, e, err := openDenseDatasetIndex("tune", c.Args().First(), path)
	if err != nil {
		return nil, nil, nil, "", "", err
	}
	qs, err := ds.SplitQuestions(c.String("split"))
	if err == nil {
		eqs, err = evalQuestions(e, qs, path)
	}
	if err != nil {
		e.Close()
		return nil, nil, nil, "", "", err
	}
	return e, eqs, titleGroups(qs), ds.Name, c.String("split"), nil
}

// tuneOptions are the adapter's training options from tune's flags;
// epochs are reported on stderr unless --quiet.
func tuneOptions(c *cli.Context, kind adapter.Kind, encoderHash string) adapter.Options {
	wd := c.Float64("weight-decay")
	if wd == 0 {
		wd = -1
	}
	vf := c.Float64("val-fraction")
	if vf == 0 {
		vf = -1
	}
	opt := adapter.Options{
		Kind: kind, Hidden: c.Int("hidden"), Epochs: c.Int("epochs"), Batch: c.Int("batch"),
		Temperature: c.Float64("temperature"), LR: c.Float64("lr"), WeightDecay: wd, Seed: c.Uint64("seed"),
		ValFraction: vf, Patience: c.Int("patience"), HardNegatives: c.Bool("hard-negatives"), Negatives: c.Int("negatives"), AllGolds: c.Bool("all-golds"),
		EncoderHash: encoderHash,
	}
	if c.Bool("quiet") {
		return opt
	}
	w := c.App.ErrWriter
	opt.Progress = func(p adapter.Progress) {
		if p.EpochDone {
			fmt.Fprintf(w, "epoch %d/%d  loss %.4f", p.Epoch, p.Epochs, p.Loss)
			if vf > 0 {
				fmt.Fprintf(w, "  validation P@1 %.2f MRR %.2f", p.ValP1, p.ValMRR)
			}
			fmt.Fprintln(w)
		}
	}
	return opt
}

// tuneResult is `reqa tune --json`'s output.
type tuneResult struct {
	Index          string          `json:"index"`
	Dataset        string          `json:"dataset"`
	Split          string          `json:"split"`
	Kind           string          `json:"kind"`
	Weights        int             `json:"weights"`
	Bytes          int             `json:"bytes"`
	TrainQuestions int             `json:"train_questions"`
	Epochs         int             `json:"epochs"`
	BestEpoch      int             `json:"best_epoch"`
	Losses         []float64       `json:"losses"`
	Validation     *tuneValidation `json:"validation,omitempty"`
	Seconds        float64         `json:"seconds"`
}

// tuneValidation is the held-out evaluation of a trained adapter (metrics
// in percent; Base* without the adapter).
type tuneValidation struct {
	Questions int     `json:"questions"`
	BaseP1    float64 `json:"base_p1"`
	P1        float64 `json:"p1"`
	BaseMRR   float64 `json:"base_mrr"`
	MRR       float64 `json:"mrr"`
}

// pairQuestions opens the dense index at path and resolves the training
// pairs of the JSONL file pairsPath against its sentences: the questions,
// their gold sentence ids and their groups (nil when no pair names one).
func pairQuestions(path, pairsPath string) (*rank.Index, []eval.Question, []int, error) {
	ps, err := ingest.ReadPairs(pairsPath)
	if err != nil {
		return nil, nil, nil, err
	}
	e, err := rank.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	fail := func(err error) (*rank.Index, []eval.Question, []int, error) {
		e.Close()
		return nil, nil, nil, err
	}
	if e.Meta().Dense == nil {
		return fail(fmt.Errorf("tune: index %s has no embeddings; rebuild it with `reqa index --dense`", path))
	}
	ss := e.Sentences()
	byText := map[string][]uint32{}
	if needsText(ps) {
		if byText, err = eval.SentencesByText(e); err != nil {
			return fail(err)
		}
	}
	eqs := make([]eval.Question, len(ps))
	groupIDs := map[string]int{}
	groups := make([]int, len(ps))
	named := false
	for i, p := range ps {
		q := eval.Question{ID: fmt.Sprintf("%s:%d", pairsPath, p.Line), Text: p.Question}
		for _, id := range p.AnswerIDs {
			sid, ok := e.SentenceByExtID(id)
			if !ok {
				n, err := strconv.ParseUint(id, 10, 32)
				if err != nil || n >= uint64(len(ss)) {
					return fail(&ingest.InputError{File: pairsPath, Line: p.Line, Field: "answer_id",
						Msg: fmt.Sprintf("%q is neither a candidate id nor a sentence id of index %s (%d sentences)", id, path, len(ss))})
				}
				sid = uint32(n)
			}
			q.Gold = append(q.Gold, sid)
		}
		for _, t := range p.AnswerTexts {
			ids, ok := byText[t]
			if !ok {
				return fail(&ingest.InputError{File: pairsPath, Line: p.Line, Field: "answer",
					Msg: fmt.Sprintf("no sentence of index %s has the text %q", path, display.Truncate(t, 60))})
			}
			q.Gold = append(q.Gold, ids...)
		}
		eqs[i] = q
		g := p.Group
		if g != "" {
			named = true
		} else {
			g = "\x00" + q.ID // its own group
		}
		id, ok := groupIDs[g]
		if !ok {
			id = len(groupIDs)
			groupIDs[g] = id
		}
		groups[i] = id
	}
	if !named {
		groups = nil
	}
	return e, eqs, groups, nil
}

// selfQuestions opens the dense index at path and makes its pseudo-questions
// (tune --self).
func selfQuestions(c *cli.Context, path string) (*rank.Index, []eval.Question, []int, error) {
	e, err := rank.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	if e.Meta().Dense == nil {
		e.Close()
		return nil, nil, nil, fmt.Errorf("tune: index %s has no embeddings; rebuild it with `reqa index --dense`", path)
	}
	qs, groups, err := eval.SelfQuestions(e, eval.SelfOptions{Kinds: c.StringSlice("self-kinds"), Max: c.Int("self-max"), Seed: c.Uint64("seed")})
	if err != nil {
		e.Close()
		return nil, nil, nil, fmt.Errorf("tune --self: %w", err)
	}
	if !c.Bool("quiet") {
		fmt.Fprintf(c.App.ErrWriter, "made %d pseudo-questions from the index's text\n", len(qs))
	}
	return e, qs, groups, nil
}

func needsText(ps []ingest.Pair) bool {
	for _, p := range ps {
		if len(p.AnswerTexts) > 0 {
			return true
		}
	}
	return false
}

// titleGroups numbers each question's first article title, so validation
// holds out whole articles.
func titleGroups(qs []ingest.Question) []int {
	ids := map[string]int{}
	out := make([]int, len(qs))
	for i, q := range qs {
		t := ""
		if len(q.Titles) > 0 {
			t = q.Titles[0]
		}
		id, ok := ids[t]
		if !ok {
			id = len(ids)
			ids[t] = id
		}
		out[i] = id
	}
	return out
}
