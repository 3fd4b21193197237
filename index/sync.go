package index

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/reqa/reqa/index/ann"
	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/index/dense"
	"github.com/reqa/reqa/store"
)

// ErrCannotSync is wrapped by the errors of a sync the index cannot take:
// one kept in an engine, one built from a dataset or standard input, one
// built before indexes recorded their source files.
var ErrCannotSync = errors.New("cannot sync")

// SyncResult says what a sync did.
type SyncResult struct {
	// Added, Changed and Removed count the files added, replaced and
	// deleted; Unchanged those kept as they were (Touched of them with a
	// new modification time but the same bytes).
	Added, Changed, Removed, Unchanged, Touched int
	// Embedded counts the sentences embedded (those of added and changed
	// files, when the index has embeddings); Tokenized the sentences
	// tokenized.
	Embedded, Tokenized int
	// Meta is the index's meta after the sync.
	Meta store.Meta
	// Written is false when nothing changed and the index was left as it
	// was.
	Written bool
	// Graph says how the ANN graph was brought in line: GraphUpdated (the
	// stored graph with the removed sentences unlinked and the added ones
	// inserted), GraphBuilt (built afresh: most of it is new), or empty
	// (no graph, or nothing written).
	Graph string
	// Upgraded is true when the index, written by a reqa from before the
	// answer vectors (DenseMeta.Answers), the split graph
	// (DenseMeta.GraphSlots), the context ids (Meta.ContextOf) or the
	// BM25 term filters were stored, was rewritten to store them although
	// no file changed: a sync upgrades it, so that ask reads them in place
	// (and checks term dictionaries by their filters).
	Upgraded bool
}

// SyncResult.Graph's values.
const (
	GraphUpdated = "updated"
	GraphBuilt   = "built"
)

// IndexedFiles returns the source files the index at path records, keyed
// by path, for ingest's ReadOptions.Unchanged; an index that cannot be
// synced gives an error wrapping ErrCannotSync.
func IndexedFiles(path string) (map[string]store.SourceFile, error) {
	r, err := store.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	m := r.Meta()
	if err := canSync(path, m, r.HasBlob(store.BlobSourceFiles)); err != nil {
		return nil, err
	}
	raw, err := r.LargeBlob(store.BlobSourceFiles)
	if err != nil {
		return nil, err
	}
	sf, err := store.DecodeSourceFiles(raw, m.Contexts, m.Sentences)
	if err != nil {
		return nil, err
	}
	files := make(map[string]store.SourceFile, len(sf.Files))
	for _, f := range sf.Files {
		files[f.Path] = f
	}
	return files, nil
}

// canSync refuses the indexes a sync cannot take.
func canSync(path string, m store.Meta, hasFiles bool) error {
	switch {
	case m.Engine != nil:
		return fmt.Errorf("sync %s: %w: the index is kept in %s (%s), which --sync does not update yet; rebuild it with reqa index --engine", path, ErrCannotSync, m.Engine.Kind, m.Engine.URL)
	case m.Dataset != "":
		return fmt.Errorf("sync %s: %w: the index was built from the ReQA dataset %s; rebuild it instead", path, ErrCannotSync, m.Dataset)
	case !hasFiles:
		return fmt.Errorf("sync %s: %w: the index does not record its source files (built before reqa did, or from standard input, or appended to from one); rebuild it once with reqa index --out %s, and --sync works from then on", path, ErrCannotSync, path)
	}
	return nil
}

// sourceFiles returns c's source files with their sentence ranges, the
// ranges shifted by baseCtx and baseSent, or nil when c's contexts do not
// all come from files read whole.
func sourceFiles(c *Corpus, baseCtx, baseSent uint32) []store.SourceFile {
	if c.SourceFiles == nil {
		return nil
	}
	var at uint32
	out := make([]store.SourceFile, 0, len(c.SourceFiles))
	for _, f := range c.SourceFiles {
		if f.Contexts[0] != at || f.Contexts[1] < at || f.SHA256 == "" {
			return nil
		}
		at = f.Contexts[1]
		lo := sort.Search(len(c.Sentences), func(i int) bool { return c.Sentences[i].ContextID >= f.Contexts[0] })
		hi := sort.Search(len(c.Sentences), func(i int) bool { return c.Sentences[i].ContextID >= f.Contexts[1] })
		f.Contexts = [2]uint32{f.Contexts[0] + baseCtx, f.Contexts[1] + baseCtx}
		f.Sentences = [2]uint32{uint32(lo) + baseSent, uint32(hi) + baseSent}
		out = append(out, f)
	}
	if int(at) != len(c.Contexts) {
		return nil
	}
	return out
}

// writeSourceFiles records the source files of the index j writes: a
// build's, or an append's added to the index's; the record is dropped when
// the index's texts do not all come from distinct files.
func (j *job) writeSourceFiles(w *store.Writer) error {
	baseCtx, baseSent := j.base()
	files := sourceFiles(j.c, baseCtx, baseSent)
	return w.Update(func(tx *store.WriteTx) error {
		had := tx.HasBlob(store.BlobSourceFiles)
		if j.old != nil && files != nil {
			if !had {
				files = nil
			} else {
				raw, err := tx.LargeBlob(store.BlobSourceFiles)
				if err != nil {
					return err
				}
				sf, err := store.DecodeSourceFiles(raw, j.old.Contexts, j.old.Sentences)
				if err != nil {
					return err
				}
				files = append(sf.Files, files...)
				seen := map[string]bool{}
				for _, f := range files {
					if seen[f.Path] {
						files = nil // the same file twice: no sync
						break
					}
					seen[f.Path] = true
				}
			}
		}
		if had {
			if err := tx.DeleteLargeBlob(store.BlobSourceFiles); err != nil {
				return err
			}
		}
		if files == nil {
			return nil
		}
		raw, err := store.EncodeSourceFiles(store.SourceFiles{Files: files})
		if err != nil {
			return err
		}
		return tx.PutLargeBlob(store.BlobSourceFiles, raw)
	})
}

// Sync brings the index at path in line with in, read from the files the
// index was built from (ingest's ReadOptions.Unchanged set from
// IndexedFiles, so that files unchanged by size and modification time are
// not read): files in neither the index nor in are added, files whose
// bytes differ are replaced, files the index holds and in does not are
// deleted — in the contexts and sentences, every BM25 field's postings,
// lengths and statistics, the vectors and the ANN graph. Only the added
// and changed files' text is tokenized and embedded; the kept files'
// postings, lengths and vectors are carried over.
//
// Ids are renumbered: the records are laid out in the order of in's
// files, as a build of in would number them, so the synced index ranks
// exactly as a fresh build of the same files does (BM25 scores to the
// last bits of the mean idf). The ANN graph is updated rather than built
// again (ann.Graph.Update: removed sentences unlinked and their
// neighbours repaired, added ones inserted, kept ones renumbered) when
// the sentences it already holds are at least half of the result; then
// dense ANN answers match a fresh build's within the graph's recall, not
// bit for bit. Otherwise it is built from the stored vectors in the new
// order (no text is embedded again): the graph a fresh build makes.
//
// Like Append, Sync works on a copy and replaces path in one rename when
// complete: a failure, a cancelled ctx or a killed process leaves the
// index as it was. When nothing changed the index is not written.
func Sync(ctx context.Context, in Input, path string, opt Options) (SyncResult, error) {
	var res SyncResult
	w, old, err := store.CreateFrom(ctx, path, opt.Waiting)
	if err != nil {
		return res, err
	}
	defer w.Abort()
	var oldFiles store.SourceFiles
	err = w.Update(func(tx *store.WriteTx) error {
		if err := canSync(path, old, tx.HasBlob(store.BlobSourceFiles)); err != nil {
			return err
		}
		raw, err := tx.LargeBlob(store.BlobSourceFiles)
		if err != nil {
			return err
		}
		oldFiles, err = store.DecodeSourceFiles(raw, old.Contexts, old.Sentences)
		return err
	})
	if err != nil {
		return res, err
	}
	opt.Context = old.Context
	j := &job{op: "sync", path: path, opt: opt, old: &old}
	if err := j.form(in); err != nil {
		return res, err
	}
	c := j.c
	if c.SourceFiles == nil {
		return res, fmt.Errorf("sync %s: %w: some inputs are not files (standard input?)", path, ErrCannotSync)
	}
	// The new layout: every file of in, in order, its records taken from
	// the index (unchanged) or from in (added, changed).
	type segment struct {
		fromOld bool
		src     store.SourceFile // its ranges are in the index's ids or c's
		rec     store.SourceFile // what the index records after
	}
	oldBy := map[string]store.SourceFile{}
	for _, f := range oldFiles.Files {
		oldBy[f.Path] = f
	}
	var at uint32
	seen := map[string]bool{}
	var segs []segment
	for _, f := range c.SourceFiles {
		if f.Contexts[0] != at || f.Contexts[1] < at || seen[f.Path] {
			return res, fmt.Errorf("sync %s: input file %s: contexts %v after %d (or read twice)", path, f.Path, f.Contexts, at)
		}
		at, seen[f.Path] = f.Contexts[1], true
		o, had := oldBy[f.Path]
		switch {
		case f.SHA256 == "":
			if !had {
				return res, fmt.Errorf("sync %s: input file %s was not read, and the index does not hold it", path, f.Path)
			}
			segs = append(segs, segment{fromOld: true, src: o, rec: o})
			res.Unchanged++
		case had && o.SHA256 == f.SHA256 && o.Size == f.Size:
			rec := o
			rec.ModTime = f.ModTime
			if !rec.ModTime.Equal(o.ModTime) {
				res.Touched++
			}
			segs = append(segs, segment{fromOld: true, src: o, rec: rec})
			res.Unchanged++
		default:
			if had {
				res.Changed++
			} else {
				res.Added++
			}
			lo := sort.Search(len(c.Sentences), func(i int) bool { return c.Sentences[i].ContextID >= f.Contexts[0] })
			hi := sort.Search(len(c.Sentences), func(i int) bool { return c.Sentences[i].ContextID >= f.Contexts[1] })
			f.Sentences = [2]uint32{uint32(lo), uint32(hi)}
			segs = append(segs, segment{src: f, rec: f})
		}
	}
	if int(at) != len(c.Contexts) {
		return res, fmt.Errorf("sync %s: input files cover %d of %d contexts", path, at, len(c.Contexts))
	}
	res.Removed = len(oldFiles.Files) - res.Unchanged - res.Changed
	res.Meta = old
	if res.Added+res.Changed+res.Removed+res.Touched == 0 {
		if (old.Dense == nil || old.Dense.Answers && (!old.Dense.Graph || old.Dense.GraphSlots)) && old.ContextOf {
			// Everything ask reads in place is there; the BM25 term
			// filters (store, termfilter.go) are written by committing.
			filters := false
			if err := w.Update(func(tx *store.WriteTx) error { filters = tx.TermFiltersCurrent(old); return nil }); err != nil {
				return res, err
			}
			if filters {
				return res, nil
			}
			if err := w.Commit(old); err != nil {
				return res, err
			}
			res.Upgraded, res.Written = true, true
			return res, nil
		}
		res.Upgraded = true
	}

	// Records, renumbered; the new files' also numbered in sub, the
	// corpus tokenized and embedded.
	var oldCtx []store.Context
	var oldSent []store.Sentence
	err = w.Update(func(tx *store.WriteTx) error {
		oldCtx = make([]store.Context, 0, old.Contexts)
		oldSent = make([]store.Sentence, 0, old.Sentences)
		if err := tx.ForEachContext(func(x store.Context) error { oldCtx = append(oldCtx, x); return nil }); err != nil {
			return err
		}
		return tx.ForEachSentence(func(s store.Sentence) error { oldSent = append(oldSent, s); return nil })
	})
	if err != nil {
		return res, j.errOp(err)
	}
	if len(oldCtx) != old.Contexts || len(oldSent) != old.Sentences {
		return res, j.errOp(fmt.Errorf("%d contexts and %d sentences stored, meta says %d and %d: %w", len(oldCtx), len(oldSent), old.Contexts, old.Sentences, store.ErrCorrupt))
	}
	ctxs := bm25.Renumber{Keep: filled(old.Contexts)}
	sents := bm25.Renumber{Keep: filled(old.Sentences)}
	all := &Corpus{}
	sub := &Corpus{}
	var files []store.SourceFile
	for _, sg := range segs {
		rec := sg.rec
		c0, s0 := uint32(len(all.Contexts)), uint32(len(all.Sentences))
		if sg.fromOld {
			for id := sg.src.Contexts[0]; id < sg.src.Contexts[1]; id++ {
				ctxs.Keep[id] = int64(len(all.Contexts))
				x := oldCtx[id]
				x.ID = uint32(len(all.Contexts))
				all.Contexts = append(all.Contexts, x)
			}
			for id := sg.src.Sentences[0]; id < sg.src.Sentences[1]; id++ {
				s := oldSent[id]
				if s.ContextID < sg.src.Contexts[0] || s.ContextID >= sg.src.Contexts[1] {
					return res, j.errOp(fmt.Errorf("sentence %d of %s is in context %d, outside the file's %v: %w", id, rec.Path, s.ContextID, sg.src.Contexts, store.ErrCorrupt))
				}
				sents.Keep[id] = int64(len(all.Sentences))
				s.ID, s.ContextID = uint32(len(all.Sentences)), uint32(ctxs.Keep[s.ContextID])
				all.Sentences = append(all.Sentences, s)
			}
		} else {
			subBase := uint32(len(sub.Contexts))
			for id := sg.src.Contexts[0]; id < sg.src.Contexts[1]; id++ {
				ctxs.At = append(ctxs.At, uint32(len(all.Contexts)))
				x := c.Contexts[id]
				x.ID = uint32(len(sub.Contexts))
				sub.Contexts = append(sub.Contexts, x)
				x.ID = uint32(len(all.Contexts))
				all.Contexts = append(all.Contexts, x)
			}
			for id := sg.src.Sentences[0]; id < sg.src.Sentences[1]; id++ {
				sents.At = append(sents.At, uint32(len(all.Sentences)))
				s := c.Sentences[id]
				local := s.ContextID - sg.src.Contexts[0]
				s.ID, s.ContextID = uint32(len(sub.Sentences)), subBase+local
				sub.Sentences = append(sub.Sentences, s)
				s.ID, s.ContextID = uint32(len(all.Sentences)), c0+local
				all.Sentences = append(all.Sentences, s)
			}
		}
		rec.Contexts = [2]uint32{c0, uint32(len(all.Contexts))}
		rec.Sentences = [2]uint32{s0, uint32(len(all.Sentences))}
		files = append(files, rec)
	}
	oldCtxOf := contextIDs(oldSent)
	oldCtx, oldSent = nil, nil
	ctxs.Docs, sents.Docs = len(all.Contexts), len(all.Sentences)
	if len(all.Sentences) == 0 {
		return res, j.errOp(errors.New("no sentences would be left: remove the index instead"))
	}
	res.Tokenized = len(sub.Sentences)

	err = w.Update(func(tx *store.WriteTx) error { return tx.ResetRecords() })
	if err == nil {
		err = writeRecords(ctx, w, all, 0, 0, opt.Progress)
	}
	if err != nil {
		return res, j.errOp(err)
	}
	meta := old
	meta.Created = time.Now().UTC()
	meta.Contexts, meta.Sentences = len(all.Contexts), len(all.Sentences)
	meta.Sources = c.Sources
	meta.Fields = slices.Clone(old.Fields)
	names, toks, err := j.tokenizers()
	if err != nil {
		return res, err
	}
	ctxOf := contextIDs(all.Sentences)
	for k, name := range names {
		f, err := IndexFields(ctx, sub, toks[k], opt.Workers, j.progress("tokenize "+name))
		if err != nil {
			return res, j.errOp(err)
		}
		// Sentence fields first: a context-layout field's statistics
		// read its sentence field.
		for _, late := range []bool{false, true} {
			for i, fm := range old.Fields {
				if fm.Tokenizer != name || (fm.WithContext && fm.Layout == bm25.ContextLayout) != late {
					continue
				}
				var err error
				switch {
				case !fm.WithContext:
					meta.Fields[i], err = bm25.SyncField(ctx, w, fm, f.Sentences, sents)
				case fm.Layout == "":
					var b *bm25.Builder
					if b, err = f.Expand(); err == nil {
						meta.Fields[i], err = bm25.SyncField(ctx, w, fm, b, sents)
					}
				case fm.Layout != bm25.ContextLayout:
					err = fmt.Errorf("layout %q (written by a newer reqa?): %w", fm.Layout, store.ErrNewerFormat)
				default:
					sentName := store.FieldName(fm.Tokenizer, false)
					if _, ok := old.Field(sentName); !ok {
						err = fmt.Errorf("%w: its sentence field %s is missing", store.ErrCorrupt, sentName)
					} else {
						meta.Fields[i], err = bm25.SyncContextField(ctx, w, fm, f, ctxs, sents, sentName, ctxOf)
					}
				}
				if err != nil {
					return res, j.errOp(fmt.Errorf("field %s: %w", fm.Name, err))
				}
			}
		}
	}
	if old.Dense != nil {
		dm := *old.Dense
		meta.Dense = &dm
		if res.Embedded, res.Graph, err = j.syncDense(ctx, w, sub, all, ctxs, sents, oldCtxOf, &dm); err != nil {
			return res, j.errOp(err)
		}
	}
	err = w.Update(func(tx *store.WriteTx) error {
		if err := tx.DeleteLargeBlob(store.BlobSourceFiles); err != nil {
			return err
		}
		raw, err := store.EncodeSourceFiles(store.SourceFiles{Files: files})
		if err != nil {
			return err
		}
		return tx.PutLargeBlob(store.BlobSourceFiles, raw)
	})
	if err != nil {
		return res, j.errOp(err)
	}
	if err := ctx.Err(); err != nil {
		return res, j.errOp(err)
	}
	if err := writeContextOf(w, &meta); err != nil {
		return res, j.errOp(err)
	}
	if err := w.Commit(meta); err != nil {
		return res, err
	}
	res.Meta, res.Written = meta, true
	return res, nil
}

// filled returns n entries of -1: every document deleted until kept.
func filled(n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = -1
	}
	return s
}

// syncDense lays the stored sentence and context vectors (the contexts of
// the stored sentences in oldCtxOf) out as ctxs and sents say, embeds sub's texts into their places and brings the ANN
// graph over the answer vectors of all in line (syncGraph). It returns the
// number of sentences embedded and how the graph was made (SyncResult.Graph).
func (j *job) syncDense(ctx context.Context, w *store.Writer, sub, all *Corpus, ctxs, sents bm25.Renumber, oldCtxOf []uint32, meta *store.DenseMeta) (embedded int, graphHow string, err error) {
	old := *j.old
	d := old.Dense
	var newSent, newCtx dense.Vectors
	if len(sub.Sentences) > 0 || len(sub.Contexts) > 0 {
		enc, done, err := appendEncoder(w, d, j.opt)
		if err != nil {
			return 0, "", err
		}
		defer done()
		if newSent, newCtx, err = embed(ctx, sub, enc, d.ContextVectors, j.progress); err != nil {
			return 0, "", err
		}
	}
	var allSent, allCtx dense.Vectors
	var cfg ann.Config
	var oldGraph *ann.Graph
	err = w.Update(func(tx *store.WriteTx) error {
		oldSent, oldCtx, err := storedVectors(tx, old)
		if err != nil {
			return err
		}
		if d.Graph {
			// The graph's settings, read from the stored graph.
			ans, err := dense.Combine(oldSent, oldCtx, oldCtxOf, d.GraphLambda)
			if err != nil {
				return err
			}
			raw, err := tx.LargeBlob(store.BlobDenseGraph)
			if err != nil {
				return err
			}
			g, err := ann.Load(raw, ans.Data, d.Dim)
			if err != nil {
				return fmt.Errorf("blob %s: %w", store.BlobDenseGraph, err)
			}
			cfg, oldGraph = g.Config(), g
		}
		allSent = place(oldSent, sents, newSent, d.Dim)
		allCtx = place(oldCtx, ctxs, newCtx, d.Dim)
		for _, name := range []string{store.BlobDenseSent, store.BlobDenseCtx, store.BlobDenseGraph} {
			if err := tx.DeleteLargeBlob(name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, "", err
	}
	var graph *ann.Graph
	answers, err := answerVectors(all, allSent, allCtx, d.Lambda)
	if err != nil {
		return 0, "", err
	}
	if d.Graph {
		gans := answers
		if d.GraphLambda != d.Lambda {
			if gans, err = answerVectors(all, allSent, allCtx, d.GraphLambda); err != nil {
				return 0, "", err
			}
		}
		g, how, err := syncGraph(ctx, oldGraph, sents, gans, cfg, j.opt.Progress)
		if err != nil {
			return 0, "", err
		}
		graph, graphHow = g, how
	}
	if err := writeDenseBlobs(w, graph, nil, nil, allSent, allCtx, answers, meta); err != nil {
		return 0, "", fmt.Errorf("write embeddings: %w", err)
	}
	return len(sub.Sentences), graphHow, nil
}

// syncGraph returns the ANN graph over the synced answer vectors: the
// stored graph updated (ann.Graph.Update: removed sentences unlinked and
// their neighbours repaired, added ones inserted, the rest renumbered as
// sents says) when the sentences it keeps are at least graphKeepShare of
// the result, else a graph built afresh (also when the update refuses).
func syncGraph(ctx context.Context, old *ann.Graph, sents bm25.Renumber, answers dense.Vectors, cfg ann.Config, progress func(string, int, int)) (*ann.Graph, string, error) {
	if old != nil && len(sents.Keep) == old.Len() {
		keep := make([]int32, len(sents.Keep))
		kept := 0
		for i, k := range sents.Keep {
			keep[i] = int32(max(k, -1))
			if k >= 0 {
				kept++
			}
		}
		if float64(kept) >= graphKeepShare*float64(answers.Len()) {
			if progress != nil {
				progress("ann graph", 0, answers.Len()-kept)
			}
			g, err := old.Update(ctx, keep, answers.Data)
			if err == nil {
				if progress != nil {
					progress("ann graph", answers.Len()-kept, answers.Len()-kept)
				}
				return g, GraphUpdated, nil
			}
			if ctx.Err() != nil {
				return nil, "", ctx.Err()
			}
		}
	}
	g := ann.New(answers.Dim, cfg)
	if err := addToGraph(ctx, g, answers, progress); err != nil {
		return nil, "", err
	}
	return g, GraphBuilt, nil
}

// graphKeepShare is the share of a synced index's sentences its stored
// graph must already hold for the sync to update the graph rather than
// build it again: a graph that is mostly new is built better from scratch.
const graphKeepShare = 0.5

// place lays out vectors: stored row i goes to r.Keep[i] (when kept), new
// row k to r.At[k].
func place(stored dense.Vectors, r bm25.Renumber, added dense.Vectors, dim int) dense.Vectors {
	out := dense.Vectors{Dim: dim, Data: make([]float32, r.Docs*dim)}
	for i, nd := range r.Keep {
		if nd >= 0 {
			copy(out.Data[int(nd)*dim:(int(nd)+1)*dim], stored.Row(i))
		}
	}
	for k, nd := range r.At {
		copy(out.Data[int(nd)*dim:(int(nd)+1)*dim], added.Row(k))
	}
	return out
}
