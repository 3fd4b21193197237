package bertgen

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Layout says which files WriteDir writes around the model, each as the
// library that ships it writes it. A zero field leaves its file out.
type Layout struct {
	// ONNXPath is where the model goes, relative to the directory:
	// "model.onnx" (the default) or "onnx/model.onnx" (Optimum's export
	// inside a Hugging Face repository).
	ONNXPath string
	// Pooling, "cls", "mean", "max" or "mean_sqrt_len", writes modules.json
	// (Transformer, Pooling and, with Normalize, Normalize) and
	// 1_Pooling/config.json with that pooling_mode_*_token(s) set.
	Pooling string
	// IncludePrompt false in 1_Pooling/config.json (sentence-transformers'
	// default is true) when ExcludePrompt.
	ExcludePrompt bool
	// Normalize adds the 2_Normalize module.
	Normalize bool
	// MaxSeqLength writes sentence_bert_config.json.
	MaxSeqLength int
	// Prompts and Similarity write config_sentence_transformers.json.
	Prompts    map[string]string
	Similarity string
	// ModelMaxLength writes tokenizer_config.json.
	ModelMaxLength int
	// Config writes config.json (model_type bert, the sizes of the network).
	Config bool
	// Extra files, name → content, written as given.
	Extra map[string][]byte
}

// WriteDir writes a model directory into dir (created if need be): model,
// the ONNX bytes, at l.ONNXPath; tokenizerJSON as tokenizer.json; and the
// configuration files l asks for. c describes the model (for config.json).
// With model nil no ONNX file is written (the caller links one in).
func WriteDir(dir string, c Config, model, tokenizerJSON []byte, l Layout) error {
	files := map[string]any{"tokenizer.json": tokenizerJSON}
	onnxPath := l.ONNXPath
	if onnxPath == "" {
		onnxPath = "model.onnx"
	}
	if model != nil {
		files[onnxPath] = model
	}
	if l.Pooling != "" {
		modules := []map[string]any{
			{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
			{"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
		}
		if l.Normalize {
			modules = append(modules, map[string]any{"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"})
			files["2_Normalize/.keep"] = []byte{} // sentence-transformers writes an empty directory
		}
		files["modules.json"] = modules
		pool := map[string]any{"word_embedding_dimension": c.Hidden}
		for _, mode := range []string{"cls_token", "mean_tokens", "max_tokens", "mean_sqrt_len_tokens", "weightedmean_tokens", "lasttoken"} {
			pool["pooling_mode_"+mode] = false
		}
		key, ok := map[string]string{"cls": "cls_token", "mean": "mean_tokens", "max": "max_tokens", "mean_sqrt_len": "mean_sqrt_len_tokens"}[l.Pooling]
		if !ok {
			return fmt.Errorf("bertgen: pooling %q: want cls, mean, max or mean_sqrt_len", l.Pooling)
		}
		pool["pooling_mode_"+key] = true
		pool["include_prompt"] = !l.ExcludePrompt
		files["1_Pooling/config.json"] = pool
	}
	if l.MaxSeqLength > 0 {
		files["sentence_bert_config.json"] = map[string]any{"max_seq_length": l.MaxSeqLength, "do_lower_case": false}
	}
	if l.Prompts != nil || l.Similarity != "" {
		st := map[string]any{"__version__": map[string]string{"sentence_transformers": "3.0.1"}, "prompts": l.Prompts, "default_prompt_name": nil}
		if l.Prompts == nil {
			st["prompts"] = map[string]string{}
		}
		if l.Similarity != "" {
			st["similarity_fn_name"] = l.Similarity
		}
		files["config_sentence_transformers.json"] = st
	}
	if l.ModelMaxLength > 0 {
		files["tokenizer_config.json"] = map[string]any{"do_lower_case": true, "model_max_length": l.ModelMaxLength,
			"tokenizer_class": "BertTokenizer", "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "unk_token": "[UNK]", "mask_token": "[MASK]"}
	}
	if l.Config {
		files["config.json"] = map[string]any{"architectures": []string{"BertModel"}, "model_type": "bert", "hidden_size": c.Hidden,
			"num_hidden_layers": c.Layers, "num_attention_heads": c.Heads, "intermediate_size": c.Intermediate,
			"max_position_embeddings": c.MaxPositions, "type_vocab_size": c.TypeVocab, "vocab_size": c.Vocab,
			"hidden_act": "gelu", "layer_norm_eps": 1e-12, "pad_token_id": 0, "torch_dtype": "float32"}
	}
	for name, data := range l.Extra {
		files[name] = data
	}
	for name, v := range files {
		data, ok := v.([]byte)
		if !ok {
			var err error
			if data, err = json.MarshalIndent(v, "", "  "); err != nil {
				return fmt.Errorf("bertgen: %s: %w", name, err)
			}
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if filepath.Base(p) == ".keep" {
			continue
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
