package ann

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
)

// Serialized graph format, version 1. All integers little-endian.
//
//	magic          8 bytes  "REQAHNSW"
//	version        u32      1
//	dim            u32
//	M              u32
//	efConstruction u32
//	efSearch       u32
//	seed           i64
//	n              u32      node count
//	top            u32      top layer (0 when n = 0)
//	entry          u32      entry point (0 when n = 0)
//	levels         n × u8   each node's top layer
//	links          for node 0..n-1, for layer 0..level:
//	                 count u16, then count × u32 neighbour ids
//	checksum       u32      CRC-32C of every preceding byte
//
// Vectors are not part of it: node i is vector i of the store the caller
// keeps next to it and hands to Load.
//
// MarshalUpper writes the same format without layer 0 (magic "REQAHNSU",
// links for layers 1..level only): the part of a graph LoadSplit reads
// from a blob, its layer 0 being fixed-width slots read in place
// (SlotWords, PutSlots).
const (
	magic         = "REQAHNSW"
	magicUpper    = "REQAHNSU"
	formatVersion = 1
	headerLen     = 8 + 4*5 + 8 + 4*3
	checksumLen   = 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// MarshalBinary encodes the graph structure (configuration, node levels and
// neighbour lists) in a versioned, checksummed format. It does not include
// the vectors; persist Vectors() separately and pass them to Load. The
// output depends only on the graph's contents, so equal graphs encode to
// equal bytes. It implements encoding.BinaryMarshaler.
func (g *Graph) MarshalBinary() ([]byte, error) { return g.marshal(magic, 0) }

// MarshalUpper is MarshalBinary without layer 0 (see the format above):
// with the slots PutSlots writes, it is what LoadSplit reads.
func (g *Graph) MarshalUpper() ([]byte, error) { return g.marshal(magicUpper, 1) }

// marshal encodes the graph's layers from `from` up under the magic mg.
func (g *Graph) marshal(mg string, from int) ([]byte, error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	n := len(g.levels)
	size := headerLen + n + checksumLen
	for i := range n {
		for l := 0; l <= int(g.levels[i]); l++ {
			size += 2 + 4*len(g.links(uint32(i), l))
		}
	}
	b := make([]byte, 0, size)
	le := binary.LittleEndian
	b = append(b, mg...)
	b = le.AppendUint32(b, formatVersion)
	b = le.AppendUint32(b, uint32(g.dim))
	b = le.AppendUint32(b, uint32(g.cfg.M))
	b = le.AppendUint32(b, uint32(g.cfg.EfConstruction))
	b = le.AppendUint32(b, uint32(g.cfg.EfSearch))
	b = le.AppendUint64(b, uint64(g.cfg.Seed))
	top, entry := 0, uint32(0)
	if n > 0 {
		top, entry = g.top, g.entry
	}
	b = le.AppendUint32(b, uint32(n))
	b = le.AppendUint32(b, uint32(top))
	b = le.AppendUint32(b, entry)
	b = append(b, g.levels...)
	for i := range n {
		for l := from; l <= int(g.levels[i]); l++ {
			ls := g.links(uint32(i), l)
			b = le.AppendUint16(b, uint16(len(ls)))
			for _, id := range ls {
				b = le.AppendUint32(b, id)
			}
		}
	}
	b = le.AppendUint32(b, crc32.Checksum(b, castagnoli))
	return b, nil
}

// corrupt wraps ErrCorrupt with a formatted reason.
func corrupt(format string, args ...any) error {
	return fmt.Errorf("ann: load: "+format+": %w", append(args, ErrCorrupt)...)
}

// Load decodes a graph written by MarshalBinary over the vector store
// vectors (flat, node i at [i·dim, (i+1)·dim)). The graph keeps and reads
// vectors in place, without copying: the caller owns the slice and must not
// modify it while the graph is in use. A later Add appends to a private
// copy, never into the caller's array.
//
// Load validates everything before it returns a graph: magic, version,
// checksum, header fields, that len(vectors) is n·dim, every level, every
// neighbour count, and that every neighbour id is in range, not the node
// itself, not repeated, and present on that layer. Bad input yields an
// error wrapping ErrCorrupt, ErrVersion, ErrDimension or ErrMismatch;
// Load never panics.
func Load(data []byte, vectors []float32, dim int) (*Graph, error) {
	g, err := load(data, magic, 0, dim, func(n uint32) error {
		if uint64(len(vectors)) != uint64(n)*uint64(dim) {
			return fmt.Errorf("ann: load: %d floats for %d nodes of dimension %d: %w", len(vectors), n, dim, ErrMismatch)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A full slice expression: a later Add must copy rather than append
	// into memory the caller owns.
	g.vecs = vectors[:len(vectors):len(vectors)]
	return g, nil
}

// LoadFrom is Load over vectors kept elsewhere (src; node i is src's
// vector i): nothing is copied, and the graph is read-only (Add and
// Update fail with ErrReadOnly). Load's checks hold, src's length and
// dimension against the graph's.
func LoadFrom(data []byte, src VectorSource) (*Graph, error) {
	g, err := load(data, magic, 0, src.Dim(), func(n uint32) error {
		if uint64(src.Len()) != uint64(n) {
			return fmt.Errorf("ann: load: %d vectors for %d nodes: %w", src.Len(), n, ErrMismatch)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	g.src = src
	g.dsrc, _ = src.(DotSource)
	return g, nil
}

// LoadSplit is LoadFrom for a graph stored in two parts: upper, what
// MarshalUpper wrote (configuration, levels, layers 1 and up: small), and
// layer 0 as fixed-width slots kept elsewhere (links: a file's memory map,
// its rows checked by CheckSlots as they are first read). Nothing in
// proportion to the graph is decoded or copied but the node levels (a
// byte each); the graph is read-only. Load's checks hold for upper, and
// src's and links' lengths against its node count.
func LoadSplit(upper []byte, src VectorSource, links LinkSource) (*Graph, error) {
	g, err := load(upper, magicUpper, 1, src.Dim(), func(n uint32) error {
		if uint64(src.Len()) != uint64(n) || uint64(links.Len()) != uint64(n) {
			return fmt.Errorf("ann: load: %d vectors and %d link slots for %d nodes: %w", src.Len(), links.Len(), n, ErrMismatch)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if links.SlotWords() != g.m0+1 {
		return nil, fmt.Errorf("ann: load: link slots of %d words for M = %d (want %d): %w", links.SlotWords(), g.m, g.m0+1, ErrMismatch)
	}
	g.src, g.src0 = src, links
	g.dsrc, _ = src.(DotSource)
	return g, nil
}

// load decodes and checks a graph over vectors of dimension dim, written
// under the magic mg with its layers from `from` up; fits checks the
// vectors against the graph's node count.
func load(data []byte, mg string, from int, dim int, fits func(n uint32) error) (*Graph, error) {
	le := binary.LittleEndian
	if len(data) < headerLen+checksumLen {
		return nil, corrupt("%d bytes, shorter than a header", len(data))
	}
	if string(data[:8]) != mg {
		return nil, corrupt("bad magic %q", data[:8])
	}
	if v := le.Uint32(data[8:]); v != formatVersion {
		return nil, fmt.Errorf("ann: load: format version %d, want %d: %w", v, formatVersion, ErrVersion)
	}
	body := data[:len(data)-checksumLen]
	if got, want := crc32.Checksum(body, castagnoli), le.Uint32(data[len(body):]); got != want {
		return nil, corrupt("checksum %08x, want %08x", got, want)
	}

	hdim := le.Uint32(data[12:])
	m := le.Uint32(data[16:])
	efc := le.Uint32(data[20:])
	efs := le.Uint32(data[24:])
	seed := int64(le.Uint64(data[28:]))
	n := le.Uint32(data[36:])
	top := le.Uint32(data[40:])
	entry := le.Uint32(data[44:])

	if dim <= 0 || uint64(hdim) != uint64(dim) {
		return nil, fmt.Errorf("ann: load: graph dimension %d, caller's %d: %w", hdim, dim, ErrDimension)
	}
	if m < 2 || m > MaxM {
		return nil, corrupt("M = %d out of [2, %d]", m, MaxM)
	}
	if efc < m || efc > math.MaxInt32 || efs < 1 || efs > math.MaxInt32 {
		return nil, corrupt("efConstruction %d or efSearch %d out of range", efc, efs)
	}
	if n > maxNodes {
		return nil, corrupt("%d nodes", n)
	}
	if err := fits(n); err != nil {
		return nil, err
	}
	if top > maxLevelCap || (n == 0 && (top != 0 || entry != 0)) || (n > 0 && entry >= n) {
		return nil, corrupt("top layer %d, entry %d for %d nodes", top, entry, n)
	}

	g := &Graph{dim: dim, top: -1}
	g.setConfig(Config{M: int(m), EfConstruction: int(efc), EfSearch: int(efs), Seed: seed})

	p := body[headerLen:]
	if uint64(len(p)) < uint64(n) {
		return nil, corrupt("%d bytes left for %d levels", len(p), n)
	}
	levels := p[:n:n]
	p = p[n:]
	var upperWords, upperNodes uint64
	for i, l := range levels {
		if uint32(l) > top {
			return nil, corrupt("node %d on layer %d above top layer %d", i, l, top)
		}
		upperWords += uint64(l) * uint64(g.m+1)
		if l > 0 {
			upperNodes++
		}
	}
	if n > 0 && uint32(levels[entry]) != top {
		return nil, corrupt("entry %d on layer %d, not top layer %d", entry, levels[entry], top)
	}
	// Every link list takes at least its 2-byte count, so the remaining
	// bytes bound the allocations before they are made.
	lists := upperWords / uint64(g.m+1)
	if from == 0 {
		lists += uint64(n)
	}
	if 2*lists > uint64(len(p)) {
		return nil, corrupt("%d bytes left for %d neighbour lists", len(p), lists)
	}

	g.levels = append([]uint8(nil), levels...)
	if from == 0 {
		g.links0 = make([]uint32, int(n)*(g.m0+1))
	}
	if upperWords > math.MaxUint32 {
		return nil, corrupt("%d words of upper-layer links", upperWords)
	}
	arena := make([]uint32, upperWords)
	g.upper = upperLinks{ids: make([]uint32, 0, upperNodes), off: make([]uint32, 1, upperNodes+1), arena: arena}
	// A repeated neighbour is found with seen (seen[id] == stamp: id is
	// already in the current list) when layer 0 is read too, and by
	// comparing within the list (at most M ids) when only the upper
	// layers are: nothing then is allocated per node.
	var seen []uint32
	if from == 0 {
		seen = make([]uint32, n)
	}
	stamp := uint32(0)
	for i := range int(n) {
		lv := int(levels[i])
		var up []uint32 // node i's upper slots
		if lv > 0 {
			w := lv * (g.m + 1)
			at := g.upper.off[len(g.upper.off)-1]
			up = arena[at : int(at)+w : int(at)+w]
			g.upper.ids = append(g.upper.ids, uint32(i))
			g.upper.off = append(g.upper.off, at+uint32(w))
		}
		for l := from; l <= lv; l++ {
			if len(p) < 2 {
				return nil, corrupt("node %d layer %d: truncated count", i, l)
			}
			c := int(le.Uint16(p))
			p = p[2:]
			capacity := g.m
			if l == 0 {
				capacity = g.m0
			}
			if c > capacity {
				return nil, corrupt("node %d layer %d: %d neighbours, at most %d", i, l, c, capacity)
			}
			if len(p) < 4*c {
				return nil, corrupt("node %d layer %d: truncated neighbour list", i, l)
			}
			var slot []uint32
			if l == 0 {
				base := i * (g.m0 + 1)
				slot = g.links0[base : base+g.m0+1]
			} else {
				base := (l - 1) * (g.m + 1)
				slot = up[base : base+g.m+1]
			}
			slot[0] = uint32(c)
			if seen != nil {
				if stamp++; stamp == 0 {
					clear(seen)
					stamp = 1
				}
			}
			for j := range c {
				id := le.Uint32(p[4*j:])
				switch {
				case id >= n:
					return nil, corrupt("node %d layer %d: neighbour %d out of range", i, l, id)
				case id == uint32(i):
					return nil, corrupt("node %d layer %d: links to itself", i, l)
				case int(levels[id]) < l:
					return nil, corrupt("node %d layer %d: neighbour %d only reaches layer %d", i, l, id, levels[id])
				case seen != nil && seen[id] == stamp, seen == nil && slices.Contains(slot[1:1+j], id):
					return nil, corrupt("node %d layer %d: neighbour %d repeated", i, l, id)
				}
				if seen != nil {
					seen[id] = stamp
				}
				slot[1+j] = id
			}
			p = p[4*c:]
		}
	}
	if len(p) != 0 {
		return nil, corrupt("%d trailing bytes", len(p))
	}
	if n > 0 {
		g.entry, g.top = entry, int(top)
	}
	return g, nil
}
