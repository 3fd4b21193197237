// Package usenet runs the int8 Universal Sentence Encoder Lite — the model
// cmd/mkmodel writes with -precision int8 and package uselite embeds — in
// Go, one text at a time, without ONNX Runtime.
//
// It exists for start-up: `reqa ask` embeds one question, and loading ONNX
// Runtime and creating its session costs about 180 ms and 105 MB before
// the first multiply, while the network itself is small (two transformer
// layers, 4.9 million int8 weights). Load reads the model's graph in place
// (onnxmodel.ReadGraph), recognises it — every operator count, every
// matrix and layer norm shape, the attention heads, the position clip —
// and refuses anything else with ErrUnsupported, so a caller falls back to
// ONNX Runtime.
//
// # What it computes
//
// Net.Embed follows the graph for a batch of one (so no padding): the
// first 128 SentencePiece ids, each entering as 2·embedding + a sinusoidal
// position signal; two pre-layer-norm transformer layers (the first
// projecting its residual from 256 to 512 wide); mean pooling; a 512×512
// tanh layer; L2 normalisation. Every matrix multiply by a weight matrix
// is ONNX Runtime's com.microsoft DynamicQuantizeMatMul done the same way:
// the activations quantized to uint8 over the whole tensor (scale
// (max−min)/255 of a range that includes 0, zero point rounded half to
// even, x/scale rounded to nearest even and clamped), products summed
// exactly in integers against the int8 weights, then scaled per column
// and biased in float32. Only the float32 steps — layer norms, attention,
// softmax, sin and cos, tanh — may round differently from the runtime's
// kernels, so vectors agree with ONNX Runtime's to about 1e-6 (the tests
// compare them).
//
// # How it is fast enough
//
// On amd64 with AVX2 (nearly every x86 server since 2015) the products
// run in assembly (kernel_amd64.s) straight from the model's int8 weights,
// read where they lie — nothing is packed at Load, which takes ~0.4 ms:
// two weight rows' 16 columns are widened to int16 and interleaved, the
// two activations of those rows (less the zero point) are broadcast as
// one int16 pair, and VPMADDWD adds both products into a column's int32
// sum, four rows of activations at a time — exact, as the sums stay below
// 2^31 (k·255·128). A 15-token question embeds in about 4.4 ms on two
// cores. Elsewhere Go has no vector instructions to call, so the integer
// products are packed at Load (19.6 MB): each weight pair of neighbouring
// columns, offset by 128 into 0..255, sits in the two 32-bit halves of a
// uint64, and one 64-bit multiply-add by an activation (0..255) advances
// both columns' sums, which stay below 2^32 for the 1,536-long rows
// (1,536·255·255); the offsets are taken back out exactly (128·Σactivations,
// zero point · column sums) and rows of zero activations (ReLU's) are
// skipped (about 17 ms a question). Both give the same integers, so the
// same vectors bit for bit (TestPairsMatchWords). The columns of a large
// product are split across GOMAXPROCS goroutines; a fault reading the
// weights on one of them is ErrFault, as on the caller's.
package usenet
