package rank

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/reqa/reqa/index/ann"
	"github.com/reqa/reqa/index/dense"
	"github.com/reqa/reqa/store"
)

// answerRows are the answer vectors normalize(e_s + λ·e_c) an index stores
// for its λ (store.RowsDenseAnswers), read in place from the file's memory
// map: opening them reads nothing in proportion to the index, and a
// question reads only the rows it scores. Each chunk is checked (checksum,
// finite values) the first time it is read. It is the ann.VectorSource
// of a graph loaded over them.
type answerRows struct {
	rows *store.Rows
	dim  int
	per  int
	zero []float32
	// bad is the first damaged chunk a graph walk met (a walk cannot
	// return an error; the search's caller reports it).
	bad atomic.Pointer[error]
}

// littleEndian: rows are stored little-endian and read as float32 where
// they lie only on a little-endian machine.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// openAnswerRows opens the stored answer vectors of an index whose meta m
// says it has them (m.Answers), for n sentences: in place, or through a
// cache of at most cache bytes when cache > 0 (OpenOptions.VectorCache).
// It returns nil when they cannot be read in place on this machine
// (big-endian): the caller mixes the vectors instead.
func openAnswerRows(r *store.Reader, m *store.DenseMeta, n int, cache int64) (*answerRows, error) {
	if !littleEndian {
		return nil, nil
	}
	var rs *store.Rows
	var err error
	if cache > 0 {
		rs, err = r.RowsCached(store.RowsDenseAnswers, cache)
	} else {
		rs, err = r.Rows(store.RowsDenseAnswers)
	}
	if err != nil {
		return nil, fmt.Errorf("answer vectors: %w: %w", store.ErrCorrupt, err)
	}
	if rs.Len() != n || rs.RowBytes() != 4*m.Dim {
		return nil, fmt.Errorf("answer vectors: %d rows of %d bytes, index holds %d sentences of dimension %d: %w",
			rs.Len(), rs.RowBytes(), n, m.Dim, store.ErrCorrupt)
	}
	rs.SetValidate(finiteRows)
	return &answerRows{rows: rs, dim: m.Dim, per: rs.PerChunk(), zero: make([]float32, m.Dim)}, nil
}

// finiteRows refuses rows holding a NaN or an infinity.
func finiteRows(b []byte) error {
	// A float32 is NaN or infinite when its exponent bits are all ones:
	// tested on the bits (a question's walk checks a thousand chunks).
	const exp = 0x7f800000
	for i, u := range uint32s(b) {
		if u&exp == exp {
			return fmt.Errorf("value %d is %v", i, math.Float32frombits(u))
		}
	}
	return nil
}

// floats views b (4-byte aligned, little-endian) as float32s.
func floats(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)
}

// Len and Dim implement ann.VectorSource.
func (a *answerRows) Len() int { return a.rows.Len() }
func (a *answerRows) Dim() int { return a.dim }

// Vector implements ann.VectorSource: row id in place (a copy when the
// rows are read through a cache), or zeros when its chunk is damaged
// (recorded for err).
func (a *answerRows) Vector(id uint32) []float32 {
	if !a.rows.Cached() {
		b, err := a.rows.Chunk(int(id) / a.per)
		if err != nil {
			a.bad.CompareAndSwap(nil, &err)
			return a.zero
		}
		i := int(id) % a.per * a.dim
		return floats(b)[i : i+a.dim : i+a.dim]
	}
	var v []float32
	err := a.rows.WithRow(int(id), func(b []byte) { v = slices.Clone(floats(b)) })
	if err != nil {
		a.bad.CompareAndSwap(nil, &err)
		return a.zero
	}
	return v
}

// source is what a graph is loaded over: the rows, or, read through a
// cache, the rows asked for dot products (ann.DotSource).
func (a *answerRows) source() ann.VectorSource {
	if a.rows.Cached() {
		return cachedAnswers{a}
	}
	return a
}

// cachedAnswers are answer rows read through a cache: a graph search asks
// them for dot products, each computed while its row is in the cache.
type cachedAnswers struct{ *answerRows }

// Dot implements ann.DotSource (0 for a damaged chunk, recorded for err).
func (a cachedAnswers) Dot(q []float32, id uint32) float32 {
	var d float32
	err := a.rows.WithRow(int(id), func(b []byte) { d = dense.Dot(q, floats(b)) })
	if err != nil {
		a.bad.CompareAndSwap(nil, &err)
	}
	return d
}

// err returns the damage a graph walk met, if any.
func (a *answerRows) err() error {
	if p := a.bad.Load(); p != nil {
		return *p
	}
	return nil
}

// chunks calls fn with each chunk's rows as vectors (valid while fn runs)
// and the id of its first row, checking each chunk as it goes.
func (a *answerRows) chunks(fn func(lo int, v dense.Vectors)) error {
	for c := range a.rows.NumChunks() {
		err := a.rows.With(c, func(b []byte) { fn(c*a.per, dense.Vectors{Dim: a.dim, Data: floats(b)}) })
		if err != nil {
			return err
		}
	}
	return nil
}

// scoreAll writes every answer's dot product with q into out.
func (a *answerRows) scoreAll(q []float32, out []float64) error {
	return a.chunks(func(lo int, v dense.Vectors) { dense.ScoreAll(v, q, out[lo:lo+v.Len()]) })
}

// scoreBlock is scoreAll for several questions at once.
func (a *answerRows) scoreBlock(qs [][]float32, outs [][]float64) error {
	sub := make([][]float64, len(outs))
	return a.chunks(func(lo int, v dense.Vectors) {
		for j := range outs {
			sub[j] = outs[j][lo : lo+v.Len()]
		}
		dense.ScoreBlock(v, qs, sub)
	})
}

// score returns the dot product of q with answer id.
func (a *answerRows) score(q []float32, id int) (float64, error) {
	var d float32
	err := a.rows.WithRow(id, func(b []byte) { d = dense.Dot(q, floats(b)) })
	return float64(d), err
}

// copyAll returns every answer vector, copied out of the file.
func (a *answerRows) copyAll() (dense.Vectors, error) {
	out := dense.Vectors{Dim: a.dim, Data: make([]float32, 0, a.Len()*a.dim)}
	err := a.chunks(func(_ int, v dense.Vectors) { out.Data = append(out.Data, v.Data...) })
	return out, err
}

// read runs fn, which reads rows in place, with the store's guard against
// a fault on a mapped page (store.Rows.Read).
func (a *answerRows) read(fn func() error) error { return a.rows.Read(fn) }
