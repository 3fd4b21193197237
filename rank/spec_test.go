package rank_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/index/adapter"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/eval"
	"github.com/reqa/reqa/rank/fuse"
)

func TestParseSpec(t *testing.T) {
	for _, c := range []struct {
		name string
		want rank.Spec
	}{
		{"", rank.Spec{}},
		{"default", rank.Spec{}},
		{"bm25-wpm", rank.Spec{Name: "bm25-wpm", Kind: rank.KindBM25, Tokenizer: "wpm"}},
		{"bm25-word/sent", rank.Spec{Name: "bm25-word/sent", Kind: rank.KindBM25, Tokenizer: "word", SentenceOnly: true}},
		{"dense", rank.Spec{Name: "dense", Kind: rank.KindDense}},
		{"dense/sent", rank.Spec{Name: "dense/sent", Kind: rank.KindDense, SentenceOnly: true}},
		{"fusion-rerank", rank.Spec{Name: "fusion-rerank", Kind: rank.KindFusion, Method: "rerank"}},
		{"ctxmax:bm25-wpm", rank.Spec{Name: "ctxmax:bm25-wpm", Kind: rank.KindDerived, Method: "ctxmax", Base: "bm25-wpm"}},
		{"ctxrel:dense/sent", rank.Spec{Name: "ctxrel:dense/sent", Kind: rank.KindDerived, Method: "ctxrel", Base: "dense/sent"}},
	} {
		got, err := rank.ParseSpec(c.name)
		if err != nil || !equalSpec(got, c.want) {
			t.Errorf("ParseSpec(%q) = %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
	for _, bad := range []string{"bm25", "bm25-", "bm25-nope", "BM25-wpm", "fusion-", "fusion-nope", "fusion-zscore/sent",
		"dense/sent/sent", "ctxmax:", "ctxmax:fusion-zscore", "ctxmax:default", "ctxfoo:dense", "dense ", "/sent"} {
		if s, err := rank.ParseSpec(bad); !errors.Is(err, rank.ErrUnknownRanker) {
			t.Errorf("ParseSpec(%q) = %+v, %v; want ErrUnknownRanker", bad, s, err)
		}
	}
}

func equalSpec(a, b rank.Spec) bool {
	return a.Name == b.Name && a.Kind == b.Kind && a.Tokenizer == b.Tokenizer && a.Method == b.Method &&
		a.Base == b.Base && a.SentenceOnly == b.SentenceOnly && a.Fusion == nil && b.Fusion == nil
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"", "bm25-wpm", "dense/sent", "fusion-zscore", "ctxrel:bm25-word/sent", "ctxmax:ctxmax:dense"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		s, err := rank.ParseSpec(name)
		if err != nil {
			if !errors.Is(err, rank.ErrUnknownRanker) {
				t.Fatalf("ParseSpec(%q): %v does not wrap ErrUnknownRanker", name, err)
			}
			return
		}
		again, err := rank.ParseSpec(s.Name)
		if err != nil || !equalSpec(again, s) {
			t.Fatalf("ParseSpec(%q) = %+v, but its name parses to %+v, %v", name, s, again, err)
		}
	})
}

func ExampleParseSpec() {
	s, err := rank.ParseSpec("bm25-wpm/sent")
	fmt.Println(s.Kind == rank.KindBM25, s.Tokenizer, s.SentenceOnly, err)
	_, err = rank.ParseSpec("bm25-nope")
	fmt.Println(errors.Is(err, rank.ErrUnknownRanker))
	// Output:
	// true wpm true <nil>
	// true
}

// TestNames checks that every name Names lists parses, and that the
// inputs are BM25 of every tokenizer and dense.
func TestNames(t *testing.T) {
	for _, n := range rank.Names() {
		if _, err := rank.ParseSpec(n); err != nil {
			t.Errorf("Names lists %q, which ParseSpec refuses: %v", n, err)
		}
	}
	if got, want := rank.InputNames(), []string{"bm25-word", "bm25-wpm", "bm25-stem", "dense"}; !slices.Equal(got, want) {
		t.Errorf("InputNames = %v, want %v", got, want)
	}
}

func ExampleNames() {
	fmt.Println(rank.Names())
	// Output:
	// [bm25-word bm25-wpm bm25-stem dense fusion-rrf fusion-minmax fusion-zscore fusion-adaptive fusion-learned fusion-rerank default]
}

// TestDefaultsBM25 checks the defaults of an index without embeddings.
func TestDefaultsBM25(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bm25.reqa")
	buildTestIndexDense(t, path, false)
	e, err := rank.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if d, err := e.Default(); d != "bm25-wpm" || err != nil {
		t.Errorf("Default = %q, %v; want bm25-wpm", d, err)
	}
	if a, err := e.Available(); !slices.Equal(a, []string{"bm25-word", "bm25-wpm", "bm25-stem"}) || err != nil {
		t.Errorf("Available = %v, %v", a, err)
	}
	r, err := e.Resolve(rank.Spec{})
	if err != nil || r.Name() != "bm25-wpm" {
		t.Fatalf("Resolve(default) = %v, %v", r, err)
	}
	for _, name := range []string{"dense", "fusion-zscore", "fusion-rrf"} {
		if _, err := e.Ranker(name); !errors.Is(err, rank.ErrUnknownRanker) {
			t.Errorf("%s on a BM25-only index: %v, want ErrUnknownRanker", name, err)
		}
	}
	// Specs built by hand, not by ParseSpec: an error, never a panic.
	for _, s := range []rank.Spec{
		{Name: "x", Kind: rank.KindBM25, Tokenizer: "nope"},
		{Name: "x", Kind: rank.KindDerived, Method: "ctxmax", Base: "junk"},
		{Name: "x", Kind: rank.KindDerived, Method: "nope", Base: "bm25-wpm"},
		{Name: "x", Kind: rank.KindDerived, Method: "ctxmax", Base: "fusion-zscore"},
		{Name: "x", Kind: rank.Kind(99)},
	} {
		if r, err := e.Resolve(s); err == nil {
			t.Errorf("Resolve(%+v) = %v, want an error", s, r.Name())
		}
	}
}

// TestDefaultsDense checks the defaults of an index with embeddings: the
// built-in fusions untuned, the stored ones once tuned, another index's with
// UseTuned.
func TestDefaultsDense(t *testing.T) {
	requireDense(t)
	path := filepath.Join(t.TempDir(), "dense.reqa")
	buildTestIndexDense(t, path, true)
	e, err := rank.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := e.Default(); d != "fusion-zscore" || err != nil {
		t.Errorf("untuned Default = %q, %v; want fusion-zscore", d, err)
	}
	want := []string{"bm25-word", "bm25-wpm", "bm25-stem", "dense", "fusion-zscore", "fusion-rrf"}
	if a, err := e.Available(); !slices.Equal(a, want) || err != nil {
		t.Errorf("untuned Available = %v, %v; want %v", a, err, want)
	}
	if p, err := e.FusionParams("fusion-zscore"); err != nil || p.TunedOn != rank.DefaultFusion().TunedOn {
		t.Errorf("FusionParams(fusion-zscore) = %+v, %v; want the built-in default", p, err)
	}
	_, err = e.Ranker("fusion-learned")
	if !errors.Is(err, rank.ErrNoTunedParams) || !errors.Is(err, rank.ErrUnknownRanker) {
		t.Errorf("untuned fusion-learned: %v, want ErrNoTunedParams and ErrUnknownRanker", err)
	}
	r, err := e.Resolve(rank.Spec{})
	if err != nil || r.Name() != "fusion-zscore" {
		t.Fatalf("Resolve(default) = %v, %v", r, err)
	}
	e.Close()

	// Stored parameters: the first is the default.
	learned := fuse.Params{Name: "fusion-minmax", Method: "minmax", Inputs: rank.DefaultFusionInputs, Weights: []float64{0.2, 0.3, 0.5}, TunedOn: "test"}
	raw, err := rank.EncodeFusions([]fuse.Params{learned})
	if err != nil {
		t.Fatal(err)
	}
	if err := index.SaveFusions(path, raw); err != nil {
		t.Fatal(err)
	}
	e, err = rank.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if d, _ := e.Default(); d != "fusion-minmax" {
		t.Errorf("tuned Default = %q, want fusion-minmax", d)
	}
	want = []string{"bm25-word", "bm25-wpm", "bm25-stem", "dense", "fusion-minmax", "fusion-zscore", "fusion-rrf"}
	if a, _ := e.Available(); !slices.Equal(a, want) {
		t.Errorf("tuned Available = %v, want %v", a, want)
	}
	checkUseTuned(t, e)
}

// checkUseTuned applies another index's parameters, with an adapter
// trained for this encoder, to e: they replace e's own.
func checkUseTuned(t *testing.T, e *rank.Index) {
	t.Helper()
	var qs []eval.Question
	for i := range 8 {
		qs = append(qs, eval.Question{ID: fmt.Sprint(i), Text: fmt.Sprintf("question %d about bees and bridges", i), Gold: []uint32{uint32(i)}})
	}
	data, err := eval.AdapterData(context.Background(), e, qs, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	ad, _, err := adapter.Train(context.Background(), data, adapter.Options{Epochs: 1, Batch: 4, ValFraction: -1, EncoderHash: e.Meta().Dense.Hash})
	if err != nil {
		t.Fatal(err)
	}
	other := fuse.Params{Name: "fusion-learned", Method: "learned", Inputs: rank.DefaultFusionInputs, Weights: []float64{0.4, 0.2, 0.4}, TunedOn: "elsewhere"}
	if err := e.UseTuned(&rank.Tuned{Source: "other.reqa", Fusions: []fuse.Params{other}, Adapter: ad.Marshal()}); err != nil {
		t.Fatal(err)
	}
	if d, _ := e.Default(); d != "fusion-learned" {
		t.Errorf("Default with UseTuned = %q, want the transferred fusion-learned", d)
	}
	if _, err := e.FusionParams("fusion-minmax"); !errors.Is(err, rank.ErrNoTunedParams) {
		t.Errorf("the index's own fusion-minmax after UseTuned: %v, want ErrNoTunedParams", err)
	}
	d, err := e.DenseRanker(rank.Spec{})
	if err != nil || !d.Adapted() {
		t.Errorf("dense ranker with a transferred adapter: adapted %v, %v", d != nil && d.Adapted(), err)
	}
	bad := &rank.Tuned{Source: "bad", Adapter: []byte("not an adapter")}
	if err := e.UseTuned(bad); err == nil {
		t.Error("UseTuned accepted a damaged adapter")
	}
}

// TestLoadTuned reads parameters from an index and from JSON files.
func TestLoadTuned(t *testing.T) {
	dir := t.TempDir()
	p := fuse.Params{Name: "fusion-zscore", Method: "zscore", Inputs: rank.DefaultFusionInputs, Weights: []float64{0.5, 0.1, 0.4}}
	for name, text := range map[string]string{
		"array.json":  `[{"name": "fusion-zscore", "method": "zscore", "inputs": ["bm25-wpm", "bm25-word", "dense"], "weights": [0.5, 0.1, 0.4]}]`,
		"object.json": `{"results": [], "fusions": [{"name": "fusion-zscore", "method": "zscore", "inputs": ["bm25-wpm", "bm25-word", "dense"], "weights": [0.5, 0.1, 0.4]}]}`,
	} {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		tp, err := rank.LoadTuned(f)
		if err != nil || len(tp.Fusions) != 1 || tp.Fusions[0].Name != p.Name || !slices.Equal(tp.Fusions[0].Weights, p.Weights) || tp.Adapter != nil {
			t.Errorf("%s: %+v, %v", name, tp, err)
		}
	}
	for name, text := range map[string]string{
		"empty.json":    `[]`,
		"types.json":    `[{"name": "fusion-zscore", "weights": "heavy"}]`,
		"mismatch.json": `[{"name": "fusion-rrf", "method": "zscore", "inputs": ["bm25-wpm", "dense"], "weights": [0.5, 0.5]}]`,
		"text.txt":      "hello",
	} {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if tp, err := rank.LoadTuned(f); err == nil {
			t.Errorf("%s accepted: %+v", name, tp)
		}
	}
	// An index without tuned parameters has nothing to transfer.
	idx := filepath.Join(dir, "plain.reqa")
	buildTestIndexDense(t, idx, false)
	if _, err := rank.LoadTuned(idx); !errors.Is(err, rank.ErrNoTunedParams) {
		t.Errorf("untuned index: %v, want ErrNoTunedParams", err)
	}
}

// TestUnweightedInputs: a fusion's inputs of weight 0 (the built-in
// default's bm25-wpm) are not resolved, in every way a fusion is asked,
// and every candidate's fused score is the one the whole fusion gives.
func TestUnweightedInputs(t *testing.T) {
	e := openDenseTestIndex(t)
	full := rank.DefaultFusion()
	zero := slices.Index(full.Weights, 0)
	if zero < 0 {
		t.Fatalf("the built-in default %v %v has no input of weight 0 to leave out", full.Inputs, full.Weights)
	}
	questions := []string{"Who kept the Bell Rock light?", "How do arch bridges carry loads?", "What do bees make?", "zzzz qqqq"}
	for _, ann := range []bool{false, true} {
		for _, how := range []string{"default", "by name", "by params"} {
			s := rank.Spec{Dense: rank.DenseOptions{ANN: ann}}
			var (
				r   rank.Ranker
				err error
			)
			switch how {
			case "default":
				r, err = e.Resolve(s)
			case "by name":
				s, _ = rank.ParseSpec(full.Name)
				s.Dense.ANN = ann
				r, err = e.Resolve(s)
			case "by params":
				r, err = e.Fused(full, s)
			}
			if err != nil {
				t.Fatalf("%s, ANN %v: %v", how, ann, err)
			}
			fr := r.(*rank.FusedRanker)
			for _, in := range fr.Inputs() {
				if in.Name() == full.Inputs[zero] {
					t.Errorf("%s, ANN %v: input %s of weight 0 resolved", how, ann, in.Name())
				}
			}
			if len(fr.Inputs()) != len(full.Inputs)-1 {
				t.Errorf("%s, ANN %v: %d inputs, want %d", how, ann, len(fr.Inputs()), len(full.Inputs)-1)
			}
		}
	}
	// Every candidate's fused score is the whole fusion's (without the
	// steps that reorder by text, which do not depend on the inputs).
	plain := full
	plain.DemoteQuestions, plain.DefinitionsFirst = false, false
	r, err := e.Fused(plain, rank.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	fr := r.(*rank.FusedRanker)
	for _, q := range questions {
		_, fused, _, err := fr.Breakdown(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		all := make([][]float64, len(plain.Inputs))
		for i, name := range plain.Inputs {
			in, err := e.Ranker(name)
			if err != nil {
				t.Fatal(err)
			}
			sc := rank.NewScores(in.Docs())
			if err := in.(rank.Scorer).ScoreAll(context.Background(), q, sc); err != nil {
				t.Fatal(err)
			}
			all[i] = sc.Scores
		}
		want := make([]float64, len(fused))
		if err := fuse.Fuse(plain, all, want); err != nil {
			t.Fatal(err)
		}
		for d := range want {
			if math.Abs(want[d]-fused[d]) > 1e-9*max(1, math.Abs(want[d])) {
				t.Fatalf("%q: candidate %d fused %v, the whole fusion %v", q, d, fused[d], want[d])
			}
		}
	}
}
