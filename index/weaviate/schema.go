package weaviate

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Property names of a reqa collection.
const (
	PropID       = "sid"      // reqa's sentence id (int)
	PropSentence = "sentence" // the candidate sentence
	PropContext  = "context"  // its context (paragraph or passage)
	PropTitle    = "title"    // the document's title
	PropHeadings = "headings" // the heading path (text[])
	PropSource   = "source"   // where the sentence came from (file, URL)
	PropTokens   = "tokens"   // reqa's WordPiece tokens of sentence + context, space-separated
	PropExt      = "ext"      // the candidate's id in its dataset, if any (filterable)
	PropStart    = "start"    // the sentence's byte offsets in its context
	PropEnd      = "end"
	PropKind     = "kind" // the document block the sentence comes from, if any
)

// TokenProp names the property holding a tokenizer's tokens of sentence +
// context: PropTokens for reqa's WordPiece ("wpm"), "tokens_NAME" for the
// others an import adds ([ImportSpec.Tokenizers]).
func TokenProp(tokenizer string) string {
	if tokenizer == "wpm" || tokenizer == "" {
		return PropTokens
	}
	return PropTokens + "_" + tokenizer
}

// BM25 parameters set on every collection (reqa's k1 and b).
const (
	BM25K1 = 1.5
	BM25B  = 0.75
)

// MetaCollection holds one [Manifest] object per reqa collection.
const MetaCollection = "ReqaMeta"

// FormatVersion is the layout of the collection and the manifest this
// package writes; a manifest with another is refused ([ErrSchema]).
// Format 2 added the ext, start, end and kind properties and the token
// properties of further tokenizers.
const FormatVersion = 2

var classNameRE = regexp.MustCompile(`^[A-Z][_0-9A-Za-z]{0,200}$`)

// CheckName reports whether name can be a collection name (Weaviate's
// GraphQL class names: a capital letter, then letters, digits or '_').
func CheckName(name string) error {
	if !classNameRE.MatchString(name) {
		return fmt.Errorf("weaviate: collection name %q: want a capital letter followed by letters, digits or '_'", name)
	}
	if name == MetaCollection {
		return fmt.Errorf("weaviate: collection name %q is reserved for reqa's manifests", name)
	}
	return nil
}

// Layout is how a collection is spread over a cluster.
type Layout struct {
	Replicas int // replication factor (0: server default, 1)
	Shards   int // shards (0: server default, one per node)
	// AsyncReplication turns on Weaviate's background repair between
	// replicas, so a node that was down catches up without being read.
	AsyncReplication bool
}

type replication struct {
	Factor       int  `json:"factor"`
	AsyncEnabled bool `json:"asyncEnabled,omitempty"`
}

type property struct {
	Name            string   `json:"name"`
	DataType        []string `json:"dataType"`
	Tokenization    string   `json:"tokenization,omitempty"`
	IndexFilterable *bool    `json:"indexFilterable,omitempty"`
	IndexSearchable *bool    `json:"indexSearchable,omitempty"`
}

type class struct {
	Class               string         `json:"class"`
	Description         string         `json:"description,omitempty"`
	Vectorizer          string         `json:"vectorizer,omitempty"`
	VectorIndexType     string         `json:"vectorIndexType,omitempty"`
	VectorIndexConfig   map[string]any `json:"vectorIndexConfig,omitempty"`
	InvertedIndexConfig *invertedIndex `json:"invertedIndexConfig,omitempty"`
	ReplicationConfig   *replication   `json:"replicationConfig,omitempty"`
	ShardingConfig      map[string]any `json:"shardingConfig,omitempty"`
	Properties          []property     `json:"properties"`
}

type invertedIndex struct {
	BM25 *struct {
		K1 float64 `json:"k1"`
		B  float64 `json:"b"`
	} `json:"bm25,omitempty"`
	Stopwords *struct {
		Preset    string   `json:"preset"`
		Additions []string `json:"additions"`
		Removals  []string `json:"removals"`
	} `json:"stopwords,omitempty"`
}

func ptr[T any](v T) *T { return &v }

func text(name string, searchable, filterable bool) property {
	return property{Name: name, DataType: []string{"text"}, Tokenization: "word",
		IndexSearchable: ptr(searchable), IndexFilterable: ptr(filterable)}
}

func withLayout(c *class, l Layout) {
	if l.Replicas > 0 {
		c.ReplicationConfig = &replication{Factor: l.Replicas, AsyncEnabled: l.AsyncReplication}
	}
	if l.Shards > 0 {
		c.ShardingConfig = map[string]any{"desiredCount": l.Shards}
	}
}

// sentenceClass is the schema of a reqa collection.
func sentenceClass(name string, l Layout, tokenizers ...string) class {
	c := class{
		Class:             name,
		Description:       "reqa candidate sentences (index/weaviate format " + strconv.Itoa(FormatVersion) + ")",
		Vectorizer:        "none",
		VectorIndexType:   "hnsw",
		VectorIndexConfig: map[string]any{"distance": "dot"},
		InvertedIndexConfig: &invertedIndex{
			BM25: &struct {
				K1 float64 `json:"k1"`
				B  float64 `json:"b"`
			}{BM25K1, BM25B},
			Stopwords: &struct {
				Preset    string   `json:"preset"`
				Additions []string `json:"additions"`
				Removals  []string `json:"removals"`
			}{Preset: "none"},
		},
		Properties: []property{
			{Name: PropID, DataType: []string{"int"}, IndexFilterable: ptr(true)},
			text(PropSentence, false, false),
			text(PropContext, false, false),
			text(PropTitle, false, false),
			{Name: PropHeadings, DataType: []string{"text[]"}, Tokenization: "word", IndexSearchable: ptr(false), IndexFilterable: ptr(false)},
			{Name: PropSource, DataType: []string{"text"}, Tokenization: "field", IndexSearchable: ptr(false), IndexFilterable: ptr(true)},
			{Name: PropTokens, DataType: []string{"text"}, Tokenization: "whitespace", IndexSearchable: ptr(true), IndexFilterable: ptr(false)},
			{Name: PropExt, DataType: []string{"text"}, Tokenization: "field", IndexSearchable: ptr(false), IndexFilterable: ptr(true)},
			{Name: PropStart, DataType: []string{"int"}, IndexFilterable: ptr(false)},
			{Name: PropEnd, DataType: []string{"int"}, IndexFilterable: ptr(false)},
			text(PropKind, false, false),
		},
	}
	for _, t := range tokenizers {
		if p := TokenProp(t); p != PropTokens {
			c.Properties = append(c.Properties, property{Name: p, DataType: []string{"text"}, Tokenization: "whitespace",
				IndexSearchable: ptr(true), IndexFilterable: ptr(false)})
		}
	}
	withLayout(&c, l)
	return c
}

// metaClass is the schema of the manifest collection.
func metaClass(l Layout) class {
	c := class{
		Class:             MetaCollection,
		Description:       "reqa import manifests: one object per reqa collection",
		Vectorizer:        "none",
		VectorIndexConfig: map[string]any{"skip": true},
		Properties: []property{
			{Name: "collection", DataType: []string{"text"}, Tokenization: "field", IndexFilterable: ptr(true), IndexSearchable: ptr(false)},
			{Name: "modelHash", DataType: []string{"text"}, Tokenization: "field", IndexFilterable: ptr(false), IndexSearchable: ptr(false)},
			{Name: "sentences", DataType: []string{"int"}, IndexFilterable: ptr(false)},
			{Name: "dim", DataType: []string{"int"}, IndexFilterable: ptr(false)},
			{Name: "imported", DataType: []string{"int"}, IndexFilterable: ptr(false)},
			{Name: "complete", DataType: []string{"boolean"}, IndexFilterable: ptr(false)},
			{Name: "format", DataType: []string{"int"}, IndexFilterable: ptr(false)},
		},
	}
	withLayout(&c, l)
	return c
}

// getClass returns the collection's schema, or an error wrapping
// [ErrNoCollection].
func (c *Client) getClass(ctx context.Context, name string) (*class, error) {
	var cl class
	if err := c.do(ctx, http.MethodGet, "/v1/schema/"+url.PathEscape(name), nil, nil, &cl, ErrNoCollection); err != nil {
		return nil, fmt.Errorf("collection %s: %w", name, err)
	}
	return &cl, nil
}

// ensureClass creates the collection if it is missing; an existing one must
// match want in what reqa's scores depend on (else [ErrSchema]).
func (c *Client) ensureClass(ctx context.Context, want class) error {
	got, err := c.getClass(ctx, want.Class)
	if errors.Is(err, ErrNoCollection) {
		if err := c.do(ctx, http.MethodPost, "/v1/schema", nil, want, nil, nil); err != nil {
			// Another importer may have created it meanwhile: check again.
			if got, err2 := c.getClass(ctx, want.Class); err2 == nil {
				return compatible(want, *got)
			}
			return fmt.Errorf("create collection %s: %w", want.Class, err)
		}
		return nil
	}
	if err != nil {
		return err
	}
	return compatible(want, *got)
}

// compatible checks an existing collection against the schema reqa wants.
func compatible(want, got class) error {
	bad := func(what string, g, w any) error {
		return fmt.Errorf("%w: collection %s: %s is %v, reqa wants %v", ErrSchema, want.Class, what, g, w)
	}
	if want.InvertedIndexConfig != nil {
		wi, gi := want.InvertedIndexConfig, got.InvertedIndexConfig
		if gi == nil || gi.BM25 == nil || gi.Stopwords == nil {
			return bad("invertedIndexConfig", "unset", "bm25 and stopwords")
		}
		if gi.BM25.K1 != wi.BM25.K1 || gi.BM25.B != wi.BM25.B {
			return bad("bm25", fmt.Sprintf("k1=%g b=%g", gi.BM25.K1, gi.BM25.B), fmt.Sprintf("k1=%g b=%g", wi.BM25.K1, wi.BM25.B))
		}
		if gi.Stopwords.Preset != wi.Stopwords.Preset || len(gi.Stopwords.Additions) > 0 {
			return bad("stopwords preset", gi.Stopwords.Preset, wi.Stopwords.Preset)
		}
	}
	if want.Vectorizer != "" && got.Vectorizer != want.Vectorizer {
		return bad("vectorizer", got.Vectorizer, want.Vectorizer)
	}
	if d, ok := want.VectorIndexConfig["distance"]; ok && got.VectorIndexConfig["distance"] != d {
		return bad("vector distance", got.VectorIndexConfig["distance"], d)
	}
	have := map[string]property{}
	for _, p := range got.Properties {
		have[p.Name] = p
	}
	for _, w := range want.Properties {
		g, ok := have[w.Name]
		if !ok {
			return bad("property "+w.Name, "missing", w.DataType)
		}
		if len(g.DataType) != 1 || g.DataType[0] != w.DataType[0] {
			return bad("property "+w.Name+" type", g.DataType, w.DataType)
		}
		if strings.HasPrefix(w.Name, PropTokens) && g.Tokenization != w.Tokenization {
			return bad("property "+w.Name+" tokenization", g.Tokenization, w.Tokenization)
		}
	}
	return nil
}

// Drop deletes the collection and its manifest. The manifest is first
// marked incomplete, so an interrupted Drop leaves nothing that looks
// usable. Dropping a missing collection is not an error.
func (c *Client) Drop(ctx context.Context, name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	m, found, err := c.Manifest(ctx, name)
	if err != nil {
		return err
	}
	if found && m.Complete {
		m.Complete = false
		if err := c.putManifest(ctx, m); err != nil {
			return err
		}
	}
	if err := c.do(ctx, http.MethodDelete, "/v1/schema/"+url.PathEscape(name), nil, nil, nil, ErrNoCollection); err != nil && !errors.Is(err, ErrNoCollection) {
		return fmt.Errorf("drop collection %s: %w", name, err)
	}
	if err := c.do(ctx, http.MethodDelete, "/v1/objects/"+MetaCollection+"/"+manifestID(name), nil, nil, nil, ErrNoCollection); err != nil && !errors.Is(err, ErrNoCollection) {
		return fmt.Errorf("drop manifest of %s: %w", name, err)
	}
	return nil
}

// --- deterministic ids --------------------------------------------------------

// namespace is the UUID v5 namespace of reqa's objects: UUIDv5(URL
// namespace, "https://github.com/reqa/reqa/index/weaviate").
var namespace = uuid5(mustUUID("6ba7b811-9dad-11d1-80b4-00c04fd430c8"), "https://github.com/reqa/reqa/index/weaviate")

// ObjectID returns the object id of reqa sentence id in collection:
// UUID v5 of namespace and "collection/id".
func ObjectID(collection string, id int) string {
	return format(uuid5(namespace, collection+"/"+strconv.Itoa(id)))
}

func manifestID(collection string) string {
	return format(uuid5(namespace, "manifest/"+collection))
}

// uuid5 is RFC 9562's name-based UUID (SHA-1).
func uuid5(ns [16]byte, name string) [16]byte {
	h := sha1.New()
	h.Write(ns[:])
	h.Write([]byte(name))
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	return u
}

func mustUUID(s string) [16]byte {
	var u [16]byte
	j := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '-' {
			continue
		}
		v, err := strconv.ParseUint(s[i:i+2], 16, 8)
		if err != nil {
			panic(err)
		}
		u[j] = byte(v)
		j++
		i++
	}
	return u
}

func format(u [16]byte) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, 36)
	for i, x := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hex[x>>4], hex[x&15])
	}
	return string(b)
}

// Tokens returns reqa tokens as a token property holds them and a BM25
// query sends them: white space inside a token (Weaviate's "whitespace"
// tokenization would split there) becomes '_', and empty tokens are
// dropped. Imports and queries both go through it, so they agree.
func Tokens(t []string) []string {
	out := t[:0]
	for _, x := range t {
		if strings.ContainsFunc(x, unicode.IsSpace) {
			x = strings.Map(func(r rune) rune {
				if unicode.IsSpace(r) {
					return '_'
				}
				return r
			}, x)
		}
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}
