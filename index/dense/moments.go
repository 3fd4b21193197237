package dense

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Moments are the mean and covariance of a set of vectors. For a question
// vector q, the scores q·v over the set have mean q·Mean and variance
// qᵀ·Cov·q, so a score distribution can be normalised without the vectors
// (an index kept in an external engine does this).
type Moments struct {
	Dim int
	// N is how many vectors the moments were computed from.
	N    int
	Mean []float64
	// Cov is the Dim×Dim covariance matrix, row-major (population: divided
	// by N).
	Cov []float64
}

// ComputeMoments returns the moments of v's rows, or of at most maxRows of
// them taken at an even stride when maxRows > 0 and v holds more.
func ComputeMoments(v Vectors, maxRows int) Moments {
	n, d := v.Len(), v.Dim
	step := 1
	if maxRows > 0 && n > maxRows {
		step = (n + maxRows - 1) / maxRows
	}
	m := Moments{Dim: d, Mean: make([]float64, d), Cov: make([]float64, d*d)}
	for i := 0; i < n; i += step {
		for j, x := range v.Row(i) {
			m.Mean[j] += float64(x)
		}
		m.N++
	}
	if m.N == 0 {
		return m
	}
	for j := range m.Mean {
		m.Mean[j] /= float64(m.N)
	}
	c := make([]float64, d)
	for i := 0; i < n; i += step {
		for j, x := range v.Row(i) {
			c[j] = float64(x) - m.Mean[j]
		}
		for a := 0; a < d; a++ {
			ca := c[a]
			row := m.Cov[a*d : a*d+d]
			for b := a; b < d; b++ {
				row[b] += ca * c[b]
			}
		}
	}
	for a := 0; a < d; a++ {
		for b := a; b < d; b++ {
			x := m.Cov[a*d+b] / float64(m.N)
			m.Cov[a*d+b], m.Cov[b*d+a] = x, x
		}
	}
	return m
}

// Stats returns the mean and standard deviation of q·v over the vectors
// the moments describe.
func (m Moments) Stats(q []float32) (mean, std float64) {
	if len(q) != m.Dim {
		return 0, 0
	}
	var v float64
	for a, qa := range q {
		mean += float64(qa) * m.Mean[a]
		row := m.Cov[a*m.Dim : (a+1)*m.Dim]
		var s float64
		for b, qb := range q {
			s += row[b] * float64(qb)
		}
		v += float64(qa) * s
	}
	return mean, math.Sqrt(max(v, 0))
}

const momentsMagic = "RQMO"

// Encode writes the moments: "RQMO", uint32 dim, uint64 n, then the mean
// and the covariance as little-endian float64s.
func (m Moments) Encode() []byte {
	b := make([]byte, 0, 16+8*(len(m.Mean)+len(m.Cov)))
	b = append(b, momentsMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(m.Dim))
	b = binary.LittleEndian.AppendUint64(b, uint64(m.N))
	for _, x := range m.Mean {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	for _, x := range m.Cov {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// ErrMoments reports an encoding Encode did not write.
var ErrMoments = errors.New("dense: bad moments encoding")

// DecodeMoments reads what Encode wrote; damaged input yields ErrMoments.
func DecodeMoments(b []byte) (Moments, error) {
	if len(b) < 16 || string(b[:4]) != momentsMagic {
		return Moments{}, fmt.Errorf("%w: no header", ErrMoments)
	}
	d := int(binary.LittleEndian.Uint32(b[4:]))
	n := binary.LittleEndian.Uint64(b[8:])
	if d <= 0 || d > 1<<14 || n > 1<<40 || uint64(len(b)-16) != 8*uint64(d+d*d) {
		return Moments{}, fmt.Errorf("%w: dim %d, %d bytes", ErrMoments, d, len(b))
	}
	m := Moments{Dim: d, N: int(n), Mean: make([]float64, d), Cov: make([]float64, d*d)}
	off := 16
	for _, dst := range [][]float64{m.Mean, m.Cov} {
		for i := range dst {
			x := math.Float64frombits(binary.LittleEndian.Uint64(b[off:]))
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return Moments{}, fmt.Errorf("%w: value %d is %v", ErrMoments, i, x)
			}
			dst[i] = x
			off += 8
		}
	}
	return m, nil
}

// Merge returns the moments of the union of the two sets m and o
// describe (Chan et al.'s pairwise update): exact when both were computed
// from every row.
func (m Moments) Merge(o Moments) (Moments, error) {
	if m.N == 0 {
		return o, nil
	}
	if o.N == 0 {
		return m, nil
	}
	if m.Dim != o.Dim {
		return Moments{}, fmt.Errorf("%w: merging moments of dimension %d and %d", ErrMoments, m.Dim, o.Dim)
	}
	d := m.Dim
	n := float64(m.N + o.N)
	wa, wb := float64(m.N)/n, float64(o.N)/n
	out := Moments{Dim: d, N: m.N + o.N, Mean: make([]float64, d), Cov: make([]float64, d*d)}
	delta := make([]float64, d)
	for j := range delta {
		delta[j] = o.Mean[j] - m.Mean[j]
		out.Mean[j] = wa*m.Mean[j] + wb*o.Mean[j]
	}
	for a := 0; a < d; a++ {
		for b := 0; b < d; b++ {
			out.Cov[a*d+b] = wa*m.Cov[a*d+b] + wb*o.Cov[a*d+b] + wa*wb*delta[a]*delta[b]
		}
	}
	return out, nil
}
