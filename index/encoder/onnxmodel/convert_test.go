package onnxmodel

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// toyShards returns the weight files of testdata/toy: a 5×3 float table
// (row i holds 10i, 10i+1, 10i+2) split over two files, and the int32
// constants zero, ones=[1 1] and minus1.
func toyShards() [][]byte {
	var table []byte
	for i := 0; i < 5; i++ {
		for j := 0; j < 3; j++ {
			table = binary.LittleEndian.AppendUint32(table, math.Float32bits(float32(10*i+j)))
		}
	}
	var ints []byte
	for _, v := range []int32{0, 1, 1, -1} {
		ints = binary.LittleEndian.AppendUint32(ints, uint32(v))
	}
	return [][]byte{table[:28], table[28:], ints}
}

func toyJSON(t testing.TB) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", "toy", "model.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestTranslateToy(t *testing.T) {
	m, err := Translate(toyJSON(t), toyShards())
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	g := m.Graph
	if len(g.Inputs) != 2 || g.Inputs[0].Name != InputIndices || g.Inputs[1].Name != InputValues ||
		g.Inputs[0].DataType != Int64 || len(g.Inputs[0].Shape) != 2 || g.Inputs[0].Shape[1].Value != 2 {
		t.Errorf("inputs %+v", g.Inputs)
	}
	if len(g.Outputs) != 1 || g.Outputs[0].Name != OutputEmbeddings || g.Outputs[0].DataType != Float {
		t.Errorf("outputs %+v", g.Outputs)
	}
	// Every value must be produced before it is used.
	defined := map[string]bool{}
	for _, in := range g.Inputs {
		defined[in.Name] = true
	}
	for _, init := range g.Initializers {
		defined[init.Name] = true
	}
	ops := map[string]int{}
	for _, n := range g.Nodes {
		ops[n.OpType]++
		for _, in := range n.Inputs {
			if in != "" && !defined[in] {
				t.Errorf("node %s (%s) uses %q before it is defined", n.Name, n.OpType, in)
			}
		}
		for _, out := range n.Outputs {
			defined[out] = true
		}
	}
	for _, op := range []string{"ReduceMax", "Expand", "ScatterND", "NonZero", "Gather", "Slice", "Concat", "ConstantOfShape", "ReduceSum", "Cast", "Div", "Identity"} {
		if ops[op] == 0 {
			t.Errorf("no %s node in %v", op, ops)
		}
	}
	// Integer weights become int64 initializers; inline and manifest
	// constants are both found.
	for _, init := range g.Initializers {
		if init.Name == "zero" && init.DataType != Int64 {
			t.Errorf("zero has type %v", init.DataType)
		}
	}
	if _, err := m.Marshal(); err != nil {
		t.Errorf("Marshal: %v", err)
	}
}

// mutate applies f to the decoded toy model and re-encodes it.
func mutate(t testing.TB, f func(m map[string]any)) []byte {
	var m map[string]any
	if err := json.Unmarshal(toyJSON(t), &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// node returns the toy node with the given name from a decoded model.
func node(m map[string]any, name string) map[string]any {
	for _, n := range m["modelTopology"].(map[string]any)["node"].([]any) {
		if nm := n.(map[string]any); nm["name"] == name {
			return nm
		}
	}
	panic("no node " + name)
}

func addNode(m map[string]any, n map[string]any) {
	top := m["modelTopology"].(map[string]any)
	top["node"] = append(top["node"].([]any), n)
}

func TestConvertErrors(t *testing.T) {
	good := toyShards()
	for _, tc := range []struct {
		name   string
		json   []byte
		shards [][]byte
		want   string
	}{
		{"not json", []byte("{"), good, "parse"},
		{"no nodes", []byte(`{"modelTopology":{"node":[]}}`), nil, "no graph nodes"},
		{"unsupported op", mutate(t, func(m map[string]any) { node(m, "out")["op"] = "FooBar" }), good, "FooBar"},
		{"unknown input", mutate(t, func(m map[string]any) { node(m, "out")["input"] = []any{"sum", "nosuch"} }), good, "nosuch"},
		{"bad input ref", mutate(t, func(m map[string]any) { node(m, "out")["input"] = []any{"sum", "count:x"} }), good, "count:x"},
		{"cycle", mutate(t, func(m map[string]any) { node(m, "shape")["input"] = []any{"maxidx", "dense"} }), good, "cycle"},
		{"duplicate name", mutate(t, func(m map[string]any) {
			addNode(m, map[string]any{"name": "sum", "op": "Identity", "input": []any{"count"}})
		}), good, "duplicate"},
		{"two outputs", mutate(t, func(m map[string]any) {
			addNode(m, map[string]any{"name": "extra", "op": "Identity", "input": []any{"count"}})
		}), good, "exactly one"},
		{"reserved name", mutate(t, func(m map[string]any) { node(m, "out")["name"] = OutputEmbeddings }), good, "reserved"},
		{"missing const value", mutate(t, func(m map[string]any) {
			node(m, "begin")["attr"] = map[string]any{}
		}), good, "begin"},
		{"too few shards", toyJSON(t), good[:2], "shard"},
		{"short shard", toyJSON(t), [][]byte{good[0], good[1], good[2][:12]}, "minus1"},
		{"long shard", toyJSON(t), [][]byte{good[0], good[1], append(append([]byte{}, good[2]...), 0)}, "bytes"},
		{"quantized", mutate(t, func(m map[string]any) {
			w := m["weightsManifest"].([]any)[0].(map[string]any)["weights"].([]any)[0].(map[string]any)
			w["quantization"] = map[string]any{"dtype": "uint8", "min": 0, "scale": 1}
		}), good, "quantized"},
		{"string weight", mutate(t, func(m map[string]any) {
			w := m["weightsManifest"].([]any)[0].(map[string]any)["weights"].([]any)[0].(map[string]any)
			w["dtype"] = "string"
		}), good, "dtype"},
		{"huge weight", mutate(t, func(m map[string]any) {
			w := m["weightsManifest"].([]any)[0].(map[string]any)["weights"].([]any)[0].(map[string]any)
			w["shape"] = []any{1 << 20, 1 << 20}
		}), good, "too large"},
		{"ellipsis", mutate(t, func(m map[string]any) {
			node(m, "dim")["attr"].(map[string]any)["ellipsis_mask"] = map[string]any{"i": "1"}
		}), good, "ellipsis"},
		{"dynamic axis", mutate(t, func(m map[string]any) {
			node(m, "full")["input"] = []any{"maskshape", "dim", "maxidx"}
		}), good, "axis"},
		{"bad int attribute", mutate(t, func(m map[string]any) {
			node(m, "dim")["attr"].(map[string]any)["begin_mask"] = map[string]any{"i": "x"}
		}), good, "begin_mask"},
		{"string placeholder", mutate(t, func(m map[string]any) {
			node(m, "values")["attr"].(map[string]any)["dtype"] = map[string]any{"type": "DT_STRING"}
		}), good, "values"},
		{"mixed types", mutate(t, func(m map[string]any) { node(m, "out")["input"] = []any{"sum", "maxidx"} }), good, "types"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ConvertTFJS(tc.json, tc.shards)
			if err == nil {
				t.Fatal("ConvertTFJS succeeded")
			}
			if !strings.HasPrefix(err.Error(), "onnxmodel: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want prefix onnxmodel: and mention of %q", err, tc.want)
			}
		})
	}
}

func TestConvertTFJSDirErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ConvertTFJSDir(dir); err == nil {
		t.Error("missing model.json accepted")
	}
	bad := `{"modelTopology":{"node":[{"name":"x","op":"Placeholder"}]},"weightsManifest":[{"paths":["../escape"],"weights":[]}]}`
	if err := os.WriteFile(filepath.Join(dir, "model.json"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ConvertTFJSDir(dir); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Errorf("path escaping the directory: %v", err)
	}
}

// FuzzConvertTFJS feeds arbitrary model.json bytes, with the toy weights,
// to the converter: it may fail, but must not panic or hang.
func FuzzConvertTFJS(f *testing.F) {
	f.Add(toyJSON(f))
	f.Add([]byte(`{"modelTopology":{"node":[{"name":"a","op":"Placeholder","attr":{"dtype":{"type":1}}},{"name":"b","op":"Rsqrt","input":["a"]}]}}`))
	f.Add([]byte(`{"modelTopology":{"node":[{"name":"a","op":"Const","attr":{"value":{"tensor":{"dtype":"DT_INT32","tensorShape":{"dim":[{"size":"3"}]},"intVal":[1]}}}},{"name":"b","op":"Squeeze","input":["a:0","^a"]}]}}`))
	f.Add([]byte(`{"modelTopology":{"node":[{"name":"a","op":"Split","input":["a:1","a"],"attr":{"num_split":{"i":"70000"}}}]}}`))
	f.Add([]byte("null"))
	shards := toyShards()
	f.Fuzz(func(t *testing.T, modelJSON []byte) {
		b, err := ConvertTFJS(modelJSON, shards)
		if err == nil && len(b) == 0 {
			t.Error("no error and no model")
		}
	})
}
