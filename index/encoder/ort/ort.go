package ort

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	onnx "github.com/yalue/onnxruntime_go"

	"github.com/reqa/reqa/index/encoder/onnxmodel"
)

var env struct {
	sync.Mutex
	path string // library the process-wide environment was created from
}

// ErrLoad reports that the dynamic loader could not load the ONNX Runtime
// library at all (as opposed to a failure of the loaded library).
var ErrLoad = errors.New("the dynamic loader could not load the library")

// Init loads the ONNX Runtime shared library at libPath (for example
// libonnxruntime.so.1 from ONNX Runtime 1.24) and creates the process-wide
// runtime environment. It must succeed before NewSession is called. Calling
// it again with the same path is a no-op; calling it with a different path
// after a successful call is an error, because the library cannot be
// swapped while the process runs. A missing file or a library whose C API
// is older than the binding expects is reported as an error.
func Init(libPath string) error {
	env.Lock()
	defer env.Unlock()
	if env.path != "" {
		if env.path == libPath {
			return nil
		}
		return fmt.Errorf("ort: runtime already initialised from %q, cannot switch to %q", env.path, libPath)
	}
	if libPath == "" {
		return errors.New("ort: empty ONNX Runtime library path")
	}
	if _, err := os.Stat(libPath); err != nil {
		return fmt.Errorf("ort: ONNX Runtime library: %w", err)
	}
	onnx.SetSharedLibraryPath(libPath)
	if err := onnx.InitializeEnvironment(onnx.WithLogLevelFatal()); err != nil {
		if strings.Contains(err.Error(), "Error loading ONNX shared library") {
			// dlopen itself failed (onnxruntime_go v1.27.0 says so only in
			// words): the library was not loaded at all.
			return fmt.Errorf("ort: load %s: %w: %w", libPath, ErrLoad, err)
		}
		return fmt.Errorf("ort: load %s: %w", libPath, err)
	}
	env.path = libPath
	return nil
}

// Version returns the version string of the loaded ONNX Runtime library, or
// "" before Init has succeeded.
func Version() string {
	env.Lock()
	defer env.Unlock()
	if env.path == "" {
		return ""
	}
	return onnx.GetVersion()
}

// Options tune a Session.
type Options struct {
	// Threads is the number of threads one run may use for a single
	// operator. Zero lets ONNX Runtime choose (one per core).
	Threads int
	// Spin lets idle runtime threads busy-wait for work between operators.
	// It lowers latency a little on otherwise idle cores and wastes them
	// when other work shares the machine; off by default.
	Spin bool
	// MaxBatch bounds how many sequences one model run receives; Embed
	// splits larger batches. Zero means DefaultMaxBatch. On two cores,
	// groups of 4 to 8 similar-length sentences give the best throughput;
	// larger groups gain nothing and pad more.
	MaxBatch int
}

// DefaultMaxBatch is the number of sequences Embed sends to the model at
// once when Options.MaxBatch is zero.
const DefaultMaxBatch = 8

// Session runs a converted encoder model. It is safe for concurrent use:
// ONNX Runtime allows simultaneous runs on one session, each with its own
// input and output tensors. Close must not be called while runs are in
// flight; it waits for them to finish.
type Session struct {
	model    *Model
	maxBatch int

	emptyOnce sync.Once
	empty     []float32 // embedding of a sequence without tokens
	emptyErr  error
}

// NewSession compiles model, an ONNX encoder such as the one
// onnxmodel.ConvertTFJS produces, with inputs onnxmodel.InputIndices and
// onnxmodel.InputValues and output onnxmodel.OutputEmbeddings.
func NewSession(model []byte, opts Options) (*Session, error) {
	if opts.MaxBatch < 0 {
		return nil, fmt.Errorf("ort: negative MaxBatch %d", opts.MaxBatch)
	}
	if opts.MaxBatch == 0 {
		opts.MaxBatch = DefaultMaxBatch
	}
	m, err := OpenModel(model, []string{onnxmodel.InputIndices, onnxmodel.InputValues}, onnxmodel.OutputEmbeddings, opts)
	if err != nil {
		return nil, err
	}
	return &Session{model: m, maxBatch: opts.MaxBatch}, nil
}

// Close releases the session. Later calls to Embed return an error.
func (s *Session) Close() error { return s.model.Close() }

// MaxPositions is the number of leading tokens of a sequence the USE-Lite
// graph reads (its ClipToMaxLength step drops later positions).
const MaxPositions = 128

// Embed returns one embedding per token-id sequence, in order. Sequences
// may differ in length; each is embedded as if it were alone (the model
// masks padding), so Embed is free to regroup them: it sorts them by length
// and runs groups of at most Options.MaxBatch sequences whose lengths are
// close enough that padding adds at most a quarter to the work. A sequence without tokens gets the embedding the model
// gives an empty sentence. Token ids must be valid rows of the model's
// vocabulary; an out-of-range id is reported as an error by the runtime.
func (s *Session) Embed(seqs [][]int32) ([][]float32, error) {
	out := make([][]float32, len(seqs))
	var nonEmpty []int
	for i, seq := range seqs {
		if len(seq) > 0 {
			nonEmpty = append(nonEmpty, i)
		}
		for _, id := range seq {
			if id < 0 {
				return nil, fmt.Errorf("ort: sequence %d: negative token id %d", i, id)
			}
		}
	}
	// Every sequence is padded to the longest one in its run, and the
	// attention projections work on the padding too, so runs group
	// sequences of similar length. The model clips sequences to
	// MaxPositions tokens, so longer ones are alike.
	sort.SliceStable(nonEmpty, func(a, b int) bool {
		return min(len(seqs[nonEmpty[a]]), MaxPositions) < min(len(seqs[nonEmpty[b]]), MaxPositions)
	})
	for start := 0; start < len(nonEmpty); {
		end := s.groupEnd(seqs, nonEmpty, start)
		part := nonEmpty[start:end]
		start = end
		batch := make([][]int32, len(part))
		for j, i := range part {
			batch[j] = seqs[i]
		}
		embs, err := s.run(batch, 0)
		if err != nil {
			return nil, err
		}
		for j, i := range part {
			out[i] = embs[j]
		}
	}
	if len(nonEmpty) < len(seqs) {
		empty, err := s.emptyEmbedding()
		if err != nil {
			return nil, err
		}
		for i := range out {
			if out[i] == nil {
				out[i] = append([]float32(nil), empty...)
			}
		}
	}
	return out, nil
}

// maxPadding is the share of padded positions a run may have: Embed
// starts a new run rather than pad its sequences by more than this.
const maxPadding = 0.25

// groupEnd returns the end of the run starting at order[start], where order
// lists sequence indices by ascending clipped length: at most maxBatch
// sequences, and no more padding than maxPadding allows.
func (s *Session) groupEnd(seqs [][]int32, order []int, start int) int {
	real := 0
	end := start
	for end < len(order) && end-start < s.maxBatch {
		l := min(len(seqs[order[end]]), MaxPositions)
		padded := l * (end - start + 1) // the longest so far sets the width
		if end > start && float64(padded) > (1+maxPadding)*float64(real+l) {
			break
		}
		real += l
		end++
	}
	return end
}

// emptyEmbedding computes, once, the row the model produces for a sentence
// index that has no tokens. The model derives the batch size from the
// largest sentence index present, so the empty sentence is placed before a
// one-token sentence.
func (s *Session) emptyEmbedding() ([]float32, error) {
	s.emptyOnce.Do(func() {
		embs, err := s.run([][]int32{{0}}, 1)
		if err != nil {
			s.emptyErr = fmt.Errorf("ort: embedding of an empty sequence: %w", err)
			return
		}
		s.empty = embs[0]
	})
	return s.empty, s.emptyErr
}

// run embeds batch, whose sequences are all non-empty, numbering them from
// offset; the returned slice has offset+len(batch) rows.
func (s *Session) run(batch [][]int32, offset int) ([][]float32, error) {
	n := 0
	for _, seq := range batch {
		n += len(seq)
	}
	indices := make([]int64, 0, 2*n)
	values := make([]int64, 0, n)
	for i, seq := range batch {
		for p, id := range seq {
			indices = append(indices, int64(offset+i), int64(p))
			values = append(values, int64(id))
		}
	}
	shape, data, err := s.model.Run([]Input{{Shape: []int64{int64(n), 2}, Data: indices}, {Shape: []int64{int64(n)}, Data: values}})
	if err != nil {
		return nil, err
	}
	rows := offset + len(batch)
	if len(shape) != 2 || shape[0] != int64(rows) || shape[1] <= 0 {
		return nil, fmt.Errorf("ort: output shape %v, want [%d, dim]", shape, rows)
	}
	dim := int(shape[1])
	res := make([][]float32, rows)
	for i := range res {
		res[i] = data[i*dim : (i+1)*dim : (i+1)*dim]
	}
	return res, nil
}
