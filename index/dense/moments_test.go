package dense

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestMomentsStats checks that Moments.Stats gives the mean and standard
// deviation of the scores q·v computed directly, for every row and for a
// strided sample.
func TestMomentsStats(t *testing.T) {
	const n, d = 500, 7
	rows := gaussianRows(3, n, d)
	v, err := FromRows(rows, d)
	if err != nil {
		t.Fatal(err)
	}
	q := []float32{0.3, -1, 0.5, 2, 0, -0.25, 1}
	for _, tc := range []struct {
		name    string
		maxRows int
		step    int
	}{{"all rows", 0, 1}, {"all rows (cap above n)", 1000, 1}, {"every 5th", 100, 5}} {
		m := ComputeMoments(v, tc.maxRows)
		var scores []float64
		for i := 0; i < n; i += tc.step {
			scores = append(scores, float64(Dot(q, v.Row(i))))
		}
		var mean, ss float64
		for _, s := range scores {
			mean += s
		}
		mean /= float64(len(scores))
		for _, s := range scores {
			ss += (s - mean) * (s - mean)
		}
		std := math.Sqrt(ss / float64(len(scores)))
		gm, gs := m.Stats(q)
		if m.N != len(scores) || math.Abs(gm-mean) > 1e-5 || math.Abs(gs-std) > 1e-5 {
			t.Errorf("%s: N %d mean %g std %g, want %d %g %g", tc.name, m.N, gm, gs, len(scores), mean, std)
		}
		back, err := DecodeMoments(m.Encode())
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if bm, bs := back.Stats(q); bm != gm || bs != gs || back.N != m.N {
			t.Errorf("%s: round trip changed the stats", tc.name)
		}
	}
}

func TestDecodeMomentsRefuses(t *testing.T) {
	good := Moments{Dim: 2, N: 3, Mean: []float64{1, 2}, Cov: []float64{1, 0, 0, 1}}.Encode()
	nan := Moments{Dim: 1, N: 1, Mean: []float64{math.NaN()}, Cov: []float64{1}}.Encode()
	for _, tc := range []struct {
		name string
		b    []byte
	}{{"empty", nil}, {"magic", append([]byte("XXXX"), good[4:]...)}, {"short", good[:len(good)-1]},
		{"long", append(good, 0)}, {"dim 0", append(append([]byte("RQMO"), 0, 0, 0, 0), good[8:]...)}, {"NaN", nan}} {
		if _, err := DecodeMoments(tc.b); !errors.Is(err, ErrMoments) {
			t.Errorf("%s: err %v, want ErrMoments", tc.name, err)
		}
	}
}

func FuzzDecodeMoments(f *testing.F) {
	f.Add(Moments{Dim: 2, N: 3, Mean: []float64{1, 2}, Cov: []float64{1, 0.5, 0.5, 1}}.Encode())
	f.Add([]byte("RQMO"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeMoments(b)
		if err != nil {
			if !errors.Is(err, ErrMoments) {
				t.Fatalf("error %v does not wrap ErrMoments", err)
			}
			return
		}
		if string(m.Encode()) != string(b) {
			t.Fatal("decoded moments re-encode differently")
		}
	})
}

// TestMomentsMerge: the moments of two halves merged equal those of the
// whole.
func TestMomentsMerge(t *testing.T) {
	const n, d = 300, 5
	rows := gaussianRows(5, n, d)
	all, _ := FromRows(rows, d)
	a, _ := FromRows(rows[:120], d)
	b, _ := FromRows(rows[120:], d)
	want := ComputeMoments(all, 0)
	got, err := ComputeMoments(a, 0).Merge(ComputeMoments(b, 0))
	if err != nil {
		t.Fatal(err)
	}
	if got.N != want.N {
		t.Fatalf("N %d, want %d", got.N, want.N)
	}
	for i := range want.Mean {
		if math.Abs(got.Mean[i]-want.Mean[i]) > 1e-9 {
			t.Errorf("mean[%d] %g, want %g", i, got.Mean[i], want.Mean[i])
		}
	}
	for i := range want.Cov {
		if math.Abs(got.Cov[i]-want.Cov[i]) > 1e-9 {
			t.Errorf("cov[%d] %g, want %g", i, got.Cov[i], want.Cov[i])
		}
	}
	if _, err := want.Merge(Moments{Dim: 2, N: 1, Mean: []float64{0, 0}, Cov: make([]float64, 4)}); !errors.Is(err, ErrMoments) {
		t.Errorf("merging dimensions 5 and 2: %v", err)
	}
}

// gaussianRows returns n rows of d values, column j drawn from a normal
// distribution of mean j/3 and deviation j+1, from the given seed.
func gaussianRows(seed uint64, n, d int) [][]float32 {
	r := rand.New(rand.NewPCG(seed, seed+1))
	rows := make([][]float32, n)
	for i := range rows {
		rows[i] = make([]float32, d)
		for j := range rows[i] {
			rows[i][j] = float32(r.NormFloat64()*float64(j+1)) + float32(j)/3
		}
	}
	return rows
}
