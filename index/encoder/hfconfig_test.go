package encoder

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHFSettings: what each sentence-transformers / transformers file of a
// model directory, as shipped, decides, and which one wins.
func TestHFSettings(t *testing.T) {
	tok := tokenizerJSON(t, nil, 0)
	tests := []struct {
		name          string
		files         map[string]any
		pooling       string
		maxLength     int
		query, pass   string
		excludePrefix bool
		normalized    bool
		similarity    string
	}{
		{"nothing", nil, PoolingMean, DefaultMaxLength, "", "", false, false, ""},
		{"max pooling", map[string]any{"1_Pooling/config.json": map[string]any{"pooling_mode_max_tokens": true}}, PoolingMax, DefaultMaxLength, "", "", false, false, ""},
		{"mean_sqrt_len is the mean", map[string]any{"1_Pooling/config.json": map[string]any{"pooling_mode_mean_sqrt_len_tokens": true, "pooling_mode_cls_token": false}}, PoolingMean, DefaultMaxLength, "", "", false, false, ""},
		{"e5 prompts", map[string]any{fileSTConfig: map[string]any{"prompts": map[string]string{"query": "query: ", "passage": "passage: "}}},
			PoolingMean, DefaultMaxLength, "query: ", "passage: ", false, false, ""},
		{"document prompt, default prompt name", map[string]any{fileSTConfig: map[string]any{"prompts": map[string]string{"classification": "c: ", "document": "d: "}, "default_prompt_name": "classification"}},
			PoolingMean, DefaultMaxLength, "c: ", "d: ", false, false, ""},
		{"nomic prompts", map[string]any{fileSTConfig: map[string]any{"prompts": map[string]string{"search_query": "search_query: ", "search_document": "search_document: "}}},
			PoolingMean, DefaultMaxLength, "search_query: ", "search_document: ", false, false, ""},
		{"reqa.json over prompts", map[string]any{fileSTConfig: map[string]any{"prompts": map[string]string{"query": "query: "}}, fileReqa: map[string]any{"query_prefix": ""}},
			PoolingMean, DefaultMaxLength, "", "", false, false, ""},
		{"include_prompt false", map[string]any{"1_Pooling/config.json": map[string]any{"pooling_mode_mean_tokens": true, "include_prompt": false}}, PoolingMean, DefaultMaxLength, "", "", true, false, ""},
		{"normalize module, dot", map[string]any{fileModules: []map[string]any{{"path": "", "type": "sentence_transformers.models.Transformer"}, {"path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}},
			fileSTConfig: map[string]any{"similarity_fn_name": "dot"}}, PoolingMean, DefaultMaxLength, "", "", false, true, "dot"},
		{"tokenizer_config no limit", map[string]any{fileTokConfig: map[string]any{"model_max_length": 1e30, "do_lower_case": true}}, PoolingMean, DefaultMaxLength, "", "", false, false, ""},
		{"tokenizer_config", map[string]any{fileTokConfig: map[string]any{"model_max_length": 256}}, PoolingMean, 256, "", "", false, false, ""},
		{"sentence_bert_config over tokenizer_config", map[string]any{fileTokConfig: map[string]any{"model_max_length": 256}, fileSBERT: map[string]any{"max_seq_length": 200, "do_lower_case": false}},
			PoolingMean, 200, "", "", false, false, ""},
		{"config.json caps", map[string]any{fileTokConfig: map[string]any{"model_max_length": 1024}, fileModelConfig: map[string]any{"max_position_embeddings": 512}}, PoolingMean, 512, "", "", false, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]any{"tokenizer.json": tok}
			for k, v := range tc.files {
				files[k] = v
			}
			st, err := readSettings(writeDir(t, files), tok)
			if err != nil {
				t.Fatal(err)
			}
			got := []any{st.pooling, st.maxLength, st.queryPrefix, st.passagePrefix, st.excludePrefix, st.normalized, st.similarity}
			want := []any{tc.pooling, tc.maxLength, tc.query, tc.pass, tc.excludePrefix, tc.normalized, tc.similarity}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("settings %v, want %v", got, want)
					break
				}
			}
		})
	}
}

// TestHFSettingsErrors: a bad file is named with its field.
func TestHFSettingsErrors(t *testing.T) {
	tok := tokenizerJSON(t, nil, 0)
	for _, tc := range []struct {
		name  string
		files map[string]any
		want  string
		is    error
	}{
		{"modules.json", map[string]any{fileModules: "not a list"}, "modules.json: json", nil},
		{"pooling path outside", map[string]any{fileModules: []map[string]any{{"path": "../x", "type": "sentence_transformers.models.Pooling"}}}, `modules.json: module 0: path "../x"`, nil},
		{"include_prompt type", map[string]any{"1_Pooling/config.json": map[string]any{"pooling_mode_mean_tokens": true, "include_prompt": "no"}}, "include_prompt no", nil},
		{"weighted mean", map[string]any{"1_Pooling/config.json": map[string]any{"pooling_mode_weightedmean_tokens": true}}, "pooling modes [weightedmean_tokens]", ErrUnsupported},
		{"prompts type", map[string]any{fileSTConfig: map[string]any{"prompts": []string{"query: "}}}, "config_sentence_transformers.json: json", nil},
		{"similarity", map[string]any{fileSTConfig: map[string]any{"similarity_fn_name": "jaccard"}}, `similarity_fn_name "jaccard"`, nil},
		{"max_seq_length", map[string]any{fileSBERT: map[string]any{"max_seq_length": 0}}, "sentence_bert_config.json: max_seq_length 0", nil},
		{"model_max_length", map[string]any{fileTokConfig: map[string]any{"model_max_length": 12.5}}, "tokenizer_config.json: model_max_length 12.5", nil},
		{"do_lower_case", map[string]any{fileTokConfig: map[string]any{"do_lower_case": "yes"}}, "tokenizer_config.json: json", nil},
		{"reqa.json prefix type", map[string]any{fileReqa: map[string]any{"query_prefix": 3}}, "reqa.json: json", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]any{"tokenizer.json": tok}
			for k, v := range tc.files {
				files[k] = v
			}
			_, err := readSettings(writeDir(t, files), tok)
			if err == nil || !strings.Contains(err.Error(), tc.want) || tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("err %v, want one containing %q (is %v)", err, tc.want, tc.is)
			}
		})
	}
}

// TestHFLoadDirConventions: where the ONNX file may be, external data,
// similarity without normalisation, int8, and that every setting that
// changes embeddings changes the hash.
func TestHFLoadDirConventions(t *testing.T) {
	needRuntime(t)
	model := modelSpec{}.build(t)
	tok := tokenizerJSON(t, nil, 0)
	load := func(files map[string]any, o DirOptions) (Spec, []byte, error) {
		files["tokenizer.json"] = tok
		spec, onnx, _, err := LoadDirWith(writeDir(t, files), o)
		return spec, onnx, err
	}
	base, _, err := load(map[string]any{"model.onnx": model}, DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, place := range []string{"onnx/model.onnx", "onnx/model_quantized.onnx"} {
		if spec, _, err := load(map[string]any{place: model}, DirOptions{}); err != nil || spec.Hash != base.Hash {
			t.Errorf("%s: %v, hash %.12s, want %.12s", place, err, spec.Hash, base.Hash)
		}
	}
	if _, _, err := load(map[string]any{"onnx/model.onnx": model, "onnx/model.onnx_data": []byte("w")}, DirOptions{}); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "external data") {
		t.Errorf("external data: %v", err)
	}
	if _, _, err := load(map[string]any{"model.onnx": model, fileSTConfig: map[string]any{"similarity_fn_name": "dot"}}, DirOptions{}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("dot without normalisation: %v", err)
	}
	if _, _, err := load(map[string]any{"model.onnx": model, fileSTConfig: map[string]any{"similarity_fn_name": "dot"}, fileReqa: map[string]any{"normalize": true}}, DirOptions{}); err != nil {
		t.Errorf("dot with reqa.json normalize: %v", err)
	}
	if _, _, err := load(map[string]any{"model.onnx": model}, DirOptions{Precision: "fp16"}); err == nil || !strings.Contains(err.Error(), `precision "fp16"`) {
		t.Errorf("fp16: %v", err)
	}
	// The tiny graph has no MatMul by a weight matrix.
	if _, _, err := load(map[string]any{"model.onnx": model}, DirOptions{Precision: PrecisionInt8}); err == nil || !strings.Contains(err.Error(), "no MatMul") {
		t.Errorf("int8 of a graph without MatMuls: %v", err)
	}
	q, p, empty := "query: ", "passage: ", ""
	hashes := map[string]string{"base": base.Hash}
	for name, tc := range map[string]struct {
		files map[string]any
		o     DirOptions
	}{
		"query prefix":    {nil, DirOptions{QueryPrefix: &q}},
		"passage prefix":  {nil, DirOptions{PassagePrefix: &p}},
		"prompt excluded": {map[string]any{fileSTConfig: map[string]any{"prompts": map[string]string{"query": q}}, "1_Pooling/config.json": map[string]any{"pooling_mode_mean_tokens": true, "include_prompt": false}}, DirOptions{}},
		"prompt":          {map[string]any{fileSTConfig: map[string]any{"prompts": map[string]string{"query": "q: "}}}, DirOptions{}},
		"max pooling":     {map[string]any{"1_Pooling/config.json": map[string]any{"pooling_mode_max_tokens": true}}, DirOptions{}},
		"max length":      {map[string]any{fileTokConfig: map[string]any{"model_max_length": 64}}, DirOptions{}},
	} {
		files := map[string]any{"model.onnx": model}
		for k, v := range tc.files {
			files[k] = v
		}
		spec, _, err := load(files, tc.o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for other, h := range hashes {
			if h == spec.Hash {
				t.Errorf("%s and %s share hash %.12s", name, other, h)
			}
		}
		hashes[name] = spec.Hash
	}
	// An empty prefix given is no prefix: the hash of the directory alone.
	if spec, _, err := load(map[string]any{"model.onnx": model}, DirOptions{QueryPrefix: &empty, PassagePrefix: &empty}); err != nil || spec.Hash != base.Hash {
		t.Errorf("empty prefixes: %v, hash %.12s, want %.12s", err, spec.Hash, base.Hash)
	}
}

// TestHFPrefixRoles: a question is embedded behind the query prefix, an
// answer behind the passage prefix, each exactly as the prefixed text is
// embedded with no prefix.
func TestHFPrefixRoles(t *testing.T) {
	needRuntime(t)
	files := map[string]any{"model.onnx": modelSpec{}.build(t), "tokenizer.json": tokenizerJSON(t, nil, 0)}
	plain := openDir(t, writeDir(t, files), Options{})
	files[fileSTConfig] = map[string]any{"prompts": map[string]string{"query": "mat mat ", "passage": "dog "}}
	pre := openDir(t, writeDir(t, files), Options{})
	ctx := context.Background()
	text := []string{"sat on the mat"}
	q, _ := pre.EncodeQueries(ctx, text, nil)
	p, _ := pre.Encode(ctx, text, nil)
	wq, _ := plain.Encode(ctx, []string{"mat mat sat on the mat"}, nil)
	wp, _ := plain.EncodeQueries(ctx, []string{"dog sat on the mat"}, nil)
	if !equalBits(q[0], wq[0]) || !equalBits(p[0], wp[0]) {
		t.Errorf("query %v want %v; passage %v want %v", q[0], wq[0], p[0], wp[0])
	}
	if equalBits(q[0], p[0]) {
		t.Error("query and passage embed alike")
	}
}

func equalBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzModelDirConfig: no content of any configuration file of a model
// directory makes readSettings panic, and what it accepts is usable.
func FuzzModelDirConfig(f *testing.F) {
	names := []string{fileReqa, fileModules, "1_Pooling/config.json", fileSTConfig, fileSBERT, fileTokConfig, fileModelConfig}
	seeds := []string{`{"pooling_mode_mean_tokens": true, "include_prompt": false}`, `{"prompts": {"query": "q: "}, "default_prompt_name": "query"}`,
		`[{"path": "", "type": "sentence_transformers.models.Pooling"}]`, `{"model_max_length": 1e30}`, `{"max_seq_length": 7}`, `{"query_prefix": "x"}`}
	for i, s := range seeds {
		f.Add(uint8(i), []byte(s))
	}
	tok := []byte(`{"truncation": {"max_length": 9}}`)
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		dir := t.TempDir()
		name := names[int(which)%len(names)]
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		st, err := readSettings(dir, tok)
		if err != nil {
			return
		}
		if st.maxLength <= 0 || (st.pooling != PoolingMean && st.pooling != PoolingCLS && st.pooling != PoolingMax) {
			t.Fatalf("accepted %s %q with settings %+v", name, data, st)
		}
		if _, err := json.Marshal(hfVocab{Format: hfFormat, Pooling: st.pooling, QueryPrefix: st.queryPrefix}); err != nil {
			t.Fatal(err)
		}
	})
}
