package adapter

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/reqa/reqa/index/dense"
)

// synthetic builds a retrieval task where questions are a fixed linear
// distortion of their answers plus noise, so the identity retrieves poorly
// and a learned map can do better.
func synthetic(seed uint64, dim, nAns, nQ int) Data {
	rng := rand.New(rand.NewPCG(seed, 1))
	ans := make([]float32, nAns*dim)
	for i := range ans {
		ans[i] = float32(rng.NormFloat64())
	}
	ctx := make([]uint32, nAns)
	for i := 0; i < nAns; i++ {
		dense.Normalize(ans[i*dim : (i+1)*dim])
		ctx[i] = uint32(i / 4)
	}
	mix := make([]float32, dim*dim)
	for i := range mix {
		mix[i] = float32(rng.NormFloat64())
	}
	d := Data{Answers: dense.Vectors{Dim: dim, Data: ans}, Context: ctx}
	for i := 0; i < nQ; i++ {
		g := uint32(rng.IntN(nAns))
		a := ans[int(g)*dim : (int(g)+1)*dim]
		q := make([]float32, dim)
		for o := 0; o < dim; o++ {
			q[o] = 0.3*a[o] + dot(mix[o*dim:(o+1)*dim], a)/float32(math.Sqrt(float64(dim))) + 0.1*float32(rng.NormFloat64())
		}
		dense.Normalize(q)
		d.Questions = append(d.Questions, q)
		d.Gold = append(d.Gold, []uint32{g})
	}
	return d
}

var kinds = []struct {
	name string
	kind Kind
}{{"linear", Linear}, {"lowrank", LowRank}, {"mlp", MLP}}

func TestTrainingLearnsSyntheticTask(t *testing.T) {
	data := synthetic(7, 16, 120, 600)
	base1, _ := Evaluate(nil, data.Questions, data.Gold, data.Answers, 1)
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			opt := Options{Kind: k.kind, Hidden: 16, Epochs: 30, Batch: 32, Temperature: 0.1, LR: 1e-2, WeightDecay: -1, ValFraction: -1, Seed: 3}
			ad, rep, err := Train(context.Background(), data, opt)
			if err != nil {
				t.Fatal(err)
			}
			first, last := rep.Losses[0], rep.Losses[len(rep.Losses)-1]
			if !(last < 0.8*first) {
				t.Errorf("loss %.4f → %.4f: not lowered", first, last)
			}
			p1, _ := Evaluate(ad, data.Questions, data.Gold, data.Answers, 1)
			if p1 <= base1 {
				t.Errorf("P@1 %.2f with the adapter, %.2f without", p1, base1)
			}
		})
	}
}

func TestTrainingIsDeterministic(t *testing.T) {
	data := synthetic(11, 12, 80, 300)
	for _, k := range kinds {
		for _, hard := range []bool{false, true} {
			t.Run(k.name, func(t *testing.T) {
				var out [][]byte
				for _, workers := range []int{1, 2, 3} {
					opt := Options{Kind: k.kind, Hidden: 8, Epochs: 4, Batch: 24, Seed: 42, HardNegatives: hard, AllGolds: true, Workers: workers, EncoderHash: "h"}
					ad, _, err := Train(context.Background(), data, opt)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, ad.Marshal())
				}
				for i := 1; i < len(out); i++ {
					if !bytes.Equal(out[0], out[i]) {
						t.Fatalf("run %d differs from run 0 for the same seed", i)
					}
				}
				opt := Options{Kind: k.kind, Hidden: 8, Epochs: 4, Batch: 24, Seed: 43, HardNegatives: hard, AllGolds: true, EncoderHash: "h"}
				ad, _, err := Train(context.Background(), data, opt)
				if err != nil {
					t.Fatal(err)
				}
				if bytes.Equal(out[0], ad.Marshal()) {
					t.Fatal("another seed gave identical weights")
				}
			})
		}
	}
}

func TestTrainCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := Train(ctx, synthetic(1, 8, 20, 50), Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}

func TestTrainBadInput(t *testing.T) {
	good := synthetic(1, 8, 20, 50)
	for _, tc := range []struct {
		name string
		edit func(d *Data)
		opt  Options
	}{
		{"no answers", func(d *Data) { d.Answers = dense.Vectors{} }, Options{}},
		{"gold count", func(d *Data) { d.Gold = d.Gold[1:] }, Options{}},
		{"question width", func(d *Data) { d.Questions[3] = d.Questions[3][:4] }, Options{}},
		{"no gold", func(d *Data) { d.Gold = make([][]uint32, len(d.Questions)) }, Options{}},
		{"hard without contexts", func(d *Data) { d.Context = nil }, Options{HardNegatives: true}},
		{"decay wipes weights", func(d *Data) {}, Options{LR: 0.1, WeightDecay: 10}},
		{"group count", func(d *Data) { d.Group = []int{1} }, Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := synthetic(1, 8, 20, 50)
			d.Questions = append([][]float32(nil), good.Questions...)
			tc.edit(&d)
			if _, _, err := Train(context.Background(), d, tc.opt); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func trained(t *testing.T, k Kind) *Adapter {
	t.Helper()
	ad, _, err := Train(context.Background(), synthetic(5, 8, 30, 120), Options{Kind: k, Hidden: 4, Epochs: 2, Batch: 16, Seed: 9, EncoderHash: "enc-hash"})
	if err != nil {
		t.Fatal(err)
	}
	return ad
}

func TestMarshalRoundTrip(t *testing.T) {
	q := []float32{0.5, -0.1, 0.3, 0.2, 0.1, 0.7, -0.2, 0.1}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			ad := trained(t, k.kind)
			b := ad.Marshal()
			back, err := Unmarshal(b)
			if err != nil {
				t.Fatal(err)
			}
			if back.Kind != ad.Kind || back.Dim != ad.Dim || back.Hidden != ad.Hidden || back.EncoderHash != "enc-hash" {
				t.Fatalf("header %v %d %d %q, want %v %d %d", back.Kind, back.Dim, back.Hidden, back.EncoderHash, ad.Kind, ad.Dim, ad.Hidden)
			}
			if !bytes.Equal(back.Marshal(), b) {
				t.Fatal("re-marshalled bytes differ")
			}
			a1, a2 := ad.Apply(q), back.Apply(q)
			for i := range a1 {
				if a1[i] != a2[i] {
					t.Fatalf("Apply differs at %d: %v vs %v", i, a1[i], a2[i])
				}
			}
		})
	}
}

func TestApplyIdentityAtStart(t *testing.T) {
	for _, k := range kinds {
		ad, err := newAdapter(k.kind, 4, 2, "")
		if err != nil {
			t.Fatal(err)
		}
		got := ad.Apply([]float32{3, 0, 4, 0})
		want := []float32{0.6, 0, 0.8, 0}
		for i := range want {
			if math.Abs(float64(got[i]-want[i])) > 1e-6 {
				t.Fatalf("%s: Apply = %v, want %v", k.name, got, want)
			}
		}
	}
}

func TestUnmarshalDamaged(t *testing.T) {
	b := trained(t, MLP).Marshal()
	for i := 0; i < len(b); i += 7 {
		d := append([]byte(nil), b...)
		d[i] ^= 0x40
		if _, err := Unmarshal(d); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("byte %d flipped: err %v, want ErrCorrupt", i, err)
		}
	}
	for _, n := range []int{0, 5, 20, len(b) / 2, len(b) - 1} {
		if _, err := Unmarshal(b[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated to %d: err %v, want ErrCorrupt", n, err)
		}
	}
}

func TestEncoderMismatchRefused(t *testing.T) {
	b := trained(t, Linear).Marshal()
	for _, tc := range []struct {
		name string
		hash string
		dim  int
		want error
	}{
		{"same encoder", "enc-hash", 8, nil},
		{"other hash", "other-hash", 8, ErrEncoderMismatch},
		{"other width", "enc-hash", 16, ErrEncoderMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(b, tc.hash, tc.dim)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
		})
	}
}

func TestParseKind(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Kind
		ok   bool
	}{{"linear", Linear, true}, {"lowrank", LowRank, true}, {"mlp", MLP, true}, {"deep", 0, false}, {"", 0, false}} {
		k, err := ParseKind(tc.in)
		if (err == nil) != tc.ok || k != tc.want {
			t.Errorf("ParseKind(%q) = %v, %v", tc.in, k, err)
		}
	}
}

func FuzzUnmarshal(f *testing.F) {
	for _, k := range []Kind{Linear, LowRank, MLP} {
		ad, _ := newAdapter(k, 4, 2, "h")
		f.Add(ad.Marshal())
	}
	f.Add([]byte("REQAADPT"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ad, err := Unmarshal(b)
		if err != nil {
			return
		}
		if !bytes.Equal(ad.Marshal(), b) {
			t.Fatal("accepted bytes do not round-trip")
		}
		ad.Apply(make([]float32, ad.Dim))
	})
}
