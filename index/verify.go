package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/reqa/reqa/index/adapter"
	"github.com/reqa/reqa/index/ann"
	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/index/dense"
	"github.com/reqa/reqa/index/encoder"
	"github.com/reqa/reqa/index/sentence"
	"github.com/reqa/reqa/store"
)

// VerifyOptions are what Verify is told of the blobs upper layers own.
type VerifyOptions struct {
	// Fusions, when set, decodes and checks the fusion parameters (blob
	// store.BlobFusion); an error is reported as damage.
	Fusions func(raw []byte) error
}

// verifyFusions checks the fusion parameters with opt.Fusions.
func verifyFusions(r *store.Reader, problem func(error), opt VerifyOptions) []string {
	if !r.HasBlob(store.BlobFusion) || opt.Fusions == nil {
		return nil
	}
	raw, err := r.Blob(store.BlobFusion)
	if err == nil {
		err = opt.Fusions(raw)
	}
	if err != nil {
		problem(err)
		return nil
	}
	return []string{"fusion parameters"}
}

// VerifyReport is what [Verify] checked and found.
type VerifyReport struct {
	store.CheckReport
	// Postings is the number of postings lists decoded.
	Postings int `json:"postings_lists"`
	// Parts lists what was checked beyond the records: BM25 fields,
	// model, vectors, graph, question adapter, fusion parameters.
	Parts []string `json:"parts"`
}

// OK reports whether nothing damaged was found.
func (r VerifyReport) OK() bool { return len(r.Problems) == 0 }

// Verify checks the whole index at path: every record's checksum and
// every field digest (store.Reader.Check), then what those records hold —
// every sentence lies inside its context, every postings list decodes
// within its field's documents, every BM25
// field opens (document lengths, layout), and with embeddings the model
// and vocabulary match their hash, the vectors cover every sentence and
// context, the ANN graph loads over them and the question adapter loads;
// the fusion parameters load, and no blob has a name reqa does not write
// (a damaged name would hide an adapter or fusion parameters). Nothing
// needs ONNX Runtime. Each problem names its part and wraps
// store.ErrCorrupt; the error is for a file that cannot be opened as an
// index at all.
func Verify(path string, opt VerifyOptions) (VerifyReport, error) {
	cr, err := store.CheckFile(path)
	if err != nil {
		return VerifyReport{}, err
	}
	rep := VerifyReport{CheckReport: cr}
	if !rep.OK() && cr.Records == 0 {
		// The pages themselves are damaged: nothing more can be read
		// safely.
		return rep, nil
	}
	seen := map[string]bool{}
	for _, p := range rep.Problems {
		seen[p.Error()] = true
	}
	problem := func(err error) {
		// The same damage met again through another path is reported once.
		if err == nil || seen[err.Error()] || len(rep.Problems) >= store.MaxProblems {
			return
		}
		seen[err.Error()] = true
		if !errors.Is(err, store.ErrCorrupt) {
			err = fmt.Errorf("%w: %w", err, store.ErrCorrupt)
		}
		rep.Problems = append(rep.Problems, err)
	}
	r, err := store.Open(path)
	if err != nil {
		problem(err)
		return rep, nil
	}
	defer r.Close()
	m := r.Meta()
	if m.Engine != nil {
		rep.Parts = append(rep.Parts, verifyEngineFile(r, problem, opt)...)
		return rep, nil
	}
	sentences, err := r.Sentences()
	if err == nil && len(sentences) != m.Sentences {
		err = fmt.Errorf("%d sentences stored, meta says %d: %w", len(sentences), m.Sentences, store.ErrCorrupt)
	}
	if err != nil {
		problem(fmt.Errorf("open index %s: %w", path, err)) // e.g. a sentence record that does not decode
		return rep, nil
	}
	ctxOf := make([]uint32, len(sentences))
	for i, s := range sentences {
		ctxOf[i] = s.ContextID
	}
	// Every sentence lies inside its context (records with valid checksums
	// can still disagree, e.g. resealed by hand).
	if ctxs, err := r.Contexts(); err != nil {
		problem(err)
	} else {
		bad := 0
		for _, s := range sentences {
			if int(s.ContextID) >= len(ctxs) || s.Start < 0 || s.Start > s.End || s.End > len(ctxs[s.ContextID].Text) {
				if bad++; bad <= 10 {
					problem(fmt.Errorf("sentence %d: offsets [%d,%d) outside context %d: %w", s.ID, s.Start, s.End, s.ContextID, store.ErrCorrupt))
				}
			}
		}
		if bad > 10 {
			problem(fmt.Errorf("%d sentences in all lie outside their contexts: %w", bad, store.ErrCorrupt))
		}
		rep.Parts = append(rep.Parts, "sentence offsets")
	}
	if m.ContextOf {
		if err := verifyContextOf(r, ctxOf); err != nil {
			problem(err)
		} else {
			rep.Parts = append(rep.Parts, "context ids")
		}
	}
	cs := bm25.NewContexts(ctxOf) // the fields' shared sentence lists
	for _, f := range m.Fields {
		maxDoc := uint32(f.Docs)
		if f.Layout == bm25.ContextLayout {
			maxDoc = uint32(m.Contexts)
		}
		err := r.ScanPostings(f.Name, func(term string, enc []byte) error {
			if _, err := bm25.DecodePostings(enc, maxDoc); err != nil {
				problem(fmt.Errorf("field %s postings of %q: %w: %w", f.Name, term, store.ErrCorrupt, err))
			}
			rep.Postings++
			return nil
		})
		problem(err)
		if _, err := FieldTokenizer(f); err != nil {
			problem(err)
		} else if _, err := bm25.Open(r, f.Name, cs); err != nil {
			problem(err)
		}
		rep.Parts = append(rep.Parts, "field "+f.Name)
	}
	known := map[string]bool{store.BlobFusion: true, store.BlobAdapter: true, store.BlobSourceFiles: true}
	if r.HasBlob(store.BlobSourceFiles) {
		if err := verifySourceFiles(r, m, ctxOf); err != nil {
			problem(err)
		} else {
			rep.Parts = append(rep.Parts, "source files")
		}
	}
	if d := m.Dense; d != nil {
		for _, b := range []string{store.BlobDenseModel, store.BlobDenseVocab, store.BlobDenseSent, store.BlobDenseCtx, store.BlobDenseGraph} {
			known[b] = true
		}
		known[store.BlobDenseMoments] = d.Answers
		known[store.BlobDenseGraphUpper] = d.Graph && d.GraphSlots
		rep.Parts = append(rep.Parts, verifyDense(r, sentences, ctxOf, d, problem)...)
	}
	rep.Parts = append(rep.Parts, verifyFusions(r, problem, opt)...)
	names, err := r.BlobNames()
	problem(err)
	for _, n := range names {
		if !known[n] {
			problem(fmt.Errorf("blob %q: not a blob reqa writes (a damaged name?): %w", n, store.ErrCorrupt))
		}
	}
	return rep, nil
}

// verifyDense checks the embeddings without loading the encoder: model and
// vocabulary against the meta's hash, the vectors' shapes and counts, the
// graph over the answer vectors it was built for, and the adapter. It
// returns the parts that passed.
func verifyDense(r *store.Reader, sentences []store.Sentence, ctxOf []uint32, d *store.DenseMeta, problem func(error)) []string {
	var parts []string
	onnx, err1 := r.LargeBlob(store.BlobDenseModel)
	vocab, err2 := r.LargeBlob(store.BlobDenseVocab)
	problem(err1)
	problem(err2)
	if err1 == nil && err2 == nil {
		if h := encoder.Hash(onnx, vocab); h != d.Hash {
			problem(fmt.Errorf("model and vocabulary hash to %.12s, meta says %.12s: %w", h, d.Hash, store.ErrCorrupt))
		} else {
			parts = append(parts, "model")
		}
	}
	var vecs [2]dense.Vectors
	okVecs := true
	for i, b := range []struct {
		name string
		n    int
	}{{store.BlobDenseSent, len(sentences)}, {store.BlobDenseCtx, r.Meta().Contexts}} {
		raw, err := r.LargeBlob(b.name)
		if err != nil {
			problem(err)
			okVecs = false
			continue
		}
		v, err := dense.Decode(raw)
		switch {
		case err != nil:
			problem(fmt.Errorf("blob %s: %w: %w", b.name, store.ErrCorrupt, err))
			okVecs = false
		case v.Dim != d.Dim || v.Len() != b.n:
			problem(fmt.Errorf("blob %s: %d vectors of %d, want %d of %d: %w", b.name, v.Len(), v.Dim, b.n, d.Dim, store.ErrCorrupt))
			okVecs = false
		}
		vecs[i] = v
	}
	if !okVecs {
		return parts
	}
	parts = append(parts, "vectors")
	if d.Answers {
		if err := verifyAnswers(r, vecs[0], vecs[1], ctxOf, d); err != nil {
			problem(err)
		} else {
			parts = append(parts, "answer vectors")
		}
	}
	if d.Graph {
		answers, err := dense.Combine(vecs[0], vecs[1], ctxOf, d.GraphLambda)
		if err != nil {
			problem(fmt.Errorf("vectors: %w: %w", store.ErrCorrupt, err))
		} else if raw, err := r.LargeBlob(store.BlobDenseGraph); err != nil {
			problem(err)
		} else if g, err := ann.Load(raw, answers.Data, answers.Dim); err != nil {
			problem(fmt.Errorf("ANN graph: %w: %w", store.ErrCorrupt, err))
		} else {
			parts = append(parts, "ANN graph")
			if d.GraphSlots {
				if err := verifyGraphSplit(r, g); err != nil {
					problem(err)
				} else {
					parts = append(parts, "ANN graph slots")
				}
			}
		}
	}
	if r.HasBlob(store.BlobAdapter) {
		raw, err := r.Blob(store.BlobAdapter)
		if err == nil {
			_, err = adapter.Load(raw, d.Hash, d.Dim)
		}
		if err != nil {
			problem(fmt.Errorf("question adapter: %w", err))
		} else {
			parts = append(parts, "question adapter")
		}
	}
	return parts
}

// verifyGraphSplit checks the graph as ask searches it in place — its
// layer 0 (store.RowsDenseGraphSlots) and the rest
// (store.BlobDenseGraphUpper) — against the whole graph g.
func verifyGraphSplit(r *store.Reader, g *ann.Graph) error {
	upper, err := r.LargeBlob(store.BlobDenseGraphUpper)
	if err != nil {
		return fmt.Errorf("ANN graph upper layers: %w", err)
	}
	want, err := g.MarshalUpper()
	if err != nil {
		return err
	}
	if !bytes.Equal(upper, want) {
		return fmt.Errorf("blob %s: not the graph's upper layers (stale or damaged): %w", store.BlobDenseGraphUpper, store.ErrCorrupt)
	}
	rs, err := r.Rows(store.RowsDenseGraphSlots)
	if err != nil {
		return fmt.Errorf("ANN graph slots: %w", err)
	}
	w := 4 * g.SlotWords()
	if rs.Len() != g.Len() || rs.RowBytes() != w {
		return fmt.Errorf("ANN graph slots: %d rows of %d bytes for %d nodes of %d: %w", rs.Len(), rs.RowBytes(), g.Len(), w, store.ErrCorrupt)
	}
	rs.SetValidate(ann.CheckSlots(g.Len(), g.SlotWords()))
	per := rs.PerChunk()
	for c := range rs.NumChunks() {
		b, err := rs.Chunk(c)
		if err != nil {
			return fmt.Errorf("ANN graph slots: %w", err)
		}
		lo := c * per
		hi := lo + len(b)/w
		exp := make([]byte, len(b))
		g.PutSlots(lo, hi, exp)
		if !bytes.Equal(b, exp) {
			return fmt.Errorf("rows %s chunk %d: nodes %d–%d differ from the graph (stale or damaged): %w", store.RowsDenseGraphSlots, c, lo, hi-1, store.ErrCorrupt)
		}
	}
	return nil
}

// verifyContextOf checks the stored context ids (store.RowsContextOf)
// against the sentence records' (want).
func verifyContextOf(r *store.Reader, want []uint32) error {
	rs, err := r.Rows(store.RowsContextOf)
	if err != nil {
		return fmt.Errorf("context ids: %w", err)
	}
	if rs.Len() != len(want) || rs.RowBytes() != 4 {
		return fmt.Errorf("context ids: %d rows of %d bytes for %d sentences: %w", rs.Len(), rs.RowBytes(), len(want), store.ErrCorrupt)
	}
	got, err := rs.Uint32s()
	if err != nil {
		return fmt.Errorf("context ids: %w", err)
	}
	for i, c := range got {
		if c != want[i] {
			return fmt.Errorf("context ids: sentence %d: %d, its record says %d (stale or damaged): %w", i, c, want[i], store.ErrCorrupt)
		}
	}
	return nil
}

// verifyAnswers checks the stored answer vectors (every chunk, and every
// row against the sentence and context vectors mixed afresh) and their
// moments.
func verifyAnswers(r *store.Reader, sent, ctxv dense.Vectors, ctxOf []uint32, d *store.DenseMeta) error {
	want, err := dense.Combine(sent, ctxv, ctxOf, d.Lambda)
	if err != nil {
		return fmt.Errorf("vectors: %w: %w", store.ErrCorrupt, err)
	}
	rs, err := r.Rows(store.RowsDenseAnswers)
	if err != nil {
		return fmt.Errorf("answer vectors: %w", err)
	}
	if rs.Len() != want.Len() || rs.RowBytes() != 4*d.Dim {
		return fmt.Errorf("answer vectors: %d rows of %d bytes, want %d of %d: %w", rs.Len(), rs.RowBytes(), want.Len(), 4*d.Dim, store.ErrCorrupt)
	}
	if err := rs.Check(); err != nil {
		return fmt.Errorf("answer vectors: %w", err)
	}
	for c := range rs.NumChunks() {
		b, _ := rs.Chunk(c)
		lo := c * rs.PerChunk()
		for k := 0; k < len(b)/4; k++ {
			got := math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:]))
			if x := want.Data[lo*d.Dim+k]; !(math.Abs(float64(got-x)) <= 1e-5) {
				return fmt.Errorf("answer vectors: sentence %d: value %d is %g, its vectors mix to %g (stale or damaged): %w", lo+k/d.Dim, k%d.Dim, got, x, store.ErrCorrupt)
			}
		}
	}
	raw, err := r.LargeBlob(store.BlobDenseMoments)
	if err != nil {
		return fmt.Errorf("blob %s: %w", store.BlobDenseMoments, err)
	}
	mo, err := dense.DecodeMoments(raw)
	if err != nil {
		return fmt.Errorf("blob %s: %w: %w", store.BlobDenseMoments, store.ErrCorrupt, err)
	}
	if mo.Dim != d.Dim {
		return fmt.Errorf("blob %s: moments of dimension %d, meta says %d: %w", store.BlobDenseMoments, mo.Dim, d.Dim, store.ErrCorrupt)
	}
	return nil
}

// verifyEngineFile checks an index file whose data is kept in an engine:
// the model against its hash, the answer vectors' moments, the candidate
// ids, the adapter, the fusion parameters and the blob names. The engine
// itself is not asked (`reqa ask` does).
func verifyEngineFile(r *store.Reader, problem func(error), opt VerifyOptions) []string {
	var parts []string
	m := r.Meta()
	if m.Dense == nil {
		problem(fmt.Errorf("index %s: an engine index without embeddings: %w", r.Path(), store.ErrCorrupt))
		return nil
	}
	onnx, err1 := r.LargeBlob(store.BlobDenseModel)
	vocab, err2 := r.LargeBlob(store.BlobDenseVocab)
	problem(err1)
	problem(err2)
	if err1 == nil && err2 == nil {
		if h := encoder.Hash(onnx, vocab); h != m.Dense.Hash {
			problem(fmt.Errorf("model and vocabulary hash to %.12s, meta says %.12s: %w", h, m.Dense.Hash, store.ErrCorrupt))
		} else {
			parts = append(parts, "model")
		}
	}
	if raw, err := r.LargeBlob(store.BlobDenseMoments); err != nil {
		problem(fmt.Errorf("blob %s: %w", store.BlobDenseMoments, err))
	} else if mo, err := dense.DecodeMoments(raw); err != nil {
		problem(fmt.Errorf("blob %s: %w: %w", store.BlobDenseMoments, store.ErrCorrupt, err))
	} else if mo.Dim != m.Dense.Dim {
		problem(fmt.Errorf("blob %s: %w: moments of dimension %d, meta says %d", store.BlobDenseMoments, store.ErrCorrupt, mo.Dim, m.Dense.Dim))
	} else {
		parts = append(parts, "vector moments")
	}
	known := map[string]bool{store.BlobFusion: true, store.BlobAdapter: true, store.BlobDenseModel: true,
		store.BlobDenseVocab: true, store.BlobDenseMoments: true, store.BlobExtIDs: true, store.BlobQuestions: true}
	if r.HasBlob(store.BlobQuestions) {
		raw, err := r.LargeBlob(store.BlobQuestions)
		if err == nil {
			if _, derr := sentence.DecodeFlags(raw, m.Sentences); derr != nil {
				err = fmt.Errorf("blob %s: %w: %w", store.BlobQuestions, store.ErrCorrupt, derr)
			}
		}
		if err != nil {
			problem(err)
		} else {
			parts = append(parts, "question flags")
		}
	}
	if r.HasBlob(store.BlobExtIDs) {
		raw, err := r.LargeBlob(store.BlobExtIDs)
		if err == nil && strings.Count(string(raw), "\n") != m.Sentences {
			err = fmt.Errorf("blob %s: %d candidate ids for %d sentences: %w", store.BlobExtIDs, strings.Count(string(raw), "\n"), m.Sentences, store.ErrCorrupt)
		}
		if err != nil {
			problem(err)
		} else {
			parts = append(parts, "candidate ids")
		}
	}
	if r.HasBlob(store.BlobAdapter) {
		raw, err := r.Blob(store.BlobAdapter)
		if err == nil {
			_, err = adapter.Load(raw, m.Dense.Hash, m.Dense.Dim)
		}
		if err != nil {
			problem(fmt.Errorf("question adapter: %w", err))
		} else {
			parts = append(parts, "question adapter")
		}
	}
	parts = append(parts, verifyFusions(r, problem, opt)...)
	names, err := r.BlobNames()
	problem(err)
	for _, n := range names {
		if !known[n] {
			problem(fmt.Errorf("blob %q: not a blob reqa writes (a damaged name?): %w", n, store.ErrCorrupt))
		}
	}
	return parts
}

// verifySourceFiles checks the record of source files: ranges in order,
// covering every record, each file's sentences in its own contexts.
func verifySourceFiles(r *store.Reader, m store.Meta, ctxOf []uint32) error {
	raw, err := r.LargeBlob(store.BlobSourceFiles)
	if err != nil {
		return err
	}
	sf, err := store.DecodeSourceFiles(raw, m.Contexts, m.Sentences)
	if err != nil {
		return err
	}
	for _, f := range sf.Files {
		for s := f.Sentences[0]; s < f.Sentences[1] && int(s) < len(ctxOf); s++ {
			if c := ctxOf[s]; c < f.Contexts[0] || c >= f.Contexts[1] {
				return fmt.Errorf("blob %s: file %s: sentence %d is in context %d, outside the file's %v: %w", store.BlobSourceFiles, f.Path, s, c, f.Contexts, store.ErrCorrupt)
			}
		}
	}
	return nil
}
