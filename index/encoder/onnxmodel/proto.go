package onnxmodel

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// DataType is an ONNX TensorProto element type.
type DataType int32

// The ONNX element types this package writes.
const (
	Float DataType = 1
	Uint8 DataType = 2
	Int8  DataType = 3
	Int32 DataType = 6
	Int64 DataType = 7
	Bool  DataType = 9
)

// String returns the ONNX name of the element type.
func (d DataType) String() string {
	switch d {
	case Float:
		return "float"
	case Uint8:
		return "uint8"
	case Int8:
		return "int8"
	case Int32:
		return "int32"
	case Int64:
		return "int64"
	case Bool:
		return "bool"
	}
	return fmt.Sprintf("DataType(%d)", int32(d))
}

// size returns the number of bytes one element occupies in raw_data, or 0
// for types this package cannot store.
func (d DataType) size() int {
	switch d {
	case Float, Int32:
		return 4
	case Int64:
		return 8
	case Uint8, Int8, Bool:
		return 1
	}
	return 0
}

// Tensor is a constant tensor: a graph initializer or a tensor-valued
// attribute. Raw holds the elements in little-endian order, as ONNX's
// raw_data field requires.
type Tensor struct {
	Name     string
	DataType DataType
	Dims     []int64
	Raw      []byte
}

// FloatTensor returns a float tensor with the given name, shape and values.
func FloatTensor(name string, dims []int64, values []float32) Tensor {
	raw := make([]byte, 4*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return Tensor{Name: name, DataType: Float, Dims: dims, Raw: raw}
}

// Int64Tensor returns an int64 tensor with the given name, shape and values.
func Int64Tensor(name string, dims []int64, values []int64) Tensor {
	raw := make([]byte, 8*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
	}
	return Tensor{Name: name, DataType: Int64, Dims: dims, Raw: raw}
}

// BoolTensor returns a bool tensor with the given name, shape and values.
func BoolTensor(name string, dims []int64, values []bool) Tensor {
	raw := make([]byte, len(values))
	for i, v := range values {
		if v {
			raw[i] = 1
		}
	}
	return Tensor{Name: name, DataType: Bool, Dims: dims, Raw: raw}
}

// NumElements returns the product of the tensor's dimensions (1 for a
// scalar), or -1 if a dimension is negative or the product overflows.
func (t *Tensor) NumElements() int64 {
	n := int64(1)
	for _, d := range t.Dims {
		if d < 0 || (d > 0 && n > math.MaxInt64/d) {
			return -1
		}
		n *= d
	}
	return n
}

// validate checks that the raw data matches the shape and type.
func (t *Tensor) validate() error {
	sz := t.DataType.size()
	if sz == 0 {
		return fmt.Errorf("tensor %q: unsupported data type %v", t.Name, t.DataType)
	}
	n := t.NumElements()
	if n < 0 || n > int64(len(t.Raw)/sz) || int64(len(t.Raw)) != n*int64(sz) {
		return fmt.Errorf("tensor %q: %d bytes of %v do not fit shape %v", t.Name, len(t.Raw), t.DataType, t.Dims)
	}
	return nil
}

// AttrType is an ONNX AttributeProto type.
type AttrType int32

// The attribute types this package writes.
const (
	AttrFloat  AttrType = 1
	AttrInt    AttrType = 2
	AttrString AttrType = 3
	AttrTensor AttrType = 4
	AttrFloats AttrType = 6
	AttrInts   AttrType = 7
)

// Attribute is a named node attribute. Exactly the field selected by Type
// is written.
type Attribute struct {
	Name   string
	Type   AttrType
	F      float32
	I      int64
	S      string
	T      *Tensor
	Floats []float32
	Ints   []int64
}

// IntAttr returns an integer attribute.
func IntAttr(name string, v int64) Attribute { return Attribute{Name: name, Type: AttrInt, I: v} }

// IntsAttr returns an integer-list attribute.
func IntsAttr(name string, v ...int64) Attribute {
	return Attribute{Name: name, Type: AttrInts, Ints: v}
}

// FloatAttr returns a float attribute.
func FloatAttr(name string, v float32) Attribute {
	return Attribute{Name: name, Type: AttrFloat, F: v}
}

// StringAttr returns a string attribute.
func StringAttr(name, v string) Attribute {
	return Attribute{Name: name, Type: AttrString, S: v}
}

// TensorAttr returns a tensor attribute.
func TensorAttr(name string, t Tensor) Attribute {
	return Attribute{Name: name, Type: AttrTensor, T: &t}
}

// Node is one operator application in a graph. An empty input name stands
// for an omitted optional input.
type Node struct {
	Name    string
	OpType  string
	Domain  string
	Inputs  []string
	Outputs []string
	Attrs   []Attribute
}

// Dim is one dimension of a graph input or output: a fixed size when Param
// is empty, otherwise a named symbolic size.
type Dim struct {
	Value int64
	Param string
}

// ValueInfo describes a graph input or output. A nil Shape leaves the shape
// unstated (any rank); an empty non-nil Shape declares a scalar.
type ValueInfo struct {
	Name     string
	DataType DataType
	Shape    []Dim
}

// Graph is an ONNX graph: nodes in topological order, constant
// initializers, and typed inputs and outputs.
type Graph struct {
	Name         string
	Nodes        []Node
	Initializers []Tensor
	Inputs       []ValueInfo
	Outputs      []ValueInfo
}

// Model is an ONNX ModelProto: the default-domain opset OpsetVersion, plus
// the opsets of other operator domains its nodes use (Domains, e.g.
// ONNX Runtime's "com.microsoft" contrib operators).
type Model struct {
	IRVersion       int64
	OpsetVersion    int64
	Domains         []OpsetImport
	ProducerName    string
	ProducerVersion string
	DocString       string
	Graph           Graph
}

// Marshal encodes the model in the protobuf wire format ONNX runtimes read.
// It checks that every initializer's data matches its shape.
func (m *Model) Marshal() ([]byte, error) {
	if m.OpsetVersion <= 0 || m.IRVersion <= 0 {
		return nil, errors.New("onnxmodel: IR and opset versions must be positive")
	}
	var w wire
	w.varintField(1, uint64(m.IRVersion))
	w.stringField(2, m.ProducerName)
	w.stringField(3, m.ProducerVersion)
	w.stringField(6, m.DocString)
	g, err := m.Graph.encode()
	if err != nil {
		return nil, err
	}
	w.bytesField(7, g)
	var opset wire
	opset.stringField(1, "")
	opset.varintField(2, uint64(m.OpsetVersion))
	w.bytesField(8, opset.b)
	for _, d := range m.Domains {
		if d.Domain == "" || d.Version <= 0 {
			return nil, fmt.Errorf("onnxmodel: opset import %q version %d: want a named domain and a positive version", d.Domain, d.Version)
		}
		var o wire
		o.stringField(1, d.Domain)
		o.varintField(2, uint64(d.Version))
		w.bytesField(8, o.b)
	}
	return w.b, nil
}

// OpsetImport names an operator domain a model's nodes use and its version.
type OpsetImport struct {
	Domain  string
	Version int64
}

func (g *Graph) encode() ([]byte, error) {
	size := 0
	for i := range g.Initializers {
		size += len(g.Initializers[i].Raw) + 64
	}
	w := wire{b: make([]byte, 0, size+4096)}
	for i := range g.Nodes {
		w.bytesField(1, g.Nodes[i].encode())
	}
	w.stringField(2, g.Name)
	for i := range g.Initializers {
		t := &g.Initializers[i]
		if err := t.validate(); err != nil {
			return nil, fmt.Errorf("onnxmodel: initializer: %w", err)
		}
		w.bytesField(5, t.encode())
	}
	for _, v := range g.Inputs {
		w.bytesField(11, v.encode())
	}
	for _, v := range g.Outputs {
		w.bytesField(12, v.encode())
	}
	return w.b, nil
}

func (n *Node) encode() []byte {
	var w wire
	for _, in := range n.Inputs {
		w.alwaysString(1, in)
	}
	for _, out := range n.Outputs {
		w.alwaysString(2, out)
	}
	w.stringField(3, n.Name)
	w.stringField(4, n.OpType)
	for i := range n.Attrs {
		w.bytesField(5, n.Attrs[i].encode())
	}
	w.stringField(7, n.Domain)
	return w.b
}

func (a *Attribute) encode() []byte {
	var w wire
	w.stringField(1, a.Name)
	switch a.Type {
	case AttrFloat:
		w.tag(2, 5)
		w.b = binary.LittleEndian.AppendUint32(w.b, math.Float32bits(a.F))
	case AttrInt:
		w.tag(3, 0)
		w.b = binary.AppendUvarint(w.b, uint64(a.I))
	case AttrString:
		w.alwaysString(4, a.S)
	case AttrTensor:
		if a.T != nil {
			w.bytesField(5, a.T.encode())
		}
	case AttrFloats:
		var p []byte
		for _, f := range a.Floats {
			p = binary.LittleEndian.AppendUint32(p, math.Float32bits(f))
		}
		w.bytesField(7, p)
	case AttrInts:
		var p []byte
		for _, v := range a.Ints {
			p = binary.AppendUvarint(p, uint64(v))
		}
		w.bytesField(8, p)
	}
	w.varintField(20, uint64(a.Type))
	return w.b
}

func (t *Tensor) encode() []byte {
	w := wire{b: make([]byte, 0, len(t.Raw)+len(t.Name)+32)}
	if len(t.Dims) > 0 {
		var p []byte
		for _, d := range t.Dims {
			p = binary.AppendUvarint(p, uint64(d))
		}
		w.bytesField(1, p)
	}
	w.varintField(2, uint64(t.DataType))
	w.stringField(8, t.Name)
	w.tag(9, 2)
	w.b = binary.AppendUvarint(w.b, uint64(len(t.Raw)))
	w.b = append(w.b, t.Raw...)
	return w.b
}

func (v *ValueInfo) encode() []byte {
	var shape wire
	for _, d := range v.Shape {
		var dim wire
		if d.Param != "" {
			dim.stringField(2, d.Param)
		} else {
			dim.tag(1, 0)
			dim.b = binary.AppendUvarint(dim.b, uint64(d.Value))
		}
		shape.bytesField(1, dim.b)
	}
	var tensor wire
	tensor.varintField(1, uint64(v.DataType))
	if v.Shape != nil {
		// Present but empty declares a scalar.
		tensor.tag(2, 2)
		tensor.b = binary.AppendUvarint(tensor.b, uint64(len(shape.b)))
		tensor.b = append(tensor.b, shape.b...)
	}
	var typ wire
	typ.bytesField(1, tensor.b)
	var w wire
	w.stringField(1, v.Name)
	w.bytesField(2, typ.b)
	return w.b
}

// wire appends protobuf fields to a byte slice. Varints are written with
// encoding/binary's Uvarint, which is the protobuf base-128 varint; negative
// int64 values are written as their two's-complement uint64, as protobuf
// does for int64 fields.
type wire struct{ b []byte }

func (w *wire) tag(field int, wireType int) {
	w.b = binary.AppendUvarint(w.b, uint64(field)<<3|uint64(wireType))
}

func (w *wire) varintField(field int, v uint64) {
	if v == 0 {
		return
	}
	w.tag(field, 0)
	w.b = binary.AppendUvarint(w.b, v)
}

func (w *wire) stringField(field int, s string) {
	if s == "" {
		return
	}
	w.alwaysString(field, s)
}

func (w *wire) alwaysString(field int, s string) {
	w.tag(field, 2)
	w.b = binary.AppendUvarint(w.b, uint64(len(s)))
	w.b = append(w.b, s...)
}

func (w *wire) bytesField(field int, p []byte) {
	w.tag(field, 2)
	w.b = binary.AppendUvarint(w.b, uint64(len(p)))
	w.b = append(w.b, p...)
}
