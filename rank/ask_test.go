package rank_test

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/fuse"
)

// TestAskFusedTopK checks that Engine.Ask answers a fusion with the ranking
// ScoreAll gives (every candidate's fused score sorted, ties by lower id):
// the same sentences, scores and input scores, for every fusion method and
// k (including k beyond the number of candidates).
func TestAskFusedTopK(t *testing.T) {
	requireDense(t)
	path := filepath.Join(t.TempDir(), "t.reqa")
	buildTestIndexDense(t, path, true)
	e, err := rank.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
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
		fr, err := e.Fused(p, rank.Spec{})
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		for _, q := range questions {
			inputs, fused, matched, err := fr.ScoreAll(q)
			if err != nil {
				t.Fatalf("%s %q: ScoreAll: %v", p.Name, q, err)
			}
			order := make([]int, len(fused))
			for i := range order {
				order[i] = i
			}
			sort.SliceStable(order, func(a, b int) bool { return fused[order[a]] > fused[order[b]] })
			for _, k := range []int{1, 3, 10, len(fused) + 5} {
				got, err := e.Ask(fr, q, k)
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
				for i, a := range got {
					d := order[i]
					if int(a.SentenceID) != d || a.Score != fused[d] || a.Rank != i+1 {
						t.Errorf("%s %q k=%d rank %d: sentence %d score %v, want %d score %v", p.Name, q, k, i+1, a.SentenceID, a.Score, d, fused[d])
					}
					for j, r := range fr.Inputs() {
						if a.Scores[r.Name()] != inputs[j][d] {
							t.Errorf("%s %q rank %d: %s score %v, want %v", p.Name, q, i+1, r.Name(), a.Scores[r.Name()], inputs[j][d])
						}
					}
				}
			}
		}
	}
}
