package encoder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reqa/reqa/index/encoder/onnxmodel"
	"github.com/reqa/reqa/index/encoder/ort"
	"github.com/reqa/reqa/index/tokenize/wordpiece"
)

// KindHF is the [Spec.Kind] of a Hugging Face–layout sentence encoder: a
// BERT-family ONNX model that reads token ids from a WordPiece tokenizer
// (see [LoadDir]).
const KindHF = "hf"

// Pooling modes of a KindHF encoder: the mean of the token vectors under
// the attention mask, the vector of the first ([CLS]) token, or the
// element-wise maximum of the token vectors under the mask.
// (sentence-transformers' mean_sqrt_len_tokens is the mean scaled by a
// number, so after normalisation it is PoolingMean.)
const (
	PoolingMean = "mean"
	PoolingCLS  = "cls"
	PoolingMax  = "max"
)

// ErrUnsupported reports a model directory whose conventions reqa cannot
// apply faithfully (a pooling mode, a module after pooling, a similarity
// that is not cosine); the error names the file and field.
var ErrUnsupported = errors.New("model convention not supported")

// DefaultMaxLength is the number of tokens, [CLS] and [SEP] included, a
// KindHF encoder reads when no file of its directory says otherwise.
const DefaultMaxLength = 512

// Names of the model inputs and outputs a KindHF encoder uses.
const (
	hfInputIDs      = "input_ids"
	hfAttentionMask = "attention_mask"
	hfTokenTypeIDs  = "token_type_ids"
	// hfSentenceEmbedding is the [batch, hidden] output of a model that
	// pools by itself (a sentence-transformers export); it is used as is.
	hfSentenceEmbedding = "sentence_embedding"
)

// hfTokenOutputs are the names of a [batch, seq, hidden] output of token
// vectors, in order of preference.
var hfTokenOutputs = []string{"last_hidden_state", "token_embeddings"}

// hfFormat identifies the stored vocabulary of a KindHF encoder.
const hfFormat = "reqa-hf/1"

// hfVocab is the "vocabulary" of a KindHF encoder, as [LoadDir] returns it
// and an index stores it: the directory's tokenizer.json together with the
// settings that other files of the directory decided. Everything the
// encoder needs besides the ONNX model is in it, so the content hash
// ([Hash] of the model and these bytes) changes with the pooling mode.
type hfVocab struct {
	// Format is hfFormat.
	Format string `json:"format"`
	// Pooling is PoolingMean, PoolingCLS or PoolingMax. It is ignored when
	// the model has a sentence_embedding output.
	Pooling string `json:"pooling"`
	// MaxLength is the longest token sequence, [CLS] and [SEP] included,
	// the model is given; longer texts are truncated.
	MaxLength int `json:"max_length"`
	// QueryPrefix is put before a question's text, PassagePrefix before
	// an answer's (a sentence or a context), as e5 ("query: ",
	// "passage: ") and bge (its query instruction) were trained. Both
	// are counted in MaxLength.
	QueryPrefix   string `json:"query_prefix,omitempty"`
	PassagePrefix string `json:"passage_prefix,omitempty"`
	// ExcludePrefix leaves the prefix's tokens, [CLS] included, out of
	// mean and max pooling (sentence-transformers' include_prompt false).
	ExcludePrefix bool `json:"exclude_prefix,omitempty"`
	// Tokenizer is the tokenizer.json.
	Tokenizer json.RawMessage `json:"tokenizer"`
}

// DirOptions are the choices `reqa index --model DIR` adds to what the
// directory's files say.
type DirOptions struct {
	// QueryPrefix and PassagePrefix, when not nil, replace the prefixes
	// the directory's files set (an empty string removes one).
	QueryPrefix, PassagePrefix *string
	// Precision "int8" quantizes the model's MatMuls by constant weights
	// (onnxmodel.QuantizeONNX) and sets Spec.Precision; "" or "fp32"
	// keeps the model as shipped.
	Precision string
}

// Precisions of a KindHF model ([DirOptions.Precision], [Spec.Precision]).
const (
	PrecisionFP32 = "fp32"
	PrecisionInt8 = "int8"
)

// onnxPlaces are where a model directory may hold its ONNX file, in order
// of preference: the top level, Optimum's onnx/ folder, and the
// dynamically quantized export transformers.js repositories ship.
var onnxPlaces = []string{"model.onnx", filepath.Join("onnx", "model.onnx"), filepath.Join("onnx", "model_quantized.onnx")}

// LoadDir is LoadDirWith with no options.
func LoadDir(dir string) (spec Spec, onnx, vocab []byte, err error) {
	return LoadDirWith(dir, DirOptions{})
}

// LoadDirWith reads a Hugging Face–layout sentence encoder from dir and
// returns what [New] needs to build it: a Spec of Kind [KindHF], the ONNX
// model and the encoder's vocabulary (the tokenizer.json with the pooling,
// length and prefix settings, in one blob an index can store, so the
// content hash changes with each of them).
//
// The directory must hold model.onnx (or onnx/model.onnx, as Hugging Face
// repositories exported with Optimum do, or onnx/model_quantized.onnx) as
// one file (weights in external data files are refused), and
// tokenizer.json, a BERT-uncased WordPiece tokenizer ([wordpiece.FromJSON]
// says which files qualify). The model must take int64 or int32 input_ids
// [batch, seq] and optionally attention_mask and token_type_ids of the
// same shape (token types are all 0), and return either sentence_embedding
// [batch, hidden], used as is, or last_hidden_state (or token_embeddings)
// [batch, seq, hidden], which is pooled.
//
// These optional files decide the settings, the first one that says wins:
//
//   - reqa.json: {"name": "...", "pooling": "mean"|"cls"|"max",
//     "max_length": N, "normalize": true, "query_prefix": "...",
//     "passage_prefix": "..."}. Unknown fields are refused.
//   - modules.json and the pooling module's config.json (sentence-transformers,
//     by default 1_Pooling/config.json): pooling_mode_mean_tokens,
//     pooling_mode_cls_token, pooling_mode_max_tokens or
//     pooling_mode_mean_sqrt_len_tokens (the mean, once normalised), and
//     include_prompt; other pooling modes, several at once, and modules
//     other than Transformer, Pooling and Normalize (a Dense projection,
//     say) are refused ([ErrUnsupported]) unless the model has a
//     sentence_embedding output.
//   - config_sentence_transformers.json: prompts — the query prefix is
//     the prompt named "query" (or "search_query"), the passage prefix the
//     one named "passage", "document", "search_document" or "corpus";
//     default_prompt_name stands in for a missing one — and
//     similarity_fn_name.
//   - sentence_bert_config.json: max_seq_length (do_lower_case is read
//     but changes nothing: the tokenizer lowercases anyway).
//   - tokenizer_config.json: model_max_length (values of a million and
//     more mean "no limit", as transformers writes them).
//   - tokenizer.json: truncation.max_length.
//   - config.json: max_position_embeddings caps the maximum length.
//
// opt's prefixes replace the files' ones; opt.Precision int8 quantizes the
// model. The defaults are mean pooling, no prefixes, DefaultMaxLength
// tokens and the base name of dir as the encoder's name.
//
// Embeddings are always L2-normalised: the dense index compares unit
// vectors, which is the cosine similarity sentence-transformers uses by
// default, with or without a Normalize module. A model whose
// similarity_fn_name is dot, euclidean or manhattan and whose pipeline
// does not normalise is refused ([ErrUnsupported]) unless reqa.json says
// "normalize": true (rank by cosine anyway); "normalize": false is refused.
//
// Spec.Dim comes from the model's output shape, or, when that is symbolic,
// from running the model once; either way LoadDirWith loads ONNX Runtime.
func LoadDirWith(dir string, opt DirOptions) (spec Spec, onnx, vocab []byte, err error) {
	fail := func(err error) (Spec, []byte, []byte, error) {
		return Spec{}, nil, nil, fmt.Errorf("encoder: model directory %s: %w", dir, err)
	}
	onnxName, onnx, err := readFirst(dir, onnxPlaces...)
	if err != nil {
		return fail(err)
	}
	for _, ext := range []string{"_data", ".data"} {
		if _, err := os.Stat(filepath.Join(dir, onnxName+ext)); err == nil {
			return fail(fmt.Errorf("%s keeps its weights in %s%s (ONNX external data): %w; export it as one file (models under 2 GB fit)", onnxName, onnxName, ext, ErrUnsupported))
		}
	}
	_, tokJSON, err := readFirst(dir, "tokenizer.json")
	if err != nil {
		return fail(err)
	}
	st, err := readSettings(dir, tokJSON)
	if err != nil {
		return fail(err)
	}
	if opt.QueryPrefix != nil {
		st.queryPrefix = *opt.QueryPrefix
	}
	if opt.PassagePrefix != nil {
		st.passagePrefix = *opt.PassagePrefix
	}
	precision := ""
	switch opt.Precision {
	case "", PrecisionFP32:
	case PrecisionInt8:
		q, n, err := onnxmodel.QuantizeONNX(onnx)
		if err != nil {
			return fail(fmt.Errorf("%s: int8: %w", onnxName, err))
		}
		if n == 0 {
			return fail(fmt.Errorf("%s: int8: no MatMul by a float weight matrix to quantize (is it quantized already?)", onnxName))
		}
		onnx, precision = q, PrecisionInt8
	default:
		return fail(fmt.Errorf("precision %q: want %s or %s", opt.Precision, PrecisionFP32, PrecisionInt8))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	v := hfVocab{Format: hfFormat, Pooling: st.pooling, MaxLength: st.maxLength, Tokenizer: tokJSON,
		QueryPrefix: st.queryPrefix, PassagePrefix: st.passagePrefix, ExcludePrefix: st.excludePrefix}
	if err := enc.Encode(v); err != nil {
		return fail(fmt.Errorf("tokenizer.json: %w", err))
	}
	vocab = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if _, _, err := parseHFVocab(vocab); err != nil {
		return fail(err)
	}
	if err := initRuntime(); err != nil {
		return fail(err)
	}
	io, err := inspectHF(onnx)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", onnxName, err))
	}
	if len(st.extraModules) > 0 && !io.pooled {
		return fail(fmt.Errorf("modules.json: modules %s follow pooling, but %s has no %s output that would include them: %w",
			strings.Join(st.extraModules, ", "), onnxName, hfSentenceEmbedding, ErrUnsupported))
	}
	if st.similarity != "" && !st.normalized && !io.pooled {
		return fail(fmt.Errorf("config_sentence_transformers.json: similarity_fn_name %q without a Normalize module: %w: reqa ranks by cosine (set \"normalize\": true in reqa.json to accept that)",
			st.similarity, ErrUnsupported))
	}
	dim := io.dim
	if dim == 0 {
		be, err := newHF(onnx, vocab, Options{Threads: 1, Batch: 1})
		if err != nil {
			return fail(err)
		}
		dim = be.d
		be.close()
	}
	return Spec{Name: st.name, Kind: KindHF, Dim: dim, Hash: Hash(onnx, vocab), Precision: precision}, onnx, vocab, nil
}

// readFirst returns the name and content of the first of names that exists
// in dir, or an error naming the first name when none does.
func readFirst(dir string, names ...string) (string, []byte, error) {
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		return name, data, nil
	}
	return "", nil, fmt.Errorf("missing %s (a Hugging Face–layout encoder directory holds model.onnx and tokenizer.json)", names[0])
}

// readJSON decodes dir/name into v. It reports whether the file exists; an
// absent file is not an error.
func readJSON(dir, name string, v any, strict bool) (bool, error) {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, decodeJSON(name, data, v, strict)
}

// decodeJSON decodes data, the content of the file name, into v.
func decodeJSON(name string, data []byte, v any, strict bool) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// dirSettings are the settings LoadDir reads from a model directory.
type dirSettings struct {
	name      string
	pooling   string
	maxLength int
	// extraModules are sentence-transformers modules after the Transformer
	// that reqa does not apply itself (Dense, ...).
	extraModules []string
	// queryPrefix and passagePrefix are put before questions and answers;
	// excludePrefix leaves their tokens out of pooling.
	queryPrefix, passagePrefix string
	excludePrefix              bool
	// normalized: the pipeline normalises (a Normalize module, or
	// reqa.json's "normalize": true); similarity is a similarity_fn_name
	// other than cosine.
	normalized bool
	similarity string
}

// The files of a model directory readSettings reads.
const (
	fileReqa        = "reqa.json"
	fileModules     = "modules.json"
	fileSTConfig    = "config_sentence_transformers.json"
	fileSBERT       = "sentence_bert_config.json"
	fileTokConfig   = "tokenizer_config.json"
	fileModelConfig = "config.json"
)

// reqaJSON is reqa.json.
type reqaJSON struct {
	Name          string  `json:"name"`
	Pooling       string  `json:"pooling"`
	MaxLength     *int    `json:"max_length"`
	Normalize     *bool   `json:"normalize"`
	QueryPrefix   *string `json:"query_prefix"`
	PassagePrefix *string `json:"passage_prefix"`
}

// stModule is an entry of modules.json.
type stModule struct {
	Path string `json:"path"`
	Type string `json:"type"`
}

// stConfig is config_sentence_transformers.json.
type stConfig struct {
	Prompts           map[string]string `json:"prompts"`
	DefaultPromptName *string           `json:"default_prompt_name"`
	SimilarityFnName  *string           `json:"similarity_fn_name"`
}

// sbertConfig is sentence_bert_config.json.
type sbertConfig struct {
	MaxSeqLength *int  `json:"max_seq_length"`
	DoLowerCase  *bool `json:"do_lower_case"`
}

// tokConfig is tokenizer_config.json; model_max_length is a float because
// transformers writes 1e30 for "no limit".
type tokConfig struct {
	ModelMaxLength *float64 `json:"model_max_length"`
	DoLowerCase    *bool    `json:"do_lower_case"`
}

// noLimit is the model_max_length from which tokenizer_config.json means
// "no limit" (transformers' VERY_LARGE_INTEGER is 1e30).
const noLimit = 1e6

// poolingOf maps a sentence-transformers pooling config to a pooling mode
// and whether the prompt is pooled.
func poolingOf(name string, pool map[string]any) (mode string, includePrompt bool, err error) {
	var modes []string
	includePrompt = true
	for k, v := range pool {
		if k == "include_prompt" {
			b, ok := v.(bool)
			if !ok {
				return "", false, fmt.Errorf("%s: include_prompt %v: want true or false", name, v)
			}
			includePrompt = b
			continue
		}
		if !strings.HasPrefix(k, "pooling_mode_") {
			continue
		}
		on, ok := v.(bool)
		if !ok {
			return "", false, fmt.Errorf("%s: %s %v: want true or false", name, k, v)
		}
		if on {
			modes = append(modes, strings.TrimPrefix(k, "pooling_mode_"))
		}
	}
	slices.Sort(modes)
	if len(modes) == 1 {
		switch modes[0] {
		case "mean_tokens", "mean_sqrt_len_tokens":
			return PoolingMean, includePrompt, nil
		case "cls_token":
			return PoolingCLS, includePrompt, nil
		case "max_tokens":
			return PoolingMax, includePrompt, nil
		}
	}
	return "", false, fmt.Errorf("%s: pooling modes %v: %w: reqa supports exactly one of mean_tokens, mean_sqrt_len_tokens, cls_token and max_tokens (or set \"pooling\" in reqa.json)", name, modes, ErrUnsupported)
}

// prompts returns the query and passage prefixes of a
// config_sentence_transformers.json.
func (c stConfig) prefixes() (query, passage string, okQ, okP bool) {
	pick := func(names ...string) (string, bool) {
		for _, n := range names {
			if p, ok := c.Prompts[n]; ok {
				return p, true
			}
		}
		if c.DefaultPromptName != nil {
			p, ok := c.Prompts[*c.DefaultPromptName]
			return p, ok
		}
		return "", false
	}
	query, okQ = pick("query", "search_query")
	passage, okP = pick("passage", "document", "search_document", "corpus")
	return query, passage, okQ, okP
}

// readSettings reads the optional configuration files of dir (see LoadDir).
func readSettings(dir string, tokJSON []byte) (dirSettings, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dirSettings{}, err
	}
	st := dirSettings{name: filepath.Base(abs)}

	var rq reqaJSON
	if _, err := readJSON(dir, fileReqa, &rq, true); err != nil {
		return st, err
	}
	if rq.Name != "" {
		st.name = rq.Name
	}
	if rq.Normalize != nil {
		if !*rq.Normalize {
			return st, errors.New(`reqa.json: "normalize": false is not supported: reqa's dense index compares unit vectors`)
		}
		st.normalized = true
	}
	switch rq.Pooling {
	case "", PoolingMean, PoolingCLS, PoolingMax:
		st.pooling = rq.Pooling
	default:
		return st, fmt.Errorf("reqa.json: pooling %q: want %q, %q or %q", rq.Pooling, PoolingMean, PoolingCLS, PoolingMax)
	}
	if rq.MaxLength != nil {
		if *rq.MaxLength <= 0 {
			return st, fmt.Errorf("reqa.json: max_length %d: want a positive number", *rq.MaxLength)
		}
		st.maxLength = *rq.MaxLength
	}

	// sentence-transformers: modules.json lists the pipeline; the pooling
	// module's directory holds its config.json.
	var modules []stModule
	poolDir := "1_Pooling"
	if _, err := readJSON(dir, fileModules, &modules, false); err != nil {
		return st, err
	}
	for i, m := range modules {
		switch typ := m.Type[strings.LastIndex(m.Type, ".")+1:]; typ {
		case "Transformer":
		case "Normalize":
			st.normalized = true
		case "Pooling":
			if m.Path != "" {
				if !filepath.IsLocal(m.Path) {
					return st, fmt.Errorf("modules.json: module %d: path %q leaves the model directory", i, m.Path)
				}
				poolDir = m.Path
			}
		default:
			st.extraModules = append(st.extraModules, typ)
		}
	}
	var pool map[string]any
	poolFile := filepath.Join(poolDir, "config.json")
	if ok, err := readJSON(dir, poolFile, &pool, false); err != nil {
		return st, err
	} else if ok {
		mode, include, err := poolingOf(poolFile, pool)
		if err != nil && st.pooling == "" {
			return st, err
		}
		if st.pooling == "" {
			st.pooling = mode
		}
		st.excludePrefix = !include && err == nil
	}
	if st.pooling == "" {
		st.pooling = PoolingMean
	}

	var sc stConfig
	if _, err := readJSON(dir, fileSTConfig, &sc, false); err != nil {
		return st, err
	}
	q, p, okQ, okP := sc.prefixes()
	switch {
	case rq.QueryPrefix != nil:
		st.queryPrefix = *rq.QueryPrefix
	case okQ:
		st.queryPrefix = q
	}
	switch {
	case rq.PassagePrefix != nil:
		st.passagePrefix = *rq.PassagePrefix
	case okP:
		st.passagePrefix = p
	}
	if f := sc.SimilarityFnName; f != nil {
		switch *f {
		case "cosine", "":
		case "dot", "dot_product", "euclidean", "manhattan":
			st.similarity = *f
		default:
			return st, fmt.Errorf("config_sentence_transformers.json: similarity_fn_name %q: want cosine, dot, euclidean or manhattan", *f)
		}
	}

	var sb sbertConfig
	if _, err := readJSON(dir, fileSBERT, &sb, false); err != nil {
		return st, err
	}
	if st.maxLength == 0 && sb.MaxSeqLength != nil {
		if *sb.MaxSeqLength <= 0 {
			return st, fmt.Errorf("%s: max_seq_length %d: want a positive number", fileSBERT, *sb.MaxSeqLength)
		}
		st.maxLength = *sb.MaxSeqLength
	}
	var tc tokConfig
	if _, err := readJSON(dir, fileTokConfig, &tc, false); err != nil {
		return st, err
	}
	if m := tc.ModelMaxLength; st.maxLength == 0 && m != nil && *m < noLimit {
		if *m < 1 || *m != math.Trunc(*m) {
			return st, fmt.Errorf("%s: model_max_length %v: want a positive whole number", fileTokConfig, *m)
		}
		st.maxLength = int(*m)
	}
	if st.maxLength <= 0 {
		var tj struct {
			Truncation *struct {
				MaxLength int `json:"max_length"`
			} `json:"truncation"`
		}
		if err := json.Unmarshal(tokJSON, &tj); err != nil {
			return st, fmt.Errorf("tokenizer.json: %w", err)
		}
		if tj.Truncation != nil {
			st.maxLength = tj.Truncation.MaxLength
		}
	}
	if st.maxLength <= 0 {
		st.maxLength = DefaultMaxLength
	}
	var cfg struct {
		MaxPositionEmbeddings int `json:"max_position_embeddings"`
	}
	if _, err := readJSON(dir, fileModelConfig, &cfg, false); err != nil {
		return st, err
	}
	if cfg.MaxPositionEmbeddings > 0 && cfg.MaxPositionEmbeddings < st.maxLength {
		st.maxLength = cfg.MaxPositionEmbeddings
	}
	return st, nil
}

// hfTokens turns text into model input: the tokenizer's ids between the
// post-processor's prefix ([CLS]) and suffix ([SEP]), truncated to maxLen.
type hfTokens struct {
	tok            *wordpiece.Tokenizer
	prefix, suffix []int32
	pad            int32
	maxLen         int
	// text prefixes of each role ([Query], [Passage]), and the number of
	// leading tokens pooling skips for each (0 unless the vocabulary says
	// ExcludePrefix).
	textPrefix [2]string
	skip       [2]int
}

// ids returns the model input for text in role r.
func (t *hfTokens) ids(text string, r Role) []int32 {
	if p := t.textPrefix[r]; p != "" {
		text = p + text
	}
	ids := make([]int32, 0, len(t.prefix)+len(text)/4+len(t.suffix)+1)
	ids = append(ids, t.prefix...)
	ids = t.tok.AppendIDs(ids, text)
	if room := t.maxLen - len(t.suffix); len(ids) > room {
		ids = ids[:room]
	}
	return append(ids, t.suffix...)
}

// parseHFVocab decodes a stored KindHF vocabulary and builds its tokenizer.
func parseHFVocab(vocab []byte) (*hfVocab, *hfTokens, error) {
	var v hfVocab
	if err := json.Unmarshal(vocab, &v); err != nil {
		return nil, nil, fmt.Errorf("%s vocabulary: %w", KindHF, err)
	}
	switch {
	case v.Format != hfFormat:
		return nil, nil, fmt.Errorf("%s vocabulary: format %q, want %q", KindHF, v.Format, hfFormat)
	case v.Pooling != PoolingMean && v.Pooling != PoolingCLS && v.Pooling != PoolingMax:
		return nil, nil, fmt.Errorf("%s vocabulary: pooling %q, want %q, %q or %q", KindHF, v.Pooling, PoolingMean, PoolingCLS, PoolingMax)
	case len(v.Tokenizer) == 0 || string(v.Tokenizer) == "null":
		return nil, nil, fmt.Errorf("%s vocabulary: no tokenizer", KindHF)
	}
	tok, err := wordpiece.FromJSON(v.Tokenizer)
	if err != nil {
		return nil, nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	t := &hfTokens{tok: tok, maxLen: v.MaxLength}
	if err := t.specials(v.Tokenizer); err != nil {
		return nil, nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	if n := len(t.prefix) + len(t.suffix); t.maxLen <= n {
		return nil, nil, fmt.Errorf("max_length %d leaves no room for text beside %d special tokens", t.maxLen, n)
	}
	t.textPrefix = [2]string{Query: v.QueryPrefix, Passage: v.PassagePrefix}
	if v.ExcludePrefix {
		// sentence-transformers' prompt_length: the prompt tokenized alone,
		// its leading special tokens included.
		for r, p := range t.textPrefix {
			if p != "" {
				t.skip[r] = len(t.prefix) + len(tok.Tokenize(p))
			}
		}
	}
	return &v, t, nil
}

// specials sets the prefix, suffix and padding ids from the tokenizer.json
// post-processor: BertProcessing, TemplateProcessing (its "single"
// template), or none, which means BERT's [CLS] … [SEP].
func (t *hfTokens) specials(tokJSON []byte) error {
	var f struct {
		PostProcessor *struct {
			Type   string            `json:"type"`
			CLS    []json.RawMessage `json:"cls"`
			SEP    []json.RawMessage `json:"sep"`
			Single []struct {
				SpecialToken *struct {
					ID string `json:"id"`
				} `json:"SpecialToken"`
				Sequence *struct {
					ID string `json:"id"`
				} `json:"Sequence"`
			} `json:"single"`
			SpecialTokens map[string]struct {
				IDs []int32 `json:"ids"`
			} `json:"special_tokens"`
		} `json:"post_processor"`
	}
	if err := json.Unmarshal(tokJSON, &f); err != nil {
		return err
	}
	lookup := func(tok string) (int32, error) {
		id, ok := t.tok.ID(tok)
		if !ok {
			return 0, fmt.Errorf("special token %q is not in the vocabulary", tok)
		}
		return id, nil
	}
	t.pad, _ = t.tok.ID("[PAD]")
	p := f.PostProcessor
	switch {
	case p == nil:
		cls, err := lookup("[CLS]")
		if err != nil {
			return err
		}
		sep, err := lookup("[SEP]")
		if err != nil {
			return err
		}
		t.prefix, t.suffix = []int32{cls}, []int32{sep}
	case p.Type == "BertProcessing":
		for _, x := range []struct {
			field string
			pair  []json.RawMessage
			dst   *[]int32
		}{{"cls", p.CLS, &t.prefix}, {"sep", p.SEP, &t.suffix}} {
			var id int32
			if len(x.pair) != 2 || json.Unmarshal(x.pair[1], &id) != nil || id < 0 || int(id) >= t.tok.Size() {
				return fmt.Errorf("post_processor.%s: want [token, id] with an id of the vocabulary", x.field)
			}
			*x.dst = []int32{id}
		}
	case p.Type == "TemplateProcessing":
		seen := false
		for _, item := range p.Single {
			switch {
			case item.Sequence != nil:
				if seen {
					return errors.New("post_processor.single: more than one sequence")
				}
				seen = true
			case item.SpecialToken != nil:
				st, ok := p.SpecialTokens[item.SpecialToken.ID]
				if !ok || len(st.IDs) == 0 {
					return fmt.Errorf("post_processor.special_tokens: no ids for %q", item.SpecialToken.ID)
				}
				for _, id := range st.IDs {
					if id < 0 || int(id) >= t.tok.Size() {
						return fmt.Errorf("post_processor.special_tokens: %q has id %d, outside the vocabulary", item.SpecialToken.ID, id)
					}
				}
				if seen {
					t.suffix = append(t.suffix, st.IDs...)
				} else {
					t.prefix = append(t.prefix, st.IDs...)
				}
			default:
				return errors.New("post_processor.single: an item is neither SpecialToken nor Sequence")
			}
		}
		if !seen {
			return errors.New("post_processor.single: no sequence")
		}
	default:
		return fmt.Errorf("post_processor type %q is not supported (want BertProcessing or TemplateProcessing)", p.Type)
	}
	return nil
}

// hfIO is what a KindHF encoder feeds a model and reads back from it.
type hfIO struct {
	// inputs are the model's inputs (hfInputIDs, hfAttentionMask,
	// hfTokenTypeIDs), in the order runs pass them; int32 says which take
	// int32 rather than int64.
	inputs []string
	int32  []bool
	mask   bool // the model has an attention_mask input
	// output is the output read; pooled says it is [batch, hidden].
	output string
	pooled bool
	// dim is the output's last dimension, 0 when symbolic.
	dim int
	// seqLen is the fixed sequence length of the inputs, 0 when symbolic.
	seqLen int
}

// inspectHF checks a model's inputs and outputs against the KindHF
// conventions. ONNX Runtime must be initialised.
func inspectHF(model []byte) (*hfIO, error) {
	if len(model) == 0 {
		return nil, errors.New("model.onnx is empty")
	}
	ins, outs, err := ort.Inspect(model)
	if err != nil {
		return nil, fmt.Errorf("model.onnx: %w", err)
	}
	io := &hfIO{}
	hasIDs := false
	for _, in := range ins {
		switch in.Name {
		case hfInputIDs:
			hasIDs = true
		case hfAttentionMask:
			io.mask = true
		case hfTokenTypeIDs:
		default:
			return nil, fmt.Errorf("model.onnx: input %q is not one of %s, %s, %s", in.Name, hfInputIDs, hfAttentionMask, hfTokenTypeIDs)
		}
		if in.Type != ort.ElemInt64 && in.Type != ort.ElemInt32 {
			return nil, fmt.Errorf("model.onnx: input %q is %s, want an int64 or int32 tensor", in.Name, in.Desc)
		}
		d := in.Dims
		if len(d) != 2 {
			return nil, fmt.Errorf("model.onnx: input %q has shape %v, want [batch, sequence]", in.Name, d)
		}
		if d[0] > 0 {
			return nil, fmt.Errorf("model.onnx: input %q has a fixed batch size %d; reqa needs a dynamic one", in.Name, d[0])
		}
		if d[1] > 0 {
			if io.seqLen != 0 && io.seqLen != int(d[1]) {
				return nil, fmt.Errorf("model.onnx: inputs disagree on the sequence length (%d and %d)", io.seqLen, d[1])
			}
			io.seqLen = int(d[1])
		}
		io.inputs = append(io.inputs, in.Name)
		io.int32 = append(io.int32, in.Type == ort.ElemInt32)
	}
	if !hasIDs {
		return nil, fmt.Errorf("model.onnx: no %s input", hfInputIDs)
	}
	byName := map[string]ort.TensorInfo{}
	var names []string
	for _, o := range outs {
		byName[o.Name] = o
		names = append(names, o.Desc)
	}
	for _, want := range append([]string{hfSentenceEmbedding}, hfTokenOutputs...) {
		o, ok := byName[want]
		if !ok {
			continue
		}
		rank := 3
		if want == hfSentenceEmbedding {
			rank = 2
		}
		if o.Type != ort.ElemFloat || len(o.Dims) != rank {
			return nil, fmt.Errorf("model.onnx: output %s, want a float tensor of rank %d", o.Desc, rank)
		}
		io.output, io.pooled = want, rank == 2
		if last := o.Dims[rank-1]; last > 0 {
			io.dim = int(last)
		}
		return io, nil
	}
	return nil, fmt.Errorf("model.onnx: no usable output: want float %s [batch, hidden] or %s [batch, seq, hidden]; outputs are: %s",
		hfSentenceEmbedding, strings.Join(hfTokenOutputs, " or "), strings.Join(names, "; "))
}

// hfBackend runs a Hugging Face–layout encoder.
type hfBackend struct {
	tok     *hfTokens
	io      *hfIO
	pooling string
	d       int

	model *ort.Model
}

// newHF builds the backend of Kind KindHF from a model and the vocabulary
// LoadDir made.
func newHF(model, vocab []byte, opt Options) (*hfBackend, error) {
	v, tok, err := parseHFVocab(vocab)
	if err != nil {
		return nil, err
	}
	if err := initRuntime(); err != nil {
		return nil, err
	}
	io, err := inspectHF(model)
	if err != nil {
		return nil, err
	}
	if io.seqLen > 0 && io.seqLen < tok.maxLen {
		if io.seqLen <= len(tok.prefix)+len(tok.suffix) {
			return nil, fmt.Errorf("model.onnx: fixed sequence length %d leaves no room for text", io.seqLen)
		}
		tok.maxLen = io.seqLen
	}
	m, err := ort.OpenModel(model, io.inputs, io.output, ort.Options{Threads: opt.Threads})
	if err != nil {
		return nil, fmt.Errorf("model.onnx: %w", err)
	}
	b := &hfBackend{tok: tok, io: io, pooling: v.Pooling, d: io.dim, model: m}
	if b.d == 0 {
		vecs, err := b.run([][]int32{tok.ids("", Passage)}, 0)
		if err != nil {
			b.close()
			return nil, fmt.Errorf("model.onnx: probing the embedding width: %w", err)
		}
		b.d = len(vecs[0])
	}
	return b, nil
}

func (b *hfBackend) tokens(text string, r Role) []int32 { return b.tok.ids(text, r) }

func (b *hfBackend) dim() int { return b.d }

func (b *hfBackend) count(text string) int { return len(b.tok.tok.AppendIDs(nil, text)) }

// window is what is left of the maximum length after the special tokens
// and the passage prefix.
func (b *hfBackend) window() int {
	t := b.tok
	return max(1, t.maxLen-len(t.prefix)-len(t.suffix)-b.count(t.textPrefix[Passage]))
}

func (b *hfBackend) close() error { return b.model.Close() }

// embed runs seqs through the model. With an attention mask they share one
// run, padded to the longest; a model without one sees only sequences of
// equal length together, so padding never changes a result.
func (b *hfBackend) embed(seqs [][]int32, r Role) ([][]float32, error) {
	vocabSize := int32(b.tok.tok.Size())
	for i, s := range seqs {
		if len(s) == 0 {
			return nil, fmt.Errorf("sequence %d has no tokens", i)
		}
		if len(s) > b.tok.maxLen {
			return nil, fmt.Errorf("sequence %d has %d tokens, the model reads at most %d", i, len(s), b.tok.maxLen)
		}
		for _, id := range s {
			if id < 0 || id >= vocabSize {
				return nil, fmt.Errorf("sequence %d: token id %d outside the vocabulary", i, id)
			}
		}
	}
	skip := b.tok.skip[r]
	if b.io.mask || b.io.seqLen > 0 {
		return b.run(seqs, skip) // without a mask, a fixed length pads anyway
	}
	out := make([][]float32, len(seqs))
	groups := map[int][]int{}
	var lens []int
	for i, s := range seqs {
		if _, ok := groups[len(s)]; !ok {
			lens = append(lens, len(s))
		}
		groups[len(s)] = append(groups[len(s)], i)
	}
	for _, l := range lens {
		idx := groups[l]
		part := make([][]int32, len(idx))
		for j, i := range idx {
			part[j] = seqs[i]
		}
		vecs, err := b.run(part, skip)
		if err != nil {
			return nil, err
		}
		for j, i := range idx {
			out[i] = vecs[j]
		}
	}
	return out, nil
}

// run embeds seqs (non-empty, at most maxLen ids each) in one model run;
// mean and max pooling leave out each sequence's first skip tokens (its
// prefix), unless that would leave none.
func (b *hfBackend) run(seqs [][]int32, skip int) ([][]float32, error) {
	n, width := len(seqs), b.io.seqLen
	if width == 0 {
		for _, s := range seqs {
			width = max(width, len(s))
		}
	}
	ids := make([]int64, n*width)
	mask := make([]int64, n*width)
	for i, s := range seqs {
		row := ids[i*width : (i+1)*width]
		for p := range row {
			if p < len(s) {
				row[p] = int64(s[p])
				mask[i*width+p] = 1
			} else {
				row[p] = int64(b.tok.pad)
			}
		}
	}
	shape := []int64{int64(n), int64(width)}
	inputs := make([]ort.Input, len(b.io.inputs))
	for k, name := range b.io.inputs {
		var data []int64
		switch name {
		case hfInputIDs:
			data = ids
		case hfAttentionMask:
			data = mask
		default:
			data = make([]int64, n*width) // token_type_ids: one segment
		}
		inputs[k] = ort.Input{Shape: shape, Data: data, Int32: b.io.int32[k]}
	}
	got, data, err := b.model.Run(inputs)
	if err != nil {
		return nil, err
	}
	var hidden int
	if b.io.pooled {
		if len(got) != 2 || got[0] != int64(n) || got[1] <= 0 {
			return nil, fmt.Errorf("output %s has shape %v, want [%d, hidden]", b.io.output, got, n)
		}
		hidden = int(got[1])
	} else {
		if len(got) != 3 || got[0] != int64(n) || got[1] != int64(width) || got[2] <= 0 {
			return nil, fmt.Errorf("output %s has shape %v, want [%d, %d, hidden]", b.io.output, got, n, width)
		}
		hidden = int(got[2])
	}
	out := make([][]float32, n)
	flat := make([]float32, n*hidden)
	for i, s := range seqs {
		v := flat[i*hidden : (i+1)*hidden : (i+1)*hidden]
		switch {
		case b.io.pooled:
			copy(v, data[i*hidden:(i+1)*hidden])
		case b.pooling == PoolingCLS:
			copy(v, data[i*width*hidden:][:hidden])
		case b.pooling == PoolingMax:
			from := min(skip, len(s)-1)
			copy(v, data[(i*width+from)*hidden:][:hidden])
			for p := from + 1; p < len(s); p++ {
				for j, x := range data[(i*width+p)*hidden:][:hidden] {
					v[j] = max(v[j], x)
				}
			}
		default:
			from := min(skip, len(s)-1)
			sum := make([]float64, hidden)
			for p := from; p < len(s); p++ {
				for j, x := range data[(i*width+p)*hidden:][:hidden] {
					sum[j] += float64(x)
				}
			}
			for j := range v {
				v[j] = float32(sum[j] / float64(len(s)-from))
			}
		}
		normalize(v)
		out[i] = v
	}
	return out, nil
}

// normalize scales v to unit length in place; a zero vector stays zero.
func normalize(v []float32) {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 || math.IsNaN(ss) || math.IsInf(ss, 0) {
		return
	}
	inv := 1 / math.Sqrt(ss)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
}
