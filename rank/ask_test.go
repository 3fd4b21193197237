package rank_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/reqa/reqa/index/encoder"
	"github.com/reqa/reqa/index/encoder/uselite"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/fuse"
)

// TestAskFusedTopK checks that Index.Ask answers a fusion with the ranking
// ScoreAll gives (every candidate's fused score sorted, ties by lower id):
// the same sentences, scores and input scores, for every fusion method and
// k (including k beyond the number of candidates).
func TestAskFusedTopK(t *testing.T) {
	e := openDenseTestIndex(t)
	in := rank.DefaultFusionInputs
	fusions := []fuse.Params{
		rank.DefaultFusion(),
		rank.DefaultRRF(),
		{Name: "fusion-minmax", Method: "minmax", Inputs: in, Weights: []float64{0.3, 0.3, 0.4}},
		{Name: "fusion-adaptive", Method: "adaptive", Inputs: in, Bounds: []float64{0.2},
			BucketWeights: [][]float64{{0.2, 0.2, 0.6}, {0.6, 0.2, 0.2}}},
		{Name: "fusion-learned", Method: "learned", Inputs: in, Weights: []float64{1, 0.1, 1, 0.1, 2, 0.5}},
	}
	questions := []string{"Who kept the Bell Rock light?", "How do arch bridges carry loads?", "What do bees make?",
		"Where do ants live?", "What guides ships at night?", "zzzz qqqq", "the"}
	for _, p := range fusions {
		for _, ann := range []bool{false, true} {
			r, err := e.Fused(p, rank.Spec{Dense: rank.DenseOptions{ANN: ann}})
			if err != nil {
				t.Fatalf("%s: %v", p.Name, err)
			}
			fr := r.(*rank.FusedRanker)
			// Asked as ask asks (ANN), the stat-based methods are pooled.
			if want := ann && (p.Method == "zscore" || p.Method == "learned" || p.Method == "adaptive"); fr.Pooled() != want {
				t.Errorf("%s, ANN %v: pooled %v, want %v", p.Name, ann, fr.Pooled(), want)
			}
			for _, q := range questions {
				inputs, fused, matched, err := fr.Breakdown(context.Background(), q)
				if err != nil {
					t.Fatalf("%s %q: ScoreAll: %v", p.Name, q, err)
				}
				order := make([]int, len(fused))
				for i := range order {
					order[i] = i
				}
				sort.SliceStable(order, func(a, b int) bool { return fused[order[a]] > fused[order[b]] })
				for _, k := range []int{1, 3, 10, len(fused) + 5} {
					got, err := e.Ask(context.Background(), fr, q, k)
					if err != nil {
						t.Fatalf("%s %q k=%d: %v", p.Name, q, k, err)
					}
					if !matched {
						if len(got) != 0 {
							t.Errorf("%s %q: %d answers to a question nothing matches", p.Name, q, len(got))
						}
						continue
					}
					if want := min(k, len(fused)); len(got) != want {
						t.Fatalf("%s %q k=%d: %d answers, want %d", p.Name, q, k, len(got), want)
					}
					// A pooled fusion computes the dense statistics from the
					// answer vectors' moments and the scores from float32
					// rows: equal up to rounding.
					tol := 0.0
					if fr.Pooled() {
						tol = 1e-6
					}
					near := func(a, b float64) bool { return math.Abs(a-b) <= tol*max(1, math.Abs(b)) }
					for i, a := range got {
						d := order[i]
						if (int(a.SentenceID) != d && !near(fused[a.SentenceID], fused[d])) || !near(a.Score, fused[a.SentenceID]) || a.Rank != i+1 {
							t.Errorf("%s %q k=%d rank %d: sentence %d score %v, want %d score %v", p.Name, q, k, i+1, a.SentenceID, a.Score, d, fused[d])
						}
						for j, r := range fr.Inputs() {
							if !near(a.Scores[r.Name()], inputs[j][a.SentenceID]) {
								t.Errorf("%s %q rank %d: %s score %v, want %v", p.Name, q, i+1, r.Name(), a.Scores[r.Name()], inputs[j][a.SentenceID])
							}
						}
					}
				}
			}
		}
	}
}

// TestSharedDense checks that a fusion of several dense inputs (one pass
// over the sentence and context vectors, scoreShared) gives each input the
// scores it gives alone, to float32 rounding, and the same answers.
func TestSharedDense(t *testing.T) {
	e := openDenseTestIndex(t)
	p := fuse.Params{Name: "fusion-dd", Method: "zscore", Inputs: []string{"bm25-wpm", "dense", "dense/sent"}, Weights: []float64{0.5, 0.3, 0.2}}
	fr, err := fusedRanker(e, p)
	if err != nil {
		t.Fatal(err)
	}
	ref := rank.Unshared(fr)
	for _, q := range []string{"Who kept the Bell Rock light?", "How do arch bridges carry loads?", "What do bees make?", "Where do ants live?"} {
		got, _, _, err := fr.Breakdown(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		want, _, _, err := ref.Breakdown(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		for j := range got {
			for i := range got[j] {
				if d := got[j][i] - want[j][i]; d > 1e-6 || d < -1e-6 {
					t.Fatalf("%q: %s candidate %d: %v shared, %v alone", q, p.Inputs[j], i, got[j][i], want[j][i])
				}
			}
		}
		a, err := e.Ask(context.Background(), fr, q, 5)
		if err != nil {
			t.Fatal(err)
		}
		b, err := e.Ask(context.Background(), ref, q, 5)
		if err != nil {
			t.Fatal(err)
		}
		for i := range min(len(a), len(b)) {
			if a[i].SentenceID != b[i].SentenceID {
				t.Errorf("%q rank %d: sentence %d shared, %d alone", q, i+1, a[i].SentenceID, b[i].SentenceID)
			}
		}
		if len(a) != len(b) {
			t.Errorf("%q: %d answers shared, %d alone", q, len(a), len(b))
		}
	}
}

// TestSharedDenseSQuAD compares the top 10 of the index's default ranker
// with and without the shared dense pass on the first 1,000 SQuAD
// questions, on the index named by $REQA_PEERS_INDEX (the SQuAD index with
// embeddings and its tuned fusion; skipped without it).
func TestSharedDenseSQuAD(t *testing.T) {
	idx := os.Getenv("REQA_PEERS_INDEX")
	if idx == "" {
		// May skip in CI: opt-in; TestSharedDense covers the same in make test.
		t.Skip("set REQA_PEERS_INDEX to the SQuAD index with embeddings and its tuned fusion")
	}
	d, err := ingest.ReadDataset(squadDir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := rank.Open(idx)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	spec, err := rank.ParseSpec("")
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Resolve(spec)
	if err != nil {
		t.Fatal(err)
	}
	fr, ok := r.(*rank.FusedRanker)
	if !ok {
		// No shared dense pass to compare there.
		// May skip in CI: the opted-in index's default is not a fusion.
		t.Skipf("the default ranker %s is not a fusion", r.Name())
	}
	ref := rank.Unshared(fr)
	diff := 0
	n := min(1000, len(d.Questions))
	for _, q := range d.Questions[:n] {
		a, err := e.Ask(context.Background(), fr, q.Text, 10)
		if err != nil {
			t.Fatal(err)
		}
		b, err := e.Ask(context.Background(), ref, q.Text, 10)
		if err != nil {
			t.Fatal(err)
		}
		same := len(a) == len(b)
		for i := range min(len(a), len(b)) {
			same = same && a[i].SentenceID == b[i].SentenceID
		}
		if !same {
			diff++
			t.Logf("%q: top 10 differs", q.Text)
		}
	}
	t.Logf("%s: %d of %d questions' top 10 differ", fr.Name(), diff, n)
	if diff > 0 {
		t.Errorf("%d of %d questions' top 10 differ", diff, n)
	}
}

// TestAskDistinctSentences checks that Ask answers each sentence once: a
// sentence that stands twice in a document is one answer, ranked where the
// better copy ranks, with the other copy's source in Also, and the k
// answers are k distinct sentences ranked 1…k.
func TestAskDistinctSentences(t *testing.T) {
	text := "Run make install to set it up.\n\nThe tool reads a config file at start.\n\nRun make  install to set it up.\n\n"
	for _, w := range []string{"Apples", "Boats", "Clouds", "Drums", "Eagles", "Ferns", "Gates", "Hills"} {
		text += w + " are not discussed here.\n\n"
	}
	e := openTextIndex(t, text)
	r, err := e.Ranker("bm25-word")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{1, 2, 10} {
		as, err := e.Ask(context.Background(), r, "How do I set it up with make install, and which tool?", k)
		if err != nil {
			t.Fatal(err)
		}
		if want := min(k, 2); len(as) != want {
			t.Fatalf("k=%d: %d answers, want %d: %+v", k, len(as), want, as)
		}
		if as[0].Sentence != "Run make install to set it up." || len(as[0].Also) != 1 || !strings.HasSuffix(as[0].Also[0], ":5") {
			t.Errorf("k=%d: first answer %q also %q, want the install sentence also at line 5", k, as[0].Sentence, as[0].Also)
		}
		seen := map[string]bool{}
		for i, a := range as {
			if a.Rank != i+1 || seen[a.Sentence] {
				t.Errorf("k=%d: answer %d ranked %d: %q (repeated: %v)", k, i, a.Rank, a.Sentence, seen[a.Sentence])
			}
			seen[a.Sentence] = true
		}
	}
}

// TestFastStart: an index opened for one-shot asking embeds questions in
// Go, and every ranker answers as with ONNX Runtime (the same top five,
// scores within int8 rounding).
func TestFastStart(t *testing.T) {
	requireDense(t)
	path := filepath.Join(t.TempDir(), "t.reqa")
	buildIndexPrecision(t, path, true, uselite.PrecisionInt8, "../ingest/testdata/corpus")
	rt, err := rank.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	fast, err := rank.OpenWith(path, rank.OpenOptions{FastStart: true})
	if err != nil {
		t.Fatal(err)
	}
	defer fast.Close()
	questions := []string{"Who kept the Bell Rock light?", "How do arch bridges carry loads?", "What do bees make?", "zzzz qqqq"}
	for _, name := range []string{"", "dense", "fusion-rrf"} {
		spec, err := rank.ParseSpec(name)
		if err != nil {
			t.Fatal(err)
		}
		spec.Dense.ANN = true
		var answers [2][][]rank.Answer
		for i, e := range []*rank.Index{rt, fast} {
			r, err := e.Resolve(spec)
			if err != nil {
				t.Fatalf("%q: %v", name, err)
			}
			for _, q := range questions {
				a, err := e.Ask(context.Background(), r, q, 5)
				if err != nil {
					t.Fatalf("%q %q: %v", name, q, err)
				}
				answers[i] = append(answers[i], a)
			}
		}
		if g, r := rank.QuestionEngine(fast), rank.QuestionEngine(rt); g != encoder.EngineGo || r != encoder.EngineRuntime {
			t.Errorf("%q: questions embedded by %s with fast start, %s without", name, g, r)
		}
		for qi, q := range questions {
			a, b := answers[0][qi], answers[1][qi]
			if len(a) != len(b) {
				t.Fatalf("%q %q: %d answers with the runtime, %d with fast start", name, q, len(a), len(b))
			}
			for j := range a {
				if a[j].SentenceID != b[j].SentenceID || math.Abs(a[j].Score-b[j].Score) > 1e-3 {
					t.Errorf("%q %q #%d: sentence %d (%.5f) with the runtime, %d (%.5f) with fast start", name, q, j, a[j].SentenceID, a[j].Score, b[j].SentenceID, b[j].Score)
				}
			}
		}
	}
}
