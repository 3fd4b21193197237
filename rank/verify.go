package rank

import (
	"fmt"

	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/store"
)

// VerifyReport is what [Verify] checked and found.
type VerifyReport struct {
	store.CheckReport
	// Postings is the number of postings lists decoded.
	Postings int `json:"postings_lists"`
	// Parts lists what was checked beyond the records: BM25 fields,
	// embeddings, graph, model, adapter, fusion parameters.
	Parts []string `json:"parts"`
}

// OK reports whether nothing damaged was found.
func (r VerifyReport) OK() bool { return len(r.Problems) == 0 }

// Verify checks the whole index at path: every record's checksum and
// every field digest (store.Reader.Check), then what those records hold —
// every postings list decodes within its field's documents, every BM25
// field opens (document lengths, layout), and with embeddings the model
// matches its hash and loads, the vectors cover every sentence and
// context, the ANN graph loads over them, and the question adapter and
// fusion parameters load. Problems are reported in the report, each
// naming its part; the error is for an index that cannot be opened at all.
func Verify(path string) (VerifyReport, error) {
	e, err := Open(path)
	if err != nil {
		return VerifyReport{}, err
	}
	defer e.Close()
	rep := VerifyReport{CheckReport: e.r.Check()}
	problem := func(err error) {
		if len(rep.Problems) < store.MaxProblems {
			rep.Problems = append(rep.Problems, err)
		}
	}
	m := e.Meta()
	for _, f := range m.Fields {
		maxDoc := uint32(f.Docs)
		if f.Layout == bm25.ContextLayout {
			maxDoc = uint32(m.Contexts)
		}
		err := e.r.ForEachPostings(f.Name, func(term string, enc []byte) error {
			if _, err := bm25.DecodePostings(enc, maxDoc); err != nil {
				problem(fmt.Errorf("field %s postings of %q: %w: %w", f.Name, term, store.ErrCorrupt, err))
			}
			rep.Postings++
			return nil
		})
		if err != nil {
			problem(err)
		}
		if _, err := e.Ranker("bm25-"+f.Tokenizer, f.WithContext); err != nil {
			problem(err)
		}
		rep.Parts = append(rep.Parts, "field "+f.Name)
	}
	if d := m.Dense; d != nil {
		if _, err := e.DenseRanker(true, DenseOptions{ANN: d.Graph}); err != nil {
			problem(err)
		} else {
			rep.Parts = append(rep.Parts, "model", "vectors")
			if d.Graph {
				rep.Parts = append(rep.Parts, "ANN graph")
			}
			if e.r.HasBlob(BlobAdapter) {
				rep.Parts = append(rep.Parts, "question adapter")
			}
		}
	}
	if e.r.HasBlob(BlobFusion) {
		if _, err := e.StoredFusions(); err != nil {
			problem(err)
		} else {
			rep.Parts = append(rep.Parts, "fusion parameters")
		}
	}
	return rep, nil
}
