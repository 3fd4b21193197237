package fuse

import (
	"math"
)

// The "learned" method is the adaptive fusion taken further: each input's
// weight is a linear function of the question's evidence,
//
//	w_r(q) = a_r + b_r · margin(q),
//
// where margin(q) is the first input's relative top-two margin (how sure
// BM25 is), and the fused score is Σ_r w_r(q) · z_r(d). The 2n coefficients
// are learned on the tuning questions with the listwise softmax objective
// the MultiReQA paper trains its encoders with — maximise
// log Σ_{gold} exp(s) − log Σ_{pool} exp(s) — by full-batch Adam from a fixed
// start, so training is deterministic. Weights may be negative (an input can
// act as a penalty).

// learnedIters and learnedRate set the optimiser; learnedL2 its weight decay.
const (
	learnedIters = 300
	learnedRate  = 0.05
	learnedL2    = 1e-4
)

// learnedWeights returns the per-input weights for a question whose first
// input has margin m.
func (p Params) learnedWeights(m float64) []float64 {
	n := len(p.Inputs)
	w := make([]float64, n)
	for r := 0; r < n; r++ {
		w[r] = p.Weights[r] + p.Weights[n+r]*m
	}
	return w
}

// trainLearned fits the 2n coefficients on exs.
func trainLearned(n int, exs []Example) []float64 {
	theta := make([]float64, 2*n)
	for r := 0; r < n; r++ {
		theta[r] = 1 / float64(n)
	}
	m1 := make([]float64, len(theta))
	m2 := make([]float64, len(theta))
	grad := make([]float64, len(theta))
	// Precompute z-features per example.
	type feat struct {
		z    [][]float64 // [input][pool]
		marg float64
		gold []bool
	}
	fs := make([]feat, len(exs))
	for i := range exs {
		ex := &exs[i]
		f := feat{z: make([][]float64, n), marg: ex.Stats[0].Margin(), gold: ex.Gold}
		for r := 0; r < n; r++ {
			f.z[r] = make([]float64, len(ex.Pool))
			for j, x := range ex.Scores[r] {
				f.z[r][j] = ex.Stats[r].Z(x)
			}
		}
		fs[i] = f
	}
	s := make([]float64, 0, 256)
	for it := 1; it <= learnedIters; it++ {
		clear(grad)
		for _, f := range fs {
			np := len(f.gold)
			s = s[:0]
			w := make([]float64, n)
			for r := 0; r < n; r++ {
				w[r] = theta[r] + theta[n+r]*f.marg
			}
			mx := math.Inf(-1)
			for j := 0; j < np; j++ {
				v := 0.0
				for r := 0; r < n; r++ {
					v += w[r] * f.z[r][j]
				}
				s = append(s, v)
				mx = math.Max(mx, v)
			}
			var zAll, zGold float64
			for j, v := range s {
				e := math.Exp(v - mx)
				zAll += e
				if f.gold[j] {
					zGold += e
				}
			}
			if zGold == 0 {
				continue
			}
			// d(-loss)/dw_r = Σ_j (p_gold(j) − p_all(j)) z_r(j)
			for j, v := range s {
				e := math.Exp(v - mx)
				pa := e / zAll
				pg := 0.0
				if f.gold[j] {
					pg = e / zGold
				}
				c := pa - pg // gradient of the loss
				if c == 0 {
					continue
				}
				for r := 0; r < n; r++ {
					g := c * f.z[r][j]
					grad[r] += g
					grad[n+r] += g * f.marg
				}
			}
		}
		inv := 1 / float64(len(fs))
		for k := range theta {
			g := grad[k]*inv + learnedL2*theta[k]
			m1[k] = 0.9*m1[k] + 0.1*g
			m2[k] = 0.999*m2[k] + 0.001*g*g
			mh := m1[k] / (1 - math.Pow(0.9, float64(it)))
			vh := m2[k] / (1 - math.Pow(0.999, float64(it)))
			theta[k] -= learnedRate * mh / (math.Sqrt(vh) + 1e-8)
		}
	}
	return theta
}

// learnedP1 scores learned parameters on exs (P@1 in percent).
func (p Params) learnedP1(exs []Example) float64 {
	hits := 0.0
	buf := make([]float64, 0, 256)
	for i := range exs {
		w := p.learnedWeights(exs[i].Stats[0].Margin())
		if cap(buf) < len(exs[i].Pool) {
			buf = make([]float64, 0, len(exs[i].Pool))
		}
		if hit, _ := exs[i].outcome("zscore", w, buf); hit {
			hits++
		}
	}
	return 100 * hits / float64(max(len(exs), 1))
}
