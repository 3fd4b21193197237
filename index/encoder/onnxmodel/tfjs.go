package onnxmodel

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// tfjsModel is the part of a TF.js graph model's model.json the converter
// reads.
type tfjsModel struct {
	ModelTopology struct {
		Node []tfNode `json:"node"`
	} `json:"modelTopology"`
	WeightsManifest []struct {
		Paths   []string     `json:"paths"`
		Weights []weightSpec `json:"weights"`
	} `json:"weightsManifest"`
}

// tfNode is one TensorFlow NodeDef in TF.js JSON form.
type tfNode struct {
	Name  string                     `json:"name"`
	Op    string                     `json:"op"`
	Input []string                   `json:"input"`
	Attr  map[string]json.RawMessage `json:"attr"`
}

// weightSpec describes one weight in a manifest group.
type weightSpec struct {
	Name         string          `json:"name"`
	Shape        []int64         `json:"shape"`
	Dtype        string          `json:"dtype"`
	Quantization json.RawMessage `json:"quantization"`
}

// attrValue is TensorFlow's AttrValue as TF.js serialises it. Integers
// arrive as JSON strings or numbers, strings as base64 or byte arrays, and
// types as enum numbers or names; the accessors accept every form.
type attrValue struct {
	I      json.RawMessage `json:"i"`
	F      json.RawMessage `json:"f"`
	B      *bool           `json:"b"`
	S      json.RawMessage `json:"s"`
	Type   json.RawMessage `json:"type"`
	List   *attrList       `json:"list"`
	Shape  *tfShape        `json:"shape"`
	Tensor *tfTensor       `json:"tensor"`
}

type attrList struct {
	I    []json.RawMessage `json:"i"`
	S    []json.RawMessage `json:"s"`
	Type []json.RawMessage `json:"type"`
}

type tfShape struct {
	Dim []struct {
		Size json.RawMessage `json:"size"`
	} `json:"dim"`
	UnknownRank bool `json:"unknownRank"`
}

type tfTensor struct {
	Dtype       json.RawMessage   `json:"dtype"`
	TensorShape *tfShape          `json:"tensorShape"`
	FloatVal    []json.RawMessage `json:"floatVal"`
	IntVal      []json.RawMessage `json:"intVal"`
	Int64Val    []json.RawMessage `json:"int64Val"`
	BoolVal     []bool            `json:"boolVal"`
}

// TensorFlow DataType enum values the converter understands.
const (
	tfFloat = 1
	tfInt32 = 3
	tfInt64 = 9
	tfBool  = 10
)

var tfTypeNames = map[string]int64{
	"DT_FLOAT": tfFloat, "DT_INT32": tfInt32, "DT_INT64": tfInt64, "DT_BOOL": tfBool,
}

// attr decodes the named attribute; ok is false when it is absent.
func (n *tfNode) attr(name string) (attrValue, bool, error) {
	raw, ok := n.Attr[name]
	if !ok {
		return attrValue{}, false, nil
	}
	var v attrValue
	if err := json.Unmarshal(raw, &v); err != nil {
		return attrValue{}, false, fmt.Errorf("node %q: attribute %s: %w", n.Name, name, err)
	}
	return v, true, nil
}

// intAttr returns an integer attribute, or def when it is absent.
func (n *tfNode) intAttr(name string, def int64) (int64, error) {
	v, ok, err := n.attr(name)
	if err != nil || !ok || v.I == nil {
		return def, err
	}
	i, err := jsonInt(v.I)
	if err != nil {
		return 0, fmt.Errorf("node %q: attribute %s: %w", n.Name, name, err)
	}
	return i, nil
}

// boolAttr returns a boolean attribute, or false when it is absent.
func (n *tfNode) boolAttr(name string) (bool, error) {
	v, ok, err := n.attr(name)
	if err != nil || !ok || v.B == nil {
		return false, err
	}
	return *v.B, nil
}

// stringAttr returns a string attribute, or def when it is absent.
func (n *tfNode) stringAttr(name, def string) (string, error) {
	v, ok, err := n.attr(name)
	if err != nil || !ok || v.S == nil {
		return def, err
	}
	s, err := jsonBytes(v.S)
	if err != nil {
		return "", fmt.Errorf("node %q: attribute %s: %w", n.Name, name, err)
	}
	return s, nil
}

// intsAttr returns an integer-list attribute, or nil when it is absent.
func (n *tfNode) intsAttr(name string) ([]int64, error) {
	v, ok, err := n.attr(name)
	if err != nil || !ok || v.List == nil {
		return nil, err
	}
	out := make([]int64, len(v.List.I))
	for i, raw := range v.List.I {
		if out[i], err = jsonInt(raw); err != nil {
			return nil, fmt.Errorf("node %q: attribute %s: %w", n.Name, name, err)
		}
	}
	return out, nil
}

// typeAttr returns a TensorFlow DataType attribute; ok is false when it is
// absent.
func (n *tfNode) typeAttr(name string) (int64, bool, error) {
	v, ok, err := n.attr(name)
	if err != nil || !ok || v.Type == nil {
		return 0, false, err
	}
	t, err := jsonType(v.Type)
	if err != nil {
		return 0, false, fmt.Errorf("node %q: attribute %s: %w", n.Name, name, err)
	}
	return t, true, nil
}

// jsonInt decodes an int64 given as a JSON number or string.
func jsonInt(raw json.RawMessage) (int64, error) {
	s := strings.TrimSpace(string(raw))
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, err
		}
	}
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad integer %s", raw)
	}
	return i, nil
}

// jsonFloat decodes a float given as a JSON number or string.
func jsonFloat(raw json.RawMessage) (float32, error) {
	s := strings.TrimSpace(string(raw))
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, err
		}
	}
	f, err := strconv.ParseFloat(s, 32)
	if err != nil {
		return 0, fmt.Errorf("bad float %s", raw)
	}
	return float32(f), nil
}

// jsonBytes decodes a byte string given as base64 or as an array of bytes.
func jsonBytes(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return "", fmt.Errorf("bad base64 string: %w", err)
		}
		return string(b), nil
	}
	var arr []byte
	var nums []int
	if err := json.Unmarshal(raw, &nums); err != nil {
		return "", fmt.Errorf("bad byte string %s", raw)
	}
	for _, c := range nums {
		if c < 0 || c > 255 {
			return "", fmt.Errorf("bad byte %d", c)
		}
		arr = append(arr, byte(c))
	}
	return string(arr), nil
}

// jsonType decodes a TensorFlow DataType given as a number or enum name.
func jsonType(raw json.RawMessage) (int64, error) {
	var name string
	if err := json.Unmarshal(raw, &name); err == nil {
		if t, ok := tfTypeNames[name]; ok {
			return t, nil
		}
		if i, err := strconv.ParseInt(name, 10, 64); err == nil {
			return i, nil
		}
		return 0, fmt.Errorf("unsupported data type %q", name)
	}
	return jsonInt(raw)
}

// onnxType maps a TensorFlow DataType to the ONNX type the converter uses
// for it: every integer becomes int64, so that shapes, indices and
// arithmetic on them never need casts.
func onnxType(tf int64) (DataType, error) {
	switch tf {
	case tfFloat:
		return Float, nil
	case tfInt32, tfInt64:
		return Int64, nil
	case tfBool:
		return Bool, nil
	}
	return 0, fmt.Errorf("unsupported TensorFlow data type %d", tf)
}

// shapeDims decodes a TensorShapeProto; dims are -1 where unknown, and
// known is false for an unknown rank.
func shapeDims(s *tfShape) (dims []int64, known bool, err error) {
	if s == nil || s.UnknownRank {
		return nil, false, nil
	}
	dims = make([]int64, len(s.Dim))
	for i, d := range s.Dim {
		if d.Size == nil {
			dims[i] = 0
			continue
		}
		if dims[i], err = jsonInt(d.Size); err != nil {
			return nil, false, err
		}
		if dims[i] < -1 {
			return nil, false, fmt.Errorf("bad dimension %d", dims[i])
		}
	}
	return dims, true, nil
}

// constTensor is a constant's value, already in the ONNX type the
// converter uses for it.
type constTensor struct {
	dtype DataType
	dims  []int64
	f     []float32 // when dtype is Float
	i     []int64   // when dtype is Int64
	b     []bool    // when dtype is Bool
}

func (c *constTensor) len() int {
	switch c.dtype {
	case Float:
		return len(c.f)
	case Int64:
		return len(c.i)
	}
	return len(c.b)
}

// tensor returns the constant as a named ONNX tensor.
func (c *constTensor) tensor(name string) Tensor {
	switch c.dtype {
	case Float:
		return FloatTensor(name, c.dims, c.f)
	case Int64:
		return Int64Tensor(name, c.dims, c.i)
	}
	return BoolTensor(name, c.dims, c.b)
}

// maxElements bounds the size of one constant, so that a corrupt manifest
// cannot make the converter allocate without limit.
const maxElements = 1 << 28

// maxInlineElements bounds constants stored in model.json itself; real
// models keep anything large in the weight files.
const maxInlineElements = 1 << 16

// numElements returns the element count of dims, or an error when a
// dimension is negative or the count is implausibly large.
func numElements(dims []int64) (int, error) {
	n := int64(1)
	for _, d := range dims {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension in %v", dims)
		}
		if d > 0 && n > maxElements/d {
			return 0, fmt.Errorf("shape %v too large", dims)
		}
		n *= d
	}
	return int(n), nil
}

// decodeWeights reads every manifest weight from the shards, which must be
// the manifest's paths in order, group by group.
func decodeWeights(m *tfjsModel, shards [][]byte) (map[string]*constTensor, error) {
	want := 0
	for _, g := range m.WeightsManifest {
		want += len(g.Paths)
	}
	if want != len(shards) {
		return nil, fmt.Errorf("weights manifest lists %d shard files, got %d", want, len(shards))
	}
	out := make(map[string]*constTensor)
	next := 0
	for gi, g := range m.WeightsManifest {
		files := shards[next : next+len(g.Paths)]
		next += len(g.Paths)
		var data []byte
		if len(files) == 1 {
			data = files[0]
		} else {
			data = bytes.Join(files, nil)
		}
		off := 0
		for _, w := range g.Weights {
			if len(w.Quantization) > 0 && string(w.Quantization) != "null" {
				return nil, fmt.Errorf("weight %q: quantized weights are not supported", w.Name)
			}
			n, err := numElements(w.Shape)
			if err != nil {
				return nil, fmt.Errorf("weight %q: %w", w.Name, err)
			}
			c := &constTensor{dims: append([]int64{}, w.Shape...)}
			var size int
			switch w.Dtype {
			case "float32":
				size = 4
			case "int32":
				size = 4
			case "bool":
				size = 1
			default:
				return nil, fmt.Errorf("weight %q: unsupported dtype %q", w.Name, w.Dtype)
			}
			if n > (len(data)-off)/size {
				return nil, fmt.Errorf("weight %q: group %d data ends after %d bytes", w.Name, gi, len(data))
			}
			p := data[off : off+n*size]
			off += n * size
			switch w.Dtype {
			case "float32":
				c.dtype = Float
				c.f = make([]float32, n)
				for i := range c.f {
					c.f[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
				}
			case "int32":
				c.dtype = Int64
				c.i = make([]int64, n)
				for i := range c.i {
					c.i[i] = int64(int32(binary.LittleEndian.Uint32(p[4*i:])))
				}
			case "bool":
				c.dtype = Bool
				c.b = make([]bool, n)
				for i := range c.b {
					c.b[i] = p[i] != 0
				}
			}
			if _, dup := out[w.Name]; dup {
				return nil, fmt.Errorf("weight %q listed twice", w.Name)
			}
			out[w.Name] = c
		}
		if off != len(data) {
			return nil, fmt.Errorf("weights group %d: %d bytes of data, manifest describes %d", gi, len(data), off)
		}
	}
	return out, nil
}

// inlineConst decodes a Const node whose value is stored in the graph
// rather than the weight files. TensorFlow repeats the last value to fill
// the shape when fewer values are given.
func inlineConst(n *tfNode) (*constTensor, error) {
	v, ok, err := n.attr("value")
	if err != nil {
		return nil, err
	}
	if !ok || v.Tensor == nil {
		return nil, fmt.Errorf("const %q has neither a weight nor an inline value", n.Name)
	}
	t := v.Tensor
	tf, err := jsonType(t.Dtype)
	if err != nil {
		return nil, fmt.Errorf("const %q: %w", n.Name, err)
	}
	dt, err := onnxType(tf)
	if err != nil {
		return nil, fmt.Errorf("const %q: %w", n.Name, err)
	}
	dims, known, err := shapeDims(t.TensorShape)
	if err != nil || !known {
		return nil, fmt.Errorf("const %q: bad shape: %v", n.Name, err)
	}
	for _, d := range dims {
		if d < 0 {
			return nil, fmt.Errorf("const %q: unknown dimension", n.Name)
		}
	}
	cnt, err := numElements(dims)
	if err != nil {
		return nil, fmt.Errorf("const %q: %w", n.Name, err)
	}
	if cnt > maxInlineElements {
		return nil, fmt.Errorf("const %q: inline value of %d elements is too large", n.Name, cnt)
	}
	c := &constTensor{dtype: dt, dims: dims}
	var given int
	switch dt {
	case Float:
		for _, raw := range t.FloatVal {
			f, err := jsonFloat(raw)
			if err != nil {
				return nil, fmt.Errorf("const %q: %w", n.Name, err)
			}
			c.f = append(c.f, f)
		}
		given = len(c.f)
	case Int64:
		vals := t.IntVal
		if tf == tfInt64 {
			vals = t.Int64Val
		}
		for _, raw := range vals {
			i, err := jsonInt(raw)
			if err != nil {
				return nil, fmt.Errorf("const %q: %w", n.Name, err)
			}
			c.i = append(c.i, i)
		}
		given = len(c.i)
	case Bool:
		c.b = append(c.b, t.BoolVal...)
		given = len(c.b)
	}
	if given > cnt || (given == 0 && cnt > 0) {
		return nil, fmt.Errorf("const %q: %d values for shape %v", n.Name, given, dims)
	}
	for ; given < cnt; given++ {
		switch dt {
		case Float:
			c.f = append(c.f, c.f[len(c.f)-1])
		case Int64:
			c.i = append(c.i, c.i[len(c.i)-1])
		case Bool:
			c.b = append(c.b, c.b[len(c.b)-1])
		}
	}
	return c, nil
}
