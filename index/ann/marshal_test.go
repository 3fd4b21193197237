package ann

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"
)

func marshal(t testing.TB, g *Graph) []byte {
	t.Helper()
	b, err := g.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// resum recomputes the trailing checksum, so a test can damage the
// structure behind it.
func resum(b []byte) []byte {
	b = slices.Clone(b)
	body := b[:len(b)-checksumLen]
	binary.LittleEndian.PutUint32(b[len(body):], crc32.Checksum(body, castagnoli))
	return b
}

func TestRoundTrip(t *testing.T) {
	d := smallSet()
	g := buildGraph(t, d, Config{M: 8, EfConstruction: 64, EfSearch: 40, Seed: 9})
	data := marshal(t, g)
	h, err := Load(data, d.base, d.dim)
	if err != nil {
		t.Fatal(err)
	}
	if h.Len() != g.Len() || h.Dim() != g.Dim() || h.Config() != g.Config() {
		t.Fatalf("loaded %d×%d %+v, built %d×%d %+v", h.Len(), h.Dim(), h.Config(), g.Len(), g.Dim(), g.Config())
	}
	for i := range d.nq() {
		for _, ef := range []int{0, 10, 100} {
			if a, b := g.Search(d.query(i), 10, ef), h.Search(d.query(i), 10, ef); !slices.Equal(a, b) {
				t.Fatalf("query %d ef %d: built %v, loaded %v", i, ef, a, b)
			}
		}
	}
	if again := marshal(t, h); !bytes.Equal(again, data) {
		t.Error("re-encoding a loaded graph changes its bytes")
	}
	if unsafe.SliceData(h.Vectors()) != unsafe.SliceData(d.base) {
		t.Error("Load copied the vectors")
	}
}

func TestRoundTripEmpty(t *testing.T) {
	data := marshal(t, New(5, Config{Seed: 1}))
	g, err := Load(data, nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	if g.Len() != 0 || g.Search(make([]float32, 5), 3, 0) != nil {
		t.Error("loaded empty graph is not empty")
	}
	if _, err := g.Add([]float32{1, 0, 0, 0, 0}); err != nil {
		t.Errorf("Add to loaded empty graph: %v", err)
	}
}

// TestGrowAfterLoad: building half, saving, loading and adding the rest
// gives the very graph a single build gives, and never writes into the
// caller's vector array.
func TestGrowAfterLoad(t *testing.T) {
	d := smallSet()
	cfg := Config{M: 8, EfConstruction: 50, Seed: 3}
	full := marshal(t, buildGraph(t, d, cfg))

	half := d.n() / 2
	first := buildGraph(t, dataset{dim: d.dim, base: d.base[:half*d.dim]}, cfg)
	// The caller's store has spare capacity that Add must not touch.
	store := make([]float32, half*d.dim, d.n()*d.dim)
	copy(store, d.base)
	g, err := Load(marshal(t, first), store, d.dim)
	if err != nil {
		t.Fatal(err)
	}
	for i := half; i < d.n(); i++ {
		if _, err := g.Add(d.vec(i)); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(marshal(t, g), full) {
		t.Error("save, load and add gives a different graph than one build")
	}
	for _, x := range store[len(store):cap(store)] {
		if x != 0 {
			t.Fatal("Add after Load wrote into the caller's vector array")
		}
	}
}

// listOffset returns the offset of node's count word for layer l in g's
// encoding.
func listOffset(g *Graph, node uint32, l int) int {
	off := headerLen + g.Len()
	for j := range node {
		for k := 0; k <= int(g.levels[j]); k++ {
			off += 2 + 4*len(g.links(j, k))
		}
	}
	for k := range l {
		off += 2 + 4*len(g.links(node, k))
	}
	return off
}

func TestLoadErrors(t *testing.T) {
	d := clusteredSet(300, 1, 8, 3)
	g := buildGraph(t, d, Config{M: 4, EfConstruction: 20, Seed: 1})
	good := marshal(t, g)
	le := binary.LittleEndian

	// Fixture nodes: low on layer 0 only (not the entry), high on layer ≥ 1
	// with layer-1 links, a with at least two layer-0 neighbours.
	var low, high, a uint32
	for i := range uint32(g.Len()) {
		switch {
		case g.levels[i] == 0 && low == 0 && i != g.entry:
			low = i
		case g.levels[i] > 0 && high == 0 && len(g.links(i, 1)) > 0 && i != g.entry:
			high = i
		}
		if a == 0 && len(g.links(i, 0)) >= 2 && g.levels[i] == 0 {
			a = i
		}
	}
	if low == 0 || high == 0 || a == 0 {
		t.Fatal("fixture lacks the nodes the cases need")
	}
	aList := listOffset(g, a, 0)
	hList1 := listOffset(g, high, 1)
	levels := headerLen

	set32 := func(off int, v uint32) []byte {
		b := slices.Clone(good)
		le.PutUint32(b[off:], v)
		return resum(b)
	}
	set16 := func(off int, v uint16) []byte {
		b := slices.Clone(good)
		le.PutUint16(b[off:], v)
		return resum(b)
	}
	withLevel := func(node uint32, lv uint8) []byte {
		b := slices.Clone(good)
		b[levels+int(node)] = lv
		return resum(b)
	}
	plusOne := append(slices.Clone(d.base), make([]float32, d.dim)...)
	tests := []struct {
		name    string
		data    []byte
		vectors []float32
		dim     int
		want    error
		reason  string
	}{
		{"empty", nil, d.base, d.dim, ErrCorrupt, "shorter than a header"},
		{"short header", good[:headerLen], d.base, d.dim, ErrCorrupt, "shorter than a header"},
		{"bad magic", resum(append([]byte("XEQAHNSW"), good[8:]...)), d.base, d.dim, ErrCorrupt, "magic"},
		{"version 2", set32(8, 2), d.base, d.dim, ErrVersion, "version 2"},
		{"flipped bit", func() []byte { b := slices.Clone(good); b[len(b)/2] ^= 4; return b }(), d.base, d.dim, ErrCorrupt, "checksum"},
		{"bad checksum", func() []byte { b := slices.Clone(good); b[len(b)-1]++; return b }(), d.base, d.dim, ErrCorrupt, "checksum"},
		{"truncated", resum(good[:len(good)-9]), d.base, d.dim, ErrCorrupt, "truncated"},
		{"trailing bytes", resum(append(slices.Clone(good[:len(good)-4]), 0, 0, 0, 0, 0, 0, 0, 0)), d.base, d.dim, ErrCorrupt, "trailing"},
		{"caller dim", good, d.base, d.dim + 1, ErrDimension, "dimension"},
		{"caller dim 0", good, d.base, 0, ErrDimension, "dimension"},
		{"header dim", set32(12, uint32(d.dim*2)), d.base, d.dim, ErrDimension, "dimension"},
		{"short vectors", good, d.base[:len(d.base)-1], d.dim, ErrMismatch, "floats"},
		{"long vectors", good, plusOne, d.dim, ErrMismatch, "floats"},
		{"M=1", set32(16, 1), d.base, d.dim, ErrCorrupt, "M = 1"},
		{"M huge", set32(16, 1<<30), d.base, d.dim, ErrCorrupt, "M = "},
		{"efConstruction < M", set32(20, 1), d.base, d.dim, ErrCorrupt, "efConstruction"},
		{"efSearch 0", set32(24, 0), d.base, d.dim, ErrCorrupt, "efSearch"},
		{"n huge", set32(36, 1<<31), d.base, d.dim, ErrCorrupt, "nodes"},
		{"n off by one", set32(36, uint32(g.Len()+1)), plusOne, d.dim, ErrCorrupt, ""},
		{"top above cap", set32(40, 200), d.base, d.dim, ErrCorrupt, "top layer 200"},
		{"top wrong", set32(40, uint32(g.top+1)), d.base, d.dim, ErrCorrupt, "not top layer"},
		{"entry out of range", set32(44, uint32(g.Len())), d.base, d.dim, ErrCorrupt, "entry"},
		{"entry not on top", set32(44, low), d.base, d.dim, ErrCorrupt, "not top layer"},
		{"level above top", withLevel(low, uint8(g.top+1)), d.base, d.dim, ErrCorrupt, "above top layer"},
		{"levels overstate lists", withLevel(low, uint8(g.top)), d.base, d.dim, ErrCorrupt, ""},
		{"count over M0", set16(aList, uint16(g.m0+1)), d.base, d.dim, ErrCorrupt, "at most"},
		{"count over M", set16(hList1, uint16(g.m+1)), d.base, d.dim, ErrCorrupt, "at most"},
		{"count over u16 data", set16(aList, 0xffff), d.base, d.dim, ErrCorrupt, "at most"},
		{"neighbour out of range", set32(aList+2, uint32(g.Len())), d.base, d.dim, ErrCorrupt, "out of range"},
		{"neighbour max", set32(aList+2, ^uint32(0)), d.base, d.dim, ErrCorrupt, "out of range"},
		{"self link", set32(aList+2, a), d.base, d.dim, ErrCorrupt, "itself"},
		{"duplicate neighbour", set32(aList+6, g.links(a, 0)[0]), d.base, d.dim, ErrCorrupt, "repeated"},
		{"layer-1 link to layer-0 node", set32(hList1+2, low), d.base, d.dim, ErrCorrupt, "only reaches layer 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := Load(tt.data, tt.vectors, tt.dim)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Load error %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("Load error %q, want it to mention %q", err, tt.reason)
			}
			if g != nil {
				t.Error("Load returned a graph with its error")
			}
		})
	}
}

// TestLoadDamage flips every byte of a small encoding in turn: each change
// must be rejected (the checksum sees it) and none may panic.
func TestLoadDamage(t *testing.T) {
	d := clusteredSet(40, 1, 4, 5)
	good := marshal(t, buildGraph(t, d, Config{M: 3, EfConstruction: 10, Seed: 1}))
	for i := range good {
		b := slices.Clone(good)
		b[i] ^= 0x41
		if _, err := Load(b, d.base, d.dim); err == nil {
			t.Errorf("byte %d damaged: Load accepted it", i)
		}
		if _, err := Load(good[:i], d.base, d.dim); err == nil {
			t.Errorf("truncated to %d bytes: Load accepted it", i)
		}
	}
}

// FuzzLoad feeds Load arbitrary bytes, both as they are and with a valid
// checksum appended so the fuzzer reaches the structural checks. Load must
// never panic; a graph it accepts must search without panicking and
// re-encode to exactly the bytes it was loaded from.
func FuzzLoad(f *testing.F) {
	d := clusteredSet(60, 4, 4, 8)
	for _, cfg := range []Config{{M: 2, EfConstruction: 4, Seed: 1}, {M: 4, EfConstruction: 16, Seed: 2}} {
		good := marshal(f, buildGraph(f, d, cfg))
		f.Add(good[:len(good)-checksumLen], uint8(60))
		f.Add(good[:len(good)/2], uint8(60))
	}
	empty := marshal(f, New(4, Config{}))
	f.Add(empty[:len(empty)-checksumLen], uint8(0))
	f.Fuzz(func(t *testing.T, body []byte, n uint8) {
		vectors := d.base[:min(int(n), d.n())*d.dim]
		withSum := binary.LittleEndian.AppendUint32(slices.Clone(body), crc32.Checksum(body, castagnoli))
		for _, data := range [][]byte{body, withSum} {
			g, err := Load(data, vectors, d.dim)
			if err != nil {
				if g != nil {
					t.Fatal("graph returned with error")
				}
				continue
			}
			for i := range d.nq() {
				res := g.Search(d.query(i), 5, 8)
				if len(res) > g.Len() || !isOrdered(res) {
					t.Fatalf("bad results %v", res)
				}
			}
			if again := marshal(t, g); !bytes.Equal(again, data) {
				t.Fatal("accepted input does not re-encode to itself")
			}
		}
	})
}

// chunkedSource keeps vectors in chunks of per rows, as a file's row set
// does.
type chunkedSource struct {
	dim, per int
	chunks   [][]float32
	n        int
}

func newChunkedSource(d dataset, per int) *chunkedSource {
	s := &chunkedSource{dim: d.dim, per: per, n: d.n()}
	for lo := 0; lo < d.n(); lo += per {
		s.chunks = append(s.chunks, append([]float32(nil), d.base[lo*d.dim:min(lo+per, d.n())*d.dim]...))
	}
	return s
}
func (s *chunkedSource) Len() int { return s.n }
func (s *chunkedSource) Dim() int { return s.dim }
func (s *chunkedSource) Vector(id uint32) []float32 {
	c, i := int(id)/s.per, int(id)%s.per*s.dim
	return s.chunks[c][i : i+s.dim]
}

// TestLoadFrom loads a graph over vectors kept in chunks elsewhere: it
// answers as the graph loaded over a flat copy, and refuses changes.
func TestLoadFrom(t *testing.T) {
	d := smallSet()
	g := buildGraph(t, d, Config{M: 8, EfConstruction: 64, EfSearch: 40, Seed: 9})
	data := marshal(t, g)
	h, err := LoadFrom(data, newChunkedSource(d, 97))
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.nq() {
		if a, b := g.Search(d.query(i), 10, 50), h.Search(d.query(i), 10, 50); !slices.Equal(a, b) {
			t.Fatalf("query %d: built %v, loaded from chunks %v", i, a, b)
		}
	}
	if _, err := h.Add(d.vec(0)); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Add: %v", err)
	}
	if _, err := h.Update(context.Background(), make([]int32, h.Len()), d.base); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Update: %v", err)
	}
	short := newChunkedSource(d, 97)
	short.n--
	if _, err := LoadFrom(data, short); !errors.Is(err, ErrMismatch) {
		t.Fatalf("one vector short: %v", err)
	}
}

// dotSource is a chunkedSource whose rows do not stay put: a search must
// ask it for dot products (Vector returns a copy, and counts the calls).
type dotSource struct {
	*chunkedSource
	vectors, dots atomic.Int64
}

func (s *dotSource) Vector(id uint32) []float32 {
	s.vectors.Add(1)
	return slices.Clone(s.chunkedSource.Vector(id))
}
func (s *dotSource) Dot(q []float32, id uint32) float32 {
	s.dots.Add(1)
	return dot(q, s.chunkedSource.Vector(id))
}

// TestLoadFromDotSource loads a graph over a DotSource: its searches ask
// the source for every dot product, never for a vector, and answer as the
// graph built over the vectors, to the bit.
func TestLoadFromDotSource(t *testing.T) {
	d := smallSet()
	g := buildGraph(t, d, Config{M: 8, EfConstruction: 64, EfSearch: 40, Seed: 9})
	data := marshal(t, g)
	src := &dotSource{chunkedSource: newChunkedSource(d, 7)}
	h, err := LoadFrom(data, src)
	if err != nil {
		t.Fatal(err)
	}
	src.vectors.Store(0)
	for i := range d.nq() {
		if a, b := g.Search(d.query(i), 10, 50), h.Search(d.query(i), 10, 50); !slices.Equal(a, b) {
			t.Fatalf("query %d: built %v, loaded over dot products %v", i, a, b)
		}
	}
	if v, n := src.vectors.Load(), src.dots.Load(); v != 0 || n < int64(d.nq()*50) {
		t.Fatalf("searches took %d vectors and %d dot products: want none and every score", v, n)
	}
}

// slotSource keeps layer-0 slots as a file's row set does: little-endian
// rows of SlotWords words, checked by CheckSlots before use (a slot that
// fails it reads as nil).
type slotSource struct {
	n, words int
	raw      []byte
	bad      error
}

func newSlotSource(t testing.TB, g *Graph) *slotSource {
	w := g.SlotWords()
	s := &slotSource{n: g.Len(), words: w, raw: make([]byte, g.Len()*4*w)}
	g.PutSlots(0, g.Len(), s.raw)
	return s
}

func (s *slotSource) Len() int       { return s.n }
func (s *slotSource) SlotWords() int { return s.words }
func (s *slotSource) Slot(id uint32) []uint32 {
	row := s.raw[int(id)*4*s.words : (int(id)+1)*4*s.words]
	if err := CheckSlots(s.n, s.words)(row); err != nil {
		s.bad = err
		return nil
	}
	out := make([]uint32, s.words)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(row[4*i:])
	}
	return out
}

// TestLoadSplit: a graph stored as MarshalUpper plus PutSlots and loaded
// by LoadSplit searches exactly as the graph it was written from, is
// read-only, and refuses slots or vectors of the wrong number or width.
func TestLoadSplit(t *testing.T) {
	d := smallSet()
	g := buildGraph(t, d, Config{M: 8, EfConstruction: 64, EfSearch: 40, Seed: 9})
	upper, err := g.MarshalUpper()
	if err != nil {
		t.Fatal(err)
	}
	full := marshal(t, g)
	if len(upper) >= len(full)/4 {
		t.Errorf("upper layers take %d bytes of the graph's %d", len(upper), len(full))
	}
	slots := newSlotSource(t, g)
	h, err := LoadSplit(upper, newChunkedSource(d, 97), slots)
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.nq() {
		if a, b := g.Search(d.query(i), 10, 50), h.Search(d.query(i), 10, 50); !slices.Equal(a, b) {
			t.Fatalf("query %d: built %v, loaded split %v", i, a, b)
		}
	}
	if again := marshal(t, h); !bytes.Equal(again, full) {
		t.Error("the split graph does not marshal to the graph it was written from")
	}
	if _, err := h.Add(d.vec(0)); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Add: %v", err)
	}
	short := newSlotSource(t, g)
	short.n--
	if _, err := LoadSplit(upper, newChunkedSource(d, 97), short); !errors.Is(err, ErrMismatch) {
		t.Errorf("one slot short: %v", err)
	}
	narrow := newSlotSource(t, g)
	narrow.words--
	if _, err := LoadSplit(upper, newChunkedSource(d, 97), narrow); !errors.Is(err, ErrMismatch) {
		t.Errorf("narrow slots: %v", err)
	}
	if _, err := LoadSplit(full, newChunkedSource(d, 97), slots); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a whole graph given as its upper part: %v", err)
	}
	if _, err := Load(upper, d.base, d.dim); !errors.Is(err, ErrCorrupt) {
		t.Errorf("an upper part given as a whole graph: %v", err)
	}
}

// TestCheckSlots: damage a slot in every way CheckSlots refuses.
func TestCheckSlots(t *testing.T) {
	d := clusteredSet(200, 5, 8, 3)
	g := buildGraph(t, d, Config{M: 4, EfConstruction: 16, Seed: 1})
	w := g.SlotWords()
	put := func(row []byte, word int, v uint32) { binary.LittleEndian.PutUint32(row[4*word:], v) }
	for _, tc := range []struct {
		name   string
		damage func(row []byte)
	}{
		{"count over capacity", func(row []byte) { put(row, 0, uint32(w)) }},
		{"id out of range", func(row []byte) { put(row, 1, 200) }},
		{"repeated id", func(row []byte) { put(row, 2, binary.LittleEndian.Uint32(row[4:])) }},
		{"unused word set", func(row []byte) { put(row, 0, 1); put(row, w-1, 7) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSlotSource(t, g)
			node := -1
			for i := range g.Len() {
				if c := binary.LittleEndian.Uint32(s.raw[i*4*w:]); c >= 2 && c < uint32(w-1) {
					node = i
					break
				}
			}
			if node < 0 {
				t.Fatal("no node with 2 or more neighbours and room for more")
			}
			row := s.raw[node*4*w : (node+1)*4*w]
			tc.damage(row)
			if err := CheckSlots(g.Len(), w)(s.raw); err == nil {
				t.Fatal("damage passed the check")
			}
			// Searching over the damaged slots does not panic; the
			// damage is seen.
			h, err := LoadSplit(mustUpper(t, g), newChunkedSource(d, 13), s)
			if err != nil {
				t.Fatal(err)
			}
			for i := range d.nq() {
				h.Search(d.query(i), 5, 20)
			}
			h.Search(d.vec(node), 5, 50)
		})
	}
	if err := CheckSlots(g.Len(), w)(make([]byte, 4*w+4)); err == nil {
		t.Error("a partial slot passed the check")
	}
}

func mustUpper(t testing.TB, g *Graph) []byte {
	b, err := g.MarshalUpper()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzLoadSplit: no upper part makes LoadSplit panic, and a graph it
// accepts searches.
func FuzzLoadSplit(f *testing.F) {
	d := clusteredSet(60, 4, 4, 8)
	g := buildGraph(f, d, Config{M: 4, EfConstruction: 16, Seed: 2})
	good := mustUpper(f, g)
	f.Add(good[:len(good)-checksumLen])
	f.Add(good[:len(good)/2])
	f.Fuzz(func(t *testing.T, body []byte) {
		data := binary.LittleEndian.AppendUint32(slices.Clone(body), crc32.Checksum(body, castagnoli))
		h, err := LoadSplit(data, newChunkedSource(d, 7), newSlotSource(t, g))
		if err != nil {
			return
		}
		for i := range d.nq() {
			if res := h.Search(d.query(i), 5, 8); !isOrdered(res) {
				t.Fatalf("bad results %v", res)
			}
		}
	})
}
