package ann

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// ErrUpdate is wrapped by Update's errors about its arguments.
var ErrUpdate = errors.New("ann: update")

// Update returns the graph of a changed set of vectors, made from g
// instead of from scratch: what an index sync does when some of its
// sentences are removed, some added and the rest renumbered.
//
// keep has one entry per node of g: the node's id in the new graph, or a
// negative number when it is removed. vecs holds the new graph's vectors,
// n·Dim() floats; a kept node's new row must equal its old one (checked).
// The nodes of the new graph that no kept node becomes are added.
//
// A removed node is unlinked on every layer, and each node that linked to
// it is repaired: its neighbours are chosen again by the selection
// heuristic from its remaining neighbours and the removed node's own
// neighbours (local reconnection, as hnswlib's point update does); a node
// left with no candidate is linked by a search from the entry point. A
// removed entry point is replaced by the kept node of the highest layer.
// Kept nodes keep their layers and links (renumbered); added nodes are
// inserted in id order exactly as Add inserts them. The result answers as
// a graph built from scratch does within the graph's usual recall (the
// tests measure recall@10 against exact search), at the cost of the
// repaired and added nodes only.
//
// g is not modified. ctx is checked every 1,024 nodes.
func (g *Graph) Update(ctx context.Context, keep []int32, vecs []float32) (*Graph, error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.src != nil {
		return nil, fmt.Errorf("%w: %w", ErrUpdate, ErrReadOnly)
	}
	old := len(g.levels)
	if len(keep) != old {
		return nil, fmt.Errorf("%w: %d renumberings for %d nodes", ErrUpdate, len(keep), old)
	}
	if g.dim <= 0 || len(vecs)%g.dim != 0 {
		return nil, fmt.Errorf("%w: %d floats for vectors of dimension %d", ErrUpdate, len(vecs), g.dim)
	}
	n := len(vecs) / g.dim
	if n >= maxNodes {
		return nil, fmt.Errorf("%w: %d nodes: %w", ErrUpdate, n, ErrFull)
	}
	taken := make([]bool, n)
	removed := make([]bool, old)
	for i, k := range keep {
		if k < 0 {
			removed[i] = true
			continue
		}
		if int(k) >= n || taken[k] {
			return nil, fmt.Errorf("%w: node %d becomes %d (of %d, or taken twice)", ErrUpdate, i, k, n)
		}
		taken[k] = true
		if !slices.Equal(g.vec(uint32(i)), vecs[int(k)*g.dim:int(k+1)*g.dim]) {
			return nil, fmt.Errorf("%w: node %d (now %d) has another vector", ErrUpdate, i, k)
		}
	}
	for i := 0; i < n; i++ {
		if !taken[i] {
			if err := g.checkVector(vecs[i*g.dim : (i+1)*g.dim]); err != nil {
				return nil, fmt.Errorf("%w: new node %d: %w", ErrUpdate, i, err)
			}
		}
	}

	// Repair, on a copy of g's links in g's own ids.
	h := &Graph{dim: g.dim, cfg: g.cfg, m: g.m, m0: g.m0, ml: g.ml, vecs: g.vecs, levels: g.levels,
		links0: slices.Clone(g.links0), entry: g.entry, top: g.top}
	h.upper = g.upper.clone()
	if g.top >= 0 && removed[g.entry] {
		h.top = -1
		for i := range old {
			if !removed[i] && int(g.levels[i]) > h.top {
				h.entry, h.top = uint32(i), int(g.levels[i])
			}
		}
	}
	s := &searcher{}
	var orphans [][2]int // node, layer: no candidate left
	seen := make(map[uint32]bool)
	for u := range old {
		if removed[u] {
			continue
		}
		if u%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for l := 0; l <= int(g.levels[u]); l++ {
			ls := g.links(uint32(u), l)
			lost := false
			for _, v := range ls {
				if removed[v] {
					lost = true
					break
				}
			}
			if !lost {
				continue
			}
			clear(seen)
			uv := g.vec(uint32(u))
			cs := s.shrinkBuf[:0]
			add := func(w uint32) {
				if removed[w] || int(w) == u || seen[w] {
					return
				}
				seen[w] = true
				cs = append(cs, cand{d: -dot(uv, g.vec(w)), id: w})
			}
			for _, v := range ls {
				if !removed[v] {
					add(v)
					continue
				}
				for _, w := range g.links(v, l) {
					add(w)
				}
			}
			sortCands(cs)
			maxConn := g.m
			if l == 0 {
				maxConn = g.m0
			}
			sel := h.selectNeighbors(s.shrinkSel[:0], cs, maxConn)
			h.setLinks(uint32(u), l, sel)
			s.shrinkBuf, s.shrinkSel = cs, sel
			if len(sel) == 0 {
				orphans = append(orphans, [2]int{u, l})
			}
		}
	}
	for _, o := range orphans {
		h.relink(s, uint32(o[0]), o[1], removed)
	}

	// The new graph, in the new ids.
	out := &Graph{dim: g.dim, top: -1}
	out.setConfig(g.cfg)
	out.vecs = vecs
	out.levels = make([]uint8, n)
	out.links0 = make([]uint32, n*(g.m0+1))
	for i := range n {
		if !taken[i] {
			out.levels[i] = uint8(out.levelFor(uint32(i)))
		}
	}
	for i, k := range keep {
		if k < 0 {
			continue
		}
		lv := int(g.levels[i])
		out.levels[k] = uint8(lv)
		if lv > 0 {
			out.setUpper(uint32(k), lv)
		}
		for l := 0; l <= lv; l++ {
			ls := h.links(uint32(i), l)
			cs := make([]cand, len(ls))
			for j, v := range ls {
				cs[j] = cand{id: uint32(keep[v])}
			}
			out.setLinks(uint32(k), l, cs)
		}
	}
	if h.top >= 0 {
		out.entry, out.top = uint32(keep[h.entry]), h.top
	}
	for i := range n {
		if taken[i] {
			continue
		}
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		id, lv := uint32(i), int(out.levels[i])
		if lv > 0 {
			out.setUpper(id, lv)
		}
		if out.top < 0 {
			out.entry, out.top = id, lv
			continue
		}
		out.insert(id, lv)
		if lv > out.top {
			out.entry, out.top = id, lv
		}
	}
	return out, nil
}

// relink links node u on layer l, whose every neighbour and their
// neighbours were removed, by a search from the entry point, as an
// insertion links a new node (removed nodes are unreachable: every link
// to one was repaired before).
func (g *Graph) relink(s *searcher, u uint32, l int, removed []bool) {
	if g.top < l || g.entry == u {
		return
	}
	q := g.vec(u)
	ep := cand{d: -dot(q, g.vec(g.entry)), id: g.entry}
	for x := g.top; x > l; x-- {
		ep = g.greedy(q, ep, x)
	}
	g.searchLayer(s, q, []cand{ep}, g.cfg.EfConstruction, l)
	w := s.res.drainSorted(nil)
	cs := w[:0]
	for _, c := range w {
		if c.id != u && !removed[c.id] {
			cs = append(cs, c)
		}
	}
	maxConn := g.m
	if l == 0 {
		maxConn = g.m0
	}
	g.setLinks(u, l, g.selectNeighbors(nil, cs, maxConn))
}
