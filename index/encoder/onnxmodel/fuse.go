package onnxmodel

import (
	"encoding/binary"
	"math"
)

// FuseLayerNorms replaces, in place, each layer normalisation over the
// last axis that TensorFlow spells out in ten elementwise operators,
//
//	mean = ReduceMean(x, [-1])        d = Sub(x, mean)
//	var  = ReduceMean(Mul(d, d), [-1])
//	r    = Reciprocal(Sqrt(Add(var, ε)))
//	y    = Add(Mul(Mul(γ, r), d), β)   (γ, β float [C] initializers)
//
// with one ONNX LayerNormalization(x, γ, β; axis −1, epsilon ε), which
// ONNX Runtime runs in a single pass. Operands of the commutative Add and
// Mul may come in either order; a pattern whose intermediate values are
// read outside it is left alone. It returns the number of layer norms
// fused (4 in USE-Lite). The result differs from the unfused graph by
// float rounding only.
func FuseLayerNorms(m *Model) int {
	g := &m.Graph
	inits := make(map[string]*Tensor, len(g.Initializers))
	for i := range g.Initializers {
		inits[g.Initializers[i].Name] = &g.Initializers[i]
	}
	readers := make(map[string][]int)
	for i := range g.Nodes {
		seen := make(map[string]bool)
		for _, in := range g.Nodes[i].Inputs {
			if !seen[in] {
				seen[in] = true
				readers[in] = append(readers[in], i)
			}
		}
	}
	for _, o := range g.Outputs {
		readers[o.Name] = append(readers[o.Name], -1)
	}
	// only returns the single node reading v when it has op type op.
	only := func(v, op string) (int, *Node) {
		r := readers[v]
		if len(r) != 1 || r[0] < 0 {
			return -1, nil
		}
		nd := &g.Nodes[r[0]]
		if nd.OpType != op || nd.Domain != "" || len(nd.Outputs) != 1 {
			return -1, nil
		}
		return r[0], nd
	}
	// other returns the operand of a binary node that is not v.
	other := func(nd *Node, v string) string {
		if len(nd.Inputs) != 2 {
			return ""
		}
		if nd.Inputs[0] == v {
			return nd.Inputs[1]
		}
		if nd.Inputs[1] == v {
			return nd.Inputs[0]
		}
		return ""
	}
	lastAxisMean := func(nd *Node) bool {
		if nd.OpType != "ReduceMean" || nd.Domain != "" || len(nd.Inputs) != 2 || len(nd.Outputs) != 1 {
			return false
		}
		for _, a := range nd.Attrs {
			if a.Name == "keepdims" && a.I != 1 {
				return false
			}
		}
		ax := inits[nd.Inputs[1]]
		return ax != nil && ax.DataType == Int64 && len(ax.Raw) == 8 && int64(binary.LittleEndian.Uint64(ax.Raw)) == -1
	}
	vector := func(name string) *Tensor {
		t := inits[name]
		if t == nil || t.DataType != Float || len(t.Dims) != 1 {
			return nil
		}
		return t
	}
	drop := make(map[int]bool)
	fused := 0
	for i := range g.Nodes {
		mean := &g.Nodes[i]
		if drop[i] || !lastAxisMean(mean) {
			continue
		}
		x := mean.Inputs[0]
		iSub, sub := only(mean.Outputs[0], "Sub")
		if sub == nil || len(sub.Inputs) != 2 || sub.Inputs[0] != x || sub.Inputs[1] != mean.Outputs[0] {
			continue
		}
		d := sub.Outputs[0]
		// d feeds exactly the square and the final product.
		var iSq, iProd int = -1, -1
		for _, r := range readers[d] {
			if r < 0 {
				iSq, iProd = -2, -2
				break
			}
			nd := &g.Nodes[r]
			if nd.OpType == "Mul" && len(nd.Inputs) == 2 && nd.Inputs[0] == d && nd.Inputs[1] == d {
				iSq = r
			} else {
				iProd = r
			}
		}
		if len(readers[d]) != 2 || iSq < 0 || iProd < 0 {
			continue
		}
		iVar, variance := only(g.Nodes[iSq].Outputs[0], "ReduceMean")
		if variance == nil || !lastAxisMean(variance) {
			continue
		}
		iEps, addEps := only(variance.Outputs[0], "Add")
		if addEps == nil {
			continue
		}
		eps := inits[other(addEps, variance.Outputs[0])]
		if eps == nil || eps.DataType != Float || len(eps.Raw) != 4 {
			continue
		}
		iSqrt, sqrt := only(addEps.Outputs[0], "Sqrt")
		if sqrt == nil {
			continue
		}
		iRec, rec := only(sqrt.Outputs[0], "Reciprocal")
		if rec == nil {
			continue
		}
		iGain, gain := only(rec.Outputs[0], "Mul")
		if gain == nil {
			continue
		}
		gamma := vector(other(gain, rec.Outputs[0]))
		if gamma == nil {
			continue
		}
		iProd2, prod := only(gain.Outputs[0], "Mul")
		if prod == nil || iProd2 != iProd || other(prod, gain.Outputs[0]) != d {
			continue
		}
		iOut, out := only(prod.Outputs[0], "Add")
		if out == nil {
			continue
		}
		beta := vector(other(out, prod.Outputs[0]))
		if beta == nil || beta.Dims[0] != gamma.Dims[0] {
			continue
		}
		epsilon := math.Float32frombits(binary.LittleEndian.Uint32(eps.Raw))
		for _, j := range []int{i, iSub, iSq, iVar, iEps, iSqrt, iRec, iGain, iProd} {
			drop[j] = true
		}
		g.Nodes[iOut] = Node{
			Name: out.Name, OpType: "LayerNormalization",
			Inputs: []string{x, gamma.Name, beta.Name}, Outputs: out.Outputs,
			Attrs: []Attribute{IntAttr("axis", -1), FloatAttr("epsilon", epsilon)},
		}
		fused++
	}
	if fused == 0 {
		return 0
	}
	kept := g.Nodes[:0]
	for i, nd := range g.Nodes {
		if !drop[i] {
			kept = append(kept, nd)
		}
	}
	g.Nodes = kept
	g.dropUnreadInitializers() // axes, ε nothing reads any more
	return fused
}
