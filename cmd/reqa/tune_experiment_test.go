//go:build experiment

package main

import (
	"context"
	"encoding/gob"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/reqa/reqa/index/adapter"
	"github.com/reqa/reqa/index/dense"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/internal/display"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/eval"
)

// TestTuneSquadExperiment trains adapters on the SQuAD tune half and
// reports dense P@1/MRR on the test half with and without them. It needs
// REQA_SQUAD_INDEX (an index with embeddings, read only) and
// REQA_QVEC_CACHE (the question vectors of every question, in file order);
// REQA_TUNE_VARIANTS picks variants (kind[+hard][+all], comma separated).
func TestTuneSquadExperiment(t *testing.T) {
	path, cache := os.Getenv("REQA_SQUAD_INDEX"), os.Getenv("REQA_QVEC_CACHE")
	if path == "" || cache == "" {
		// May skip in CI: an experiment (tag experiment) run by hand with REQA_SQUAD_INDEX and REQA_QVEC_CACHE.
		t.Skip("set REQA_SQUAD_INDEX and REQA_QVEC_CACHE to run the SQuAD tuning experiment")
	}
	dir := os.Getenv("REQA_SQUAD_DIR")
	if dir == "" {
		dir = "/work/shared/data/squad-multireqa-test"
	}
	ds, err := ingest.ReadDataset(dir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := rank.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	f, err := os.Open(cache)
	if err != nil {
		t.Fatal(err)
	}
	var all [][]float32
	err = gob.NewDecoder(f).Decode(&all)
	f.Close()
	if err != nil || len(all) != len(ds.Questions) {
		t.Fatalf("question cache: %v (%d vectors for %d questions)", err, len(all), len(ds.Questions))
	}
	pos := map[string]int{}
	for i, q := range ds.Questions {
		pos[q.ID] = i
	}
	base, err := eval.AdapterData(context.Background(), e, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	answers, ctxOf := base.Answers, base.Context
	groups := map[string][]int{}
	split := func(name string) ([]eval.Question, [][]float32) {
		qs, err := ds.SplitQuestions(name)
		if err != nil {
			t.Fatal(err)
		}
		eqs, err := evalQuestions(e, qs, path)
		if err != nil {
			t.Fatal(err)
		}
		groups[name] = titleGroups(qs)
		vs := make([][]float32, len(qs))
		for i, q := range qs {
			vs[i] = all[pos[q.ID]]
		}
		return eqs, vs
	}
	tuneQs, tuneVs := split("tune")
	testQs, testVs := split("test")
	testGold := tuneData(testQs, testVs, answers, ctxOf, nil).Gold
	p1, mrr := adapter.Evaluate(nil, testVs, testGold, answers, 0)
	t.Logf("no adapter: test P@1 %.2f MRR %.2f (%d test, %d tune questions)", p1, mrr, len(testQs), len(tuneQs))
	variants := []string{"linear", "linear+hard", "linear+hard+all", "lowrank+hard+all+h256", "mlp+hard+all"}
	if v := os.Getenv("REQA_TUNE_VARIANTS"); v != "" {
		variants = strings.Split(v, ",")
	}
	for _, v := range variants {
		parts := strings.Split(v, "+")
		kind, err := adapter.ParseKind(parts[0])
		if err != nil {
			t.Fatal(err)
		}
		opt := adapter.Options{Kind: kind, Seed: 1, EncoderHash: e.Meta().Dense.Hash}
		grp := groups["tune"]
		for _, p := range parts[1:] {
			switch {
			case p == "hard":
				opt.HardNegatives = true
			case p == "all":
				opt.AllGolds = true
			case p == "qsplit":
				grp = nil
			case strings.HasPrefix(p, "neg"):
				opt.Negatives = int(num(t, p[3:]))
			case strings.HasPrefix(p, "p"):
				opt.Patience = int(num(t, p[1:]))
			case strings.HasPrefix(p, "t"):
				opt.Temperature = num(t, p[1:])
			case strings.HasPrefix(p, "lr"):
				opt.LR = num(t, p[2:])
			case strings.HasPrefix(p, "wd"):
				opt.WeightDecay = num(t, p[2:])
			case strings.HasPrefix(p, "e"):
				opt.Epochs = int(num(t, p[1:]))
			case strings.HasPrefix(p, "b"):
				opt.Batch = int(num(t, p[1:]))
			case strings.HasPrefix(p, "h"):
				opt.Hidden = int(num(t, p[1:]))
			default:
				t.Fatalf("variant %s: unknown part %q", v, p)
			}
		}
		t0 := time.Now()
		ad, rep, err := adapter.Train(context.Background(), tuneData(tuneQs, tuneVs, answers, ctxOf, grp), opt)
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(t0)
		ap1, amrr := adapter.Evaluate(ad, testVs, testGold, answers, 0)
		t.Logf("%-22s test P@1 %.2f (%+.2f) MRR %.2f (%+.2f)  val P@1 %.2f→%.2f  epoch %d/%d  losses %.3f  %v  %s",
			v, ap1, ap1-p1, amrr, amrr-mrr, rep.BaseValP1, rep.ValP1, rep.BestEpoch, rep.Epochs, rep.Losses, took.Round(time.Millisecond), display.Bytes(int64(len(ad.Marshal()))))
	}
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	var x float64
	if _, err := fmtSscan(s, &x); err != nil {
		t.Fatalf("number %q: %v", s, err)
	}
	return x
}

func fmtSscan(s string, x *float64) (int, error) { return fmt.Sscan(s, x) }

// tuneData pairs question vectors with their gold sentences.
func tuneData(qs []eval.Question, qvecs [][]float32, answers dense.Vectors, ctxOf []uint32, groups []int) adapter.Data {
	d := adapter.Data{Questions: qvecs, Answers: answers, Context: ctxOf, Gold: make([][]uint32, len(qs)), Group: groups}
	for i, q := range qs {
		d.Gold[i] = q.Gold
	}
	return d
}
