package rank

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/reqa/reqa/index/adapter"
	"github.com/reqa/reqa/internal/display"
	"github.com/reqa/reqa/rank/fuse"
	"github.com/reqa/reqa/store"
)

// Tuned is what `reqa fuse` and `reqa tune` learn for an index — fusion
// parameters and a question adapter — read from somewhere else, to be
// applied to another index (the transfer of learned parts to another
// domain: eval --params-from).
type Tuned struct {
	// Source is the file the parameters came from.
	Source string
	// Fusions are the fusion parameters, best first (the first is the
	// default ranker where they are applied).
	Fusions []fuse.Params
	// Adapter is the question adapter's encoded bytes (nil: none).
	Adapter []byte
}

// LoadTuned reads the tuned parameters of path: a reqa index (its stored
// fusions and question adapter) or a JSON file holding fusion parameters,
// either as an array (`reqa fuse --json`'s output) or as an object with a
// "fusions" array (`reqa eval --json`'s output). A JSON file carries no
// adapter.
func LoadTuned(path string) (*Tuned, error) {
	e, err := Open(path)
	if err == nil {
		defer e.Close()
		t := &Tuned{Source: path}
		if t.Fusions, err = e.StoredFusions(); err != nil {
			return nil, err
		}
		if e.r.HasBlob(store.BlobAdapter) {
			if t.Adapter, err = e.r.Blob(store.BlobAdapter); err != nil {
				return nil, fmt.Errorf("question adapter in %s: %w", path, err)
			}
		}
		if len(t.Fusions) == 0 && t.Adapter == nil {
			return nil, fmt.Errorf("%s: %w: the index holds neither fusion parameters nor a question adapter", path, ErrNoTunedParams)
		}
		return t, nil
	}
	if !errors.Is(err, store.ErrNotIndex) {
		return nil, err
	}
	raw, rerr := os.ReadFile(path)
	if rerr != nil {
		return nil, rerr
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '[' && raw[0] != '{') {
		return nil, fmt.Errorf("%s: neither a reqa index nor a JSON file of fusion parameters", path)
	}
	t := &Tuned{Source: path}
	if raw[0] == '[' {
		err = json.Unmarshal(raw, &t.Fusions)
	} else {
		var obj struct {
			Fusions []fuse.Params `json:"fusions"`
		}
		err = json.Unmarshal(raw, &obj)
		t.Fusions = obj.Fusions
	}
	if err != nil {
		return nil, fmt.Errorf("%s: fusion parameters: %w", path, jsonProblem(err))
	}
	if len(t.Fusions) == 0 {
		return nil, fmt.Errorf("%s: %w: no fusion parameters in it (want an array of fusion parameters, or an object with \"fusions\")", path, ErrNoTunedParams)
	}
	for i, p := range t.Fusions {
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("%s: fusion %d (%s): %w", path, i+1, p.Name, err)
		}
		if _, err := ParseSpec(p.Name); err != nil || p.Name != "fusion-"+p.Method {
			return nil, fmt.Errorf("%s: fusion %d: name %q does not match method %q", path, i+1, p.Name, p.Method)
		}
	}
	return t, nil
}

// UseTuned makes the engine answer with t's fusions and question adapter
// instead of its own (none of its own is used, so what is measured is the
// transfer alone): Default, FusionParams, Available and Resolve see t. An
// adapter trained for another encoder is refused here. Call it before the
// engine answers anything.
func (e *Index) UseTuned(t *Tuned) error {
	if e.r.Meta().Dense == nil {
		return fmt.Errorf("%s: tuned parameters need an index with embeddings (the dense ranker)", e.r.Path())
	}
	if t.Adapter != nil {
		m := e.r.Meta().Dense
		if _, err := adapter.Load(t.Adapter, m.Hash, m.Dim); err != nil {
			return fmt.Errorf("question adapter of %s on index %s: %w", t.Source, e.r.Path(), err)
		}
	}
	e.tuned = t
	return nil
}

// jsonProblem describes a JSON decoding error in the terms of the file —
// fields, JSON types, byte offsets — not of the Go types it was decoded
// into.
func jsonProblem(err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "(top level)"
		}
		return fmt.Errorf("field %s holds a JSON %s where %s is expected (byte %d)", field, te.Value, display.JSONKind(te.Type), te.Offset)
	case errors.As(err, &se):
		return fmt.Errorf("malformed JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	}
	return errors.New(strings.TrimPrefix(err.Error(), "json: "))
}
