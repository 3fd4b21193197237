package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reqa/reqa/index/encoder/bertgen"
	"github.com/reqa/reqa/index/encoder/onnxmodel"
	"github.com/reqa/reqa/index/encoder/ort"
	"github.com/reqa/reqa/index/encoder/ortlib"
	"github.com/reqa/reqa/index/tokenize/wordpiece"
)

// The sentence encoders users bring, as the libraries that export them lay
// them out, on a structurally real BERT graph (package bertgen): each
// convention is indexed with `reqa index --model DIR`, asked with `reqa
// ask` and evaluated with `reqa eval`, and every score must equal what the
// test computes itself by running the same ONNX graph through ONNX Runtime
// on ids it builds by hand ([CLS], the WordPiece ids of prefix + text,
// [SEP]) and pooling as the convention says. Random weights make rankings
// meaningless; what is tested is that every convention reaches the vectors
// (prefixes on the right side, pooling, token types, int8).

// modelConvention is one layout of a model directory and the flags given.
type modelConvention struct {
	name    string
	variant bertgen.Variant
	layout  bertgen.Layout
	flags   []string
	// What the reference applies: pooling ("cls", "mean", "max";
	// ignored for a sentence_embedding output), the prefixes, whether
	// pooling skips the prefix, and int8.
	pooling        string
	query, passage string
	skipPrefix     bool
	int8           bool
}

const bgeInstruction = "Represent this sentence for searching relevant passages: "

// baseConventions are the conventions run on the BERT-base-size graph:
// every pooling (CLS, mean, max, sentence_embedding), every prefix source
// (prompts file, flags, bge's instruction, prompt left out of pooling),
// token types present and absent, and int8, combined so that each run of
// the 440 MB graph (index, ask, eval: about a minute on a shared 2-core
// machine) covers several.
var baseConventions = []modelConvention{
	{name: "cls pooling, token types, onnx/ folder, bge instruction", variant: bertgen.Variant{TokenTypes: true},
		layout:  bertgen.Layout{ONNXPath: "onnx/model.onnx", Pooling: "cls", Normalize: true, MaxSeqLength: 512, ModelMaxLength: 512, Config: true},
		flags:   []string{"--query-prefix", bgeInstruction},
		pooling: "cls", query: bgeInstruction},
	{name: "mean pooling, no token types, e5 prompts", variant: bertgen.Variant{},
		layout:  bertgen.Layout{Pooling: "mean", Normalize: true, MaxSeqLength: 512, Prompts: map[string]string{"query": "query: ", "passage": "passage: "}, Config: true},
		pooling: "mean", query: "query: ", passage: "passage: "},
	{name: "max pooling, e5 flags, prompt excluded", variant: bertgen.Variant{TokenTypes: true},
		layout:  bertgen.Layout{Pooling: "max", ExcludePrompt: true},
		flags:   []string{"--query-prefix", "query: ", "--passage-prefix", "passage: "},
		pooling: "max", query: "query: ", passage: "passage: ", skipPrefix: true},
	{name: "sentence_embedding output", variant: bertgen.Variant{TokenTypes: true, SentenceEmbedding: true},
		layout:  bertgen.Layout{Pooling: "mean", Normalize: true, Config: true},
		pooling: "sentence"},
	{name: "int8, mean pooling, e5 prompts", variant: bertgen.Variant{},
		layout:  bertgen.Layout{Pooling: "mean", Normalize: true, Prompts: map[string]string{"query": "query: ", "passage": "passage: "}, Config: true},
		flags:   []string{"--precision", "int8"},
		pooling: "mean", query: "query: ", passage: "passage: ", int8: true},
}

// modelConventions are the conventions run on the BERT-tiny-shaped graph.
var modelConventions = []modelConvention{
	{name: "cls pooling, token types, normalize, onnx/ folder", variant: bertgen.Variant{TokenTypes: true},
		layout:  bertgen.Layout{ONNXPath: "onnx/model.onnx", Pooling: "cls", Normalize: true, MaxSeqLength: 128, ModelMaxLength: 512, Config: true},
		pooling: "cls"},
	{name: "mean pooling, no token types, no normalize", variant: bertgen.Variant{},
		layout:  bertgen.Layout{Pooling: "mean", MaxSeqLength: 256, Similarity: "cosine"},
		pooling: "mean"},
	{name: "max pooling", variant: bertgen.Variant{TokenTypes: true},
		layout:  bertgen.Layout{Pooling: "max", Normalize: true},
		pooling: "max"},
	{name: "sentence_embedding output", variant: bertgen.Variant{TokenTypes: true, SentenceEmbedding: true},
		layout:  bertgen.Layout{Pooling: "mean", Normalize: true, Config: true},
		pooling: "sentence"},
	{name: "e5 prompts", variant: bertgen.Variant{TokenTypes: true},
		layout:  bertgen.Layout{Pooling: "mean", Normalize: true, Prompts: map[string]string{"query": "query: ", "passage": "passage: "}, Config: true},
		pooling: "mean", query: "query: ", passage: "passage: "},
	{name: "e5 flags", variant: bertgen.Variant{},
		layout:  bertgen.Layout{Pooling: "mean", Normalize: true},
		flags:   []string{"--query-prefix", "query: ", "--passage-prefix", "passage: "},
		pooling: "mean", query: "query: ", passage: "passage: "},
	{name: "bge instruction", variant: bertgen.Variant{TokenTypes: true},
		layout:  bertgen.Layout{Pooling: "cls", Normalize: true, MaxSeqLength: 512, Config: true},
		flags:   []string{"--query-prefix", bgeInstruction},
		pooling: "cls", query: bgeInstruction},
	{name: "prompt excluded from pooling", variant: bertgen.Variant{TokenTypes: true},
		layout:  bertgen.Layout{Pooling: "mean", ExcludePrompt: true, Normalize: true, Prompts: map[string]string{"query": "query: ", "document": "passage: "}},
		pooling: "mean", query: "query: ", passage: "passage: ", skipPrefix: true},
	{name: "int8 bge", variant: bertgen.Variant{TokenTypes: true},
		layout:  bertgen.Layout{Pooling: "cls", Normalize: true, Config: true},
		flags:   []string{"--precision", "int8", "--query-prefix", bgeInstruction},
		pooling: "cls", query: bgeInstruction, int8: true},
	{name: "int8 mean", variant: bertgen.Variant{},
		layout:  bertgen.Layout{Pooling: "mean", Normalize: true, Prompts: map[string]string{"query": "query: ", "passage": "passage: "}},
		flags:   []string{"--precision", "int8"},
		pooling: "mean", query: "query: ", passage: "passage: ", int8: true},
}

// bertTokenizerJSON returns the pinned BERT-uncased tokenizer.json.
func bertTokenizerJSON(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "index", "tokenize", "wordpiece", "assets", "tokenizer.json"))
	if err != nil {
		skipUnlessCI(t, "the BERT-uncased tokenizer.json is not fetched (make assets): %v", err)
	}
	return b
}

// modelCache makes each generated graph once per test binary. The graphs
// are files under os.TempDir(), kept across runs (a BERT-base one is 440
// MB and takes a while to write) and keyed by bertgen.Version.
var modelCache sync.Map

// bertModelFile returns the path of the ONNX graph of size and v.
func bertModelFile(t *testing.T, size string, c bertgen.Config, v bertgen.Variant) string {
	t.Helper()
	key := fmt.Sprintf("%s-types%v-sentence%v", size, v.TokenTypes, v.SentenceEmbedding)
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("reqa-bertgen-v%d", bertgen.Version))
	path := filepath.Join(dir, key+".onnx")
	once, _ := modelCache.LoadOrStore(path, new(sync.Once))
	var err error
	once.(*sync.Once).Do(func() {
		if _, e := os.Stat(path); e == nil {
			return
		}
		start := time.Now()
		var b []byte
		if b, err = bertgen.Model(c, v); err != nil {
			return
		}
		if err = os.MkdirAll(dir, 0o755); err != nil {
			return
		}
		tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
		if err = os.WriteFile(tmp, b, 0o644); err == nil {
			err = os.Rename(tmp, path)
		}
		t.Logf("generated %s (%.0f MB, %d weights) in %.1fs", path, float64(len(b))/1e6, c.Params(), time.Since(start).Seconds())
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, e := os.Stat(path); e != nil {
		t.Fatalf("model %s: %v", path, e)
	}
	return path
}

// modelDir writes the convention's directory with a link to the graph.
func modelDir(t *testing.T, size string, c bertgen.Config, mc modelConvention) (dir, modelFile string) {
	t.Helper()
	modelFile = bertModelFile(t, size, c, mc.variant)
	dir = filepath.Join(t.TempDir(), "my-encoder")
	if err := bertgen.WriteDir(dir, c, nil, bertTokenizerJSON(t), mc.layout); err != nil {
		t.Fatal(err)
	}
	place := mc.layout.ONNXPath
	if place == "" {
		place = "model.onnx"
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, place)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modelFile, filepath.Join(dir, place)); err != nil {
		t.Fatal(err)
	}
	return dir, modelFile
}

// refEncoder embeds texts as the convention says, independently of
// package encoder: ids by hand, ONNX Runtime directly, pooling here.
type refEncoder struct {
	mc     modelConvention
	m      *ort.Model
	inputs []string
	tok    *wordpiece.Tokenizer
}

func newRefEncoder(t *testing.T, model []byte, mc modelConvention) *refEncoder {
	t.Helper()
	if _, err := ortlib.Load(ort.Init); err != nil {
		t.Fatal(err)
	}
	tok, err := wordpiece.New()
	if err != nil {
		t.Fatal(err)
	}
	inputs := []string{bertgen.InputIDs, bertgen.AttentionMask}
	if mc.variant.TokenTypes {
		inputs = append(inputs, bertgen.TokenTypeIDs)
	}
	out := bertgen.LastHiddenState
	if mc.variant.SentenceEmbedding {
		out = bertgen.SentenceEmbedding
	}
	m, err := ort.OpenModel(model, inputs, out, ort.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return &refEncoder{mc: mc, m: m, inputs: inputs, tok: tok}
}

// embed returns the unit vector of text behind prefix.
func (r *refEncoder) embed(t *testing.T, prefix, text string) []float64 {
	t.Helper()
	ids := []int64{101}
	for _, w := range r.tok.Tokenize(prefix + text) {
		id, ok := r.tok.ID(w)
		if !ok {
			t.Fatalf("token %q has no id", w)
		}
		ids = append(ids, int64(id))
	}
	ids = append(ids, 102)
	n := len(ids)
	ones, zeros := make([]int64, n), make([]int64, n)
	for i := range ones {
		ones[i] = 1
	}
	shape := []int64{1, int64(n)}
	in := []ort.Input{{Shape: shape, Data: ids}, {Shape: shape, Data: ones}}
	if len(r.inputs) == 3 {
		in = append(in, ort.Input{Shape: shape, Data: zeros})
	}
	gotShape, data, err := r.m.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	h := int(gotShape[len(gotShape)-1])
	v := make([]float64, h)
	from := 0
	if r.mc.skipPrefix && prefix != "" {
		from = 1 + len(r.tok.Tokenize(prefix))
	}
	switch {
	case r.mc.variant.SentenceEmbedding:
		for j := range v {
			v[j] = float64(data[j])
		}
	case r.mc.pooling == "cls":
		for j := range v {
			v[j] = float64(data[j])
		}
	case r.mc.pooling == "max":
		for j := range v {
			v[j] = math.Inf(-1)
			for p := from; p < n; p++ {
				v[j] = math.Max(v[j], float64(data[p*h+j]))
			}
		}
	default:
		for j := range v {
			for p := from; p < n; p++ {
				v[j] += float64(data[p*h+j]) / float64(n-from)
			}
		}
	}
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	for j := range v {
		v[j] /= math.Sqrt(ss)
	}
	return v
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// modelDataset is the tiny ReQA dataset the tests index and evaluate.
type modelDataset struct {
	dir        string
	candidates map[string]string // id → sentence
	questions  []struct{ text, gold string }
}

func readModelDataset(t *testing.T) modelDataset {
	t.Helper()
	ds := modelDataset{dir: filepath.Join("..", "..", "ingest", "testdata", "dataset"), candidates: map[string]string{}}
	for _, f := range []string{"candidates.jsonl", "questions.jsonl"} {
		b, err := os.ReadFile(filepath.Join(ds.dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var r struct {
				CandidateID string   `json:"candidate_id"`
				Text        string   `json:"text"`
				Question    string   `json:"question"`
				Gold        []string `json:"gold_candidate_ids"`
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatal(err)
			}
			if r.CandidateID != "" {
				ds.candidates[r.CandidateID] = r.Text
			} else {
				ds.questions = append(ds.questions, struct{ text, gold string }{r.Question, r.Gold[0]})
			}
		}
	}
	return ds
}

// TestModelConventions runs index, ask and eval on every convention with a
// BERT-tiny-shaped graph (2 layers, hidden 128; always) and a BERT-base
// one (12 layers, hidden 768, 12 heads, intermediate 3072, 440 MB of
// weights; not under -short, and generated once into os.TempDir()).
func TestModelConventions(t *testing.T) {
	requireDense(t)
	ds := readModelDataset(t)
	sizes := []struct {
		name        string
		c           bertgen.Config
		conventions []modelConvention
	}{{"tiny", bertgen.Tiny(), modelConventions}, {"base", bertgen.Base(), baseConventions}}
	for _, size := range sizes {
		t.Run(size.name, func(t *testing.T) {
			if size.name == "base" && testing.Short() {
				// May skip in CI: -short leaves out the 440 MB BERT-base runs; the tiny graph covers every convention.
				t.Skip("-short: BERT-base-size runs left out")
			}
			for _, mc := range size.conventions {
				t.Run(mc.name, func(t *testing.T) { testModelConvention(t, ds, size.name, size.c, mc) })
			}
		})
	}
}

// scoreTolerance bounds the difference between a dense score of reqa and
// the reference's (float32 runs, pooled in float64 here).
const scoreTolerance = 1e-5

func testModelConvention(t *testing.T, ds modelDataset, size string, c bertgen.Config, mc modelConvention) {
	dir, modelFile := modelDir(t, size, c, mc)
	idx := filepath.Join(t.TempDir(), "m.reqa")
	start := time.Now()
	args := append(append([]string{"index", "-q", "--out", idx, "--model", dir}, mc.flags...), ds.dir)
	if code, _, errs := reqa(t, args...); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	t.Logf("index: %.1fs", time.Since(start).Seconds())
	if code, out, errs := reqa(t, "stats", idx); code != 0 || !strings.Contains(out, "my-encoder (hf, ") {
		t.Fatalf("stats: exit %d: %s %s", code, out, errs)
	} else if mc.int8 != strings.Contains(out, "hf, int8,") {
		t.Errorf("stats does not say int8 = %v:\n%s", mc.int8, out)
	}

	model, err := os.ReadFile(modelFile)
	if err != nil {
		t.Fatal(err)
	}
	var fp32 *refEncoder
	if mc.int8 {
		fp32 = newRefEncoder(t, model, mc)
		if model, _, err = onnxmodel.QuantizeONNX(model); err != nil {
			t.Fatal(err)
		}
	}
	ref := newRefEncoder(t, model, mc)
	sent := map[string][]float64{}
	minCos := 1.0
	for id, text := range ds.candidates {
		sent[id] = ref.embed(t, mc.passage, text)
		if fp32 != nil {
			minCos = math.Min(minCos, dot(sent[id], fp32.embed(t, mc.passage, text)))
		}
	}
	if fp32 != nil {
		t.Logf("int8: smallest cosine to fp32 %.5f", minCos)
		if minCos < 0.99 {
			t.Errorf("int8: cosine %.4f to fp32", minCos)
		}
	}
	byText := map[string]string{}
	for id, text := range ds.candidates {
		byText[text] = id
	}

	// ask: every candidate's dense score is the reference's cosine.
	var mrr, worst, prefixEffect float64
	questions := ds.questions
	if size == "base" {
		questions = questions[:1] // each ask loads the 440 MB model again; eval asks them all
	}
	for _, q := range questions {
		qv := ref.embed(t, mc.query, q.text)
		code, out, errs := reqa(t, "ask", "--index", idx, "-r", "dense", "--exact", "--no-context", "--json", "--k", "10", q.text)
		if code != 0 {
			t.Fatalf("ask: exit %d: %s", code, errs)
		}
		var got struct {
			Answers []struct {
				Sentence string
				Score    float64
			}
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Answers) != len(ds.candidates) {
			t.Fatalf("ask: %d answers, want %d", len(got.Answers), len(ds.candidates))
		}
		for rank, a := range got.Answers {
			id := byText[a.Sentence]
			want := dot(qv, sent[id])
			if math.Abs(a.Score-want) > scoreTolerance {
				t.Errorf("%q × %s: score %.7f, reference %.7f", q.text, id, a.Score, want)
			}
			worst = math.Max(worst, math.Abs(a.Score-want))
			if id == q.gold {
				mrr += 1 / float64(rank+1)
			}
			if mc.query != "" || mc.passage != "" {
				bare := dot(ref.embed(t, "", q.text), ref.embed(t, "", ds.candidates[id]))
				prefixEffect = math.Max(prefixEffect, math.Abs(bare-want))
			}
		}
	}
	t.Logf("largest score difference to the reference %.2g; the prefixes move a score by up to %.2g", worst, prefixEffect)
	if (mc.query != "" || mc.passage != "") && prefixEffect < 10*scoreTolerance {
		t.Errorf("the prefixes move no score by more than %.2g: the test cannot tell them from none", prefixEffect)
	}
	mrr *= 100 / float64(len(questions))

	// eval: the dense row's MRR is the reference ranking's.
	rep := evalJSON(t, "--index", idx, "--no-context", "-r", "dense", ds.dir)
	res := resultsByRanker(rep)
	d, ok := res["dense"]
	if !ok {
		t.Fatalf("eval: no dense row: %+v", rep)
	}
	if size == "base" {
		// MRR over every question needs the other questions' scores.
		mrr = 0
		for _, q := range ds.questions {
			qv := ref.embed(t, mc.query, q.text)
			rank := 1
			for id := range ds.candidates {
				if id != q.gold && dot(qv, sent[id]) > dot(qv, sent[q.gold]) {
					rank++
				}
			}
			mrr += 100 / float64(rank) / float64(len(ds.questions))
		}
	}
	if math.Abs(d.MRR-mrr) > 1e-6 {
		t.Errorf("eval MRR %.4f, reference ranking %.4f", d.MRR, mrr)
	}
}

// TestModelFlags: the prefix flags need --model, and --model's precision
// must be fp32 or int8; --append keeps the index's model and prefixes.
func TestModelFlags(t *testing.T) {
	requireDense(t)
	dir := t.TempDir()
	in := writeFile(t, dir, "notes.txt", "The ferry leaves at nine.\n")
	mdir, _ := modelDir(t, "tiny", bertgen.Tiny(), modelConventions[1])
	idx := filepath.Join(dir, "x.reqa")
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"--query-prefix", "query: "}, 2, "--query-prefix needs --model"},
		{[]string{"--passage-prefix", "passage: "}, 2, "--passage-prefix needs --model"},
		{[]string{"--model", mdir, "--precision", "fp16"}, 2, `--precision "fp16"`},
		{[]string{"--model", mdir, "--precision", "fp32", "--query-prefix", "query: "}, 0, ""},
	} {
		code, _, errs := reqa(t, append(append([]string{"index", "-q", "--out", idx}, tc.args...), in)...)
		if code != tc.code || !strings.Contains(errs, tc.err) {
			t.Errorf("index %v: exit %d, want %d with %q: %s", tc.args, code, tc.code, tc.err, errs)
		}
	}
	if code, _, errs := reqa(t, "index", "-q", "--append", "--out", idx, "--query-prefix", "x", in); code != 2 || !strings.Contains(errs, "cannot be changed") {
		t.Errorf("append with a prefix: exit %d: %s", code, errs)
	}
	if code, _, errs := reqa(t, "index", "-q", "--append", "--out", idx, in); code != 0 {
		t.Errorf("append: exit %d: %s", code, errs)
	}
	// A directory that is not a model names what is missing.
	if code, _, errs := reqa(t, "index", "-q", "--out", idx, "--model", dir, in); code != 1 || !strings.Contains(errs, "missing model.onnx") {
		t.Errorf("not a model: exit %d: %s", code, errs)
	}
}
