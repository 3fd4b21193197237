package encoder

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reqa/reqa/index/encoder/onnxmodel"
	"github.com/reqa/reqa/index/encoder/ortlib"
	"github.com/reqa/reqa/internal/testenv"
)

// The tiny test encoder: a vocabulary of testVocab, hidden width testHidden,
// and a graph that makes every token vector depend on its neighbours (so a
// wrong attention mask or wrong padding changes the result):
//
//	h[p] = E[ids[p]] + mean over unmasked q of E[ids[q]] (+ T[type[p]])
//
// where E is testEmbedding and T is testTypeTable.
var testVocab = []string{
	"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
	"the", "cat", "sat", "on", "mat", "##s", ".", "a", "dog",
}

const testHidden = 4

// testEmbedding returns the token table E, row-major [len(testVocab), testHidden].
func testEmbedding() []float32 {
	e := make([]float32, len(testVocab)*testHidden)
	for i := range len(testVocab) {
		for j := range testHidden {
			e[i*testHidden+j] = float32((i+1)*(j+3)%7) - 3 + 0.25*float32(j)
		}
	}
	return e
}

// testTypeTable is the token-type table T, [2, testHidden]: row 1 differs,
// so feeding anything but zeros as token_type_ids shows.
var testTypeTable = []float32{0.5, -0.5, 0.25, 1, 9, 9, 9, 9}

// modelSpec selects the variant of the tiny model a test builds.
type modelSpec struct {
	noMask      bool   // no attention_mask input (the graph then averages every position)
	types       bool   // a token_type_ids input
	int32Inputs bool   // inputs are int32 rather than int64
	idsName     string // name of the ids input (default input_ids)
	output      string // name of the [batch, seq, hidden] output (default last_hidden_state)
	sentence    bool   // also a sentence_embedding output: h[0]
	symbolicDim bool   // declare the hidden width symbolic
}

// build returns the ONNX bytes of the tiny model.
func (ms modelSpec) build(t *testing.T) []byte {
	t.Helper()
	idsName, output := ms.idsName, ms.output
	if idsName == "" {
		idsName = hfInputIDs
	}
	if output == "" {
		output = "last_hidden_state"
	}
	inType := onnxmodel.Int64
	if ms.int32Inputs {
		inType = onnxmodel.Int32
	}
	bs := []onnxmodel.Dim{{Param: "batch"}, {Param: "seq"}}
	hidden := onnxmodel.Dim{Value: testHidden}
	if ms.symbolicDim {
		hidden = onnxmodel.Dim{Param: "hidden"}
	}
	g := onnxmodel.Graph{
		Name: "tiny",
		Initializers: []onnxmodel.Tensor{
			onnxmodel.FloatTensor("E", []int64{int64(len(testVocab)), testHidden}, testEmbedding()),
			onnxmodel.FloatTensor("T", []int64{2, testHidden}, testTypeTable),
			onnxmodel.Int64Tensor("axis1", []int64{1}, []int64{1}),
			onnxmodel.Int64Tensor("axis2", []int64{1}, []int64{2}),
			onnxmodel.Int64Tensor("zero", nil, []int64{0}),
		},
		Inputs: []onnxmodel.ValueInfo{{Name: idsName, DataType: inType, Shape: bs}},
		Nodes:  []onnxmodel.Node{{OpType: "Gather", Inputs: []string{"E", idsName}, Outputs: []string{"emb"}}},
	}
	node := func(op string, out string, in []string, attrs ...onnxmodel.Attribute) {
		g.Nodes = append(g.Nodes, onnxmodel.Node{OpType: op, Inputs: in, Outputs: []string{out}, Attrs: attrs})
	}
	if ms.noMask {
		node("ReduceMean", "avg", []string{"emb", "axis1"}, onnxmodel.IntAttr("keepdims", 1))
	} else {
		g.Inputs = append(g.Inputs, onnxmodel.ValueInfo{Name: hfAttentionMask, DataType: inType, Shape: bs})
		node("Cast", "m", []string{hfAttentionMask}, onnxmodel.IntAttr("to", int64(onnxmodel.Float)))
		node("Unsqueeze", "m3", []string{"m", "axis2"})
		node("Mul", "masked", []string{"emb", "m3"})
		node("ReduceSum", "sum", []string{"masked", "axis1"}, onnxmodel.IntAttr("keepdims", 1))
		node("ReduceSum", "cnt", []string{"m3", "axis1"}, onnxmodel.IntAttr("keepdims", 1))
		node("Div", "avg", []string{"sum", "cnt"})
	}
	h := "h"
	if ms.types {
		g.Inputs = append(g.Inputs, onnxmodel.ValueInfo{Name: hfTokenTypeIDs, DataType: inType, Shape: bs})
		node("Add", "h0", []string{"emb", "avg"})
		node("Gather", "te", []string{"T", hfTokenTypeIDs})
		node("Add", h, []string{"h0", "te"})
	} else {
		node("Add", h, []string{"emb", "avg"})
	}
	node("Identity", output, []string{h})
	g.Outputs = []onnxmodel.ValueInfo{{Name: output, DataType: onnxmodel.Float, Shape: []onnxmodel.Dim{{Param: "batch"}, {Param: "seq"}, hidden}}}
	if ms.sentence {
		node("Gather", hfSentenceEmbedding, []string{h, "zero"}, onnxmodel.IntAttr("axis", 1))
		g.Outputs = append(g.Outputs, onnxmodel.ValueInfo{Name: hfSentenceEmbedding, DataType: onnxmodel.Float, Shape: []onnxmodel.Dim{{Param: "batch"}, hidden}})
	}
	m := onnxmodel.Model{IRVersion: onnxmodel.IRVersion, OpsetVersion: onnxmodel.Opset, ProducerName: "reqa-test", Graph: g}
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tokenizerJSON returns a BERT-uncased tokenizer.json over testVocab.
// postProcessor is written as is (nil: none); truncation, when positive,
// sets truncation.max_length.
func tokenizerJSON(t *testing.T, postProcessor any, truncation int) []byte {
	t.Helper()
	vocab := map[string]int{}
	var added []map[string]any
	for i, tok := range testVocab {
		vocab[tok] = i
		if strings.HasPrefix(tok, "[") {
			added = append(added, map[string]any{"id": i, "content": tok, "single_word": false, "lstrip": false,
				"rstrip": false, "normalized": false, "special": true})
		}
	}
	f := map[string]any{
		"version":      "1.0",
		"added_tokens": added,
		"normalizer": map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
			"strip_accents": nil, "lowercase": true},
		"pre_tokenizer":  map[string]any{"type": "BertPreTokenizer"},
		"post_processor": postProcessor,
		"model": map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 100, "vocab": vocab},
	}
	if truncation > 0 {
		f["truncation"] = map[string]any{"max_length": truncation, "strategy": "LongestFirst", "stride": 0}
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// bertTemplate is the TemplateProcessing post-processor of BERT exports.
var bertTemplate = map[string]any{
	"type": "TemplateProcessing",
	"single": []any{
		map[string]any{"SpecialToken": map[string]any{"id": "[CLS]", "type_id": 0}},
		map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}},
		map[string]any{"SpecialToken": map[string]any{"id": "[SEP]", "type_id": 0}},
	},
	"special_tokens": map[string]any{
		"[CLS]": map[string]any{"id": "[CLS]", "ids": []int{2}, "tokens": []string{"[CLS]"}},
		"[SEP]": map[string]any{"id": "[SEP]", "ids": []int{3}, "tokens": []string{"[SEP]"}},
	},
}

// writeDir writes files (name → content; a []byte is written as is, any
// other value as JSON) into a new directory named "tiny-encoder".
func writeDir(t *testing.T, files map[string]any) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tiny-encoder")
	for name, v := range files {
		data, ok := v.([]byte)
		if !ok {
			var err error
			if data, err = json.Marshal(v); err != nil {
				t.Fatal(err)
			}
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// needRuntime skips the test when the binary carries no ONNX Runtime
// library (a build without `make assets`).
func needRuntime(t *testing.T) {
	t.Helper()
	if err := initRuntime(); errors.Is(err, ortlib.ErrNotEmbedded) {
		testenv.Skip(t, "ONNX Runtime not available: %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
}

// openDir runs LoadDir and New on dir.
func openDir(t *testing.T, dir string, opt Options) *Encoder {
	t.Helper()
	spec, model, vocab, err := LoadDir(dir)
	if err != nil {
		t.Fatalf("LoadDir: %v", err)
	}
	e, err := New(spec, model, vocab, opt)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// want computes by hand what the tiny model and pooling give for ids.
func want(ids []int32, pooling string, types, sentence bool) []float32 {
	e := testEmbedding()
	row := func(id int32) []float64 {
		r := make([]float64, testHidden)
		for j := range r {
			r[j] = float64(e[int(id)*testHidden+j])
		}
		return r
	}
	avg := make([]float64, testHidden)
	for _, id := range ids {
		for j, x := range row(id) {
			avg[j] += x / float64(len(ids))
		}
	}
	v := make([]float64, testHidden)
	for j := range v {
		if pooling == PoolingCLS || sentence {
			v[j] = row(ids[0])[j] + avg[j] // h[0]
		} else {
			v[j] = 2 * avg[j] // mean of h[p] = mean E + avg
		}
		if types {
			v[j] += float64(testTypeTable[j])
		}
	}
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	out := make([]float32, testHidden)
	for j, x := range v {
		out[j] = float32(x / math.Sqrt(ss))
	}
	return out
}

// near reports whether a and b agree to within tol in every element.
func near(a, b []float32, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > tol {
			return false
		}
	}
	return true
}

func TestHFEncode(t *testing.T) {
	needRuntime(t)
	texts := []string{"The cat sat on the mat.", "a dog", "", "Cats!", "the the the the the the the the dog"}
	wantIDs := [][]int32{{2, 5, 6, 7, 8, 5, 9, 11, 3}, {2, 12, 13, 3}, {2, 3}, {2, 6, 10, 1, 3}, {2, 5, 5, 5, 5, 5, 5, 5, 5, 13, 3}}
	tests := []struct {
		name    string
		model   modelSpec
		post    any
		files   map[string]any
		pooling string
	}{
		{"mean default", modelSpec{}, nil, nil, PoolingMean},
		{"cls from 1_Pooling", modelSpec{}, nil, map[string]any{
			"1_Pooling/config.json": map[string]any{"word_embedding_dimension": testHidden, "pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}},
			PoolingCLS},
		{"mean from 1_Pooling", modelSpec{}, bertTemplate, map[string]any{
			"1_Pooling/config.json": map[string]any{"pooling_mode_cls_token": false, "pooling_mode_mean_tokens": true}},
			PoolingMean},
		{"cls from the pooling module modules.json names", modelSpec{}, nil, map[string]any{
			"modules.json": []map[string]any{
				{"idx": 0, "path": "", "type": "sentence_transformers.models.Transformer"},
				{"idx": 1, "path": "pool", "type": "sentence_transformers.models.Pooling"},
				{"idx": 2, "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}},
			"pool/config.json":      map[string]any{"pooling_mode_cls_token": true},
			"1_Pooling/config.json": map[string]any{"pooling_mode_mean_tokens": true}},
			PoolingCLS},
		{"cls from reqa.json over 1_Pooling", modelSpec{}, nil, map[string]any{
			"reqa.json":             map[string]any{"pooling": "cls"},
			"1_Pooling/config.json": map[string]any{"pooling_mode_mean_tokens": true}},
			PoolingCLS},
		{"token types fed zeros", modelSpec{types: true}, map[string]any{"type": "BertProcessing", "sep": []any{"[SEP]", 3}, "cls": []any{"[CLS]", 2}}, nil, PoolingMean},
		{"int32 inputs", modelSpec{int32Inputs: true, types: true}, nil, map[string]any{"reqa.json": map[string]any{"pooling": "cls"}}, PoolingCLS},
		{"token_embeddings output", modelSpec{output: "token_embeddings"}, nil, nil, PoolingMean},
		{"symbolic width", modelSpec{symbolicDim: true}, nil, nil, PoolingMean},
		{"no attention mask", modelSpec{noMask: true}, nil, nil, PoolingMean},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]any{"model.onnx": tc.model.build(t), "tokenizer.json": tokenizerJSON(t, tc.post, 0)}
			for k, v := range tc.files {
				files[k] = v
			}
			e := openDir(t, writeDir(t, files), Options{Batch: 3, Workers: 2})
			if sp := e.Spec(); sp.Kind != KindHF || sp.Dim != testHidden || sp.Name != "tiny-encoder" || len(sp.Hash) != 64 {
				t.Errorf("Spec() = %+v", sp)
			}
			got, err := e.Encode(context.Background(), texts, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, text := range texts {
				if ids := e.Tokens(text); !slices.Equal(ids, wantIDs[i]) {
					t.Errorf("Tokens(%q) = %v, want %v", text, ids, wantIDs[i])
				}
				w := want(wantIDs[i], tc.pooling, tc.model.types, false)
				if !near(got[i], w, 1e-5) {
					t.Errorf("Encode(%q) = %v, want %v", text, got[i], w)
				}
				alone, err := e.Encode(context.Background(), []string{text}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !near(alone[0], got[i], 1e-6) {
					t.Errorf("%q alone = %v, in a batch %v", text, alone[0], got[i])
				}
			}
		})
	}
}

// TestHFSentenceEmbedding checks that a model's own sentence_embedding
// output is used (here h[0]) whatever the pooling setting says.
func TestHFSentenceEmbedding(t *testing.T) {
	needRuntime(t)
	for _, pooling := range []string{PoolingMean, PoolingCLS} {
		dir := writeDir(t, map[string]any{
			"model.onnx":     modelSpec{sentence: true}.build(t),
			"tokenizer.json": tokenizerJSON(t, nil, 0),
			"reqa.json":      map[string]any{"pooling": pooling},
			"modules.json": []map[string]any{
				{"idx": 0, "path": "", "type": "sentence_transformers.models.Transformer"},
				{"idx": 1, "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
				{"idx": 2, "path": "2_Dense", "type": "sentence_transformers.models.Dense"},
			},
		})
		e := openDir(t, dir, Options{})
		got, err := e.Encode(context.Background(), []string{"a dog sat"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if w := want([]int32{2, 12, 13, 7, 3}, pooling, false, true); !near(got[0], w, 1e-5) {
			t.Errorf("pooling %s: got %v, want %v", pooling, got[0], w)
		}
	}
}

// TestHFMaxLength checks where the maximum length comes from and that
// texts are truncated to it, [SEP] kept.
func TestHFMaxLength(t *testing.T) {
	needRuntime(t)
	long := "the cat sat on the mat"
	tests := []struct {
		name       string
		truncation int
		files      map[string]any
		want       []int32
	}{
		{"default", 0, nil, []int32{2, 5, 6, 7, 8, 5, 9, 3}},
		{"tokenizer.json", 5, nil, []int32{2, 5, 6, 7, 3}},
		{"sentence_bert_config over tokenizer.json", 5, map[string]any{"sentence_bert_config.json": map[string]any{"max_seq_length": 4}}, []int32{2, 5, 6, 3}},
		{"reqa.json over sentence_bert_config", 5, map[string]any{"reqa.json": map[string]any{"max_length": 6},
			"sentence_bert_config.json": map[string]any{"max_seq_length": 4}}, []int32{2, 5, 6, 7, 8, 3}},
		{"config.json caps", 0, map[string]any{"config.json": map[string]any{"max_position_embeddings": 3}}, []int32{2, 5, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]any{"model.onnx": modelSpec{}.build(t), "tokenizer.json": tokenizerJSON(t, bertTemplate, tc.truncation)}
			for k, v := range tc.files {
				files[k] = v
			}
			e := openDir(t, writeDir(t, files), Options{})
			if got := e.Tokens(long); !slices.Equal(got, tc.want) {
				t.Errorf("Tokens = %v, want %v", got, tc.want)
			}
			got, err := e.Encode(context.Background(), []string{long}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if w := want(tc.want, PoolingMean, false, false); !near(got[0], w, 1e-5) {
				t.Errorf("Encode = %v, want %v", got[0], w)
			}
		})
	}
}

// TestHFPositionShares: a Hugging Face model reads its maximum length less
// the special tokens, so with a maximum of 5 ([CLS] … [SEP]) the window is
// three tokens of the passage.
func TestHFPositionShares(t *testing.T) {
	needRuntime(t)
	files := map[string]any{"model.onnx": modelSpec{}.build(t), "tokenizer.json": tokenizerJSON(t, bertTemplate, 5)}
	e := openDir(t, writeDir(t, files), Options{})
	text := "the cat sat on the mat" // 6 tokens
	got := e.PositionShares(text, [][2]int{{0, 7}, {8, 14}, {15, 22}})
	if want := []int{2, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("PositionShares = %v, want %v", got, want)
	}
}

// TestHFReload checks what an index relies on: New rebuilds the encoder
// from the stored spec and bytes, the hash covers the pooling setting, and
// a model found under onnx/ loads like one at the top.
func TestHFReload(t *testing.T) {
	needRuntime(t)
	model, tok := modelSpec{}.build(t), tokenizerJSON(t, nil, 0)
	load := func(files map[string]any) (Spec, []byte, []byte) {
		t.Helper()
		spec, m, v, err := LoadDir(writeDir(t, files))
		if err != nil {
			t.Fatal(err)
		}
		return spec, m, v
	}
	mean, m1, v1 := load(map[string]any{"model.onnx": model, "tokenizer.json": tok})
	again, _, _ := load(map[string]any{filepath.Join("onnx", "model.onnx"): model, "tokenizer.json": tok, "reqa.json": map[string]any{"pooling": "mean"}})
	cls, _, v2 := load(map[string]any{"model.onnx": model, "tokenizer.json": tok, "reqa.json": map[string]any{"pooling": "cls"}})
	named, _, _ := load(map[string]any{"model.onnx": model, "tokenizer.json": tok, "reqa.json": map[string]any{"name": "my-model"}})
	if mean.Hash != again.Hash {
		t.Errorf("same model and settings, different hashes %s and %s", mean.Hash, again.Hash)
	}
	if mean.Hash == cls.Hash {
		t.Error("mean and CLS pooling give the same hash")
	}
	if mean.Hash != Hash(m1, v1) || cls.Hash != Hash(m1, v2) {
		t.Error("Spec.Hash is not Hash(onnx, vocab)")
	}
	if named.Name != "my-model" || named.Hash != mean.Hash {
		t.Errorf("reqa.json name: got %+v", named)
	}

	// The index stores Name, Kind, Dim and Hash and the two blobs.
	e, err := New(Spec{Name: cls.Name, Kind: cls.Kind, Dim: cls.Dim, Hash: cls.Hash}, m1, v2, Options{})
	if err != nil {
		t.Fatalf("New from stored spec: %v", err)
	}
	got, err := e.Encode(context.Background(), []string{"a dog"}, nil)
	e.Close()
	if err != nil {
		t.Fatal(err)
	}
	if w := want([]int32{2, 12, 13, 3}, PoolingCLS, false, false); !near(got[0], w, 1e-5) {
		t.Errorf("reloaded CLS encoder: got %v, want %v", got[0], w)
	}
	if _, err := e.Encode(context.Background(), []string{"a"}, nil); err == nil {
		t.Error("Encode after Close succeeded")
	}

	for _, tc := range []struct {
		name  string
		spec  Spec
		vocab []byte
	}{
		{"pooling changed", mean, v2},
		{"width changed", Spec{Name: mean.Name, Kind: KindHF, Dim: 8}, v1},
	} {
		if _, err := New(tc.spec, m1, tc.vocab, Options{}); !errors.Is(err, ErrModelMismatch) {
			t.Errorf("%s: New error %v, want ErrModelMismatch", tc.name, err)
		}
	}
}

func TestHFErrors(t *testing.T) {
	needRuntime(t)
	good := modelSpec{}.build(t)
	tok := tokenizerJSON(t, nil, 0)
	cased := []byte(strings.Replace(string(tok), `"lowercase":true`, `"lowercase":false`, 1))
	if string(cased) == string(tok) {
		t.Fatal("could not make a cased tokenizer.json")
	}
	noCLS := []byte(strings.Replace(string(tok), `"[CLS]"`, `"[CLX]"`, -1))
	tests := []struct {
		name  string
		files map[string]any
		want  string
	}{
		{"no model", map[string]any{"tokenizer.json": tok}, "missing model.onnx"},
		{"no tokenizer", map[string]any{"model.onnx": good}, "missing tokenizer.json"},
		{"model not ONNX", map[string]any{"model.onnx": []byte("not a model"), "tokenizer.json": tok}, "model.onnx"},
		{"wrong input name", map[string]any{"model.onnx": modelSpec{idsName: "ids"}.build(t), "tokenizer.json": tok}, `input "ids" is not one of input_ids`},
		{"no usable output", map[string]any{"model.onnx": modelSpec{output: "logits"}.build(t), "tokenizer.json": tok}, "no usable output"},
		{"cased tokenizer", map[string]any{"model.onnx": good, "tokenizer.json": cased}, "tokenizer.json: wordpiece"},
		{"no [CLS]", map[string]any{"model.onnx": good, "tokenizer.json": noCLS}, `special token "[CLS]"`},
		{"post_processor", map[string]any{"model.onnx": good, "tokenizer.json": tokenizerJSON(t, map[string]any{"type": "ByteLevel"}, 0)}, `post_processor type "ByteLevel"`},
		{"reqa.json pooling", map[string]any{"model.onnx": good, "tokenizer.json": tok, "reqa.json": map[string]any{"pooling": "weighted"}}, `reqa.json: pooling "weighted"`},
		{"reqa.json unknown field", map[string]any{"model.onnx": good, "tokenizer.json": tok, "reqa.json": map[string]any{"poling": "cls"}}, `reqa.json: json: unknown field "poling"`},
		{"reqa.json normalize", map[string]any{"model.onnx": good, "tokenizer.json": tok, "reqa.json": map[string]any{"normalize": false}}, `"normalize": false`},
		{"reqa.json max_length", map[string]any{"model.onnx": good, "tokenizer.json": tok, "reqa.json": map[string]any{"max_length": 2}}, "max_length 2 leaves no room"},
		{"weighted mean pooling", map[string]any{"model.onnx": good, "tokenizer.json": tok,
			"1_Pooling/config.json": map[string]any{"pooling_mode_weightedmean_tokens": true}}, "1_Pooling/config.json: pooling modes [weightedmean_tokens]"},
		{"two pooling modes", map[string]any{"model.onnx": good, "tokenizer.json": tok,
			"1_Pooling/config.json": map[string]any{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": true}}, "pooling modes [cls_token mean_tokens]"},
		{"Dense module", map[string]any{"model.onnx": good, "tokenizer.json": tok, "modules.json": []map[string]any{
			{"path": "", "type": "sentence_transformers.models.Transformer"},
			{"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
			{"path": "2_Dense", "type": "sentence_transformers.models.Dense"}}}, "modules Dense follow pooling"},
		{"bad config.json", map[string]any{"model.onnx": good, "tokenizer.json": tok, "config.json": []byte("{")}, "config.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeDir(t, tc.files)
			_, _, _, err := LoadDir(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), dir) {
				t.Errorf("LoadDir: error %v, want one naming %s and containing %q", err, dir, tc.want)
			}
		})
	}
	if _, _, _, err := LoadDir(filepath.Join(t.TempDir(), "absent")); err == nil || !strings.Contains(err.Error(), "missing model.onnx") {
		t.Errorf("LoadDir of a missing directory: %v", err)
	}
}

// TestHFNewErrors checks New on stored bytes that LoadDir did not make.
func TestHFNewErrors(t *testing.T) {
	needRuntime(t)
	model := modelSpec{}.build(t)
	tok := tokenizerJSON(t, nil, 0)
	vocab := func(format, pooling string, maxLen int, tokenizer []byte) []byte {
		b, err := json.Marshal(hfVocab{Format: format, Pooling: pooling, MaxLength: maxLen, Tokenizer: tokenizer})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name         string
		model, vocab []byte
		want         string
	}{
		{"not JSON", model, tok[:10], "hf vocabulary"},
		{"a bare tokenizer.json", model, tok, `format ""`},
		{"pooling", model, vocab(hfFormat, "weighted", 8, tok), `pooling "weighted"`},
		{"no tokenizer", model, vocab(hfFormat, PoolingMean, 8, nil), "no tokenizer"},
		{"empty model", nil, vocab(hfFormat, PoolingMean, 8, tok), "model.onnx is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(Spec{Name: "x", Kind: KindHF}, tc.model, tc.vocab, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New: error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := New(Spec{Name: "x", Kind: "bert"}, model, tok, Options{}); err == nil || !strings.Contains(err.Error(), `unsupported kind "bert"`) {
		t.Errorf("New with kind bert: %v", err)
	}
}

// TestHFRealTokenizer reads the post-processor and truncation of a real
// sentence-transformers tokenizer.json (all-MiniLM-L6-v2's, the asset
// package wordpiece embeds), when `make` has copied it.
func TestHFRealTokenizer(t *testing.T) {
	tok, err := os.ReadFile("../tokenize/wordpiece/assets/tokenizer.json")
	if err != nil {
		testenv.Skip(t, "all-MiniLM-L6-v2 tokenizer.json absent (run `make`): %v", err)
	}
	dir := writeDir(t, map[string]any{"tokenizer.json": tok})
	st, err := readSettings(dir, tok)
	if err != nil {
		t.Fatal(err)
	}
	if st.pooling != PoolingMean || st.maxLength != 128 {
		t.Errorf("settings %+v, want mean pooling and the file's 128 tokens", st)
	}
	b, err := json.Marshal(hfVocab{Format: hfFormat, Pooling: st.pooling, MaxLength: st.maxLength, Tokenizer: tok})
	if err != nil {
		t.Fatal(err)
	}
	_, tk, err := parseHFVocab(b)
	if err != nil {
		t.Fatal(err)
	}
	// bert-base-uncased: [CLS] 101, "hello" 7592, "world" 2088, "!" 999, [SEP] 102.
	if got := tk.ids("Hello world!", Passage); !slices.Equal(got, []int32{101, 7592, 2088, 999, 102}) {
		t.Errorf("ids = %v", got)
	}
	if got := tk.ids(strings.Repeat("hello ", 300), Passage); len(got) != 128 || got[0] != 101 || got[127] != 102 {
		t.Errorf("a long text gives %d ids, first %d, last %d; want 128 between [CLS] and [SEP]", len(got), got[0], got[len(got)-1])
	}
}
