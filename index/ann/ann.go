package ann

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
)

// Sentinel errors. Functions wrap them with context; test with errors.Is.
var (
	// ErrDimension reports a vector, query or vector store whose dimension
	// does not match the graph's.
	ErrDimension = errors.New("ann: dimension mismatch")
	// ErrInvalidVector reports a vector holding NaN or ±Inf.
	ErrInvalidVector = errors.New("ann: vector has a non-finite component")
	// ErrFull reports that the graph already holds the maximum number of
	// nodes an id can address.
	ErrFull = errors.New("ann: graph is full")
	// ErrCorrupt reports serialized graph bytes that fail validation: bad
	// magic, checksum, counts or neighbour ids.
	ErrCorrupt = errors.New("ann: corrupt graph data")
	// ErrVersion reports serialized graph bytes of a format version this
	// package does not read.
	ErrVersion = errors.New("ann: unsupported graph format version")
	// ErrMismatch reports a vector store that does not fit a serialized
	// graph: wrong length for the graph's node count.
	ErrMismatch = errors.New("ann: vectors do not match graph")
	// ErrReadOnly reports a change asked of a graph whose vectors are
	// read where they are kept (LoadFrom).
	ErrReadOnly = errors.New("ann: graph over vectors kept elsewhere is read-only")
)

// VectorSource holds a graph's vectors where they are kept (a file's memory
// map, say), for a graph loaded by LoadFrom. Vector is called from any
// number of goroutines and must return a slice of Dim floats that stays
// valid and unchanged while the graph is in use.
type VectorSource interface {
	Len() int
	Dim() int
	Vector(id uint32) []float32
}

// DotSource is a VectorSource whose rows need not stay put (read into a
// bounded cache, say): a graph loaded over one searches by asking it for
// each dot product with the query instead of holding Vector's slice. Dot
// must equal dense.Dot(q, Vector(id)) to the bit. Vector is then used only
// by what is not a search (Export, say) and may return a copy.
type DotSource interface {
	VectorSource
	Dot(q []float32, id uint32) float32
}

// LinkSource holds a graph's layer 0 where it is kept, for a graph loaded
// by LoadSplit: node id's slot is SlotWords words, its neighbour count then
// the neighbour ids, as PutSlots wrote them. Slot is called from any
// number of goroutines; it returns nil for a slot that cannot be read
// (the node then has no neighbours on layer 0), and the slots it returns
// must have passed CheckSlots.
type LinkSource interface {
	Len() int
	SlotWords() int
	Slot(id uint32) []uint32
}

// Defaults and limits for Config.
const (
	DefaultM              = 16
	DefaultEfConstruction = 200
	DefaultEfSearch       = 64
	// MaxM is the largest accepted M; larger values are clamped.
	MaxM = 256
	// maxLevel caps node levels. With M ≥ 2 the chance of a level above 32
	// is below 2^-32 per node, so the cap never changes a real graph.
	maxLevelCap = 32
	// maxNodes is the node-count limit: ids are uint32 and every count must
	// fit an int on 32-bit platforms.
	maxNodes = math.MaxInt32
)

// Config holds the construction and search parameters of a Graph. Zero
// fields take the package defaults.
type Config struct {
	// M is the number of neighbours each node links to on the layers above
	// 0 and the number a new node selects on every layer. Layer 0 keeps up
	// to M0 = 2·M. Default 16; values below 2 become 2, above MaxM become
	// MaxM.
	M int
	// EfConstruction is the beam width of the searches that find a new
	// node's neighbours. Default 200; values below M become M.
	EfConstruction int
	// EfSearch is the beam width Search uses when called with ef ≤ 0.
	// Default 64.
	EfSearch int
	// Seed selects the node levels. The same vectors added in the same order
	// with the same Config always produce the same graph.
	Seed int64
}

// normalized returns c with defaults applied and values clamped to range.
func (c Config) normalized() Config {
	if c.M == 0 {
		c.M = DefaultM
	}
	c.M = min(max(c.M, 2), MaxM)
	if c.EfConstruction <= 0 {
		c.EfConstruction = DefaultEfConstruction
	}
	c.EfConstruction = min(max(c.EfConstruction, c.M), math.MaxInt32)
	if c.EfSearch <= 0 {
		c.EfSearch = DefaultEfSearch
	}
	c.EfSearch = min(c.EfSearch, math.MaxInt32)
	return c
}

// Result is one search hit: a node id and its similarity (dot product) to
// the query. Results are ordered best first: higher Score, then lower ID.
type Result struct {
	ID    uint32
	Score float32
}

// Graph is a hierarchical navigable small world graph over L2-normalised
// float32 vectors, searched by inner product.
//
// Search may be called from any number of goroutines at once, also while
// Add runs (Add takes a write lock, Search a read lock). The vectors a Graph
// reads, whether appended by Add or handed to Load, must not be modified
// while the Graph is in use.
type Graph struct {
	mu sync.RWMutex

	dim int
	cfg Config
	m   int     // neighbour capacity on layers ≥ 1
	m0  int     // neighbour capacity on layer 0
	ml  float64 // level multiplier 1/ln(M)

	vecs []float32 // n·dim, node i at [i·dim, (i+1)·dim)
	// src, when set (LoadFrom), holds the vectors instead of vecs: the
	// graph is then read-only.
	src VectorSource
	// dsrc is src when it is a DotSource.
	dsrc DotSource
	// src0, when set (LoadSplit), holds layer 0 instead of links0.
	src0   LinkSource
	levels []uint8 // top layer of each node
	// links0 holds layer-0 adjacency in fixed slots of m0+1 words: a count
	// followed by up to m0 neighbour ids.
	links0 []uint32
	// upper holds node i's adjacency on layers 1..levels[i] in slots of
	// m+1 words each (count, then ids), for the nodes above layer 0 only
	// (about one in M): a graph loaded for one question allocates and
	// fills nothing per node of layer 0.
	upper upperLinks

	entry uint32 // entry point: a node on the top layer
	top   int    // top layer; -1 while the graph is empty

	build *searcher // scratch for Add, used under the write lock
	pool  sync.Pool // *searcher for Search
}

// New returns an empty graph for vectors of dimension dim. Config fields
// that are zero take the package defaults (see Config). A dim below 1 yields
// a graph on which every Add fails with ErrDimension.
func New(dim int, cfg Config) *Graph {
	g := &Graph{dim: dim, top: -1}
	g.setConfig(cfg.normalized())
	return g
}

func (g *Graph) setConfig(cfg Config) {
	g.cfg = cfg
	g.m = cfg.M
	g.m0 = 2 * cfg.M
	g.ml = 1 / math.Log(float64(cfg.M))
}

// Len returns the number of nodes in the graph.
func (g *Graph) Len() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.levels)
}

// Dim returns the vector dimension.
func (g *Graph) Dim() int { return g.dim }

// Config returns the graph's configuration with defaults applied.
func (g *Graph) Config() Config { return g.cfg }

// Vectors returns the flat vector store, node i at [i·Dim(), (i+1)·Dim()).
// The slice is shared with the graph: callers persist it (the graph's
// serialized form does not contain vectors) and must not modify it.
func (g *Graph) Vectors() []float32 {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.vecs
}

// Grow reserves room for n more nodes so that a bulk build does not
// reallocate the vector store and adjacency arrays as it goes.
func (g *Graph) Grow(n int) {
	if n <= 0 || g.dim <= 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.vecs = growSlice(g.vecs, n*g.dim)
	g.levels = growSlice(g.levels, n)
	g.links0 = growSlice(g.links0, n*(g.m0+1))
}

// setUpper gives node id empty neighbour lists on layers 1..level.
func (g *Graph) setUpper(id uint32, level int) {
	g.upper.set(id, make([]uint32, level*(g.m+1)))
}

// upperLinks maps the nodes above layer 0 to their slots on layers
// 1..level. A graph being built or changed keeps them in a map; a loaded
// graph in one arena, the nodes in increasing id order with their slots'
// offsets, found by binary search (a question's walk reads a few dozen
// there), so that loading one allocates nothing per node: the map's
// inserts were a third of loading a million-sentence graph's upper
// layers. The first new node turns the loaded form into the map.
type upperLinks struct {
	m     map[uint32][]uint32
	ids   []uint32 // loaded: the nodes, increasing,
	off   []uint32 // node ids[i]'s slots at arena[off[i]:off[i+1]]
	arena []uint32
}

// get returns node id's slots (nil: none).
func (u *upperLinks) get(id uint32) []uint32 {
	if u.m != nil {
		return u.m[id]
	}
	i, ok := slices.BinarySearch(u.ids, id)
	if !ok {
		return nil
	}
	return u.arena[u.off[i]:u.off[i+1]:u.off[i+1]]
}

// set gives node id the slots s.
func (u *upperLinks) set(id uint32, s []uint32) {
	if u.m == nil {
		m := make(map[uint32][]uint32, len(u.ids)+1)
		for i, id := range u.ids {
			m[id] = u.arena[u.off[i]:u.off[i+1]:u.off[i+1]]
		}
		*u = upperLinks{m: m}
	}
	u.m[id] = s
}

// clone returns a deep copy of u.
func (u *upperLinks) clone() upperLinks {
	if u.m == nil {
		return upperLinks{ids: u.ids, off: u.off, arena: slices.Clone(u.arena)}
	}
	c := upperLinks{m: make(map[uint32][]uint32, len(u.m))}
	for i, s := range u.m {
		c.m[i] = slices.Clone(s)
	}
	return c
}

func growSlice[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	t := make([]T, len(s), len(s)+n)
	copy(t, s)
	return t
}

// vec returns node id's vector.
func (g *Graph) vec(id uint32) []float32 {
	if g.src != nil {
		return g.src.Vector(id)
	}
	i := int(id) * g.dim
	return g.vecs[i : i+g.dim : i+g.dim]
}

// score returns q's dot product with node id's vector.
func (g *Graph) score(q []float32, id uint32) float32 {
	if g.dsrc != nil {
		return g.dsrc.Dot(q, id)
	}
	return dot(q, g.vec(id))
}

// links returns node id's neighbours on layer l, which must not exceed the
// node's level.
func (g *Graph) links(id uint32, l int) []uint32 {
	if l == 0 && g.src0 != nil {
		s := g.src0.Slot(id)
		if len(s) == 0 {
			return nil
		}
		c := min(int(s[0]), len(s)-1)
		return s[1 : 1+c]
	}
	if l == 0 {
		base := int(id) * (g.m0 + 1)
		c := int(g.links0[base])
		return g.links0[base+1 : base+1+c]
	}
	u := g.upper.get(id)
	base := (l - 1) * (g.m + 1)
	c := int(u[base])
	return u[base+1 : base+1+c]
}

// setLinks replaces node id's neighbours on layer l with the ids of cs.
func (g *Graph) setLinks(id uint32, l int, cs []cand) {
	var slot []uint32
	if l == 0 {
		base := int(id) * (g.m0 + 1)
		slot = g.links0[base : base+g.m0+1]
	} else {
		base := (l - 1) * (g.m + 1)
		slot = g.upper.get(id)[base : base+g.m+1]
	}
	slot[0] = uint32(len(cs))
	for i, c := range cs {
		slot[1+i] = c.id
	}
}

// appendLink adds nb to node id's neighbours on layer l if there is room
// and reports whether it did.
func (g *Graph) appendLink(id uint32, l int, nb uint32) bool {
	var slot []uint32
	if l == 0 {
		base := int(id) * (g.m0 + 1)
		slot = g.links0[base : base+g.m0+1]
	} else {
		base := (l - 1) * (g.m + 1)
		slot = g.upper.get(id)[base : base+g.m+1]
	}
	c := slot[0]
	if int(c) >= len(slot)-1 {
		return false
	}
	slot[1+c] = nb
	slot[0] = c + 1
	return true
}

// levelFor draws node id's level: floor(-ln(U)·mL) with U uniform in (0, 1]
// derived by hashing (seed, id). Hashing instead of a running generator
// makes a node's level independent of history, so a loaded graph grows
// exactly as the original would have.
func (g *Graph) levelFor(id uint32) int {
	x := splitmix64(uint64(g.cfg.Seed) ^ splitmix64(uint64(id)+0x9e3779b97f4a7c15))
	u := 1 - float64(x>>11)*(1.0/(1<<53)) // (0, 1]
	l := int(-math.Log(u) * g.ml)
	return min(l, maxLevelCap)
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// checkVector validates v's length and values.
func (g *Graph) checkVector(v []float32) error {
	if g.dim <= 0 || len(v) != g.dim {
		return fmt.Errorf("vector of length %d for graph of dimension %d: %w", len(v), g.dim, ErrDimension)
	}
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("component %d is %v: %w", i, x, ErrInvalidVector)
		}
	}
	return nil
}

// Add inserts a copy of vec and returns its id. Ids are dense and assigned
// in insertion order starting at 0. vec should be L2-normalised: the graph
// ranks by raw dot product. Add fails with ErrDimension or ErrInvalidVector
// on a bad vector and ErrFull past 2^31-1 nodes.
func (g *Graph) Add(vec []float32) (uint32, error) {
	if err := g.checkVector(vec); err != nil {
		return 0, fmt.Errorf("ann: add: %w", err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.src != nil {
		return 0, fmt.Errorf("ann: add: %w", ErrReadOnly)
	}
	n := len(g.levels)
	if n >= maxNodes {
		return 0, fmt.Errorf("ann: add: %d nodes: %w", n, ErrFull)
	}
	id := uint32(n)
	level := g.levelFor(id)

	g.vecs = append(g.vecs, vec...)
	g.levels = append(g.levels, uint8(level))
	l0 := len(g.links0)
	g.links0 = slices.Grow(g.links0, g.m0+1)[:l0+g.m0+1]
	clear(g.links0[l0:])
	if level > 0 {
		g.setUpper(id, level)
	}

	if g.top < 0 {
		g.entry, g.top = id, level
		return id, nil
	}
	g.insert(id, level)
	if level > g.top {
		g.entry, g.top = id, level
	}
	return id, nil
}

// insert links the already stored node id into layers level..0
// (Algorithm 1 of Malkov & Yashunin).
func (g *Graph) insert(id uint32, level int) {
	if g.build == nil {
		g.build = &searcher{}
	}
	s := g.build
	q := g.vec(id)

	ep := cand{d: -dot(q, g.vec(g.entry)), id: g.entry}
	for l := g.top; l > level; l-- {
		ep = g.greedy(q, ep, l)
	}
	s.eps = append(s.eps[:0], ep)
	for l := min(level, g.top); l >= 0; l-- {
		g.searchLayer(s, q, s.eps, g.cfg.EfConstruction, l)
		// W, nearest first; it is also the next layer's entry set.
		w := s.res.drainSorted(s.eps[:0])
		s.eps = w
		sel := g.selectNeighbors(s.selBuf[:0], w, g.m)
		s.selBuf = sel
		g.setLinks(id, l, sel)
		maxConn := g.m
		if l == 0 {
			maxConn = g.m0
		}
		for _, nb := range sel {
			if !g.appendLink(nb.id, l, id) {
				g.shrink(s, nb.id, l, id, nb.d, maxConn)
			}
		}
	}
}

// shrink rebuilds node e's full neighbour list on layer l with newcomer nb
// (at distance d from e) added, keeping at most maxConn by the heuristic.
func (g *Graph) shrink(s *searcher, e uint32, l int, nb uint32, d float32, maxConn int) {
	ev := g.vec(e)
	cs := s.shrinkBuf[:0]
	for _, x := range g.links(e, l) {
		cs = append(cs, cand{d: -dot(ev, g.vec(x)), id: x})
	}
	cs = append(cs, cand{d: d, id: nb})
	sortCands(cs)
	sel := g.selectNeighbors(s.shrinkSel[:0], cs, maxConn)
	g.setLinks(e, l, sel)
	s.shrinkBuf, s.shrinkSel = cs, sel
}

// selectNeighbors is the neighbour selection heuristic (Algorithm 4,
// without extending or keeping pruned candidates, as hnswlib does): walking
// the candidates nearest first, keep one only if it is closer to the base
// than to every neighbour kept so far. This favours links in diverse
// directions, which is what keeps clustered data navigable. cs must be
// sorted nearest first; the selection is appended to dst.
func (g *Graph) selectNeighbors(dst, cs []cand, m int) []cand {
	if len(cs) <= m {
		return append(dst, cs...)
	}
	sel := dst
	for _, c := range cs {
		if len(sel) >= m {
			break
		}
		cv := g.vec(c.id)
		good := true
		for _, r := range sel {
			if -dot(cv, g.vec(r.id)) < c.d {
				good = false
				break
			}
		}
		if good {
			sel = append(sel, c)
		}
	}
	return sel
}

// greedy walks layer l from ep to a local minimum of distance to q
// (search with ef = 1).
func (g *Graph) greedy(q []float32, ep cand, l int) cand {
	cur := ep
	for changed := true; changed; {
		changed = false
		for _, nb := range g.links(cur.id, l) {
			c := cand{d: -g.score(q, nb), id: nb}
			if c.less(cur) {
				cur = c
				changed = true
			}
		}
	}
	return cur
}

// searchLayer is the beam search of Algorithm 2 on layer l: it leaves the
// ef nearest nodes found in s.res.
func (g *Graph) searchLayer(s *searcher, q []float32, eps []cand, ef, l int) {
	s.reset(len(g.levels))
	s.cand = s.cand[:0]
	s.res = s.res[:0]
	for _, e := range eps {
		if s.visit(e.id) {
			continue
		}
		s.cand.push(e)
		s.res.push(e)
		if len(s.res) > ef {
			s.res.pop()
		}
	}
	for len(s.cand) > 0 {
		c := s.cand.pop()
		if len(s.res) >= ef && s.res[0].less(c) {
			break
		}
		for _, nb := range g.links(c.id, l) {
			if s.visit(nb) {
				continue
			}
			e := cand{d: -g.score(q, nb), id: nb}
			if len(s.res) < ef || e.less(s.res[0]) {
				s.cand.push(e)
				s.res.push(e)
				if len(s.res) > ef {
					s.res.pop()
				}
			}
		}
	}
}

// Search returns the k nodes most similar to q by dot product, best first
// (ties by lower id), searching layer 0 with beam width ef. ef ≤ 0 selects
// Config.EfSearch; ef below k is raised to k. Larger ef trades speed for
// recall. Search returns nil for an empty graph, k ≤ 0 or a query of the
// wrong dimension.
func (g *Graph) Search(q []float32, k, ef int) []Result {
	if k <= 0 || len(q) != g.dim {
		return nil
	}
	if ef <= 0 {
		ef = g.cfg.EfSearch
	}
	ef = max(ef, k)

	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.top < 0 {
		return nil
	}
	s, _ := g.pool.Get().(*searcher)
	if s == nil {
		s = &searcher{}
	}
	defer g.pool.Put(s)

	ep := cand{d: -g.score(q, g.entry), id: g.entry}
	for l := g.top; l > 0; l-- {
		ep = g.greedy(q, ep, l)
	}
	s.eps = append(s.eps[:0], ep)
	g.searchLayer(s, q, s.eps, ef, 0)
	w := s.res.drainSorted(s.eps[:0])
	s.eps = w
	if len(w) > k {
		w = w[:k]
	}
	out := make([]Result, len(w))
	for i, c := range w {
		out[i] = Result{ID: c.id, Score: -c.d}
	}
	return out
}

// SlotWords is the width in 32-bit words of a node's layer-0 slot (its
// neighbour count, then room for 2·M ids): the row a LinkSource holds.
func (g *Graph) SlotWords() int { return g.m0 + 1 }

// PutSlots writes the layer-0 slots of nodes lo..hi-1 into dst,
// little-endian, SlotWords words each (unused ids 0), as LoadSplit's
// LinkSource must give them back.
func (g *Graph) PutSlots(lo, hi int, dst []byte) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	w := g.m0 + 1
	for i := lo; i < hi; i++ {
		row := dst[(i-lo)*4*w : (i-lo+1)*4*w]
		clear(row)
		ls := g.links(uint32(i), 0)
		binary.LittleEndian.PutUint32(row, uint32(len(ls)))
		for j, id := range ls {
			binary.LittleEndian.PutUint32(row[4*(1+j):], id)
		}
	}
}

// CheckSlots returns a check of layer-0 slots as PutSlots writes them for
// a graph of n nodes (little-endian, w words each): every count at most
// w−1, every id below n and none repeated in a slot, unused words zero. A
// LinkSource runs it on its rows before handing them to the graph.
func CheckSlots(n, w int) func(b []byte) error {
	return func(b []byte) error {
		if w < 1 || len(b)%(4*w) != 0 {
			return fmt.Errorf("ann: %d bytes of slots of %d words", len(b), w)
		}
		for s := 0; s < len(b); s += 4 * w {
			row := b[s : s+4*w]
			c := binary.LittleEndian.Uint32(row)
			if c > uint32(w-1) {
				return fmt.Errorf("ann: slot %d: %d neighbours, at most %d", s/(4*w), c, w-1)
			}
			for j := 1; j < w; j++ {
				id := binary.LittleEndian.Uint32(row[4*j:])
				if uint32(j) > c {
					if id != 0 {
						return fmt.Errorf("ann: slot %d: unused word %d is %d", s/(4*w), j, id)
					}
					continue
				}
				if uint64(id) >= uint64(n) {
					return fmt.Errorf("ann: slot %d: neighbour %d out of range", s/(4*w), id)
				}
				for k := 1; k < j; k++ {
					if binary.LittleEndian.Uint32(row[4*k:]) == id {
						return fmt.Errorf("ann: slot %d: neighbour %d repeated", s/(4*w), id)
					}
				}
			}
		}
		return nil
	}
}
