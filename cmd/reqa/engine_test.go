package main

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/index/encoder"
	"github.com/reqa/reqa/index/encoder/uselite"
	"github.com/reqa/reqa/index/sentence"
	"github.com/reqa/reqa/index/weaviate"
	"github.com/reqa/reqa/index/weaviate/weaviatetest"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/rank/eval"
	"github.com/reqa/reqa/store"
)

// askJSON runs `reqa ask --json` and returns its answers.
func askJSON(t *testing.T, args ...string) []rank.Answer {
	t.Helper()
	code, out, errs := reqa(t, append([]string{"ask", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("ask %q: exit %d: %s", args, code, errs)
	}
	var got struct {
		Answers []rank.Answer `json:"answers"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("ask %q: %v\n%s", args, err, out)
	}
	return got.Answers
}

// closeTo reports whether a and b agree to a relative 1e-5 (the engine
// keeps scores in float32).
func closeTo(a, b float64) bool {
	return math.Abs(a-b) <= 1e-5*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// TestEngineWeaviate is the single-node integration test of `reqa index
// --engine`: one Weaviate node on loopback (make weaviate-server builds
// it; under CI=true a missing server fails the test). The oracle is the
// embedded index of the same corpus scored as the engine scores BM25
// (Lucene, k1 = 1.5): on a corpus this small every fusion pool holds
// every candidate and every statistic is exact, so ask through the engine
// must give the embedded answers, in order, with the same scores, for
// every ranker an engine index serves.
func TestEngineWeaviate(t *testing.T) {
	requireDense(t)
	nd := weaviatetest.Start(t, weaviatetest.Binary(t, "../.."))
	dir := t.TempDir()
	host := strings.TrimPrefix(nd.Addr(), "http://")
	eng, loc := filepath.Join(dir, "eng.reqa"), filepath.Join(dir, "loc.reqa")
	if code, _, errs := reqa(t, "index", "-q", "--engine", "weaviate://"+host+"/Demo", "--out", eng, "democorpus"); code != 0 {
		t.Fatalf("index --engine: exit %d: %s", code, errs)
	}
	if code, _, errs := reqa(t, "index", "-q", "--bm25", "lucene", "--k1", "1.5", "--out", loc, "democorpus"); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	if fe, fl := fileSize(t, eng), fileSize(t, loc); fe >= fl {
		t.Errorf("engine index file %d bytes, not smaller than the embedded index's %d", fe, fl)
	}
	questions := []string{"how do I build an index", "what happens when a build is interrupted?",
		"which file holds the index", "how are answers ranked", "zzqx qqzx",
		// Definition questions: the default puts a defining sentence first
		// on both backends.
		"What is the wpm tokenizer?", "what is reqa?"}
	for _, r := range []string{"bm25-wpm", "bm25-word", "dense", "default", "fusion-rrf"} {
		for _, q := range questions {
			want := askJSON(t, "--index", loc, "-r", r, "-k", "5", q)
			got := askJSON(t, "--index", eng, "-r", r, "-k", "5", q)
			if len(got) != len(want) {
				t.Errorf("%s %q: %d answers through the engine, %d embedded", r, q, len(got), len(want))
				continue
			}
			for i := range want {
				g, w := got[i], want[i]
				if g.SentenceID != w.SentenceID || !closeTo(g.Score, w.Score) || g.Sentence != w.Sentence ||
					g.Context != w.Context || g.Start != w.Start || g.End != w.End || g.Source != w.Source || g.Kind != w.Kind {
					t.Errorf("%s %q answer %d: engine %d %.6f %q (%s), embedded %d %.6f %q (%s)", r, q, i+1,
						g.SentenceID, g.Score, g.Sentence, g.Source, w.SentenceID, w.Score, w.Sentence, w.Source)
				}
				for name, ws := range w.Scores {
					if !closeTo(g.Scores[name], ws) {
						t.Errorf("%s %q answer %d: input %s %.6f through the engine, %.6f embedded", r, q, i+1, name, g.Scores[name], ws)
					}
				}
			}
		}
	}
	t.Run("eval", func(t *testing.T) { testEngineEval(t, host, dir) })
	t.Run("errors", func(t *testing.T) { testEngineErrors(t, nd, eng, dir) })
	t.Run("partial import", func(t *testing.T) { testEnginePartial(t, host, dir) })
	t.Run("append", func(t *testing.T) { testEngineAppend(t, host, dir) })
}

// testEngineAppend adds a second file to an engine index with `reqa index
// --append`: it then answers as an embedded index built from both files at
// once (the collection's BM25 statistics and the merged vector moments
// cover both), and verifies clean. The second file's text is written in
// ways normalisation sees through (NFD, a soft hyphen, a ligature,
// full-width letters) and holds symbols WordPiece cannot spell: the
// engine gets reqa's normalised tokens, so it finds them as embedded
// does, and a question of only [UNK] gets no answer from either. The
// append asks for no way of making context vectors: it must keep the
// engine index's (the default, from the sentences), as the embedded build
// of both files has them.
func testEngineAppend(t *testing.T, host, dir string) {
	a := writeFile(t, dir, "a.md", "# Ferries\n\nWhen does the ferry return? The ferry leaves the harbour at nine. It returns at noon when the sea is calm.\n\n"+
		"Tickets are sold on board. Bicycles travel free of charge.\n")
	b := writeFile(t, dir, "b.md", "# Trains\n\nThe night train leaves at ten and reaches the coast at dawn. "+
		"Sleeping cars must be booked a week ahead.\n\nCan I bring my dog? Dogs travel in the luggage van.\n\n"+
		"The Cafe\u0301 du Port feeds the \ufb01rst crew. \u2604 \u265c mark the \uff34\uff29\uff2d\uff25\uff34\uff21\uff22\uff2c\uff25 by the co\u00adoperative.\n")
	eng, loc := filepath.Join(dir, "app-eng.reqa"), filepath.Join(dir, "app-loc.reqa")
	for _, args := range [][]string{
		{"index", "-q", "--engine", "weaviate://" + host + "/Travel", "--out", eng, a},
		{"index", "-q", "--append", "--out", eng, b},
		{"index", "-q", "--bm25", "lucene", "--k1", "1.5", "--out", loc, a, b},
	} {
		if code, _, errs := reqa(t, args...); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errs)
		}
	}
	unicode := map[string]string{
		"Café du Port":       "The Cafe\u0301 du Port feeds the \ufb01rst crew.",
		"Cafe\u0301 du Port": "The Cafe\u0301 du Port feeds the \ufb01rst crew.",
		"the TIMETABLE mark": "\u2604 \u265c mark the \uff34\uff29\uff2d\uff25\uff34\uff21\uff22\uff2c\uff25 by the co\u00adoperative.",
		"\u2603":             "",
	}
	for _, q := range []string{"when does the ferry return?", "when does the night train leave", "can I bring my dog", "are bicycles free",
		"Café du Port", "Cafe\u0301 du Port", "the TIMETABLE mark", "\u2603"} {
		for _, r := range []string{"bm25-wpm", "bm25-word", "bm25-stem", "dense", "default"} {
			want := askJSON(t, "--index", loc, "-r", r, "-k", "3", q)
			got := askJSON(t, "--index", eng, "-r", r, "-k", "3", q)
			if u, ok := unicode[q]; ok && r != "dense" {
				switch {
				case u == "" && len(got) > 0:
					t.Errorf("%s %q: answered %q through the engine, want no answer", r, q, got[0].Sentence)
				case u != "" && (len(got) == 0 || got[0].Sentence != u):
					t.Errorf("%s %q: answers %v through the engine, want %q first", r, q, got, u)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%s %q: %d answers after append, %d embedded", r, q, len(got), len(want))
			}
			// The questions of both files (the second's flags added by
			// the append) rank below every sentence that is not one.
			if r == "default" && len(got) > 0 && sentence.IsQuestion(got[0].Sentence) {
				t.Errorf("%q: the default answers with the question %q", q, got[0].Sentence)
			}
			for i := range want {
				if got[i].SentenceID != want[i].SentenceID || got[i].Sentence != want[i].Sentence || !closeTo(got[i].Score, want[i].Score) {
					t.Errorf("%s %q answer %d: %d %q %.6f after append, %d %q %.6f embedded", r, q, i+1,
						got[i].SentenceID, got[i].Sentence, got[i].Score, want[i].SentenceID, want[i].Sentence, want[i].Score)
				}
			}
		}
	}
	if code, _, errs := reqa(t, "verify", eng); code != 0 {
		t.Errorf("verify after append: exit %d: %s", code, errs)
	}
}

// testEngineEval evaluates a dataset through the engine and embedded:
// every ranker's metrics agree (bm25-stem's too, whose question-form words
// weigh half: sent to the engine as repeats).
func testEngineEval(t *testing.T, host, dir string) {
	eng, loc := filepath.Join(dir, "tiny-eng.reqa"), filepath.Join(dir, "tiny-loc.reqa")
	ds := "testdata/tinyreqa"
	if code, _, errs := reqa(t, "index", "-q", "--engine", "weaviate://"+host+"/Tiny", "--out", eng, ds); code != 0 {
		t.Fatalf("index --engine: exit %d: %s", code, errs)
	}
	if code, _, errs := reqa(t, "index", "-q", "--bm25", "lucene", "--k1", "1.5", "--out", loc, ds); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	metrics := func(index string) map[string][2]float64 {
		code, out, errs := reqa(t, "eval", "-q", "--json", "--index", index, "-r", "bm25-wpm", "-r", "bm25-stem", "-r", "dense", "-r", "default", ds)
		if code != 0 {
			t.Fatalf("eval %s: exit %d: %s", index, code, errs)
		}
		var rep struct {
			Results []eval.Result `json:"results"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("eval %s: %v\n%s", index, err, out)
		}
		m := map[string][2]float64{}
		for _, r := range rep.Results {
			m[r.Ranker] = [2]float64{r.PAt1, r.MRR}
		}
		return m
	}
	got, want := metrics(eng), metrics(loc)
	if len(want) != 4 {
		t.Fatalf("embedded eval reported %v", want)
	}
	for r, w := range want {
		if g, ok := got[r]; !ok || !closeTo(g[0], w[0]) || !closeTo(g[1], w[1]) {
			t.Errorf("%s: P@1/MRR %v through the engine, %v embedded", r, g, w)
		}
	}
}

// testEngineErrors checks the failures an engine index meets, each by its
// sentinel error, and that none damages the local file.
func testEngineErrors(t *testing.T, nd *weaviatetest.Node, eng, dir string) {
	before, err := os.ReadFile(eng)
	if err != nil {
		t.Fatal(err)
	}
	ask := func(index string) error {
		e, err := rank.Open(index)
		if err != nil {
			return err
		}
		defer e.Close()
		r, err := e.Ranker("")
		if err != nil {
			return err
		}
		_, err = e.Ask(context.Background(), r, "how do I build an index", 3)
		return err
	}
	if err := ask(eng); err != nil {
		t.Fatalf("healthy engine: %v", err)
	}
	// An engine file pointing elsewhere: another address, a missing
	// collection, an old server; or naming other vectors than the
	// collection holds.
	amended := func(name string, change func(m *store.Meta)) string {
		p := filepath.Join(dir, name+".reqa")
		if err := os.WriteFile(p, before, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := store.Amend(p, func(tx *store.WriteTx) error {
			m, err := tx.Meta()
			if err != nil {
				return err
			}
			change(&m)
			return tx.PutMeta(m)
		}); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"version": "1.2.0"}`))
	}))
	defer old.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := strings.TrimPrefix(closed.URL, "http://")
	closed.Close()
	host := strings.TrimPrefix(nd.Addr(), "http://")
	url := func(u string) func(m *store.Meta) { return func(m *store.Meta) { m.Engine.URL = u } }
	for _, tc := range []struct {
		name   string
		change func(m *store.Meta)
		want   error
	}{
		{"unreachable", url("weaviate://" + closedURL + "/Demo"), weaviate.ErrUnreachable},
		{"collection missing", url("weaviate://" + host + "/Nowhere"), weaviate.ErrNoCollection},
		{"version", url("weaviate://" + strings.TrimPrefix(old.URL, "http://") + "/Demo"), weaviate.ErrVersion},
		{"other model", func(m *store.Meta) { m.Dense.Lambda = 0.5 }, weaviate.ErrOtherModel},
	} {
		if err := ask(amended(strings.ReplaceAll(tc.name, " ", "-"), tc.change)); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	// A collection missing when asked and imported later: the same open
	// engine answers once it is there (a failure is not kept).
	later, err := rank.Open(amended("later", url("weaviate://"+host+"/Later")))
	if err != nil {
		t.Fatal(err)
	}
	defer later.Close()
	if _, err := later.Ranker(""); !errors.Is(err, weaviate.ErrNoCollection) {
		t.Errorf("before the import: %v, want ErrNoCollection", err)
	}
	if code, _, errs := reqa(t, "index", "-q", "--engine", "weaviate://"+host+"/Later", "--out", filepath.Join(dir, "later-built.reqa"), "democorpus"); code != 0 {
		t.Fatalf("index --engine: exit %d: %s", code, errs)
	}
	if r, err := later.Ranker(""); err != nil {
		t.Errorf("after the import: %v", err)
	} else if as, err := later.Ask(context.Background(), r, "which file holds the index", 1); err != nil || len(as) != 1 {
		t.Errorf("after the import: %d answers, %v", len(as), err)
	}
	target, corpus, opt := engineDemoImport(t, host, "Demo")
	opt.Lambda = 0.5
	if _, err := index.BuildEngine(context.Background(), corpus, eng, opt, index.EngineSpec{Target: target}); !errors.Is(err, weaviate.ErrOtherModel) {
		t.Errorf("import of other vectors: %v, want ErrOtherModel", err)
	}
	// Another model: importing the same collection with other vectors (λ)
	// is refused, and the index file already at --out is left alone.
	code, _, errs := reqa(t, "index", "-q", "--engine", "weaviate://"+host+"/Demo", "--lambda", "0.5", "--out", eng, "democorpus")
	if code != 1 || !strings.Contains(errs, "another model") {
		t.Errorf("import of other vectors: exit %d: %s", code, errs)
	}
	if after, _ := os.ReadFile(eng); string(after) != string(before) {
		t.Error("a refused import changed the index file at --out")
	}
	if err := ask(eng); err != nil {
		t.Errorf("after the refused import: %v", err)
	}
	// Flags that do not apply.
	for _, args := range [][]string{
		{"index", "--engine", "weaviate://" + host + "/Demo", "--append", "--out", eng, "democorpus"},
		{"index", "--engine", "weaviate://" + host + "/Demo", "--dense=false", "--out", eng, "democorpus"},
		{"index", "--engine", "http://" + host + "/Demo", "--out", eng, "democorpus"},
		{"index", "--engine", "weaviate://" + host + "/lowercase", "--out", eng, "democorpus"},
		{"index", "--shards", "2", "--out", eng, "democorpus"},
	} {
		if code, _, errs := reqa(t, args...); code != 2 {
			t.Errorf("%q: exit %d (%s), want a usage error", args, code, errs)
		}
	}
	if after, _ := os.ReadFile(eng); string(after) != string(before) {
		t.Error("a refused command changed the index file")
	}
}

// testEnginePartial cancels an import part way: the collection is
// incomplete (an index opened on it says so), nothing is written at --out,
// and a second run resumes and completes it.
func testEnginePartial(t *testing.T, host, dir string) {
	target, corpus, opt := engineDemoImport(t, host, "Partial")
	out := filepath.Join(dir, "partial.reqa")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opt.Progress = func(stage string, done, total int) {
		// Past the first watermark (8 batches of 2) but not done.
		if strings.HasPrefix(stage, "import") && done >= 18 && done < total {
			cancel()
		}
	}
	_, err := index.BuildEngine(ctx, corpus, out, opt, index.EngineSpec{Target: target, BatchSize: 2})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled import: %v", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a cancelled import left %s: %v", out, err)
	}
	c, err := weaviate.New(target.Addr)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := c.Manifest(context.Background(), "Partial")
	if err != nil || m.Complete || m.Imported == 0 || m.Imported >= m.Sentences {
		t.Fatalf("manifest after the cancelled import: %+v, %v", m, err)
	}
	if _, err := c.Open(context.Background(), "Partial", m.ModelHash); !errors.Is(err, weaviate.ErrIncomplete) {
		t.Errorf("opening the partial collection: %v, want ErrIncomplete", err)
	}
	var resumedFrom = -1
	opt.Progress = func(stage string, done, total int) {
		if strings.HasPrefix(stage, "import") && resumedFrom < 0 {
			resumedFrom = done
		}
	}
	if _, err := index.BuildEngine(context.Background(), corpus, out, opt, index.EngineSpec{Target: target, BatchSize: 2}); err != nil {
		t.Fatalf("resumed import: %v", err)
	}
	if resumedFrom != m.Imported {
		t.Errorf("the second run started at %d, want the watermark %d", resumedFrom, m.Imported)
	}
	if n, err := c.Count(context.Background(), "Partial"); err != nil || n != len(corpus.Sentences) {
		t.Errorf("collection holds %d objects (%v), want %d", n, err, len(corpus.Sentences))
	}
	if a := askJSON(t, "--index", out, "-k", "1", "how do I build an index"); len(a) != 1 {
		t.Errorf("resumed index answered %d", len(a))
	}
}

// engineDemoImport returns what an import of the demo corpus into the
// collection coll at host needs: the target, the corpus read as `reqa
// index` reads it, and the build options.
func engineDemoImport(t *testing.T, host, coll string) (weaviate.Target, *ingest.Corpus, index.Options) {
	t.Helper()
	target, err := weaviate.ParseTarget("weaviate://" + host + "/" + coll)
	if err != nil {
		t.Fatal(err)
	}
	corpus, err := ingest.ReadInputsContext(context.Background(), []string{"democorpus"}, ingest.ReadOptions{Dense: true})
	if err != nil {
		t.Fatal(err)
	}
	return target, corpus, engineTestOptions(t)
}

// engineTestOptions are the build options `reqa index` uses, with the
// embedded encoder.
func engineTestOptions(t *testing.T) index.Options {
	t.Helper()
	onnx, vocab, err := uselite.ModelPrecision(defaultPrecision)
	if err != nil {
		t.Fatal(err)
	}
	spec := encoder.Spec{Name: uselite.Name, Kind: encoder.KindUSELite, Dim: uselite.Dim, Precision: defaultPrecision}
	enc, err := encoder.New(spec, onnx, vocab, encoder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { enc.Close() })
	return index.Options{Encoder: enc, EncoderModel: onnx, EncoderVocab: vocab, Lambda: defaultLambda}
}
