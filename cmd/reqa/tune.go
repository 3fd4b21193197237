package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/reqa/reqa/index/adapter"
	"github.com/reqa/reqa/index/dense"
	"github.com/reqa/reqa/index/encoder"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/store"
)

// blobAdapter is the blob holding the trained question adapter.
const blobAdapter = "dense/adapter"

func tuneCommand() *cli.Command {
	return &cli.Command{
		Name:      "tune",
		Usage:     "fine-tune the question tower on a dataset split or on question–answer pairs (an adapter on the frozen embeddings) and store it in the index",
		ArgsUsage: "DATASET_DIR | --pairs FILE",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "index", Aliases: []string{"i"}, Required: true, Usage: "index built from DATASET_DIR, with embeddings"},
			&cli.StringFlag{Name: "split", Value: "tune", Usage: "split whose questions train the adapter (all: every question)"},
			&cli.StringFlag{Name: "pairs", Usage: "train on this JSONL of {\"question\", \"answer_id\" | \"answer_ids\" | \"answer\" | \"answers\", \"group\"} instead of a dataset: ids are candidate ids or the index's sentence ids (ask --json's sentence_id), answers are sentence texts; any index with embeddings"},
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
			&cli.BoolFlag{Name: "json", Usage: "print the training result as JSON (progress stays on stderr)"},
		},
		OnUsageError: onUsage,
		Action: func(c *cli.Context) error {
			pairs := c.String("pairs")
			switch {
			case pairs != "" && c.NArg() != 0:
				return usagef("tune: give either DATASET_DIR or --pairs FILE, not both")
			case pairs != "" && c.IsSet("split"):
				return usagef("tune: --split applies to a dataset, not to --pairs")
			case pairs == "" && c.NArg() != 1:
				return usagef("tune: want exactly one DATASET_DIR (or --pairs FILE)")
			}
			kind, err := adapter.ParseKind(c.String("kind"))
			if err != nil {
				return usagef("tune: --kind %q: want linear, lowrank or mlp", c.String("kind"))
			}
			switch {
			case c.Int("epochs") <= 0:
				return usagef("tune: --epochs %d: want > 0", c.Int("epochs"))
			case c.Int("batch") < 2:
				return usagef("tune: --batch %d: want ≥ 2", c.Int("batch"))
			case c.Float64("temperature") <= 0:
				return usagef("tune: --temperature %v: want > 0", c.Float64("temperature"))
			case c.Float64("lr") < 0:
				return usagef("tune: --lr %v: want > 0", c.Float64("lr"))
			case c.Float64("weight-decay") < 0:
				return usagef("tune: --weight-decay %v: want ≥ 0", c.Float64("weight-decay"))
			case c.Float64("val-fraction") < 0 || c.Float64("val-fraction") >= 1:
				return usagef("tune: --val-fraction %v: want 0 ≤ f < 1", c.Float64("val-fraction"))
			case c.Int("hidden") < 0:
				return usagef("tune: --hidden %d: want > 0", c.Int("hidden"))
			}
			path := c.String("index")
			var e *rank.Engine
			var eqs []rank.EvalQuestion
			var groups []int
			source, split := pairs, "pairs"
			if pairs != "" {
				if e, eqs, groups, err = pairQuestions(path, pairs); err != nil {
					return err
				}
			} else {
				var ds *ingest.Dataset
				if ds, e, err = openDenseDatasetIndex("tune", c.Args().First(), path); err != nil {
					return err
				}
				qs, err := ds.SplitQuestions(c.String("split"))
				if err != nil {
					e.Close()
					return err
				}
				if eqs, err = evalQuestions(e, qs, path); err != nil {
					e.Close()
					return err
				}
				groups = titleGroups(qs)
				source, split = ds.Name, c.String("split")
			}
			defer e.Close()
			m := e.Meta().Dense
			w := c.App.ErrWriter
			t0 := time.Now()
			answers, ctxOf, err := answerVectors(e)
			if err != nil {
				return fmt.Errorf("tune: %w", err)
			}
			qvecs, err := encodeQuestions(c.Context, e, eqs, c.Int("threads"))
			if err != nil {
				return fmt.Errorf("tune: embedding questions: %w", err)
			}
			fmt.Fprintf(w, "embedded %d questions in %v\n", len(eqs), time.Since(t0).Round(time.Millisecond))
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
				EncoderHash: m.Hash,
				Progress: func(p adapter.Progress) {
					if p.EpochDone {
						fmt.Fprintf(w, "epoch %d/%d  loss %.4f", p.Epoch, p.Epochs, p.Loss)
						if vf > 0 {
							fmt.Fprintf(w, "  validation P@1 %.2f MRR %.2f", p.ValP1, p.ValMRR)
						}
						fmt.Fprintln(w)
					}
				},
			}
			t1 := time.Now()
			ad, rep, err := adapter.Train(c.Context, tuneData(eqs, qvecs, answers, ctxOf, groups), opt)
			if err != nil {
				return fmt.Errorf("tune: %w", err)
			}
			took := time.Since(t1)
			b := ad.Marshal()
			e.Close()
			if err := store.Amend(path, func(tx *store.WriteTx) error { return tx.PutBlob(blobAdapter, b) }); err != nil {
				return fmt.Errorf("tune: storing the adapter: %w", err)
			}
			out := c.App.Writer
			if c.Bool("json") {
				res := tuneResult{Index: path, Dataset: source, Split: split, Kind: ad.Kind.String(),
					Weights: ad.Params(), Bytes: len(b), TrainQuestions: rep.TrainQuestions, Epochs: rep.Epochs,
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
				ad.Kind, ad.Params(), byteSize(len(b)), rep.TrainQuestions, source, split, took.Round(time.Millisecond), path)
			if rep.ValQuestions > 0 {
				fmt.Fprintf(out, "  validation (%d held-out questions): P@1 %.2f → %.2f, MRR %.2f → %.2f (epoch %d of %d)\n",
					rep.ValQuestions, rep.BaseValP1, rep.ValP1, rep.BaseValMRR, rep.ValMRR, rep.BestEpoch, rep.Epochs)
			}
			return nil
		},
	}
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
func pairQuestions(path, pairsPath string) (*rank.Engine, []rank.EvalQuestion, []int, error) {
	ps, err := ingest.ReadPairs(pairsPath)
	if err != nil {
		return nil, nil, nil, err
	}
	e, err := rank.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	fail := func(err error) (*rank.Engine, []rank.EvalQuestion, []int, error) {
		e.Close()
		return nil, nil, nil, err
	}
	if e.Meta().Dense == nil {
		return fail(fmt.Errorf("tune: index %s has no embeddings; rebuild it with `reqa index --dense`", path))
	}
	ss := e.Sentences()
	byText := map[string][]uint32{}
	if needsText(ps) {
		ctxs, err := e.Store().Contexts()
		if err != nil {
			return fail(err)
		}
		for _, s := range ss {
			if int(s.ContextID) < len(ctxs) {
				t := strings.TrimSpace(s.Text(ctxs[s.ContextID]))
				byText[t] = append(byText[t], s.ID)
			}
		}
	}
	eqs := make([]rank.EvalQuestion, len(ps))
	groupIDs := map[string]int{}
	groups := make([]int, len(ps))
	named := false
	for i, p := range ps {
		q := rank.EvalQuestion{ID: fmt.Sprintf("%s:%d", pairsPath, p.Line), Text: p.Question}
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
					Msg: fmt.Sprintf("no sentence of index %s has the text %q", path, truncateText(t, 60))})
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

func needsText(ps []ingest.Pair) bool {
	for _, p := range ps {
		if len(p.AnswerTexts) > 0 {
			return true
		}
	}
	return false
}

func truncateText(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
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

func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// answerVectors loads the index's answer vectors for its default λ and the
// context of every sentence, straight from the stored embeddings (the
// adapter is trained on the frozen towers, never on an adapted ranker).
func answerVectors(e *rank.Engine) (dense.Vectors, []uint32, error) {
	m := e.Meta().Dense
	var vs [2]dense.Vectors
	for i, name := range []string{"dense/sentences", "dense/contexts"} {
		raw, err := e.Store().LargeBlob(name)
		if err != nil {
			return dense.Vectors{}, nil, err
		}
		if vs[i], err = dense.Decode(raw); err != nil {
			return dense.Vectors{}, nil, fmt.Errorf("blob %s: %w: %w", name, store.ErrCorrupt, err)
		}
		if vs[i].Dim != m.Dim {
			return dense.Vectors{}, nil, fmt.Errorf("blob %s: width %d, meta says %d: %w", name, vs[i].Dim, m.Dim, store.ErrCorrupt)
		}
	}
	ss := e.Sentences()
	if vs[0].Len() != len(ss) {
		return dense.Vectors{}, nil, fmt.Errorf("embeddings cover %d sentences, index holds %d: %w", vs[0].Len(), len(ss), store.ErrCorrupt)
	}
	ctxOf := make([]uint32, len(ss))
	for i, s := range ss {
		ctxOf[i] = s.ContextID
	}
	v, err := dense.Combine(vs[0], vs[1], ctxOf, m.Lambda)
	return v, ctxOf, err
}

// encodeQuestions embeds the questions with the index's encoder, unadapted.
func encodeQuestions(ctx context.Context, e *rank.Engine, qs []rank.EvalQuestion, threads int) ([][]float32, error) {
	m := e.Meta().Dense
	onnx, err := e.Store().LargeBlob("dense/model.onnx")
	if err != nil {
		return nil, err
	}
	vocab, err := e.Store().LargeBlob("dense/vocab.json")
	if err != nil {
		return nil, err
	}
	enc, err := encoder.New(encoder.Spec{Name: m.Encoder, Kind: m.Kind, Dim: m.Dim, Hash: m.Hash}, onnx, vocab, encoder.Options{Threads: threads})
	if err != nil {
		return nil, err
	}
	defer enc.Close()
	texts := make([]string, len(qs))
	for i, q := range qs {
		texts[i] = q.Text
	}
	return enc.Encode(ctx, texts, nil)
}

// tuneData pairs question vectors with their gold sentences.
func tuneData(qs []rank.EvalQuestion, qvecs [][]float32, answers dense.Vectors, ctxOf []uint32, groups []int) adapter.Data {
	d := adapter.Data{Questions: qvecs, Answers: answers, Context: ctxOf, Gold: make([][]uint32, len(qs)), Group: groups}
	for i, q := range qs {
		d.Gold[i] = q.Gold
	}
	return d
}
