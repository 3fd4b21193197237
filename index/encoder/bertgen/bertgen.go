package bertgen

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/reqa/reqa/index/encoder/onnxmodel"
)

// Version changes whenever Model's output for a Config and Variant changes;
// callers that cache generated models key them by it.
const Version = 1

// Config is the shape of the network and the seed of its weights.
type Config struct {
	Layers       int
	Hidden       int
	Heads        int
	Intermediate int
	// MaxPositions is the size of the position table (512 for BERT).
	MaxPositions int
	// TypeVocab is the size of the token-type table (2 for BERT).
	TypeVocab int
	// Vocab is the size of the word table; it must cover the
	// tokenizer.json the model is used with (30,522 for BERT-uncased).
	Vocab int
	// Seed seeds the weights.
	Seed uint64
}

// Base is the shape of bert-base-uncased (and of e5-base, bge-base…).
func Base() Config {
	return Config{Layers: 12, Hidden: 768, Heads: 12, Intermediate: 3072, MaxPositions: 512, TypeVocab: 2, Vocab: 30522, Seed: 1}
}

// Tiny is the shape of google/bert_uncased_L-2_H-128_A-2 (BERT-tiny), with
// BERT-uncased's vocabulary: the same graph as Base, small enough to build
// in every test run.
func Tiny() Config {
	return Config{Layers: 2, Hidden: 128, Heads: 2, Intermediate: 512, MaxPositions: 512, TypeVocab: 2, Vocab: 30522, Seed: 1}
}

// Params returns the number of weights of the network.
func (c Config) Params() int64 {
	h, i := int64(c.Hidden), int64(c.Intermediate)
	emb := (int64(c.Vocab)+int64(c.MaxPositions)+int64(c.TypeVocab))*h + 2*h
	layer := 4*(h*h+h) + h*i + i + i*h + h + 4*h
	return emb + int64(c.Layers)*layer
}

func (c Config) check() error {
	switch {
	case c.Layers <= 0 || c.Hidden <= 0 || c.Heads <= 0 || c.Intermediate <= 0 || c.MaxPositions <= 0 || c.TypeVocab <= 0 || c.Vocab <= 0:
		return fmt.Errorf("bertgen: config %+v: every size must be positive", c)
	case c.Hidden%c.Heads != 0:
		return fmt.Errorf("bertgen: hidden %d is not a multiple of %d heads", c.Hidden, c.Heads)
	}
	return nil
}

// Variant selects the inputs and outputs of the graph.
type Variant struct {
	// TokenTypes adds the token_type_ids input.
	TokenTypes bool
	// SentenceEmbedding replaces last_hidden_state by token_embeddings and
	// a pooled, normalised sentence_embedding output.
	SentenceEmbedding bool
}

// Names of the graph's inputs and outputs.
const (
	InputIDs          = "input_ids"
	AttentionMask     = "attention_mask"
	TokenTypeIDs      = "token_type_ids"
	LastHiddenState   = "last_hidden_state"
	TokenEmbeddings   = "token_embeddings"
	SentenceEmbedding = "sentence_embedding"
)

// weights generates the network's weights in a fixed order from the seed,
// straight into ONNX tensors (the float32 values little-endian in Raw).
type weights struct {
	rng     *rand.Rand
	tensors []onnxmodel.Tensor
	byName  map[string]int
}

// uniform adds a float tensor of values center + U(-scale, scale).
func (w *weights) uniform(name string, dims []int64, center, scale float32) string {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	raw := make([]byte, 4*n)
	for i := int64(0); i < n; i++ {
		v := center + scale*(2*w.rng.Float32()-1)
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	w.byName[name] = len(w.tensors)
	w.tensors = append(w.tensors, onnxmodel.Tensor{Name: name, DataType: onnxmodel.Float, Dims: dims, Raw: raw})
	return name
}

// std is the standard deviation of BERT's initialiser (0.02) as the half
// width of a uniform distribution.
const std = 0.02 * 1.7320508

// generate makes every weight of c, in the order Model and Reference read
// them.
func generate(c Config) *weights {
	w := &weights{rng: rand.New(rand.NewPCG(c.Seed, 0x62657274)), byName: map[string]int{}}
	h, in := int64(c.Hidden), int64(c.Intermediate)
	w.uniform("embeddings.word_embeddings.weight", []int64{int64(c.Vocab), h}, 0, std)
	w.uniform("embeddings.position_embeddings.weight", []int64{int64(c.MaxPositions), h}, 0, std)
	w.uniform("embeddings.token_type_embeddings.weight", []int64{int64(c.TypeVocab), h}, 0, std)
	w.uniform("embeddings.LayerNorm.weight", []int64{h}, 1, 0.1)
	w.uniform("embeddings.LayerNorm.bias", []int64{h}, 0, 0.1)
	for l := range c.Layers {
		p := "encoder.layer." + strconv.Itoa(l) + "."
		for _, m := range []string{"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"} {
			w.uniform(p+m+".weight", []int64{h, h}, 0, std) // [in, out]: torch's W transposed, as exports store it
			w.uniform(p+m+".bias", []int64{h}, 0, std)
		}
		w.uniform(p+"attention.output.LayerNorm.weight", []int64{h}, 1, 0.1)
		w.uniform(p+"attention.output.LayerNorm.bias", []int64{h}, 0, 0.1)
		w.uniform(p+"intermediate.dense.weight", []int64{h, in}, 0, std)
		w.uniform(p+"intermediate.dense.bias", []int64{in}, 0, std)
		w.uniform(p+"output.dense.weight", []int64{in, h}, 0, std)
		w.uniform(p+"output.dense.bias", []int64{h}, 0, std)
		w.uniform(p+"output.LayerNorm.weight", []int64{h}, 1, 0.1)
		w.uniform(p+"output.LayerNorm.bias", []int64{h}, 0, 0.1)
	}
	return w
}

// floats decodes a generated tensor.
func (w *weights) floats(name string) []float32 {
	t := w.tensors[w.byName[name]]
	f := make([]float32, len(t.Raw)/4)
	for i := range f {
		f[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.Raw[4*i:]))
	}
	return f
}

// graph accumulates nodes with generated names.
type graph struct {
	g *onnxmodel.Graph
	n int
}

func (b *graph) op(op string, in []string, attrs ...onnxmodel.Attribute) string {
	b.n++
	out := fmt.Sprintf("/%s_%d_output_0", op, b.n)
	b.g.Nodes = append(b.g.Nodes, onnxmodel.Node{Name: fmt.Sprintf("/%s_%d", op, b.n), OpType: op, Inputs: in, Outputs: []string{out}, Attrs: attrs})
	return out
}

func (b *graph) constant(t onnxmodel.Tensor) string {
	b.g.Initializers = append(b.g.Initializers, t)
	return t.Name
}

func scalar(name string, v float32) onnxmodel.Tensor {
	return onnxmodel.FloatTensor(name, nil, []float32{v})
}

// Model returns the ONNX bytes of the network c with variant v (ONNX IR 8,
// opset 18).
func Model(c Config, v Variant) ([]byte, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	w := generate(c)
	g := onnxmodel.Graph{Name: "main_graph", Initializers: w.tensors}
	w.tensors = nil
	b := &graph{g: &g}
	bs := []onnxmodel.Dim{{Param: "batch_size"}, {Param: "sequence_length"}}
	g.Inputs = []onnxmodel.ValueInfo{{Name: InputIDs, DataType: onnxmodel.Int64, Shape: bs}, {Name: AttentionMask, DataType: onnxmodel.Int64, Shape: bs}}
	if v.TokenTypes {
		g.Inputs = append(g.Inputs, onnxmodel.ValueInfo{Name: TokenTypeIDs, DataType: onnxmodel.Int64, Shape: bs})
	}
	h, heads := int64(c.Hidden), int64(c.Heads)
	dh := h / heads
	zero := b.constant(onnxmodel.Int64Tensor("/Constant_zero", nil, []int64{0}))
	one := b.constant(onnxmodel.Int64Tensor("/Constant_one", nil, []int64{1}))
	onef := b.constant(scalar("/Constant_onef", 1))
	half := b.constant(scalar("/Constant_half", 0.5))
	sqrt2 := b.constant(scalar("/Constant_sqrt2", float32(math.Sqrt2)))
	scale := b.constant(scalar("/Constant_scale", float32(math.Sqrt(float64(dh)))))
	minf := b.constant(scalar("/Constant_min", -math.MaxFloat32))
	splitShape := b.constant(onnxmodel.Int64Tensor("/Constant_split", []int64{4}, []int64{0, 0, heads, dh}))
	mergeShape := b.constant(onnxmodel.Int64Tensor("/Constant_merge", []int64{3}, []int64{0, 0, h}))
	axes12 := b.constant(onnxmodel.Int64Tensor("/Constant_axes12", []int64{2}, []int64{1, 2}))
	eps := onnxmodel.FloatAttr("epsilon", 1e-12)
	last := onnxmodel.IntAttr("axis", -1)
	layerNorm := func(x, p string) string {
		return b.op("LayerNormalization", []string{x, p + ".weight", p + ".bias"}, last, eps)
	}
	linear := func(x, p string) string {
		return b.op("Add", []string{b.op("MatMul", []string{x, p + ".weight"}), p + ".bias"})
	}

	// Embeddings.
	we := b.op("Gather", []string{"embeddings.word_embeddings.weight", InputIDs})
	seqLen := b.op("Gather", []string{b.op("Shape", []string{InputIDs}), one}, onnxmodel.IntAttr("axis", 0))
	pos := b.op("Range", []string{zero, seqLen, one})
	pe := b.op("Gather", []string{"embeddings.position_embeddings.weight", pos})
	var te string
	if v.TokenTypes {
		te = b.op("Gather", []string{"embeddings.token_type_embeddings.weight", TokenTypeIDs})
	} else {
		te = b.op("Gather", []string{"embeddings.token_type_embeddings.weight", zero})
	}
	x := layerNorm(b.op("Add", []string{b.op("Add", []string{we, te}), pe}), "embeddings.LayerNorm")

	// The additive attention mask [batch, 1, 1, seq]: 0 where attended,
	// the float minimum where not.
	maskF := b.op("Cast", []string{AttentionMask}, onnxmodel.IntAttr("to", int64(onnxmodel.Float)))
	bias := b.op("Mul", []string{b.op("Sub", []string{onef, b.op("Unsqueeze", []string{maskF, axes12})}), minf})

	for l := range c.Layers {
		p := "encoder.layer." + strconv.Itoa(l) + "."
		split := func(t string, perm ...int64) string {
			return b.op("Transpose", []string{b.op("Reshape", []string{t, splitShape})}, onnxmodel.IntsAttr("perm", perm...))
		}
		q := split(linear(x, p+"attention.self.query"), 0, 2, 1, 3)
		k := split(linear(x, p+"attention.self.key"), 0, 2, 3, 1)
		val := split(linear(x, p+"attention.self.value"), 0, 2, 1, 3)
		scores := b.op("Add", []string{b.op("Div", []string{b.op("MatMul", []string{q, k}), scale}), bias})
		probs := b.op("Softmax", []string{scores}, last)
		ctx := b.op("Reshape", []string{b.op("Transpose", []string{b.op("MatMul", []string{probs, val})}, onnxmodel.IntsAttr("perm", 0, 2, 1, 3)), mergeShape})
		y := layerNorm(b.op("Add", []string{linear(ctx, p+"attention.output.dense"), x}), p+"attention.output.LayerNorm")
		ff := linear(y, p+"intermediate.dense")
		gelu := b.op("Mul", []string{b.op("Mul", []string{ff, b.op("Add", []string{b.op("Erf", []string{b.op("Div", []string{ff, sqrt2})}), onef})}), half})
		x = layerNorm(b.op("Add", []string{linear(gelu, p+"output.dense"), y}), p+"output.LayerNorm")
	}
	hiddenDims := []onnxmodel.Dim{{Param: "batch_size"}, {Param: "sequence_length"}, {Value: h}}
	if !v.SentenceEmbedding {
		g.Nodes = append(g.Nodes, onnxmodel.Node{Name: "/output", OpType: "Identity", Inputs: []string{x}, Outputs: []string{LastHiddenState}})
		g.Outputs = []onnxmodel.ValueInfo{{Name: LastHiddenState, DataType: onnxmodel.Float, Shape: hiddenDims}}
	} else {
		// sentence-transformers' Pooling (mean) and Normalize.
		axis1 := b.constant(onnxmodel.Int64Tensor("/Constant_axis1", []int64{1}, []int64{1}))
		axis2 := b.constant(onnxmodel.Int64Tensor("/Constant_axis2", []int64{1}, []int64{2}))
		axisLast := b.constant(onnxmodel.Int64Tensor("/Constant_axislast", []int64{1}, []int64{-1}))
		tiny := b.constant(scalar("/Constant_tiny", 1e-9))
		normEps := b.constant(scalar("/Constant_normeps", 1e-12))
		m3 := b.op("Unsqueeze", []string{maskF, axis2})
		sum := b.op("ReduceSum", []string{b.op("Mul", []string{x, m3}), axis1}, onnxmodel.IntAttr("keepdims", 0))
		cnt := b.op("Max", []string{b.op("ReduceSum", []string{m3, axis1}, onnxmodel.IntAttr("keepdims", 0)), tiny})
		mean := b.op("Div", []string{sum, cnt})
		norm := b.op("Max", []string{b.op("ReduceL2", []string{mean, axisLast}, onnxmodel.IntAttr("keepdims", 1)), normEps})
		g.Nodes = append(g.Nodes,
			onnxmodel.Node{Name: "/token_embeddings", OpType: "Identity", Inputs: []string{x}, Outputs: []string{TokenEmbeddings}},
			onnxmodel.Node{Name: "/sentence_embedding", OpType: "Div", Inputs: []string{mean, norm}, Outputs: []string{SentenceEmbedding}})
		g.Outputs = []onnxmodel.ValueInfo{
			{Name: TokenEmbeddings, DataType: onnxmodel.Float, Shape: hiddenDims},
			{Name: SentenceEmbedding, DataType: onnxmodel.Float, Shape: []onnxmodel.Dim{{Param: "batch_size"}, {Value: h}}},
		}
	}
	m := onnxmodel.Model{IRVersion: onnxmodel.IRVersion, OpsetVersion: onnxmodel.Opset, ProducerName: "reqa-bertgen", ProducerVersion: strconv.Itoa(Version), Graph: g}
	return m.Marshal()
}

// VocabSize returns the number of entries of a tokenizer.json's WordPiece
// vocabulary (its largest id + 1).
func VocabSize(tokenizerJSON []byte) (int, error) {
	var f struct {
		Model struct {
			Vocab map[string]int `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(tokenizerJSON, &f); err != nil {
		return 0, fmt.Errorf("bertgen: tokenizer.json: %w", err)
	}
	n := 0
	for _, id := range f.Model.Vocab {
		n = max(n, id+1)
	}
	if n == 0 {
		return 0, errors.New("bertgen: tokenizer.json: no model.vocab")
	}
	return n, nil
}
