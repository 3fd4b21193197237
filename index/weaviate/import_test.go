package weaviate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// synthSentences returns n small sentences with 2-d vectors.
func synthSentences(n int) func(i int) (Sentence, error) {
	return func(i int) (Sentence, error) {
		return Sentence{
			ID: i, Text: fmt.Sprintf("Sentence %d.", i), Context: "A context.", Title: "T", Source: "s.txt",
			Headings: []string{"H1", "H2"},
			Tokens:   []string{"sentence", fmt.Sprint(i), ".", "a", "context", "."},
			Vector:   []float32{float32(i), 1},
		}, nil
	}
}

func spec(n, batch int) ImportSpec {
	return ImportSpec{Collection: "Squad", ModelHash: "model-1", Dim: 2, Count: n, BatchSize: batch, Settle: time.Nanosecond}
}

func TestImportWritesSchemaObjectsAndManifest(t *testing.T) {
	f, c := newFake(t)
	var progress []int
	s := spec(10, 3)
	s.Layout = Layout{Replicas: 3, Shards: 2}
	s.Progress = func(done, total int) {
		if total != 10 {
			t.Errorf("progress total %d", total)
		}
		progress = append(progress, done)
	}
	if err := c.Import(context.Background(), s, synthSentences(10)); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(progress) != "[0 3 6 9 10]" {
		t.Errorf("progress %v", progress)
	}
	// The collection's schema: what reqa's scores depend on.
	var cl class
	if err := json.Unmarshal(f.classes["Squad"], &cl); err != nil {
		t.Fatal(err)
	}
	if err := compatible(sentenceClass("Squad", Layout{}), cl); err != nil {
		t.Error(err)
	}
	inv := cl.InvertedIndexConfig
	if cl.Vectorizer != "none" || cl.VectorIndexConfig["distance"] != "dot" || inv.BM25.K1 != 1.5 || inv.BM25.B != 0.75 ||
		inv.Stopwords.Preset != "none" || cl.ReplicationConfig.Factor != 3 || cl.ShardingConfig["desiredCount"] != 2.0 {
		t.Errorf("schema %s", f.classes["Squad"])
	}
	for _, p := range cl.Properties {
		if p.Name == PropTokens && (p.Tokenization != "whitespace" || !*p.IndexSearchable) {
			t.Errorf("tokens property %+v", p)
		}
	}
	// Objects under deterministic ids, tokens joined by spaces.
	if len(f.objects["Squad"]) != 10 {
		t.Fatalf("%d objects", len(f.objects["Squad"]))
	}
	o := f.objects["Squad"][ObjectID("Squad", 7)]
	if o[PropTokens] != "sentence 7 . a context ." || o[PropID] != 7.0 || o[PropSentence] != "Sentence 7." ||
		fmt.Sprint(o[PropHeadings]) != "[H1 H2]" || o[PropSource] != "s.txt" {
		t.Errorf("object 7: %v", o)
	}
	var batch struct {
		Objects []struct {
			Vector []float32 `json:"vector"`
		} `json:"objects"`
	}
	batches := f.requests(http.MethodPost, "/v1/batch/objects")
	if err := json.Unmarshal(batches[1].Body, &batch); err != nil || len(batch.Objects) != 3 || fmt.Sprint(batch.Objects[0].Vector) != "[0 1]" {
		t.Errorf("first sentence batch %s", batches[1].Body)
	}
	m, ok := f.manifest("Squad")
	if !ok || m["complete"] != true || m["imported"] != 10.0 || m["sentences"] != 10.0 || m["modelHash"] != "model-1" {
		t.Errorf("manifest %v", m)
	}
	// Re-importing a complete collection sends nothing.
	before := len(f.requests(http.MethodPost, "/v1/batch/objects"))
	if err := c.Import(context.Background(), spec(10, 3), synthSentences(10)); err != nil {
		t.Fatal(err)
	}
	if after := len(f.requests(http.MethodPost, "/v1/batch/objects")); after != before {
		t.Errorf("re-import of a complete collection sent %d batches", after-before)
	}
	// Restart overwrites the same ids: still 10 objects.
	s.Restart = true
	if err := c.Import(context.Background(), s, synthSentences(10)); err != nil || len(f.objects["Squad"]) != 10 {
		t.Fatalf("restart: %v, %d objects", err, len(f.objects["Squad"]))
	}
}

func TestImportFailureNeverLooksComplete(t *testing.T) {
	f, c := newFake(t)
	batches := 0
	f.fail = func(r fakeRequest) (int, string) {
		if r.Path == "/v1/batch/objects" && strings.Contains(string(r.Body), `"class":"Squad"`) {
			batches++
			if batches == 11 {
				return 400, "injected refusal"
			}
		}
		return 0, ""
	}
	err := c.Import(context.Background(), spec(20, 1), synthSentences(20))
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 400 {
		t.Fatalf("import: %v, want HTTP 400", err)
	}
	m, _ := f.manifest("Squad")
	if m["complete"] != false || m["imported"] != 8.0 {
		t.Fatalf("manifest after a failed import: %v", m)
	}
	if _, err := c.Open(context.Background(), "Squad", "model-1"); !errors.Is(err, ErrIncomplete) {
		t.Fatalf("Open: %v, want ErrIncomplete", err)
	}
	// Resume: starts at the watermark (8), not at 0.
	f.order = nil
	if err := c.Import(context.Background(), spec(20, 1), synthSentences(20)); err != nil {
		t.Fatal(err)
	}
	if len(f.order) != 12 || f.order[0] != ObjectID("Squad", 8) {
		t.Errorf("resumed import sent %d objects, first %s", len(f.order), f.order[0])
	}
	if _, err := c.Open(context.Background(), "Squad", "model-1"); err != nil {
		t.Fatal(err)
	}
}

func TestImportCancel(t *testing.T) {
	f, c := newFake(t)
	ctx, cancel := context.WithCancel(context.Background())
	s := spec(100, 10)
	s.Progress = func(done, total int) {
		if done >= 30 {
			cancel()
		}
	}
	if err := c.Import(ctx, s, synthSentences(100)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if m, _ := f.manifest("Squad"); m["complete"] != false {
		t.Fatalf("manifest after cancel: %v", m)
	}
}

func TestImportRetriesRefusedObjects(t *testing.T) {
	f, c := newFake(t)
	refused := map[string]bool{}
	f.objectError = func(id string) string {
		if id == ObjectID("Squad", 3) && !refused[id] {
			refused[id] = true
			return "shard not ready"
		}
		return ""
	}
	if err := c.Import(context.Background(), spec(5, 5), synthSentences(5)); err != nil {
		t.Fatal(err)
	}
	if len(f.objects["Squad"]) != 5 {
		t.Fatalf("%d objects", len(f.objects["Squad"]))
	}
	// An object refused every time fails the import, naming the error.
	f2, c2 := newFake(t)
	f2.objectError = func(id string) string {
		if id == ObjectID("Squad", 2) {
			return "vector lengths don't match"
		}
		return ""
	}
	err := c2.Import(context.Background(), spec(5, 5), synthSentences(5))
	if err == nil || !strings.Contains(err.Error(), "vector lengths don't match") {
		t.Fatalf("err = %v", err)
	}
}

func TestImportRefusals(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		setup func(*fakeServer, *Client)
		spec  ImportSpec
		at    func(int) (Sentence, error)
		want  error
	}{
		{"other model", func(f *fakeServer, c *Client) { c.Import(ctx, spec(3, 2), synthSentences(3)) },
			ImportSpec{Collection: "Squad", ModelHash: "model-2", Dim: 2, Count: 3}, synthSentences(3), ErrOtherModel},
		{"other count", func(f *fakeServer, c *Client) { c.Import(ctx, spec(3, 2), synthSentences(3)) },
			spec(4, 2), synthSentences(4), ErrSchema},
		{"foreign collection", func(f *fakeServer, c *Client) { f.classes["Squad"] = json.RawMessage(`{"class":"Squad"}`) },
			spec(3, 2), synthSentences(3), ErrSchema},
		{"existing collection with stop words", func(f *fakeServer, c *Client) {
			c.putManifest(ctx, Manifest{Collection: "Squad", ModelHash: "model-1", Sentences: 3, Dim: 2, Format: FormatVersion})
			cl := sentenceClass("Squad", Layout{})
			cl.InvertedIndexConfig.Stopwords.Preset = "en"
			b, _ := json.Marshal(cl)
			f.classes["Squad"] = b
		}, spec(3, 2), synthSentences(3), ErrSchema},
		{"lost object", func(f *fakeServer, c *Client) { f.countDelta = -1 }, spec(3, 2), synthSentences(3), ErrIncomplete},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, c := newFake(t)
			if err := c.ensureClass(ctx, metaClass(Layout{})); err != nil {
				t.Fatal(err)
			}
			tc.setup(f, c)
			// Check, before any work, refuses what Import would (a lost
			// object shows only while writing), and writes nothing.
			before := len(f.requests(http.MethodPost, "/v1/batch/objects")) + len(f.requests(http.MethodPost, "/v1/schema"))
			if err := c.Check(ctx, tc.spec); tc.name != "lost object" && !errors.Is(err, tc.want) {
				t.Errorf("Check: err = %v, want %v", err, tc.want)
			} else if tc.name == "lost object" && err != nil {
				t.Errorf("Check: %v", err)
			}
			if after := len(f.requests(http.MethodPost, "/v1/batch/objects")) + len(f.requests(http.MethodPost, "/v1/schema")); after != before {
				t.Errorf("Check wrote %d times", after-before)
			}
			if err := c.Import(ctx, tc.spec, tc.at); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestImportBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*Sentence)
		want string
	}{
		{"short vector", func(s *Sentence) { s.Vector = s.Vector[:1] }, "sentence 1: vector of dimension 1, want 2"},
		{"space in token", func(s *Sentence) { s.Tokens[0] = "a b" }, `sentence 1: token "a b"`},
		{"empty token", func(s *Sentence) { s.Tokens[0] = "" }, `sentence 1: token ""`},
		{"nbsp in token", func(s *Sentence) { s.Tokens[0] = "a\u00a0b" }, `sentence 1: token`},
		{"ideographic space", func(s *Sentence) { s.Tokens[0] = "a\u3000b" }, `sentence 1: token`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, c := newFake(t)
			at := func(i int) (Sentence, error) {
				s, _ := synthSentences(3)(i)
				if i == 1 {
					tc.mod(&s)
				}
				return s, nil
			}
			err := c.Import(context.Background(), spec(3, 3), at)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if m, _ := f.manifest("Squad"); m["complete"] != false {
				t.Errorf("manifest %v", m)
			}
		})
	}
	_, c := newFake(t)
	for _, s := range []ImportSpec{
		{Collection: "squad", ModelHash: "h", Dim: 2},
		{Collection: MetaCollection, ModelHash: "h", Dim: 2},
		{Collection: "Squad", Dim: 2},
		{Collection: "Squad", ModelHash: "h"},
	} {
		if err := c.Import(context.Background(), s, synthSentences(1)); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
	readErr := errors.New("disk gone")
	err := c.Import(context.Background(), spec(3, 3), func(int) (Sentence, error) { return Sentence{}, readErr })
	if !errors.Is(err, readErr) {
		t.Errorf("source error: %v", err)
	}
}

func TestDrop(t *testing.T) {
	f, c := newFake(t)
	ctx := context.Background()
	if err := c.Drop(ctx, "Squad"); err != nil {
		t.Fatalf("drop of a missing collection: %v", err)
	}
	if err := c.Import(ctx, spec(3, 2), synthSentences(3)); err != nil {
		t.Fatal(err)
	}
	if err := c.Drop(ctx, "Squad"); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.manifest("Squad"); ok {
		t.Error("manifest left behind")
	}
	if _, err := c.Open(ctx, "Squad", "model-1"); !errors.Is(err, ErrNoCollection) {
		t.Fatalf("Open after Drop: %v", err)
	}
	// Now another model may import.
	s := spec(3, 2)
	s.ModelHash = "model-2"
	if err := c.Import(ctx, s, synthSentences(3)); err != nil {
		t.Fatal(err)
	}
}

func TestObjectID(t *testing.T) {
	// RFC 9562 / Python's uuid.uuid5(uuid.NAMESPACE_DNS, "python.org").
	if got := format(uuid5(mustUUID("6ba7b810-9dad-11d1-80b4-00c04fd430c8"), "python.org")); got != "886313e1-3b8a-5372-9b90-0c9aee199e5d" {
		t.Errorf("uuid5 = %s", got)
	}
	a, b := ObjectID("Squad", 1), ObjectID("Squad", 2)
	if a == b || a != ObjectID("Squad", 1) || a == ObjectID("Other", 1) || a == manifestID("Squad") {
		t.Error("object ids not distinct and deterministic")
	}
}
