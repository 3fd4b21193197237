package weaviate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
)

// Collection is an opened, completely imported reqa collection. It is safe
// for concurrent use.
type Collection struct {
	c        *Client
	name     string
	manifest Manifest
}

// Open checks the server version and that collection exists, was built by
// modelHash and was completely imported; errors wrap [ErrVersion],
// [ErrUnreachable], [ErrNoCollection], [ErrOtherModel] or [ErrIncomplete].
func (c *Client) Open(ctx context.Context, collection, modelHash string) (*Collection, error) {
	if err := CheckName(collection); err != nil {
		return nil, err
	}
	if _, err := c.Version(ctx); err != nil {
		return nil, err
	}
	if _, err := c.getClass(ctx, collection); err != nil {
		return nil, err
	}
	m, found, err := c.Manifest(ctx, collection)
	if err != nil {
		return nil, err
	}
	switch {
	case !found:
		return nil, fmt.Errorf("%w: collection %s has no reqa manifest", ErrIncomplete, collection)
	case m.ModelHash != modelHash:
		return nil, fmt.Errorf("%w: collection %s was built by model %s, the index names %s", ErrOtherModel, collection, m.ModelHash, modelHash)
	case m.Format != FormatVersion:
		return nil, fmt.Errorf("%w: collection %s is in format %d, reqa reads %d", ErrSchema, collection, m.Format, FormatVersion)
	case !m.Complete:
		return nil, fmt.Errorf("%w: collection %s: %d of %d sentences written, never finished (re-run the import)", ErrIncomplete, collection, m.Imported, m.Sentences)
	}
	return &Collection{c: c, name: collection, manifest: m}, nil
}

// Manifest returns the manifest read when the collection was opened.
func (col *Collection) Manifest() Manifest { return col.manifest }

// Hit is one result: a reqa sentence id and its score (BM25 score, or dot
// product for nearVector), best first.
type Hit struct {
	ID    int
	Score float64
}

// BM25 returns the k best sentences for the query's tokens (reqa's
// WordPiece tokens of the question) by BM25 over the token property.
// Tokens with white space in them are split there, as at import.
func (col *Collection) BM25(ctx context.Context, tokens []string, k int) ([]Hit, error) {
	return col.BM25In(ctx, "wpm", tokens, k, nil)
}

// BM25In is BM25 over the tokens of tokenizer (property TokenProp), among
// the sentences ids only when ids is not nil (then k ≥ len(ids) returns
// every one of them that matches a token).
func (col *Collection) BM25In(ctx context.Context, tokenizer string, tokens []string, k int, ids []int) ([]Hit, error) {
	if k <= 0 || len(tokens) == 0 || (ids != nil && len(ids) == 0) {
		return nil, nil
	}
	q, err := json.Marshal(strings.Join(tokens, " ")) // a JSON string is a valid GraphQL string
	if err != nil {
		return nil, err
	}
	args := fmt.Sprintf(`bm25: {query: %s, properties: [%q]}, limit: %d`, q, TokenProp(tokenizer), k) + where(ids)
	return col.get(ctx, args, "score")
}

// NearVector returns the k sentences whose vectors have the highest dot
// product with v (Weaviate's HNSW: approximate).
func (col *Collection) NearVector(ctx context.Context, v []float32, k int) ([]Hit, error) {
	return col.NearVectorIn(ctx, v, k, nil)
}

// NearVectorIn is NearVector among the sentences ids only, when ids is
// not nil: Weaviate then scores the allowed vectors exhaustively (below its
// flatSearchCutoff, 40,000 by default), so every one of them is returned
// with its exact dot product when k ≥ len(ids).
func (col *Collection) NearVectorIn(ctx context.Context, v []float32, k int, ids []int) ([]Hit, error) {
	if k <= 0 || (ids != nil && len(ids) == 0) {
		return nil, nil
	}
	if len(v) != col.manifest.Dim {
		return nil, fmt.Errorf("weaviate: query vector of dimension %d for collection %s of dimension %d", len(v), col.name, col.manifest.Dim)
	}
	var b strings.Builder
	b.WriteString("nearVector: {vector: [")
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("weaviate: query vector component %d is %v", i, x)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	}
	fmt.Fprintf(&b, "]}, limit: %d", k)
	b.WriteString(where(ids))
	return col.get(ctx, b.String(), "distance")
}

// where is the GraphQL filter keeping the sentences ids, or "" for nil.
func where(ids []int) string {
	if ids == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, `, where: {path: [%q], operator: ContainsAny, valueInt: [`, PropID)
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(id))
	}
	b.WriteString("]}")
	return b.String()
}

// Object is one stored sentence as Objects returns it.
type Object struct {
	ID       int
	Text     string
	Context  string
	Title    string
	Headings []string
	Source   string
	Ext      string
	Start    int
	End      int
	Kind     string
}

// Objects returns the stored sentences ids, in the order of ids; a missing
// one is an error wrapping [ErrIncomplete].
func (col *Collection) Objects(ctx context.Context, ids []int) ([]Object, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := fmt.Sprintf("limit: %d", len(ids)) + where(ids)
	if col.c.consistency != "" {
		args += ", consistencyLevel: " + col.c.consistency
	}
	query := fmt.Sprintf("{ Get { %s(%s) { %s %s %s %s %s %s %s %s %s %s } } }", col.name, args,
		PropID, PropSentence, PropContext, PropTitle, PropHeadings, PropSource, PropExt, PropStart, PropEnd, PropKind)
	var out struct {
		Get map[string][]struct {
			ID       *int64   `json:"sid"`
			Text     string   `json:"sentence"`
			Context  string   `json:"context"`
			Title    string   `json:"title"`
			Headings []string `json:"headings"`
			Source   string   `json:"source"`
			Ext      string   `json:"ext"`
			Start    int      `json:"start"`
			End      int      `json:"end"`
			Kind     string   `json:"kind"`
		} `json:"Get"`
	}
	if err := col.c.graphQL(ctx, query, &out); err != nil {
		return nil, fmt.Errorf("objects of %s: %w", col.name, err)
	}
	byID := map[int]Object{}
	for _, r := range out.Get[col.name] {
		if r.ID == nil {
			continue
		}
		byID[int(*r.ID)] = Object{ID: int(*r.ID), Text: r.Text, Context: r.Context, Title: r.Title, Headings: r.Headings,
			Source: r.Source, Ext: r.Ext, Start: r.Start, End: r.End, Kind: r.Kind}
	}
	objs := make([]Object, len(ids))
	for i, id := range ids {
		o, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("%w: collection %s has no sentence %d", ErrIncomplete, col.name, id)
		}
		objs[i] = o
	}
	return objs, nil
}

// get runs a Get query with the given arguments and reads the sentence
// ids with _additional.score (BM25) or _additional.distance (nearVector,
// turned into a dot product).
func (col *Collection) get(ctx context.Context, args, field string) ([]Hit, error) {
	if col.c.consistency != "" {
		args += ", consistencyLevel: " + col.c.consistency
	}
	query := fmt.Sprintf("{ Get { %s(%s) { %s _additional { %s } } } }", col.name, args, PropID, field)
	var out struct {
		Get map[string][]struct {
			ID         *int64 `json:"sid"`
			Additional struct {
				Score    *flexFloat `json:"score"`
				Distance *flexFloat `json:"distance"`
			} `json:"_additional"`
		} `json:"Get"`
	}
	if err := col.c.graphQL(ctx, query, &out); err != nil {
		return nil, fmt.Errorf("query %s: %w", col.name, err)
	}
	rows, ok := out.Get[col.name]
	if !ok {
		return nil, fmt.Errorf("query %s: %w (no result field)", col.name, ErrNoCollection)
	}
	hits := make([]Hit, 0, len(rows))
	for i, r := range rows {
		if r.ID == nil {
			return nil, fmt.Errorf("query %s: result %d has no %s", col.name, i, PropID)
		}
		h := Hit{ID: int(*r.ID)}
		switch {
		case field == "score" && r.Additional.Score != nil:
			h.Score = float64(*r.Additional.Score)
		case field == "distance" && r.Additional.Distance != nil:
			h.Score = -float64(*r.Additional.Distance)
		default:
			return nil, fmt.Errorf("query %s: result %d has no _additional.%s", col.name, i, field)
		}
		hits = append(hits, h)
	}
	return hits, nil
}

// flexFloat reads a number written as a JSON number or a string (Weaviate
// writes BM25 scores as strings).
type flexFloat float64

func (f *flexFloat) UnmarshalJSON(b []byte) error {
	s := string(b)
	if u, err := strconv.Unquote(s); err == nil {
		s = u
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("not a number: %s", b)
	}
	*f = flexFloat(v)
	return nil
}

// ErrGraphQL marks errors the GraphQL endpoint reports in its answer.
var ErrGraphQL = errors.New("weaviate: GraphQL error")

// graphQL posts a query to /v1/graphql and decodes its data into out.
func (c *Client) graphQL(ctx context.Context, query string, out any) error {
	var resp struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := c.do(ctx, http.MethodPost, "/v1/graphql", nil, map[string]string{"query": query}, &resp, nil); err != nil {
		return err
	}
	if len(resp.Errors) > 0 {
		ms := make([]string, len(resp.Errors))
		for i, e := range resp.Errors {
			ms[i] = e.Message
		}
		return fmt.Errorf("%w: %s", ErrGraphQL, strings.Join(ms, "; "))
	}
	if len(resp.Data) == 0 || string(resp.Data) == "null" {
		return fmt.Errorf("%w: answer without data", ErrGraphQL)
	}
	return json.Unmarshal(resp.Data, out)
}
