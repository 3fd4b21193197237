package onnxmodel

import (
	"encoding/binary"
	"fmt"
)

// symDim is what SimplifyShapes knows about one element of an int64 shape
// tensor: a constant, dimension idx of tensor src, or the product of
// dimensions lo..hi-1 of src.
type symDim struct {
	kind    int // symConst, symDim1, symProd, symUnknown
	c       int64
	src     string
	idx, hi int
}

const (
	symUnknown = iota
	symConst
	symDim1
	symProd
)

// shapeEval evaluates int64 shape arithmetic (Shape, Slice, Gather,
// Squeeze, Unsqueeze, Concat, ReduceProd over constants and dimensions)
// symbolically.
type shapeEval struct {
	inits    map[string]*Tensor
	producer map[string]*Node
	memo     map[string][]symDim
}

func (e *shapeEval) consts(name string) ([]int64, bool) {
	t := e.inits[name]
	if t == nil || t.DataType != Int64 || len(t.Dims) > 1 {
		return nil, false
	}
	v := make([]int64, len(t.Raw)/8)
	for i := range v {
		v[i] = int64(binary.LittleEndian.Uint64(t.Raw[8*i:]))
	}
	return v, true
}

// shapeOf returns x when name is the output of Shape(x) without start/end.
func (e *shapeEval) shapeOf(name string) (string, bool) {
	nd := e.producer[name]
	if nd == nil || nd.OpType != "Shape" || nd.Domain != "" || len(nd.Inputs) != 1 || len(nd.Attrs) != 0 {
		return "", false
	}
	return nd.Inputs[0], true
}

// eval returns the elements of the int64 tensor name, or false when they
// cannot be told.
func (e *shapeEval) eval(name string) ([]symDim, bool) {
	if v, ok := e.memo[name]; ok {
		return v, v != nil
	}
	v := e.eval1(name)
	e.memo[name] = v
	return v, v != nil
}

func (e *shapeEval) eval1(name string) []symDim {
	if c, ok := e.consts(name); ok {
		out := make([]symDim, len(c))
		for i, x := range c {
			out[i] = symDim{kind: symConst, c: x}
		}
		return out
	}
	nd := e.producer[name]
	if nd == nil || nd.Domain != "" || len(nd.Outputs) != 1 {
		return nil
	}
	one := func(i int) []symDim { // input i as a single element
		if i >= len(nd.Inputs) {
			return nil
		}
		v, ok := e.eval(nd.Inputs[i])
		if !ok || len(v) != 1 {
			return nil
		}
		return v
	}
	switch nd.OpType {
	case "Slice":
		x, ok := e.shapeOf(nd.Inputs[0])
		if !ok || len(nd.Inputs) < 3 {
			return nil
		}
		st, ok1 := e.consts(nd.Inputs[1])
		en, ok2 := e.consts(nd.Inputs[2])
		if !ok1 || !ok2 || len(st) != 1 || len(en) != 1 || st[0] < 0 || en[0] <= st[0] || en[0]-st[0] > 16 {
			return nil
		}
		if len(nd.Inputs) > 3 && nd.Inputs[3] != "" {
			if a, ok := e.consts(nd.Inputs[3]); !ok || len(a) != 1 || a[0] != 0 {
				return nil
			}
		}
		if len(nd.Inputs) > 4 && nd.Inputs[4] != "" {
			if s, ok := e.consts(nd.Inputs[4]); !ok || len(s) != 1 || s[0] != 1 {
				return nil
			}
		}
		var out []symDim
		for i := st[0]; i < en[0]; i++ {
			out = append(out, symDim{kind: symDim1, src: x, idx: int(i)})
		}
		return out
	case "Gather":
		x, ok := e.shapeOf(nd.Inputs[0])
		if !ok || len(nd.Inputs) != 2 {
			return nil
		}
		for _, a := range nd.Attrs {
			if a.Name == "axis" && a.I != 0 {
				return nil
			}
		}
		idx, ok := e.consts(nd.Inputs[1])
		if !ok {
			return nil
		}
		var out []symDim
		for _, i := range idx {
			if i < 0 {
				return nil
			}
			out = append(out, symDim{kind: symDim1, src: x, idx: int(i)})
		}
		return out
	case "Squeeze", "Unsqueeze":
		return one(0)
	case "Concat":
		for _, a := range nd.Attrs {
			if a.Name == "axis" && a.I != 0 && a.I != -1 {
				return nil
			}
		}
		var out []symDim
		for _, in := range nd.Inputs {
			v, ok := e.eval(in)
			if !ok {
				return nil
			}
			out = append(out, v...)
		}
		return out
	case "ReduceProd":
		v, ok := e.eval(nd.Inputs[0])
		if !ok || len(v) == 0 {
			return nil
		}
		p := int64(1)
		var dims []symDim
		for _, d := range v {
			switch d.kind {
			case symConst:
				p *= d.c
			case symDim1:
				dims = append(dims, d)
			default:
				return []symDim{{kind: symUnknown}}
			}
		}
		if len(dims) == 0 {
			return []symDim{{kind: symConst, c: p}}
		}
		if p != 1 {
			return []symDim{{kind: symUnknown}}
		}
		for i := 1; i < len(dims); i++ {
			if dims[i].src != dims[0].src || dims[i].idx != dims[i-1].idx+1 {
				return []symDim{{kind: symUnknown}}
			}
		}
		if len(dims) == 1 {
			return dims
		}
		return []symDim{{kind: symProd, src: dims[0].src, idx: dims[0].idx, hi: dims[len(dims)-1].idx + 1}}
	}
	return nil
}

// SimplifyShapes removes shape arithmetic that TensorFlow graphs compute at
// run time and ONNX expresses statically, which costs a model run a few
// microseconds per node (about 170 of USE-Lite's 285 nodes):
//
//   - a Reshape whose target shape is assembled from positive constants,
//     at most one −1 and the input's own dimensions at the same positions
//     gets a constant shape (0 copies a dimension), as in split_heads and
//     combine_heads (a dimension known only from another tensor would need
//     a −1, which ONNX cannot infer for an empty tensor: left alone);
//   - tf.tensordot over the last axis — Reshape to [∏ leading dims, K],
//     MatMul by a [K, N] weight, Reshape back to [leading dims, N] —
//     becomes one MatMul, which broadcasts over the leading dimensions.
//
// The nodes and initializers nothing reads any more are then dropped. It
// returns the number of rewrites; the model computes the same numbers.
func SimplifyShapes(m *Model) (int, error) {
	g := &m.Graph
	e := &shapeEval{inits: make(map[string]*Tensor), producer: make(map[string]*Node), memo: make(map[string][]symDim)}
	for i := range g.Initializers {
		e.inits[g.Initializers[i].Name] = &g.Initializers[i]
	}
	for i := range g.Nodes {
		for _, o := range g.Nodes[i].Outputs {
			e.producer[o] = &g.Nodes[i]
		}
	}
	readers := make(map[string]int)
	for i := range g.Nodes {
		for _, in := range g.Nodes[i].Inputs {
			readers[in]++
		}
	}
	for _, o := range g.Outputs {
		readers[o.Name]++
	}
	var added []Tensor
	n := 0
	for i := range g.Nodes {
		nd := &g.Nodes[i]
		if nd.OpType != "Reshape" || nd.Domain != "" || len(nd.Inputs) != 2 || len(nd.Outputs) != 1 {
			continue
		}
		if tensordot(e, readers, nd) {
			n++
			continue
		}
		if _, isConst := e.inits[nd.Inputs[1]]; isConst {
			continue
		}
		dims, ok := e.eval(nd.Inputs[1])
		if !ok {
			continue
		}
		shape := make([]int64, len(dims))
		free := 0
		for j, d := range dims {
			switch {
			case d.kind == symConst && d.c > 0:
				shape[j] = d.c
			case d.kind == symConst && d.c == -1:
				shape[j] = -1
				free++
			case d.kind == symUnknown, d.kind == symProd,
				d.kind == symDim1 && (d.src != nd.Inputs[0] || d.idx != j):
				free = 2
			case d.kind == symDim1:
				shape[j] = 0 // copy the input's dimension j
			default: // a literal 0 (allowzero) dimension
				free = 2
			}
		}
		if free > 1 {
			continue
		}
		name := fmt.Sprintf("%s/onnx/static_shape", nd.Name)
		if _, dup := e.inits[name]; dup {
			return n, fmt.Errorf("onnxmodel: simplify: initializer %q exists already", name)
		}
		added = append(added, Int64Tensor(name, []int64{int64(len(shape))}, shape))
		nd.Inputs[1] = name
		var attrs []Attribute
		for _, a := range nd.Attrs {
			if a.Name != "allowzero" {
				attrs = append(attrs, a)
			}
		}
		nd.Attrs = attrs // allowzero 0: a 0 copies the input's dimension
		n++
	}
	g.Initializers = append(g.Initializers, added...)
	pruneDead(g)
	return n, nil
}

// tensordot rewrites r2 = Reshape(MatMul(Reshape(x, [∏ x.0..x.k-1, x.k]),
// w), [x.0, …, x.k-1, N]) into r2 = MatMul(x, w) when the inner values
// have no other reader, reporting whether it did.
func tensordot(e *shapeEval, readers map[string]int, r2 *Node) bool {
	mm := e.producer[r2.Inputs[0]]
	if mm == nil || mm.OpType != "MatMul" || mm.Domain != "" || len(mm.Inputs) != 2 || readers[mm.Outputs[0]] != 1 {
		return false
	}
	w := e.inits[mm.Inputs[1]]
	r1 := e.producer[mm.Inputs[0]]
	if w == nil || len(w.Dims) != 2 || r1 == nil || r1.OpType != "Reshape" || r1.Domain != "" || len(r1.Inputs) != 2 || readers[r1.Outputs[0]] != 1 {
		return false
	}
	x := r1.Inputs[0]
	s1, ok1 := e.eval(r1.Inputs[1])
	s2, ok2 := e.eval(r2.Inputs[1])
	if !ok1 || !ok2 || len(s1) != 2 || len(s2) < 2 {
		return false
	}
	k := len(s2) - 1
	lead := s1[0]
	switch {
	case k == 1 && lead.kind == symDim1 && lead.src == x && lead.idx == 0:
	case k > 1 && lead.kind == symProd && lead.src == x && lead.idx == 0 && lead.hi == k:
	default:
		return false
	}
	if s1[1].kind != symDim1 || s1[1].src != x || s1[1].idx != k {
		return false
	}
	for j := 0; j < k; j++ {
		if s2[j].kind != symDim1 || s2[j].src != x || s2[j].idx != j {
			return false
		}
	}
	if s2[k].kind != symConst || s2[k].c != w.Dims[1] {
		return false
	}
	*r2 = Node{Name: r2.Name, OpType: "MatMul", Inputs: []string{x, mm.Inputs[1]}, Outputs: r2.Outputs}
	return true
}

// pruneDead drops the nodes whose outputs nothing reads (graph outputs
// count as read) and the initializers nothing reads.
func pruneDead(g *Graph) {
	for {
		read := g.readNames()
		kept := g.Nodes[:0]
		for _, nd := range g.Nodes {
			live := false
			for _, o := range nd.Outputs {
				live = live || read[o]
			}
			if live {
				kept = append(kept, nd)
			}
		}
		removed := len(g.Nodes) - len(kept)
		g.Nodes = kept
		if removed == 0 {
			g.dropUnreadInitializers()
			return
		}
	}
}

// readNames returns the names some node reads, and the graph's outputs.
func (g *Graph) readNames() map[string]bool {
	read := make(map[string]bool)
	for i := range g.Nodes {
		for _, in := range g.Nodes[i].Inputs {
			read[in] = true
		}
	}
	for _, o := range g.Outputs {
		read[o.Name] = true
	}
	return read
}

// dropUnreadInitializers drops the initializers no node reads.
func (g *Graph) dropUnreadInitializers() {
	read := g.readNames()
	kept := g.Initializers[:0]
	for _, t := range g.Initializers {
		if read[t.Name] {
			kept = append(kept, t)
		}
	}
	g.Initializers = kept
}
