package onnxmodel

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ConvertTFJS translates a TF.js graph model into an ONNX model (opset
// Opset), node by node. modelJSON is the content of model.json; shards are
// the weight files its weightsManifest lists, in manifest order (group by
// group, path by path). The graph's placeholders become the ONNX inputs
// under their TensorFlow names, and its single sink becomes the output
// OutputEmbeddings. Every integer tensor is int64 in the ONNX graph.
//
// The converter knows the operators the Universal Sentence Encoder Lite
// uses (see the package documentation); any other operator, or an operator
// configuration it cannot translate exactly, is reported as an error.
func ConvertTFJS(modelJSON []byte, shards [][]byte) ([]byte, error) {
	m, err := Translate(modelJSON, shards)
	if err != nil {
		return nil, err
	}
	b, err := m.Marshal()
	if err != nil {
		return nil, fmt.Errorf("onnxmodel: %w", err)
	}
	return b, nil
}

// ConvertTFJSDir reads model.json and the weight files it lists from dir
// and converts them with ConvertTFJS.
func ConvertTFJSDir(dir string) ([]byte, error) {
	m, err := TranslateDir(dir)
	if err != nil {
		return nil, err
	}
	b, err := m.Marshal()
	if err != nil {
		return nil, fmt.Errorf("onnxmodel: %w", err)
	}
	return b, nil
}

// TranslateDir is ConvertTFJSDir without the final encoding: it reads
// model.json and its weight files from dir and returns the ONNX model as a
// Model value (for QuantizeMatMuls, say).
func TranslateDir(dir string) (*Model, error) {
	modelJSON, err := os.ReadFile(filepath.Join(dir, "model.json"))
	if err != nil {
		return nil, fmt.Errorf("onnxmodel: %w", err)
	}
	var m tfjsModel
	if err := json.Unmarshal(modelJSON, &m); err != nil {
		return nil, fmt.Errorf("onnxmodel: parse model.json: %w", err)
	}
	var shards [][]byte
	for _, g := range m.WeightsManifest {
		for _, p := range g.Paths {
			if p == "" || filepath.IsAbs(p) || strings.Contains(filepath.ToSlash(p), "..") {
				return nil, fmt.Errorf("onnxmodel: refusing weight path %q", p)
			}
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
			if err != nil {
				return nil, fmt.Errorf("onnxmodel: %w", err)
			}
			shards = append(shards, b)
		}
	}
	return Translate(modelJSON, shards)
}

// Translate is ConvertTFJS without the final encoding: it returns the ONNX
// model as a Model value, for inspection or further editing.
func Translate(modelJSON []byte, shards [][]byte) (*Model, error) {
	var m tfjsModel
	if err := json.Unmarshal(modelJSON, &m); err != nil {
		return nil, fmt.Errorf("onnxmodel: parse model.json: %w", err)
	}
	if len(m.ModelTopology.Node) == 0 {
		return nil, errors.New("onnxmodel: model.json has no graph nodes")
	}
	weights, err := decodeWeights(&m, shards)
	if err != nil {
		return nil, fmt.Errorf("onnxmodel: %w", err)
	}
	c := &converter{
		nodes:   make(map[string]*tfNode),
		weights: weights,
		consts:  make(map[string]*constTensor),
		emitted: make(map[string]bool),
		info:    make(map[string]valInfo),
		used:    make(map[string]bool),
	}
	if err := c.run(m.ModelTopology.Node); err != nil {
		return nil, fmt.Errorf("onnxmodel: %w", err)
	}
	return &Model{
		IRVersion:       IRVersion,
		OpsetVersion:    Opset,
		ProducerName:    "reqa onnxmodel",
		ProducerVersion: "1",
		DocString:       "Converted from a TF.js graph model by github.com/reqa/reqa/index/encoder/onnxmodel.",
		Graph:           c.g,
	}, nil
}

// valInfo is what the converter knows statically about an ONNX value.
type valInfo struct {
	dtype DataType
	rank  int // -1 when unknown
}

type converter struct {
	nodes   map[string]*tfNode
	weights map[string]*constTensor
	consts  map[string]*constTensor // Const node name → value
	emitted map[string]bool         // initializers already in the graph
	info    map[string]valInfo      // ONNX value name → static facts
	used    map[string]bool         // TF nodes some node consumes
	g       Graph
	seq     int
}

// splitRef parses a TensorFlow input reference "node", "node:k" or
// "^node" (a control dependency).
func splitRef(ref string) (node string, idx int, ctrl bool, err error) {
	if strings.HasPrefix(ref, "^") {
		return ref[1:], 0, true, nil
	}
	if i := strings.LastIndexByte(ref, ':'); i >= 0 {
		k, err := strconv.Atoi(ref[i+1:])
		if err != nil || k < 0 || k > 1<<16 {
			return "", 0, false, fmt.Errorf("bad input reference %q", ref)
		}
		return ref[:i], k, false, nil
	}
	return ref, 0, false, nil
}

// valueName is the ONNX name of output idx of TF node name.
func valueName(name string, idx int) string {
	if idx == 0 {
		return name
	}
	return name + ":" + strconv.Itoa(idx)
}

// dataInputs returns a node's inputs without control dependencies.
func dataInputs(n *tfNode) []string {
	var in []string
	for _, r := range n.Input {
		if !strings.HasPrefix(r, "^") {
			in = append(in, r)
		}
	}
	return in
}

func (c *converter) run(list []tfNode) error {
	for i := range list {
		n := &list[i]
		if n.Name == "" {
			return fmt.Errorf("node %d has no name", i)
		}
		if _, dup := c.nodes[n.Name]; dup {
			return fmt.Errorf("duplicate node name %q", n.Name)
		}
		if n.Name == OutputEmbeddings {
			return fmt.Errorf("node name %q is reserved for the output", n.Name)
		}
		c.nodes[n.Name] = n
	}
	order, err := c.topoSort(list)
	if err != nil {
		return err
	}
	var unsupported []string
	for _, n := range order {
		if _, ok := converters[n.Op]; !ok && n.Op != "Const" && n.Op != "Placeholder" && n.Op != "NoOp" {
			unsupported = append(unsupported, n.Op)
		}
	}
	if len(unsupported) > 0 {
		sort.Strings(unsupported)
		return fmt.Errorf("unsupported TensorFlow operators: %s", strings.Join(dedup(unsupported), ", "))
	}
	for _, n := range order {
		if err := c.convert(n); err != nil {
			return err
		}
	}
	var sinks []string
	for _, n := range order {
		if !c.used[n.Name] && n.Op != "Const" && n.Op != "Placeholder" && n.Op != "NoOp" {
			sinks = append(sinks, n.Name)
		}
	}
	if len(sinks) != 1 {
		return fmt.Errorf("graph has %d output nodes %v, want exactly one", len(sinks), sinks)
	}
	out := sinks[0]
	c.emit("Identity", []string{out}, []string{OutputEmbeddings})
	c.g.Outputs = append(c.g.Outputs, ValueInfo{Name: OutputEmbeddings, DataType: c.info[out].dtype})
	c.g.Name = "use_lite"
	return nil
}

func dedup(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// topoSort orders the nodes so that each follows its inputs, keeping the
// file order among independent nodes.
func (c *converter) topoSort(list []tfNode) ([]*tfNode, error) {
	pending := make(map[string]int, len(list))
	users := make(map[string][]string)
	for i := range list {
		n := &list[i]
		seen := make(map[string]bool)
		for _, r := range n.Input {
			src, _, ctrl, err := splitRef(r)
			if err != nil {
				return nil, fmt.Errorf("node %q: %w", n.Name, err)
			}
			if _, ok := c.nodes[src]; !ok {
				return nil, fmt.Errorf("node %q: unknown input %q", n.Name, r)
			}
			if !ctrl {
				c.used[src] = true
			}
			if !seen[src] {
				seen[src] = true
				pending[n.Name]++
				users[src] = append(users[src], n.Name)
			}
		}
	}
	var order []*tfNode
	var ready []string
	for i := range list {
		if pending[list[i].Name] == 0 {
			ready = append(ready, list[i].Name)
		}
	}
	for len(ready) > 0 {
		name := ready[0]
		ready = ready[1:]
		order = append(order, c.nodes[name])
		for _, u := range users[name] {
			pending[u]--
			if pending[u] == 0 {
				ready = append(ready, u)
			}
		}
	}
	if len(order) != len(list) {
		return nil, errors.New("graph has a cycle")
	}
	return order, nil
}

// tmp returns a fresh name for an intermediate ONNX value of node n.
func (c *converter) tmp(n *tfNode, what string) string {
	c.seq++
	return fmt.Sprintf("%s/onnx/%s_%d", n.Name, what, c.seq)
}

// emit appends an ONNX node.
func (c *converter) emit(op string, inputs, outputs []string, attrs ...Attribute) {
	c.g.Nodes = append(c.g.Nodes, Node{Name: outputs[0], OpType: op, Inputs: inputs, Outputs: outputs, Attrs: attrs})
}

// init adds a constant initializer and records its facts.
func (c *converter) init(name string, t *constTensor) string {
	if !c.emitted[name] {
		c.emitted[name] = true
		c.g.Initializers = append(c.g.Initializers, t.tensor(name))
		c.info[name] = valInfo{dtype: t.dtype, rank: len(t.dims)}
	}
	return name
}

// ints adds an int64 initializer with the given values and shape.
func (c *converter) ints(n *tfNode, what string, dims []int64, v ...int64) string {
	return c.init(c.tmp(n, what), &constTensor{dtype: Int64, dims: dims, i: v})
}

// input returns the ONNX value for data input i of n, adding the
// initializer when the input is a constant.
func (c *converter) input(n *tfNode, i int) (string, error) {
	in := dataInputs(n)
	if i >= len(in) {
		return "", fmt.Errorf("node %q (%s): missing input %d", n.Name, n.Op, i)
	}
	src, idx, _, err := splitRef(in[i])
	if err != nil {
		return "", err
	}
	if k, ok := c.consts[src]; ok && idx == 0 {
		return c.init(src, k), nil
	}
	name := valueName(src, idx)
	if _, ok := c.info[name]; !ok {
		return "", fmt.Errorf("node %q (%s): input %q is not produced by a converted node", n.Name, n.Op, in[i])
	}
	return name, nil
}

// inputs returns the ONNX values of all data inputs of n.
func (c *converter) inputs(n *tfNode) ([]string, error) {
	var out []string
	for i := range dataInputs(n) {
		v, err := c.input(n, i)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// constInput returns the value of data input i of n when it is a constant.
func (c *converter) constInput(n *tfNode, i int) (*constTensor, bool) {
	in := dataInputs(n)
	if i >= len(in) {
		return nil, false
	}
	src, idx, _, err := splitRef(in[i])
	if err != nil || idx != 0 {
		return nil, false
	}
	k, ok := c.consts[src]
	return k, ok
}

// constInts returns data input i of n as constant integers.
func (c *converter) constInts(n *tfNode, i int, what string) ([]int64, error) {
	k, ok := c.constInput(n, i)
	if !ok || k.dtype != Int64 {
		return nil, fmt.Errorf("node %q (%s): %s must be a constant integer tensor", n.Name, n.Op, what)
	}
	return k.i, nil
}

// constScalar returns data input i of n as one constant integer.
func (c *converter) constScalar(n *tfNode, i int, what string) (int64, error) {
	v, err := c.constInts(n, i, what)
	if err != nil {
		return 0, err
	}
	if len(v) != 1 {
		return 0, fmt.Errorf("node %q (%s): %s has %d values, want 1", n.Name, n.Op, what, len(v))
	}
	return v[0], nil
}

// staticLen returns the length of 1-D integer value input i of n (a shape
// operand) when it is known at conversion time, or -1.
func (c *converter) staticLen(n *tfNode, i int) int {
	if k, ok := c.constInput(n, i); ok {
		return k.len()
	}
	in := dataInputs(n)
	if i >= len(in) {
		return -1
	}
	src, _, _, err := splitRef(in[i])
	if err != nil {
		return -1
	}
	if p := c.nodes[src]; p != nil && p.Op == "Pack" {
		return len(dataInputs(p))
	}
	return -1
}

// set records the static facts of an ONNX value.
func (c *converter) set(name string, dt DataType, rank int) {
	c.info[name] = valInfo{dtype: dt, rank: rank}
}

func (c *converter) infoOf(name string) valInfo {
	if v, ok := c.info[name]; ok {
		return v
	}
	return valInfo{rank: -1}
}

func (c *converter) convert(n *tfNode) error {
	switch n.Op {
	case "NoOp":
		return nil
	case "Const":
		k, ok := c.weights[n.Name]
		if !ok {
			var err error
			if k, err = inlineConst(n); err != nil {
				return err
			}
		}
		c.consts[n.Name] = k
		return nil
	case "Placeholder":
		tf, ok, err := n.typeAttr("dtype")
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("placeholder %q has no dtype", n.Name)
		}
		dt, err := onnxType(tf)
		if err != nil {
			return fmt.Errorf("placeholder %q: %w", n.Name, err)
		}
		vi := ValueInfo{Name: n.Name, DataType: dt}
		rank := -1
		if a, ok, err := n.attr("shape"); err != nil {
			return err
		} else if ok && a.Shape != nil {
			dims, known, err := shapeDims(a.Shape)
			if err != nil {
				return fmt.Errorf("placeholder %q: %w", n.Name, err)
			}
			if known {
				rank = len(dims)
				vi.Shape = make([]Dim, len(dims))
				for i, d := range dims {
					if d < 0 {
						vi.Shape[i] = Dim{Param: fmt.Sprintf("%s_%d", n.Name, i)}
					} else {
						vi.Shape[i] = Dim{Value: d}
					}
				}
			}
		}
		c.g.Inputs = append(c.g.Inputs, vi)
		c.set(n.Name, dt, rank)
		return nil
	}
	f := converters[n.Op]
	if err := f(c, n); err != nil {
		if strings.Contains(err.Error(), n.Name) {
			return err
		}
		return fmt.Errorf("node %q (%s): %w", n.Name, n.Op, err)
	}
	return nil
}

// converters maps each supported TensorFlow operator to its translation.
var converters map[string]func(*converter, *tfNode) error

func init() {
	converters = map[string]func(*converter, *tfNode) error{
		"Identity": unaryOp("Identity"), "StopGradient": unaryOp("Identity"),
		"Sin": unaryOp("Sin"), "Cos": unaryOp("Cos"), "Tanh": unaryOp("Tanh"),
		"Relu": unaryOp("Relu"), "Sqrt": unaryOp("Sqrt"), "Exp": unaryOp("Exp"),
		"Log": unaryOp("Log"), "Neg": unaryOp("Neg"), "Abs": unaryOp("Abs"),
		"Sigmoid": unaryOp("Sigmoid"), "Reciprocal": unaryOp("Reciprocal"),
		"LogicalNot": unaryOp("Not"),
		"Add":        binaryOp("Add", false), "AddV2": binaryOp("Add", false),
		"BiasAdd": convBiasAdd,
		"Sub":     binaryOp("Sub", false), "Mul": binaryOp("Mul", false),
		"RealDiv": binaryOp("Div", false), "Maximum": binaryOp("Max", false),
		"Minimum": binaryOp("Min", false), "Pow": binaryOp("Pow", false),
		"Less": binaryOp("Less", true), "Greater": binaryOp("Greater", true),
		"LessEqual": binaryOp("LessOrEqual", true), "GreaterEqual": binaryOp("GreaterOrEqual", true),
		"Equal": binaryOp("Equal", true), "LogicalAnd": binaryOp("And", true),
		"LogicalOr": binaryOp("Or", true),
		"Square":    convSquare, "Rsqrt": convRsqrt,
		"Cast": convCast, "Shape": convShape, "Reshape": convReshape,
		"ExpandDims": convExpandDims, "Squeeze": convSqueeze,
		"ConcatV2": convConcat, "Pack": convPack,
		"GatherV2": convGather, "GatherNd": convGatherNd,
		"ScatterNd": convScatterNd, "SparseToDense": convSparseToDense,
		"Where": convWhere, "SelectV2": convSelect, "Select": convSelect,
		"StridedSlice": convStridedSlice, "Slice": convSlice,
		"SplitV": convSplitV, "Split": convSplit,
		"Mean": reduce("ReduceMean"), "Sum": reduce("ReduceSum"),
		"Max": reduce("ReduceMax"), "Min": reduce("ReduceMin"),
		"Prod":   reduce("ReduceProd"),
		"MatMul": convMatMul, "BatchMatMul": convBatchMatMul, "BatchMatMulV2": convBatchMatMul,
		"Conv2D": convConv2D, "Softmax": convSoftmax, "Range": convRange,
		"Transpose": convTranspose, "Fill": convFill,
	}
}

func unaryOp(op string) func(*converter, *tfNode) error {
	return func(c *converter, n *tfNode) error {
		x, err := c.input(n, 0)
		if err != nil {
			return err
		}
		c.emit(op, []string{x}, []string{n.Name})
		i := c.infoOf(x)
		if op == "Not" {
			i.dtype = Bool
		}
		c.set(n.Name, i.dtype, i.rank)
		return nil
	}
}

func maxRank(a, b int) int {
	if a < 0 || b < 0 {
		return -1
	}
	return max(a, b)
}

func binaryOp(op string, boolOut bool) func(*converter, *tfNode) error {
	return func(c *converter, n *tfNode) error {
		a, err := c.input(n, 0)
		if err != nil {
			return err
		}
		b, err := c.input(n, 1)
		if err != nil {
			return err
		}
		ia, ib := c.infoOf(a), c.infoOf(b)
		if ia.dtype != ib.dtype {
			return fmt.Errorf("operand types differ: %v and %v", ia.dtype, ib.dtype)
		}
		if op == "Div" && ia.dtype != Float {
			return fmt.Errorf("RealDiv on %v", ia.dtype)
		}
		c.emit(op, []string{a, b}, []string{n.Name})
		dt := ia.dtype
		if boolOut {
			dt = Bool
		}
		c.set(n.Name, dt, maxRank(ia.rank, ib.rank))
		return nil
	}
}

func convBiasAdd(c *converter, n *tfNode) error {
	format, err := n.stringAttr("data_format", "NHWC")
	if err != nil {
		return err
	}
	if format != "NHWC" {
		return fmt.Errorf("data_format %q not supported", format)
	}
	return binaryOp("Add", false)(c, n)
}

func convSquare(c *converter, n *tfNode) error {
	x, err := c.input(n, 0)
	if err != nil {
		return err
	}
	c.emit("Mul", []string{x, x}, []string{n.Name})
	i := c.infoOf(x)
	c.set(n.Name, i.dtype, i.rank)
	return nil
}

func convRsqrt(c *converter, n *tfNode) error {
	x, err := c.input(n, 0)
	if err != nil {
		return err
	}
	s := c.tmp(n, "sqrt")
	c.emit("Sqrt", []string{x}, []string{s})
	c.emit("Reciprocal", []string{s}, []string{n.Name})
	i := c.infoOf(x)
	c.set(n.Name, i.dtype, i.rank)
	return nil
}

func convCast(c *converter, n *tfNode) error {
	x, err := c.input(n, 0)
	if err != nil {
		return err
	}
	tf, ok, err := n.typeAttr("DstT")
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("op Cast without DstT")
	}
	dt, err := onnxType(tf)
	if err != nil {
		return err
	}
	c.emit("Cast", []string{x}, []string{n.Name}, IntAttr("to", int64(dt)))
	c.set(n.Name, dt, c.infoOf(x).rank)
	return nil
}

func convShape(c *converter, n *tfNode) error {
	x, err := c.input(n, 0)
	if err != nil {
		return err
	}
	c.emit("Shape", []string{x}, []string{n.Name})
	c.set(n.Name, Int64, 1)
	return nil
}

func convReshape(c *converter, n *tfNode) error {
	in, err := c.inputs(n)
	if err != nil {
		return err
	}
	if len(in) != 2 {
		return fmt.Errorf("want 2 inputs, got %d", len(in))
	}
	// allowzero: a 0 in the target shape means an empty dimension, as in
	// TensorFlow, not "copy the input dimension".
	c.emit("Reshape", in, []string{n.Name}, IntAttr("allowzero", 1))
	c.set(n.Name, c.infoOf(in[0]).dtype, c.staticLen(n, 1))
	return nil
}

// axesInput returns data input i of n as a 1-D int64 ONNX value, reshaping
// a scalar axis into a one-element list.
func (c *converter) axesInput(n *tfNode, i int) (name string, count int, err error) {
	if k, ok := c.constInput(n, i); ok {
		if k.dtype != Int64 {
			return "", 0, errors.New("axes must be integers")
		}
		return c.ints(n, "axes", []int64{int64(len(k.i))}, k.i...), len(k.i), nil
	}
	x, err := c.input(n, i)
	if err != nil {
		return "", 0, err
	}
	out := c.tmp(n, "axes")
	c.emit("Reshape", []string{x, c.ints(n, "minus1", []int64{1}, -1)}, []string{out})
	c.set(out, Int64, 1)
	return out, -1, nil
}

func convExpandDims(c *converter, n *tfNode) error {
	x, err := c.input(n, 0)
	if err != nil {
		return err
	}
	axes, _, err := c.axesInput(n, 1)
	if err != nil {
		return err
	}
	c.emit("Unsqueeze", []string{x, axes}, []string{n.Name})
	i := c.infoOf(x)
	if i.rank >= 0 {
		i.rank++
	}
	c.set(n.Name, i.dtype, i.rank)
	return nil
}

func convSqueeze(c *converter, n *tfNode) error {
	x, err := c.input(n, 0)
	if err != nil {
		return err
	}
	dims, err := n.intsAttr("squeeze_dims")
	if err != nil {
		return err
	}
	if dims == nil {
		if dims, err = n.intsAttr("axis"); err != nil {
			return err
		}
	}
	i := c.infoOf(x)
	if len(dims) == 0 {
		c.emit("Squeeze", []string{x}, []string{n.Name})
		i.rank = -1
	} else {
		c.emit("Squeeze", []string{x, c.ints(n, "axes", []int64{int64(len(dims))}, dims...)}, []string{n.Name})
		if i.rank >= 0 {
			i.rank -= len(dims)
		}
	}
	c.set(n.Name, i.dtype, i.rank)
	return nil
}

func convConcat(c *converter, n *tfNode) error {
	in := dataInputs(n)
	if len(in) < 2 {
		return errors.New("ConcatV2 needs at least one value and an axis")
	}
	axis, err := c.constScalar(n, len(in)-1, "axis")
	if err != nil {
		return err
	}
	var vals []string
	for i := 0; i < len(in)-1; i++ {
		v, err := c.input(n, i)
		if err != nil {
			return err
		}
		vals = append(vals, v)
	}
	c.emit("Concat", vals, []string{n.Name}, IntAttr("axis", axis))
	i := c.infoOf(vals[0])
	c.set(n.Name, i.dtype, i.rank)
	return nil
}

func convPack(c *converter, n *tfNode) error {
	axis, err := n.intAttr("axis", 0)
	if err != nil {
		return err
	}
	in, err := c.inputs(n)
	if err != nil {
		return err
	}
	if len(in) == 0 {
		return errors.New("op Pack without inputs")
	}
	axes := c.ints(n, "axis", []int64{1}, axis)
	var parts []string
	for _, v := range in {
		u := c.tmp(n, "unsqueeze")
		c.emit("Unsqueeze", []string{v, axes}, []string{u})
		parts = append(parts, u)
	}
	c.emit("Concat", parts, []string{n.Name}, IntAttr("axis", axis))
	i := c.infoOf(in[0])
	if i.rank >= 0 {
		i.rank++
	}
	c.set(n.Name, i.dtype, i.rank)
	return nil
}

func convGather(c *converter, n *tfNode) error {
	bd, err := n.intAttr("batch_dims", 0)
	if err != nil {
		return err
	}
	if bd != 0 {
		return fmt.Errorf("batch_dims %d not supported", bd)
	}
	params, err := c.input(n, 0)
	if err != nil {
		return err
	}
	idx, err := c.input(n, 1)
	if err != nil {
		return err
	}
	axis, err := c.constScalar(n, 2, "axis")
	if err != nil {
		return err
	}
	c.emit("Gather", []string{params, idx}, []string{n.Name}, IntAttr("axis", axis))
	p, q := c.infoOf(params), c.infoOf(idx)
	rank := -1
	if p.rank >= 0 && q.rank >= 0 {
		rank = p.rank + q.rank - 1
	}
	c.set(n.Name, p.dtype, rank)
	return nil
}

func convGatherNd(c *converter, n *tfNode) error {
	params, err := c.input(n, 0)
	if err != nil {
		return err
	}
	idx, err := c.input(n, 1)
	if err != nil {
		return err
	}
	c.emit("GatherND", []string{params, idx}, []string{n.Name})
	c.set(n.Name, c.infoOf(params).dtype, -1)
	return nil
}

// zeroOf returns a one-element tensor holding zero of type dt, for
// ConstantOfShape.
func zeroOf(dt DataType) (Tensor, error) {
	switch dt {
	case Float:
		return FloatTensor("", []int64{1}, []float32{0}), nil
	case Int64:
		return Int64Tensor("", []int64{1}, []int64{0}), nil
	case Bool:
		return BoolTensor("", []int64{1}, []bool{false}), nil
	}
	return Tensor{}, fmt.Errorf("no zero for %v", dt)
}

func convScatterNd(c *converter, n *tfNode) error {
	in, err := c.inputs(n)
	if err != nil {
		return err
	}
	if len(in) != 3 {
		return fmt.Errorf("want 3 inputs, got %d", len(in))
	}
	dt := c.infoOf(in[1]).dtype
	z, err := zeroOf(dt)
	if err != nil {
		return err
	}
	if dt == Bool {
		return errors.New("ScatterNd of bool not supported")
	}
	zeros := c.tmp(n, "zeros")
	c.emit("ConstantOfShape", []string{in[2]}, []string{zeros}, TensorAttr("value", z))
	// TensorFlow's ScatterNd sums updates that hit the same index.
	c.emit("ScatterND", []string{zeros, in[0], in[1]}, []string{n.Name}, StringAttr("reduction", "add"))
	c.set(n.Name, dt, c.staticLen(n, 2))
	return nil
}

func convSparseToDense(c *converter, n *tfNode) error {
	in, err := c.inputs(n)
	if err != nil {
		return err
	}
	if len(in) != 4 {
		return fmt.Errorf("want 4 inputs, got %d", len(in))
	}
	idx, shape, vals, def := in[0], in[1], in[2], in[3]
	dense := c.tmp(n, "default")
	c.emit("Expand", []string{def, shape}, []string{dense})
	switch c.infoOf(idx).rank {
	case 2:
	case 1, 0:
		u := c.tmp(n, "indices")
		c.emit("Reshape", []string{idx, c.ints(n, "shape", []int64{2}, -1, 1)}, []string{u})
		idx = u
	default:
		return errors.New("sparse_indices of unknown rank")
	}
	switch c.infoOf(vals).rank {
	case 1:
	case 0:
		s := c.tmp(n, "nshape")
		c.emit("Shape", []string{idx}, []string{s}, IntAttr("end", 1))
		e := c.tmp(n, "values")
		c.emit("Expand", []string{vals, s}, []string{e})
		vals = e
	default:
		return errors.New("sparse_values of unknown rank")
	}
	c.emit("ScatterND", []string{dense, idx, vals}, []string{n.Name})
	c.set(n.Name, c.infoOf(in[2]).dtype, c.staticLen(n, 1))
	return nil
}

func convWhere(c *converter, n *tfNode) error {
	in, err := c.inputs(n)
	if err != nil {
		return err
	}
	if len(in) == 3 {
		return convSelect(c, n)
	}
	if len(in) != 1 {
		return fmt.Errorf("want 1 input, got %d", len(in))
	}
	// TensorFlow lists true coordinates as rows [N, rank] in row-major
	// order; NonZero lists them as columns [rank, N] in the same order.
	nz := c.tmp(n, "nonzero")
	c.emit("NonZero", in, []string{nz})
	c.emit("Transpose", []string{nz}, []string{n.Name}, IntsAttr("perm", 1, 0))
	c.set(n.Name, Int64, 2)
	return nil
}

func convSelect(c *converter, n *tfNode) error {
	in, err := c.inputs(n)
	if err != nil {
		return err
	}
	if len(in) != 3 {
		return fmt.Errorf("want 3 inputs, got %d", len(in))
	}
	if n.Op == "Select" && c.infoOf(in[0]).rank == 1 && c.infoOf(in[1]).rank != 1 {
		return errors.New("op Select with a vector condition on higher-rank values not supported")
	}
	c.emit("Where", in, []string{n.Name})
	i := c.infoOf(in[1])
	c.set(n.Name, i.dtype, maxRank(c.infoOf(in[0]).rank, maxRank(i.rank, c.infoOf(in[2]).rank)))
	return nil
}

// stridedSlice translates StridedSlice's constant operands and masks into
// ONNX Slice operands over the leading len(begin) axes, and the axes the
// shrink mask removes afterwards.
func stridedSlice(begin, end, strides []int64, beginMask, endMask, shrinkMask int64) (starts, ends, steps, axes, squeeze []int64, err error) {
	if len(end) != len(begin) || len(strides) != len(begin) {
		return nil, nil, nil, nil, nil, errors.New("begin, end and strides differ in length")
	}
	if len(begin) > 62 {
		return nil, nil, nil, nil, nil, errors.New("too many slice dimensions")
	}
	for i := range begin {
		bit := int64(1) << i
		start, stop, step := begin[i], end[i], strides[i]
		if step == 0 {
			return nil, nil, nil, nil, nil, errors.New("zero stride")
		}
		switch {
		case shrinkMask&bit != 0:
			// One element at begin, then the axis is dropped.
			step = 1
			if start == -1 {
				stop = math.MaxInt64
			} else {
				stop = start + 1
			}
			squeeze = append(squeeze, int64(i))
		default:
			if beginMask&bit != 0 {
				if step > 0 {
					start = 0
				} else {
					start = math.MaxInt64
				}
			}
			if endMask&bit != 0 {
				if step > 0 {
					stop = math.MaxInt64
				} else {
					stop = math.MinInt64
				}
			}
		}
		starts = append(starts, start)
		ends = append(ends, stop)
		steps = append(steps, step)
		axes = append(axes, int64(i))
	}
	return starts, ends, steps, axes, squeeze, nil
}

func convStridedSlice(c *converter, n *tfNode) error {
	x, err := c.input(n, 0)
	if err != nil {
		return err
	}
	masks := map[string]int64{}
	for _, m := range []string{"begin_mask", "end_mask", "shrink_axis_mask", "ellipsis_mask", "new_axis_mask"} {
		if masks[m], err = n.intAttr(m, 0); err != nil {
			return err
		}
	}
	if masks["ellipsis_mask"] != 0 || masks["new_axis_mask"] != 0 {
		return errors.New("ellipsis_mask and new_axis_mask are not supported")
	}
	var ops [3][]int64
	for i, what := range []string{"begin", "end", "strides"} {
		if ops[i], err = c.constInts(n, i+1, what); err != nil {
			return err
		}
	}
	starts, ends, steps, axes, squeeze, err := stridedSlice(ops[0], ops[1], ops[2],
		masks["begin_mask"], masks["end_mask"], masks["shrink_axis_mask"])
	if err != nil {
		return err
	}
	k := []int64{int64(len(starts))}
	out := n.Name
	if len(squeeze) > 0 {
		out = c.tmp(n, "slice")
	}
	c.emit("Slice", []string{x, c.ints(n, "starts", k, starts...), c.ints(n, "ends", k, ends...),
		c.ints(n, "axes", k, axes...), c.ints(n, "steps", k, steps...)}, []string{out})
	i := c.infoOf(x)
	if len(squeeze) > 0 {
		c.emit("Squeeze", []string{out, c.ints(n, "squeeze", []int64{int64(len(squeeze))}, squeeze...)}, []string{n.Name})
		if i.rank >= 0 {
			i.rank -= len(squeeze)
		}
	}
	c.set(n.Name, i.dtype, i.rank)
	return nil
}

func convSlice(c *converter, n *tfNode) error {
	x, err := c.input(n, 0)
	if err != nil {
		return err
	}
	begin, err := c.constInts(n, 1, "begin")
	if err != nil {
		return err
	}
	size, err := c.constInts(n, 2, "size")
	if err != nil {
		return err
	}
	if len(begin) != len(size) {
		return errors.New("begin and size differ in length")
	}
	ends := make([]int64, len(size))
	axes := make([]int64, len(size))
	for i, s := range size {
		axes[i] = int64(i)
		switch {
		case s == -1:
			ends[i] = math.MaxInt64
		case s < -1 || begin[i] < 0 || begin[i] > math.MaxInt64-s:
			return fmt.Errorf("bad slice begin %d size %d", begin[i], s)
		default:
			ends[i] = begin[i] + s
		}
	}
	k := []int64{int64(len(size))}
	c.emit("Slice", []string{x, c.ints(n, "starts", k, begin...), c.ints(n, "ends", k, ends...),
		c.ints(n, "axes", k, axes...)}, []string{n.Name})
	i := c.infoOf(x)
	c.set(n.Name, i.dtype, i.rank)
	return nil
}

// splitOutputs names the outputs of a splitting node.
func splitOutputs(n *tfNode, count int64) ([]string, error) {
	if count < 1 || count > 1<<16 {
		return nil, fmt.Errorf("bad num_split %d", count)
	}
	outs := make([]string, count)
	for i := range outs {
		outs[i] = valueName(n.Name, i)
	}
	return outs, nil
}

func convSplitV(c *converter, n *tfNode) error {
	x, err := c.input(n, 0)
	if err != nil {
		return err
	}
	sizes, err := c.constInts(n, 1, "size_splits")
	if err != nil {
		return err
	}
	axis, err := c.constScalar(n, 2, "axis")
	if err != nil {
		return err
	}
	num, err := n.intAttr("num_split", int64(len(sizes)))
	if err != nil {
		return err
	}
	if num != int64(len(sizes)) {
		return fmt.Errorf("num_split %d but %d sizes", num, len(sizes))
	}
	for _, s := range sizes {
		if s < 0 {
			return errors.New("inferred (-1) split sizes are not supported")
		}
	}
	outs, err := splitOutputs(n, num)
	if err != nil {
		return err
	}
	c.emit("Split", []string{x, c.ints(n, "split", []int64{num}, sizes...)}, outs, IntAttr("axis", axis))
	i := c.infoOf(x)
	for _, o := range outs {
		c.set(o, i.dtype, i.rank)
	}
	return nil
}

func convSplit(c *converter, n *tfNode) error {
	axis, err := c.constScalar(n, 0, "axis")
	if err != nil {
		return err
	}
	x, err := c.input(n, 1)
	if err != nil {
		return err
	}
	num, err := n.intAttr("num_split", 0)
	if err != nil {
		return err
	}
	outs, err := splitOutputs(n, num)
	if err != nil {
		return err
	}
	c.emit("Split", []string{x}, outs, IntAttr("axis", axis), IntAttr("num_outputs", num))
	i := c.infoOf(x)
	for _, o := range outs {
		c.set(o, i.dtype, i.rank)
	}
	return nil
}

func reduce(op string) func(*converter, *tfNode) error {
	return func(c *converter, n *tfNode) error {
		x, err := c.input(n, 0)
		if err != nil {
			return err
		}
		keep, err := n.boolAttr("keep_dims")
		if err != nil {
			return err
		}
		axes, count, err := c.axesInput(n, 1)
		if err != nil {
			return err
		}
		keepdims := int64(0)
		if keep {
			keepdims = 1
		}
		// TensorFlow reduces nothing over an empty axis list.
		c.emit(op, []string{x, axes}, []string{n.Name}, IntAttr("keepdims", keepdims), IntAttr("noop_with_empty_axes", 1))
		i := c.infoOf(x)
		if !keep && i.rank >= 0 {
			if count >= 0 {
				i.rank -= count
			} else {
				i.rank = -1
			}
		}
		c.set(n.Name, i.dtype, i.rank)
		return nil
	}
}

// transposeLast2 returns x with its last two axes swapped.
func (c *converter) transposeLast2(n *tfNode, x string) (string, error) {
	r := c.infoOf(x).rank
	if r < 2 {
		return "", fmt.Errorf("cannot transpose operand %q of unknown rank", x)
	}
	perm := make([]int64, r)
	for i := range perm {
		perm[i] = int64(i)
	}
	perm[r-1], perm[r-2] = perm[r-2], perm[r-1]
	t := c.tmp(n, "transpose")
	c.emit("Transpose", []string{x}, []string{t}, IntsAttr("perm", perm...))
	c.set(t, c.infoOf(x).dtype, r)
	return t, nil
}

func (c *converter) matmul(n *tfNode, adjA, adjB string, rank func(a, b int) int) error {
	a, err := c.input(n, 0)
	if err != nil {
		return err
	}
	b, err := c.input(n, 1)
	if err != nil {
		return err
	}
	for _, v := range []struct {
		attr string
		x    *string
	}{{adjA, &a}, {adjB, &b}} {
		t, err := n.boolAttr(v.attr)
		if err != nil {
			return err
		}
		if t {
			if *v.x, err = c.transposeLast2(n, *v.x); err != nil {
				return err
			}
		}
	}
	c.emit("MatMul", []string{a, b}, []string{n.Name})
	c.set(n.Name, c.infoOf(a).dtype, rank(c.infoOf(a).rank, c.infoOf(b).rank))
	return nil
}

func convMatMul(c *converter, n *tfNode) error {
	for _, x := range []int{0, 1} {
		if v, err := c.input(n, x); err == nil && c.infoOf(v).rank < 0 {
			c.set(v, c.infoOf(v).dtype, 2) // MatMul operands are matrices.
		}
	}
	return c.matmul(n, "transpose_a", "transpose_b", func(int, int) int { return 2 })
}

func convBatchMatMul(c *converter, n *tfNode) error {
	return c.matmul(n, "adj_x", "adj_y", maxRank)
}

// convConv2D translates the only convolution the encoder uses: a 1×1
// kernel with unit strides and dilations over NHWC input. That is a matrix
// product over the channel axis, which MatMul computes directly on the
// [batch, height, width, channels] input.
func convConv2D(c *converter, n *tfNode) error {
	format, err := n.stringAttr("data_format", "NHWC")
	if err != nil {
		return err
	}
	if format != "NHWC" {
		return fmt.Errorf("data_format %q not supported", format)
	}
	padding, err := n.stringAttr("padding", "VALID")
	if err != nil {
		return err
	}
	if padding != "VALID" && padding != "SAME" {
		return fmt.Errorf("padding %q not supported", padding)
	}
	for _, a := range []string{"strides", "dilations"} {
		v, err := n.intsAttr(a)
		if err != nil {
			return err
		}
		for _, s := range v {
			if s != 1 {
				return fmt.Errorf("%s %v not supported (only 1×1 convolutions)", a, v)
			}
		}
	}
	x, err := c.input(n, 0)
	if err != nil {
		return err
	}
	k, ok := c.constInput(n, 1)
	if !ok || k.dtype != Float || len(k.dims) != 4 || k.dims[0] != 1 || k.dims[1] != 1 {
		return errors.New("only constant 1×1 float kernels are supported")
	}
	src, _, _, _ := splitRef(dataInputs(n)[1])
	w := c.init(src+"/as_matmul", &constTensor{dtype: Float, dims: []int64{k.dims[2], k.dims[3]}, f: k.f})
	c.emit("MatMul", []string{x, w}, []string{n.Name})
	c.set(n.Name, Float, 4)
	return nil
}

func convSoftmax(c *converter, n *tfNode) error {
	x, err := c.input(n, 0)
	if err != nil {
		return err
	}
	c.emit("Softmax", []string{x}, []string{n.Name}, IntAttr("axis", -1))
	i := c.infoOf(x)
	c.set(n.Name, i.dtype, i.rank)
	return nil
}

func convRange(c *converter, n *tfNode) error {
	in, err := c.inputs(n)
	if err != nil {
		return err
	}
	if len(in) != 3 {
		return fmt.Errorf("want 3 inputs, got %d", len(in))
	}
	c.emit("Range", in, []string{n.Name})
	c.set(n.Name, c.infoOf(in[0]).dtype, 1)
	return nil
}

func convTranspose(c *converter, n *tfNode) error {
	x, err := c.input(n, 0)
	if err != nil {
		return err
	}
	perm, err := c.constInts(n, 1, "perm")
	if err != nil {
		return err
	}
	c.emit("Transpose", []string{x}, []string{n.Name}, IntsAttr("perm", perm...))
	c.set(n.Name, c.infoOf(x).dtype, len(perm))
	return nil
}

func convFill(c *converter, n *tfNode) error {
	dims, err := c.input(n, 0)
	if err != nil {
		return err
	}
	v, err := c.input(n, 1)
	if err != nil {
		return err
	}
	c.emit("Expand", []string{v, dims}, []string{n.Name})
	c.set(n.Name, c.infoOf(v).dtype, c.staticLen(n, 0))
	return nil
}
