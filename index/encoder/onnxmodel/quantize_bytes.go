package onnxmodel

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrMalformed reports ONNX bytes that are not a well-formed ModelProto.
var ErrMalformed = errors.New("onnxmodel: malformed ONNX protobuf")

// QuantizeONNX is QuantizeMatMuls for a model this package did not write:
// an ONNX file exported elsewhere (torch.onnx, Optimum), given as its bytes.
// Every MatMul (default domain) by a float [K, N] initializer becomes
// com.microsoft DynamicQuantizeMatMul with int8 weights scaled per column
// within PairBound, as QuantizeMatMuls does, taking along a bias Add that
// alone reads its product; float weights no node reads any longer are
// dropped and the com.microsoft opset is imported. Everything else of the
// file — other nodes with their attributes and subgraphs, inputs, outputs,
// value infos, metadata, fields this package does not know — is copied byte
// for byte. Weights kept in external data files are left float.
//
// It returns the rewritten model and the number of MatMuls rewritten; with
// none, the model is returned unchanged. Bytes that do not parse as a
// ModelProto give an error wrapping ErrMalformed.
func QuantizeONNX(model []byte) ([]byte, int, error) {
	top, err := fields(model)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: model: %w", ErrMalformed, err)
	}
	gi := -1
	hasMS := false
	for i, f := range top {
		switch {
		case f.num == 7 && f.wire == 2:
			gi = i
		case f.num == 8 && f.wire == 2:
			sub, err := fields(f.val)
			if err != nil {
				return nil, 0, fmt.Errorf("%w: opset_import: %w", ErrMalformed, err)
			}
			for _, s := range sub {
				if s.num == 1 && s.wire == 2 && string(s.val) == MSDomain {
					hasMS = true
				}
			}
		}
	}
	if gi < 0 {
		return nil, 0, fmt.Errorf("%w: no graph", ErrMalformed)
	}
	graph, n, err := quantizeGraphBytes(top[gi].val)
	if err != nil || n == 0 {
		if err != nil {
			return nil, 0, err
		}
		return model, 0, nil
	}
	out := wire{b: make([]byte, 0, len(graph)+len(model)-len(top[gi].val)+64)}
	for i, f := range top {
		if i == gi {
			out.bytesField(7, graph)
			continue
		}
		out.b = append(out.b, f.raw...)
	}
	if !hasMS {
		var o wire
		o.stringField(1, MSDomain)
		o.varintField(2, MSDomainVersion)
		out.bytesField(8, o.b)
	}
	return out.b, n, nil
}

// pbField is one protobuf field: its number, wire type, value (the payload
// of a length-delimited field, the varint or fixed bytes otherwise) and its
// whole encoding, tag included.
type pbField struct {
	num  int
	wire int
	val  []byte
	u    uint64 // a varint's value
	raw  []byte
}

// fields splits a protobuf message into its fields.
func fields(b []byte) ([]pbField, error) {
	var out []pbField
	for p := 0; p < len(b); {
		start := p
		tag, k := binary.Uvarint(b[p:])
		if k <= 0 {
			return nil, fmt.Errorf("bad tag at byte %d", p)
		}
		p += k
		f := pbField{num: int(tag >> 3), wire: int(tag & 7)}
		if f.num <= 0 || tag>>3 > math.MaxInt32 {
			return nil, fmt.Errorf("bad field number at byte %d", start)
		}
		switch f.wire {
		case 0:
			v, k := binary.Uvarint(b[p:])
			if k <= 0 {
				return nil, fmt.Errorf("bad varint at byte %d", p)
			}
			f.u, f.val = v, b[p:p+k]
			p += k
		case 1, 5:
			sz := 8
			if f.wire == 5 {
				sz = 4
			}
			if len(b)-p < sz {
				return nil, fmt.Errorf("truncated fixed field at byte %d", p)
			}
			f.val = b[p : p+sz]
			p += sz
		case 2:
			l, k := binary.Uvarint(b[p:])
			if k <= 0 || l > uint64(len(b)-p-k) {
				return nil, fmt.Errorf("bad length at byte %d", p)
			}
			p += k
			f.val = b[p : p+int(l)]
			p += int(l)
		default:
			return nil, fmt.Errorf("unsupported wire type %d at byte %d", f.wire, start)
		}
		f.raw = b[start:p]
		out = append(out, f)
	}
	return out, nil
}

// appendVarints appends to dst the value of a varint field (wire type 0)
// or the values of a packed repeated one (wire type 2).
func appendVarints(dst []int64, f pbField) ([]int64, error) {
	if f.wire == 0 {
		return append(dst, int64(f.u)), nil
	}
	for p := 0; p < len(f.val); {
		v, k := binary.Uvarint(f.val[p:])
		if k <= 0 {
			return dst, errors.New("bad packed varint")
		}
		dst = append(dst, int64(v))
		p += k
	}
	return dst, nil
}

// nodeInfo is what the rewriter reads of a NodeProto.
type nodeInfo struct {
	Node
	attrs bool // it has attributes (which Node does not hold)
}

func parseNode(b []byte) (nodeInfo, error) {
	fs, err := fields(b)
	if err != nil {
		return nodeInfo{}, err
	}
	var n nodeInfo
	for _, f := range fs {
		if f.wire != 2 {
			continue
		}
		switch f.num {
		case 1:
			n.Inputs = append(n.Inputs, string(f.val))
		case 2:
			n.Outputs = append(n.Outputs, string(f.val))
		case 3:
			n.Name = string(f.val)
		case 4:
			n.OpType = string(f.val)
		case 5:
			n.attrs = true
		case 7:
			n.Domain = string(f.val)
		}
	}
	return n, nil
}

// tensorInfo is what the rewriter reads of a TensorProto: a float tensor's
// values, when they are in the file.
type tensorInfo struct {
	name     string
	dataType DataType
	dims     []int64
	// raw is a float tensor's values, little-endian (its raw_data, or
	// float_data re-encoded); nil when not a float tensor held in the file.
	raw []byte
}

func parseTensor(b []byte) (tensorInfo, error) {
	fs, err := fields(b)
	if err != nil {
		return tensorInfo{}, err
	}
	var t tensorInfo
	var raw, packed []byte
	var unpacked []float32
	external := false
	for _, f := range fs {
		switch {
		case f.num == 1 && (f.wire == 0 || f.wire == 2):
			if t.dims, err = appendVarints(t.dims, f); err != nil {
				return t, errors.New("bad dims")
			}
		case f.num == 2 && f.wire == 0:
			t.dataType = DataType(f.u)
		case f.num == 4 && f.wire == 2:
			packed = append(packed, f.val...)
		case f.num == 4 && f.wire == 5:
			unpacked = append(unpacked, math.Float32frombits(binary.LittleEndian.Uint32(f.val)))
		case f.num == 8 && f.wire == 2:
			t.name = string(f.val)
		case f.num == 9 && f.wire == 2:
			raw = f.val
		case f.num == 13, f.num == 14 && f.wire == 0 && f.u == 1:
			external = true
		}
	}
	if t.dataType != Float || external {
		return t, nil
	}
	n := int64(1)
	for _, d := range t.dims {
		if d <= 0 || n > math.MaxInt32/d {
			return t, nil // empty or huge: nothing to quantize
		}
		n *= d
	}
	src := raw
	if src == nil {
		src = packed
	}
	switch {
	case src != nil && int64(len(src)) == 4*n:
		t.raw = src
	case src == nil && int64(len(unpacked)) == n:
		t.raw = floatRaw(unpacked)
	}
	return t, nil
}

// quantizeGraphBytes rewrites a GraphProto (see QuantizeONNX).
func quantizeGraphBytes(g []byte) ([]byte, int, error) {
	fs, err := fields(g)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: graph: %w", ErrMalformed, err)
	}
	var nodes []nodeInfo
	nodeField := map[int]int{} // field index → node index
	inits := map[string]int{}  // initializer name → field index
	readers := map[string][]int{}
	for i, f := range fs {
		switch {
		case f.num == 1 && f.wire == 2:
			n, err := parseNode(f.val)
			if err != nil {
				return nil, 0, fmt.Errorf("%w: graph node %d: %w", ErrMalformed, len(nodes), err)
			}
			nodeField[i] = len(nodes)
			for _, in := range n.Inputs {
				readers[in] = append(readers[in], len(nodes))
			}
			nodes = append(nodes, n)
		case f.num == 5 && f.wire == 2:
			name, err := tensorName(f.val)
			if err != nil {
				return nil, 0, fmt.Errorf("%w: graph initializer: %w", ErrMalformed, err)
			}
			inits[name] = i
		case f.num == 12 && f.wire == 2:
			vf, err := fields(f.val)
			if err != nil {
				return nil, 0, fmt.Errorf("%w: graph output: %w", ErrMalformed, err)
			}
			for _, x := range vf {
				if x.num == 1 && x.wire == 2 {
					readers[string(x.val)] = append(readers[string(x.val)], -1)
				}
			}
		}
	}
	tensor := func(name string) (tensorInfo, bool, error) {
		i, ok := inits[name]
		if !ok {
			return tensorInfo{}, false, nil
		}
		t, err := parseTensor(fs[i].val)
		if err != nil {
			return t, false, fmt.Errorf("%w: initializer %q: %w", ErrMalformed, name, err)
		}
		return t, true, nil
	}
	type quantized struct {
		w, scale, zero string
		cols           int64
	}
	done := map[string]quantized{}
	var added []Tensor
	changed := map[int]bool{}
	dropNode := map[int]bool{}
	n := 0
	for i := range nodes {
		nd := &nodes[i]
		if nd.OpType != "MatMul" || nd.Domain != "" || len(nd.Inputs) != 2 || len(nd.Outputs) != 1 {
			continue
		}
		q, ok := done[nd.Inputs[1]]
		if !ok {
			t, found, err := tensor(nd.Inputs[1])
			if err != nil {
				return nil, 0, err
			}
			if !found || t.raw == nil || len(t.dims) != 2 {
				continue
			}
			w, scale, zero, err := quantizeColumns(&Tensor{Name: t.name, DataType: Float, Dims: t.dims, Raw: t.raw})
			if err != nil {
				return nil, 0, err
			}
			for _, nt := range []Tensor{w, scale, zero} {
				if _, dup := inits[nt.Name]; dup {
					return nil, 0, fmt.Errorf("onnxmodel: quantize %q: initializer %q exists already", t.name, nt.Name)
				}
			}
			added = append(added, w, scale, zero)
			q = quantized{w.Name, scale.Name, zero.Name, t.dims[1]}
			done[nd.Inputs[1]] = q
		}
		nd.OpType, nd.Domain = "DynamicQuantizeMatMul", MSDomain
		nd.Inputs = []string{nd.Inputs[0], q.w, q.scale, q.zero}
		changed[i] = true
		n++
		// Fold a bias Add that alone reads the product.
		r := readers[nd.Outputs[0]]
		if len(r) != 1 || r[0] < 0 {
			continue
		}
		add := &nodes[r[0]]
		if add.OpType != "Add" || add.Domain != "" || add.attrs || len(add.Inputs) != 2 || len(add.Outputs) != 1 || add.Inputs[0] == add.Inputs[1] {
			continue
		}
		bias := add.Inputs[1]
		if bias == nd.Outputs[0] {
			bias = add.Inputs[0]
		}
		bt, found, err := tensor(bias)
		if err != nil {
			return nil, 0, err
		}
		if !found || bt.raw == nil || len(bt.dims) != 1 || bt.dims[0] != q.cols {
			continue
		}
		nd.Inputs = append(nd.Inputs, bias)
		nd.Outputs = add.Outputs
		dropNode[r[0]] = true
	}
	if n == 0 {
		return g, 0, nil
	}
	// Drop the float weights nothing reads any more: not a node left, not
	// a graph output, nor a name in any node kept as it was (whose
	// subgraphs may read outer initializers).
	still := map[string]bool{}
	for i, nd := range nodes {
		if dropNode[i] {
			continue
		}
		for _, in := range nd.Inputs {
			still[in] = true
		}
	}
	var keptRaw [][]byte
	for fi, f := range fs {
		if ni, ok := nodeField[fi]; ok && !changed[ni] && !dropNode[ni] {
			keptRaw = append(keptRaw, f.val)
		}
	}
	dropInit := map[int]bool{}
	for name := range done {
		if still[name] || len(readers[name]) > 0 && hasOutputReader(readers[name]) {
			continue
		}
		used := false
		for _, b := range keptRaw {
			if bytes.Contains(b, []byte(name)) {
				used = true
				break
			}
		}
		if !used {
			dropInit[inits[name]] = true
		}
	}
	out := wire{b: make([]byte, 0, len(g))}
	lastInit := -1
	for fi, f := range fs {
		if f.num == 5 && f.wire == 2 {
			lastInit = fi
		}
	}
	for fi, f := range fs {
		switch ni, isNode := nodeField[fi]; {
		case isNode && dropNode[ni]:
		case isNode && changed[ni]:
			out.bytesField(1, nodes[ni].encode())
		case dropInit[fi]:
		default:
			out.b = append(out.b, f.raw...)
		}
		if fi == lastInit || lastInit < 0 && fi == len(fs)-1 {
			for i := range added {
				out.bytesField(5, added[i].encode())
			}
		}
	}
	return out.b, n, nil
}

func hasOutputReader(r []int) bool {
	for _, x := range r {
		if x < 0 {
			return true
		}
	}
	return false
}

// tensorName returns a TensorProto's name.
func tensorName(b []byte) (string, error) {
	fs, err := fields(b)
	if err != nil {
		return "", err
	}
	for _, f := range fs {
		if f.num == 8 && f.wire == 2 {
			return string(f.val), nil
		}
	}
	return "", nil
}

func floatRaw(f []float32) []byte {
	raw := make([]byte, 4*len(f))
	for i, v := range f {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return raw
}
