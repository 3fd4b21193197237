package usenet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/reqa/reqa/index/encoder/onnxmodel"
)

// ErrUnsupported reports a model that is not the int8 USE-Lite this
// package runs; use ONNX Runtime for it.
var ErrUnsupported = errors.New("usenet: not the int8 USE-Lite graph")

// ErrTokenID reports a token id outside the model's vocabulary.
var ErrTokenID = errors.New("usenet: token id out of range")

// ErrFault reports a fault reading the model's bytes where they lie (a
// file's memory map cut short under the reader).
var ErrFault = errors.New("usenet: fault reading the model")

// Guarded runs fn, turning a fault on a mapped page into ErrFault: Load
// and Embed read the model's bytes in place, which may be a file's memory
// map, and so does a caller that reads them on another goroutine (the
// fault setting is per goroutine). Any other panic goes on.
func Guarded(fn func()) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			// A fault under SetPanicOnFault is a runtime.Error with the
			// faulting address.
			if re, ok := p.(interface {
				runtime.Error
				Addr() uintptr
			}); ok {
				err = fmt.Errorf("%w at %#x: %v", ErrFault, re.Addr(), re)
				return
			}
			if wf, ok := p.(workerFault); ok {
				err = wf.err
				return
			}
			panic(p)
		}
	}()
	fn()
	return nil
}

// Dim is the width of the vectors Embed returns.
const Dim = 512

// graphOps is the operator census of the int8 USE-Lite graph: Load
// refuses a graph with any other, so a change to the conversion cannot
// silently diverge from the network below.
var graphOps = map[string]int{
	"Add": 9, "Cast": 6, "Concat": 8, "ConstantOfShape": 5, "Cos": 1, "Div": 1,
	"DynamicQuantizeMatMul": 10, "Expand": 1, "Gather": 3, "GatherND": 4, "Greater": 1,
	"Identity": 1, "LayerNormalization": 4, "Less": 2, "MatMul": 4, "Max": 3, "Mul": 7,
	"NonZero": 2, "Not": 1, "Range": 1, "Reciprocal": 1, "ReduceMax": 1, "ReduceSum": 3,
	"Relu": 2, "Reshape": 13, "ScatterND": 6, "Shape": 9, "Sin": 1, "Slice": 10,
	"Softmax": 2, "Split": 2, "Sqrt": 1, "Squeeze": 9, "Tanh": 1, "Transpose": 12,
	"Unsqueeze": 12,
}

// matrixShapes are the [K, N] of the DynamicQuantizeMatMuls in graph
// order: layer 0's residual projection, q/k/v, output and feed-forward
// pair; layer 1's q/k/v, output and feed-forward pair; the tanh layer.
var matrixShapes = [10][2]int{
	{256, 512}, {256, 768}, {256, 512}, {512, 1536}, {1536, 512},
	{512, 1536}, {512, 512}, {512, 1536}, {1536, 512},
	{512, 512},
}

// normWidths are the widths of the four layer norms in graph order.
var normWidths = [4]int{256, 512, 512, 512}

// Net is the int8 USE-Lite network. It is safe for concurrent use.
type Net struct {
	emb    []byte // [vocab, width] float32, little-endian, in place
	vocab  int
	width  int
	inv    []float32 // the position signal's inverse timescales
	maxLen int

	resid  *dense // layer 0's residual projection
	layers [2]layer
	tanh   *dense
	l2Eps  float32

	empty []float32 // the vector of an empty text
}

type layer struct {
	ln1, ln2 norm
	qkv      *dense
	heads    int
	qscale   float32
	out      *dense
	ff1, ff2 *dense
}

type norm struct {
	g, b []float32
	eps  float32
}

// Load reads the int8 USE-Lite from its ONNX bytes, which must outlive
// the Net (the embedding table is read from them in place). A model that
// is not that graph gives ErrUnsupported; a fault reading the bytes (a
// memory map cut short) ErrFault.
func Load(onnx []byte) (n *Net, err error) {
	if ferr := Guarded(func() { n, err = load(onnx) }); ferr != nil {
		return nil, ferr
	}
	return n, err
}

func load(onnx []byte) (*Net, error) {
	g, err := onnxmodel.ReadGraph(onnx)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnsupported, err)
	}
	census := map[string]int{}
	for _, n := range g.Nodes {
		census[n.OpType]++
	}
	if len(census) != len(graphOps) {
		return nil, fmt.Errorf("%w: %d kinds of operator, want %d", ErrUnsupported, len(census), len(graphOps))
	}
	for op, c := range graphOps {
		if census[op] != c {
			return nil, fmt.Errorf("%w: %d %s, want %d", ErrUnsupported, census[op], op, c)
		}
	}
	l := loader{g: g}
	n := &Net{}
	var mats []*dense
	var norms []norm
	var qscales []float32
	var heads []int
	for _, nd := range g.Nodes {
		switch {
		case nd.OpType == "DynamicQuantizeMatMul":
			if len(mats) < len(matrixShapes) {
				s := matrixShapes[len(mats)]
				mats = append(mats, l.dense(nd, s[0], s[1]))
			}
		case nd.OpType == "LayerNormalization":
			if len(norms) < len(normWidths) {
				norms = append(norms, l.norm(nd, normWidths[len(norms)]))
			}
		case nd.OpType == "Gather" && len(nd.Inputs) == 2:
			if t, ok := g.Initializers[nd.Inputs[0]]; ok {
				if t.DataType != onnxmodel.Float || len(t.Dims) != 2 || t.Dims[1] != 256 {
					l.fail("embedding table %v %v", t.DataType, t.Dims)
					continue
				}
				n.emb, n.vocab, n.width = t.Raw, int(t.Dims[0]), int(t.Dims[1])
			}
		case nd.OpType == "Mul" && len(nd.Inputs) == 2:
			t, ok := g.Initializers[nd.Inputs[1]]
			if !ok || t.DataType != onnxmodel.Float {
				continue
			}
			switch {
			case len(t.Dims) == 2 && t.Dims[0] == 1 && t.Dims[1] == 128:
				n.inv = floats(t.Raw)
			case len(t.Dims) == 0 && strings.HasSuffix(nd.Name, "MultiheadAttention/mul"):
				qscales = append(qscales, floats(t.Raw)[0])
			}
		case nd.OpType == "Reshape" && strings.HasSuffix(nd.Name, "split_heads/split_last_dimension/Reshape") && len(nd.Inputs) == 2:
			sh := l.ints(nd.Inputs[1])
			if len(sh) < 2 {
				l.fail("%s: shape %v", nd.Name, sh)
				continue
			}
			heads = append(heads, int(sh[len(sh)-2]))
		case nd.OpType == "Less" && len(nd.Inputs) == 2 && strings.Contains(nd.Name, "ClipToMaxLength"):
			if v := l.ints(nd.Inputs[1]); len(v) == 1 {
				n.maxLen = int(v[0])
			}
		case nd.OpType == "Max" && strings.HasSuffix(nd.Name, "l2_normalize/Maximum") && len(nd.Inputs) == 2:
			if t, ok := g.Initializers[nd.Inputs[1]]; ok && t.DataType == onnxmodel.Float && t.NumElements() == 1 {
				n.l2Eps = floats(t.Raw)[0]
			}
		}
	}
	switch {
	case l.err != nil:
		return nil, l.err
	case len(mats) != len(matrixShapes) || len(norms) != len(normWidths):
		return nil, fmt.Errorf("%w: %d weight matrices and %d layer norms", ErrUnsupported, len(mats), len(norms))
	case n.emb == nil || n.vocab < 1:
		return nil, fmt.Errorf("%w: no embedding table", ErrUnsupported)
	case len(n.inv) != n.width/2:
		return nil, fmt.Errorf("%w: no position timescales", ErrUnsupported)
	case len(qscales) != 2 || len(heads) != 2:
		return nil, fmt.Errorf("%w: %d attention scales, %d head counts", ErrUnsupported, len(qscales), len(heads))
	case n.maxLen < 1:
		return nil, fmt.Errorf("%w: no position clip", ErrUnsupported)
	case n.l2Eps <= 0:
		return nil, fmt.Errorf("%w: no L2 normalisation", ErrUnsupported)
	}
	// Packing the weights is most of Load: one goroutine per core.
	var wg sync.WaitGroup
	next := make(chan *dense, len(mats))
	for _, d := range mats {
		next <- d
	}
	close(next)
	workers := min(runtime.GOMAXPROCS(0), len(mats))
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = Guarded(func() {
				for d := range next {
					d.pack()
				}
			})
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	n.resid = mats[0]
	n.layers[0] = layer{ln1: norms[0], qkv: mats[1], heads: heads[0], qscale: qscales[0], out: mats[2], ln2: norms[1], ff1: mats[3], ff2: mats[4]}
	n.layers[1] = layer{ln1: norms[2], qkv: mats[5], heads: heads[1], qscale: qscales[1], out: mats[6], ln2: norms[3], ff1: mats[7], ff2: mats[8]}
	n.tanh = mats[9]
	for i, ly := range n.layers {
		width := ly.qkv.n / 3
		if ly.heads < 1 || width%ly.heads != 0 {
			return nil, fmt.Errorf("%w: layer %d: %d heads over %d", ErrUnsupported, i, ly.heads, width)
		}
	}
	// An empty text: nothing pooled (zeros quantize exactly to the zero
	// point), so the tanh layer gives its bias (ONNX Runtime's graph, fed
	// an empty row beside a one-token one, computes the same).
	z := make([]float32, Dim)
	for j := range z {
		z[j] = float32(math.Tanh(float64(n.tanh.bias[j])))
	}
	n.empty = n.normalize(z)
	return n, nil
}

// loader reads weights from the graph's initializers, keeping the first
// error.
type loader struct {
	g   *onnxmodel.GraphView
	err error
}

func (l *loader) fail(format string, args ...any) {
	if l.err == nil {
		l.err = fmt.Errorf("%w: "+format, append([]any{ErrUnsupported}, args...)...)
	}
}

// tensor returns the initializer name of type dt and shape dims.
func (l *loader) tensor(name string, dt onnxmodel.DataType, dims ...int) []byte {
	t, ok := l.g.Initializers[name]
	if !ok {
		l.fail("%s is not a constant", name)
		return nil
	}
	okShape := t.DataType == dt && len(t.Dims) == len(dims)
	for i := 0; okShape && i < len(dims); i++ {
		okShape = t.Dims[i] == int64(dims[i])
	}
	if !okShape {
		l.fail("%s: %v %v, want %v %v", name, t.DataType, t.Dims, dt, dims)
		return nil
	}
	return t.Raw
}

func (l *loader) ints(name string) []int64 {
	t, ok := l.g.Initializers[name]
	if !ok || t.DataType != onnxmodel.Int64 {
		return nil
	}
	out := make([]int64, len(t.Raw)/8)
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(t.Raw[8*i:]))
	}
	return out
}

func (l *loader) dense(nd onnxmodel.Node, k, n int) *dense {
	if len(nd.Inputs) != 5 || nd.Domain != "com.microsoft" {
		l.fail("%s: %d inputs in domain %q", nd.Name, len(nd.Inputs), nd.Domain)
		return nil
	}
	w := l.tensor(nd.Inputs[1], onnxmodel.Int8, k, n)
	scale := l.tensor(nd.Inputs[2], onnxmodel.Float, n)
	zero := l.tensor(nd.Inputs[3], onnxmodel.Int8, n)
	bias := l.tensor(nd.Inputs[4], onnxmodel.Float, n)
	if l.err != nil {
		return nil
	}
	for _, z := range zero {
		if z != 0 {
			l.fail("%s: weights with a zero point", nd.Name)
			return nil
		}
	}
	return newDense(w, k, n, floats(scale), floats(bias))
}

func (l *loader) norm(nd onnxmodel.Node, width int) norm {
	if len(nd.Inputs) != 3 {
		l.fail("%s: %d inputs", nd.Name, len(nd.Inputs))
		return norm{}
	}
	nm := norm{g: floats(l.tensor(nd.Inputs[1], onnxmodel.Float, width)), b: floats(l.tensor(nd.Inputs[2], onnxmodel.Float, width)), eps: 1e-5}
	for _, a := range nd.Attrs {
		switch {
		case a.Name == "epsilon":
			nm.eps = a.F
		case a.Name == "axis" && a.I != -1:
			l.fail("%s: axis %d", nd.Name, a.I)
		}
	}
	return nm
}

// floats decodes little-endian float32s.
func floats(raw []byte) []float32 {
	out := make([]float32, len(raw)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return out
}

// MaxLen is the number of leading ids of a text the network reads (the
// graph's ClipToMaxLength).
func (n *Net) MaxLen() int { return n.maxLen }

// Embed returns the unit vector of one text given as its SentencePiece
// ids (package sentencepiece; only the first 128 are read, as the graph
// clips them).
func (n *Net) Embed(ids []int32) ([]float32, error) {
	if len(ids) == 0 {
		return append([]float32(nil), n.empty...), nil
	}
	if len(ids) > n.maxLen {
		ids = ids[:n.maxLen]
	}
	T, W := len(ids), n.width
	for _, id := range ids {
		if id < 0 || int(id) >= n.vocab {
			return nil, fmt.Errorf("%w: %d (vocabulary of %d)", ErrTokenID, id, n.vocab)
		}
	}
	// The embedding table, and with the vector products the weights, are
	// read in place (guarded: they may be a memory map's).
	x := make([]float32, T*W)
	var v []float32
	if err := Guarded(func() { n.embed(ids, x); v = n.encode(x, T) }); err != nil {
		return nil, err
	}
	return v, nil
}

// embed writes each token's input row, 2·embedding + position signal,
// into x.
func (n *Net) embed(ids []int32, x []float32) {
	W := n.width
	half := W / 2
	for t, id := range ids {
		row := n.emb[int(id)*W*4:]
		xt := x[t*W : (t+1)*W]
		for i := range xt {
			e := math.Float32frombits(binary.LittleEndian.Uint32(row[4*i:]))
			var s float32
			if i < half {
				s = float32(math.Sin(float64(float32(t) * n.inv[i])))
			} else {
				s = float32(math.Cos(float64(float32(t) * n.inv[i-half])))
			}
			xt[i] = e + (e + s)
		}
	}
}

// encode runs the network on the T input rows x and returns the unit
// vector.
func (n *Net) encode(x []float32, T int) []float32 {
	// Layer 0: the residual is projected to the layer's output width.
	y := n.resid.apply(x, T)
	x = n.layers[0].attend(x, y, T)
	x = n.layers[1].attend(x, x, T)
	// Mean pooling over the tokens.
	pool := make([]float32, Dim)
	for t := 0; t < T; t++ {
		for j, v := range x[t*Dim : (t+1)*Dim] {
			pool[j] += v
		}
	}
	cnt := float32(T)
	for j := range pool {
		pool[j] /= cnt
	}
	z := n.tanh.apply(pool, 1)
	for j, v := range z {
		z[j] = float32(math.Tanh(float64(v)))
	}
	return n.normalize(z)
}

// normalize scales z to unit length as the graph does: z · 1/√max(Σz², ε).
func (n *Net) normalize(z []float32) []float32 {
	var s float32
	for _, v := range z {
		s += v * v
	}
	s = max(s, n.l2Eps)
	r := 1 / float32(math.Sqrt(float64(s)))
	for j := range z {
		z[j] *= r
	}
	return z
}

// attend runs one transformer layer on x (T rows), whose residual stream
// is resid (x itself, or layer 0's projection of it), and returns the
// layer's output.
func (ly *layer) attend(x, resid []float32, T int) []float32 {
	h := ly.ln1.apply(x, T)
	qkv := ly.qkv.apply(h, T)
	D := ly.qkv.n / 3
	dh := D / ly.heads
	att := make([]float32, T*D)
	scores := make([]float32, T)
	q := make([]float32, dh)
	for hd := 0; hd < ly.heads; hd++ {
		off := hd * dh
		for t := 0; t < T; t++ {
			for d := range q {
				q[d] = qkv[t*3*D+off+d] * ly.qscale
			}
			mx := float32(math.Inf(-1))
			for u := 0; u < T; u++ {
				k := qkv[u*3*D+D+off : u*3*D+D+off+dh]
				var s float32
				for d, kv := range k {
					s = fma32(q[d], kv, s)
				}
				scores[u] = s
				mx = max(mx, s)
			}
			var sum float32
			for u := range scores {
				scores[u] = float32(math.Exp(float64(scores[u] - mx)))
				sum += scores[u]
			}
			o := att[t*D+off : t*D+off+dh]
			inv := 1 / sum
			for u, a := range scores {
				a *= inv
				v := qkv[u*3*D+2*D+off : u*3*D+2*D+off+dh]
				for d, vv := range v {
					o[d] = fma32(a, vv, o[d])
				}
			}
		}
	}
	y := ly.out.apply(att, T)
	for i := range y {
		y[i] += resid[i]
	}
	f := ly.ln2.apply(y, T)
	f1 := ly.ff1.apply(f, T)
	for i, v := range f1 {
		f1[i] = max(v, 0)
	}
	f2 := ly.ff2.apply(f1, T)
	for i := range f2 {
		f2[i] += y[i]
	}
	return f2
}

// apply layer-normalizes each of the T rows of x, in float32 in the
// order ONNX Runtime's CPU kernel does (sums of x and x² in one pass,
// variance as E[x²] − E[x]², division by the deviation).
func (nm norm) apply(x []float32, T int) []float32 {
	W := len(nm.g)
	out := make([]float32, len(x))
	for t := 0; t < T; t++ {
		row := x[t*W : (t+1)*W]
		var mean, sq float32
		for _, v := range row {
			mean += v
			sq += v * v
		}
		mean /= float32(W)
		dev := float32(math.Sqrt(float64(sq/float32(W) - mean*mean + nm.eps)))
		o := out[t*W : (t+1)*W]
		for i, v := range row {
			o[i] = (v-mean)/dev*nm.g[i] + nm.b[i]
		}
	}
	return out
}

// fma32 is a·b + c rounded once, as the runtime's FMA matrix kernels
// compute it (through float64: the product is exact there).
func fma32(a, b, c float32) float32 {
	return float32(math.FMA(float64(a), float64(b), float64(c)))
}
