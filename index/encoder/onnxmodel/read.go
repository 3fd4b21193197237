package onnxmodel

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// GraphView is what ReadGraph reads of an ONNX model: the graph's nodes in
// file order, their scalar and list attributes, and its initializers with
// their data left in place.
type GraphView struct {
	Nodes        []Node
	Initializers map[string]RawTensor
}

// RawTensor is an initializer read in place: Raw aliases the model's bytes
// (its raw_data, little-endian), so it is valid while they are.
type RawTensor struct {
	Name     string
	DataType DataType
	Dims     []int64
	Raw      []byte
}

// NumElements is the product of the tensor's dimensions (1 for a scalar).
func (t RawTensor) NumElements() int64 {
	n := int64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// ReadGraph reads an ONNX model's graph without copying its weights. Nodes
// keep their float, int, floats and ints attributes (others are skipped);
// initializers must hold their data as raw_data within the file, in the
// size their type and shape promise. Bytes that are not such a model give
// an error wrapping ErrMalformed.
func ReadGraph(model []byte) (*GraphView, error) {
	top, err := fields(model)
	if err != nil {
		return nil, fmt.Errorf("%w: model: %w", ErrMalformed, err)
	}
	var graph []byte
	for _, f := range top {
		if f.num == 7 && f.wire == 2 {
			graph = f.val
		}
	}
	if graph == nil {
		return nil, fmt.Errorf("%w: no graph", ErrMalformed)
	}
	fs, err := fields(graph)
	if err != nil {
		return nil, fmt.Errorf("%w: graph: %w", ErrMalformed, err)
	}
	g := &GraphView{Initializers: map[string]RawTensor{}}
	for _, f := range fs {
		switch {
		case f.num == 1 && f.wire == 2:
			n, err := readNode(f.val)
			if err != nil {
				return nil, fmt.Errorf("%w: graph node %d: %w", ErrMalformed, len(g.Nodes), err)
			}
			g.Nodes = append(g.Nodes, n)
		case f.num == 5 && f.wire == 2:
			t, err := readRawTensor(f.val)
			if err != nil {
				return nil, fmt.Errorf("%w: initializer %d: %w", ErrMalformed, len(g.Initializers), err)
			}
			if _, dup := g.Initializers[t.Name]; dup {
				return nil, fmt.Errorf("%w: initializer %q twice", ErrMalformed, t.Name)
			}
			g.Initializers[t.Name] = t
		}
	}
	return g, nil
}

// readNode reads a NodeProto with its attributes.
func readNode(b []byte) (Node, error) {
	ni, err := parseNode(b)
	if err != nil {
		return Node{}, err
	}
	n := ni.Node
	if !ni.attrs {
		return n, nil
	}
	fs, _ := fields(b) // parseNode has parsed b
	for _, f := range fs {
		if f.num != 5 || f.wire != 2 {
			continue
		}
		a, err := readAttr(f.val)
		if err != nil {
			return Node{}, fmt.Errorf("attribute of %q: %w", n.Name, err)
		}
		n.Attrs = append(n.Attrs, a)
	}
	return n, nil
}

// readAttr reads an AttributeProto's name, type and float, int, floats or
// ints value.
func readAttr(b []byte) (Attribute, error) {
	fs, err := fields(b)
	if err != nil {
		return Attribute{}, err
	}
	var a Attribute
	for _, f := range fs {
		switch {
		case f.num == 1 && f.wire == 2:
			a.Name = string(f.val)
		case f.num == 20 && f.wire == 0:
			a.Type = AttrType(f.u)
		case f.num == 2 && f.wire == 5:
			a.F = math.Float32frombits(binary.LittleEndian.Uint32(f.val))
		case f.num == 3 && f.wire == 0:
			a.I = int64(f.u)
		case f.num == 7 && f.wire == 5:
			a.Floats = append(a.Floats, math.Float32frombits(binary.LittleEndian.Uint32(f.val)))
		case f.num == 7 && f.wire == 2:
			if len(f.val)%4 != 0 {
				return a, errors.New("bad packed floats")
			}
			for p := 0; p < len(f.val); p += 4 {
				a.Floats = append(a.Floats, math.Float32frombits(binary.LittleEndian.Uint32(f.val[p:])))
			}
		case f.num == 8 && (f.wire == 0 || f.wire == 2):
			if a.Ints, err = appendVarints(a.Ints, f); err != nil {
				return a, err
			}
		}
	}
	return a, nil
}

// readRawTensor reads a TensorProto whose data is raw_data in the file.
func readRawTensor(b []byte) (RawTensor, error) {
	fs, err := fields(b)
	if err != nil {
		return RawTensor{}, err
	}
	var t RawTensor
	for _, f := range fs {
		switch {
		case f.num == 1 && (f.wire == 0 || f.wire == 2):
			if t.Dims, err = appendVarints(t.Dims, f); err != nil {
				return t, errors.New("bad dims")
			}
		case f.num == 2 && f.wire == 0:
			t.DataType = DataType(f.u)
		case f.num == 8 && f.wire == 2:
			t.Name = string(f.val)
		case f.num == 9 && f.wire == 2:
			t.Raw = f.val
		}
	}
	size := int64(t.DataType.size())
	if size == 0 {
		return t, fmt.Errorf("tensor %q: element type %d not read", t.Name, t.DataType)
	}
	n := int64(1)
	for _, d := range t.Dims {
		if d < 0 || (d > 0 && n > math.MaxInt32/d) {
			return t, fmt.Errorf("tensor %q: bad shape %v", t.Name, t.Dims)
		}
		n *= d
	}
	if int64(len(t.Raw)) != n*size {
		return t, fmt.Errorf("tensor %q: %d bytes of raw data for shape %v of %v", t.Name, len(t.Raw), t.Dims, t.DataType)
	}
	return t, nil
}
