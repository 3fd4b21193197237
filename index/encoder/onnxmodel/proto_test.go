package onnxmodel

import (
	"encoding/binary"
	"math"
	"reflect"
	"testing"
)

// field is one decoded protobuf field.
type field struct {
	num   int
	typ   int
	v     uint64 // varint and fixed32 values
	bytes []byte // length-delimited values
}

// decode splits a protobuf message into fields, failing the test on
// malformed input. It is the inverse of the wire helpers, written
// independently of them.
func decode(t *testing.T, b []byte) []field {
	t.Helper()
	var out []field
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			t.Fatalf("bad key varint")
		}
		b = b[n:]
		f := field{num: int(key >> 3), typ: int(key & 7)}
		switch f.typ {
		case 0:
			f.v, n = binary.Uvarint(b)
			if n <= 0 {
				t.Fatalf("field %d: bad varint", f.num)
			}
			b = b[n:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				t.Fatalf("field %d: bad length", f.num)
			}
			f.bytes = b[n : n+int(l)]
			b = b[n+int(l):]
		case 5:
			if len(b) < 4 {
				t.Fatalf("field %d: short fixed32", f.num)
			}
			f.v = uint64(binary.LittleEndian.Uint32(b))
			b = b[4:]
		default:
			t.Fatalf("field %d: unexpected wire type %d", f.num, f.typ)
		}
		out = append(out, f)
	}
	return out
}

// get returns the fields numbered num.
func get(fs []field, num int) []field {
	var out []field
	for _, f := range fs {
		if f.num == num {
			out = append(out, f)
		}
	}
	return out
}

func packedVarints(t *testing.T, b []byte) []int64 {
	var out []int64
	for len(b) > 0 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			t.Fatal("bad packed varint")
		}
		out = append(out, int64(v))
		b = b[n:]
	}
	return out
}

func TestMarshalWireFormat(t *testing.T) {
	m := Model{
		IRVersion:    IRVersion,
		OpsetVersion: Opset,
		ProducerName: "test",
		Graph: Graph{
			Name: "g",
			Nodes: []Node{{
				Name: "n", OpType: "Gather", Inputs: []string{"x", "", "i"}, Outputs: []string{"y"},
				Attrs: []Attribute{IntAttr("axis", -1), IntsAttr("perm", 1, 0), FloatAttr("alpha", 0.5),
					StringAttr("mode", "add"), TensorAttr("value", Int64Tensor("", []int64{1}, []int64{7}))},
			}},
			Initializers: []Tensor{FloatTensor("w", []int64{2, 1}, []float32{1.5, -2})},
			Inputs:       []ValueInfo{{Name: "x", DataType: Int64, Shape: []Dim{{Param: "n"}, {Value: 2}}}},
			Outputs:      []ValueInfo{{Name: "y", DataType: Float}},
		},
	}
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	top := decode(t, b)
	if ir := get(top, 1); len(ir) != 1 || ir[0].v != IRVersion {
		t.Errorf("ir_version fields %+v", ir)
	}
	opset := decode(t, get(top, 8)[0].bytes)
	if v := get(opset, 2); len(v) != 1 || v[0].v != Opset {
		t.Errorf("opset %+v", opset)
	}
	g := decode(t, get(top, 7)[0].bytes)
	if name := get(g, 2); string(name[0].bytes) != "g" {
		t.Errorf("graph name %q", name[0].bytes)
	}
	node := decode(t, get(g, 1)[0].bytes)
	var ins []string
	for _, f := range get(node, 1) {
		ins = append(ins, string(f.bytes))
	}
	if !reflect.DeepEqual(ins, []string{"x", "", "i"}) {
		t.Errorf("node inputs %q (empty optional input must be kept)", ins)
	}
	if op := get(node, 4); string(op[0].bytes) != "Gather" {
		t.Errorf("op_type %q", op[0].bytes)
	}
	attrs := get(node, 5)
	if len(attrs) != 5 {
		t.Fatalf("%d attributes", len(attrs))
	}
	a0 := decode(t, attrs[0].bytes)
	if int64(get(a0, 3)[0].v) != -1 || get(a0, 20)[0].v != uint64(AttrInt) {
		t.Errorf("int attribute %+v", a0)
	}
	a1 := decode(t, attrs[1].bytes)
	if got := packedVarints(t, get(a1, 8)[0].bytes); !reflect.DeepEqual(got, []int64{1, 0}) {
		t.Errorf("ints attribute %v", got)
	}
	a2 := decode(t, attrs[2].bytes)
	if f := get(a2, 2); f[0].typ != 5 || math.Float32frombits(uint32(f[0].v)) != 0.5 {
		t.Errorf("float attribute %+v", f)
	}
	a3 := decode(t, attrs[3].bytes)
	if s := get(a3, 4); string(s[0].bytes) != "add" {
		t.Errorf("string attribute %+v", s)
	}
	a4 := decode(t, attrs[4].bytes)
	tv := decode(t, get(a4, 5)[0].bytes)
	if get(tv, 2)[0].v != uint64(Int64) || binary.LittleEndian.Uint64(get(tv, 9)[0].bytes) != 7 {
		t.Errorf("tensor attribute %+v", tv)
	}
	init := decode(t, get(g, 5)[0].bytes)
	if dims := packedVarints(t, get(init, 1)[0].bytes); !reflect.DeepEqual(dims, []int64{2, 1}) {
		t.Errorf("initializer dims %v", dims)
	}
	raw := get(init, 9)[0].bytes
	if len(raw) != 8 || math.Float32frombits(binary.LittleEndian.Uint32(raw[4:])) != -2 {
		t.Errorf("initializer raw data %v", raw)
	}
	in := decode(t, get(g, 11)[0].bytes)
	tensorType := decode(t, get(decode(t, get(in, 2)[0].bytes), 1)[0].bytes)
	dims := get(decode(t, get(tensorType, 2)[0].bytes), 1)
	if len(dims) != 2 || string(get(decode(t, dims[0].bytes), 2)[0].bytes) != "n" || get(decode(t, dims[1].bytes), 1)[0].v != 2 {
		t.Errorf("input shape %+v", dims)
	}
	out := decode(t, get(g, 12)[0].bytes)
	outType := decode(t, get(decode(t, get(out, 2)[0].bytes), 1)[0].bytes)
	if len(get(outType, 2)) != 0 {
		t.Error("output with nil Shape must not state a shape")
	}
}

func TestMarshalErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    Model
	}{
		{"no versions", Model{}},
		{"short raw data", Model{IRVersion: 8, OpsetVersion: 18, Graph: Graph{Initializers: []Tensor{
			{Name: "w", DataType: Float, Dims: []int64{3}, Raw: make([]byte, 8)}}}}},
		{"negative dim", Model{IRVersion: 8, OpsetVersion: 18, Graph: Graph{Initializers: []Tensor{
			{Name: "w", DataType: Float, Dims: []int64{-1}, Raw: nil}}}}},
		{"unknown type", Model{IRVersion: 8, OpsetVersion: 18, Graph: Graph{Initializers: []Tensor{
			{Name: "w", DataType: 99, Dims: []int64{1}, Raw: make([]byte, 4)}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.m.Marshal(); err == nil {
				t.Error("Marshal succeeded")
			}
		})
	}
}

func TestStridedSlice(t *testing.T) {
	const maxI, minI = math.MaxInt64, math.MinInt64
	for _, tc := range []struct {
		name                         string
		begin, end, strides          []int64
		beginMask, endMask, shrink   int64
		starts, ends, steps, squeeze []int64
	}{
		// indices[:, 1] as in the encoder's ClipToMaxLength step.
		{"column", []int64{0, 1}, []int64{0, 2}, []int64{1, 1}, 1, 1, 2,
			[]int64{0, 1}, []int64{maxI, 2}, []int64{1, 1}, []int64{1}},
		// shape[1:] as in the Scatter steps.
		{"tail", []int64{1}, []int64{0}, []int64{1}, 0, 1, 0,
			[]int64{1}, []int64{maxI}, []int64{1}, nil},
		// shape[0] as a scalar.
		{"first", []int64{0}, []int64{1}, []int64{1}, 0, 0, 1,
			[]int64{0}, []int64{1}, []int64{1}, []int64{0}},
		// x[-1] must not become the empty slice x[-1:0].
		{"last", []int64{-1}, []int64{0}, []int64{1}, 0, 0, 1,
			[]int64{-1}, []int64{maxI}, []int64{1}, []int64{0}},
		// x[::-1]
		{"reverse", []int64{0}, []int64{0}, []int64{-1}, 1, 1, 0,
			[]int64{maxI}, []int64{minI}, []int64{-1}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			starts, ends, steps, axes, squeeze, err := stridedSlice(tc.begin, tc.end, tc.strides, tc.beginMask, tc.endMask, tc.shrink)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(starts, tc.starts) || !reflect.DeepEqual(ends, tc.ends) ||
				!reflect.DeepEqual(steps, tc.steps) || !reflect.DeepEqual(squeeze, tc.squeeze) || len(axes) != len(tc.begin) {
				t.Errorf("got starts %v ends %v steps %v squeeze %v", starts, ends, steps, squeeze)
			}
		})
	}
	if _, _, _, _, _, err := stridedSlice([]int64{0}, []int64{1}, []int64{0}, 0, 0, 0); err == nil {
		t.Error("zero stride accepted")
	}
	if _, _, _, _, _, err := stridedSlice([]int64{0}, []int64{1, 2}, []int64{1}, 0, 0, 0); err == nil {
		t.Error("mismatched lengths accepted")
	}
}
