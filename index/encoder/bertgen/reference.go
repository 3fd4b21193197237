package bertgen

import (
	"math"
	"strconv"
)

// Net is the network of a Config in plain Go, for checking the graph.
type Net struct {
	c Config
	w *weights
}

// Reference generates the weights of c (the same as Model's) for Forward.
func Reference(c Config) (*Net, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	return &Net{c: c, w: generate(c)}, nil
}

// Forward returns the last hidden state [len(ids)][Hidden] of one sequence,
// every token attended; types nil means type 0 throughout.
func (n *Net) Forward(ids, types []int) [][]float64 {
	c := n.c
	h, s := c.Hidden, len(ids)
	f := func(name string) []float32 { return n.w.floats(name) }
	word, pos, typ := f("embeddings.word_embeddings.weight"), f("embeddings.position_embeddings.weight"), f("embeddings.token_type_embeddings.weight")
	x := make([][]float64, s)
	for p := range x {
		t := 0
		if types != nil {
			t = types[p]
		}
		x[p] = make([]float64, h)
		for j := range h {
			x[p][j] = float64(word[ids[p]*h+j]) + float64(typ[t*h+j]) + float64(pos[p*h+j])
		}
	}
	layerNorm := func(x [][]float64, prefix string) [][]float64 {
		g, b := f(prefix+".weight"), f(prefix+".bias")
		out := make([][]float64, len(x))
		for p, r := range x {
			var mean, vr float64
			for _, v := range r {
				mean += v
			}
			mean /= float64(len(r))
			for _, v := range r {
				vr += (v - mean) * (v - mean)
			}
			vr /= float64(len(r))
			out[p] = make([]float64, len(r))
			for j, v := range r {
				out[p][j] = (v-mean)/math.Sqrt(vr+1e-12)*float64(g[j]) + float64(b[j])
			}
		}
		return out
	}
	linear := func(x [][]float64, prefix string) [][]float64 {
		w, b := f(prefix+".weight"), f(prefix+".bias")
		out := make([][]float64, len(x))
		nOut := len(b)
		for p, r := range x {
			o := make([]float64, nOut)
			for j := range o {
				o[j] = float64(b[j])
			}
			for i, v := range r {
				row := w[i*nOut : (i+1)*nOut]
				for j, wv := range row {
					o[j] += v * float64(wv)
				}
			}
			out[p] = o
		}
		return out
	}
	add := func(a, b [][]float64) [][]float64 {
		out := make([][]float64, len(a))
		for p := range a {
			out[p] = make([]float64, len(a[p]))
			for j := range a[p] {
				out[p][j] = a[p][j] + b[p][j]
			}
		}
		return out
	}
	x = layerNorm(x, "embeddings.LayerNorm")
	dh := h / c.Heads
	for l := range c.Layers {
		p := "encoder.layer." + strconv.Itoa(l) + "."
		q, k, v := linear(x, p+"attention.self.query"), linear(x, p+"attention.self.key"), linear(x, p+"attention.self.value")
		ctx := make([][]float64, s)
		for i := range ctx {
			ctx[i] = make([]float64, h)
		}
		for hd := range c.Heads {
			lo := hd * dh
			for i := range s {
				sc := make([]float64, s)
				mx := math.Inf(-1)
				for j := range s {
					var d float64
					for e := lo; e < lo+dh; e++ {
						d += q[i][e] * k[j][e]
					}
					sc[j] = d / math.Sqrt(float64(dh))
					mx = math.Max(mx, sc[j])
				}
				var z float64
				for j := range sc {
					sc[j] = math.Exp(sc[j] - mx)
					z += sc[j]
				}
				for j := range s {
					for e := lo; e < lo+dh; e++ {
						ctx[i][e] += sc[j] / z * v[j][e]
					}
				}
			}
		}
		y := layerNorm(add(linear(ctx, p+"attention.output.dense"), x), p+"attention.output.LayerNorm")
		ff := linear(y, p+"intermediate.dense")
		for _, r := range ff {
			for j, v := range r {
				r[j] = v * 0.5 * (1 + math.Erf(v/math.Sqrt2))
			}
		}
		x = layerNorm(add(linear(ff, p+"output.dense"), y), p+"output.LayerNorm")
	}
	return x
}
