// Package encoder is reqa's dense dual encoder: text in, unit vectors out,
// run through ONNX Runtime.
//
// An [Encoder] pairs a tokenizer with an ONNX model. The question tower and
// the answer tower share the model (USE-Lite is one network for both); an
// answer is encoded as its sentence, optionally mixed with its context by
// the caller (normalize(e_sentence + λ·e_context), see package index/dense).
//
// Two kinds of model are supported ([Spec.Kind]): the embedded USE-Lite
// ([KindUSELite], SentencePiece ids fed as sparse inputs), and any
// Hugging Face–layout BERT-family sentence encoder ([KindHF]: a directory
// with model.onnx and tokenizer.json as sentence-transformers and Optimum
// ship it, read by [LoadDirWith]; WordPiece ids between [CLS] and [SEP],
// mean, CLS or max pooling or the model's own sentence_embedding, query
// and passage prefixes such as e5's and bge's, optionally quantized to
// int8 at load).
//
// Questions and answers may be embedded differently ([Role]): [Encoder.Encode]
// embeds passages (sentences, contexts), [Encoder.EncodeQueries] questions;
// a model's prefixes are part of its stored vocabulary and so of its hash.
//
// Everything an index needs to re-create its encoder — the ONNX bytes, the
// tokenizer vocabulary and a [Spec] with a content hash — is stored in the
// index, so `reqa ask` needs nothing else, and a query against an index
// built with a different model is refused ([ErrModelMismatch]).
//
// The embedded USE-Lite comes in two precisions (package uselite): the
// exact float32 conversion and an int8 one ([Spec.Precision]); a model
// with dynamically quantized activations runs one text per model run, so
// every vector depends on its text alone.
//
// The ONNX Runtime library comes from package ortlib (embedded in the
// binary) and is loaded once per process. With [Options.FastStart] (one
// question, reqa ask) the int8 USE-Lite runs in Go instead (package
// usenet), and the runtime is never loaded: [Encoder.Engine] says which.
package encoder

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unsafe"

	"github.com/reqa/reqa/index/encoder/ort"
	"github.com/reqa/reqa/index/encoder/ortlib"
	"github.com/reqa/reqa/index/encoder/usenet"
	"github.com/reqa/reqa/index/tokenize/sentencepiece"
)

// ErrModelMismatch reports an encoder whose model differs from the one an
// index was built with.
var ErrModelMismatch = errors.New("encoder model does not match the index")

// Spec describes an encoder as stored in an index.
type Spec struct {
	// Name is the encoder's name, e.g. "use-lite".
	Name string `json:"name"`
	// Kind selects the backend: "use-lite" (SentencePiece ids, sparse
	// indices/values inputs) or "hf" (a Hugging Face–layout encoder: BERT
	// WordPiece ids, dense input_ids/attention_mask inputs, see [LoadDir]).
	Kind string `json:"kind"`
	// Dim is the embedding width.
	Dim int `json:"dim"`
	// Hash is the SHA-256 of the ONNX model and the vocabulary.
	Hash string `json:"hash"`
	// Precision is how the model's matrix weights are stored, "fp32" or
	// "int8" (package uselite); "" is fp32 (indexes from before the
	// choice). It is informative: Hash already tells the models apart.
	Precision string `json:"precision,omitempty"`
}

// Hash returns the content hash of a model and its vocabulary.
func Hash(onnx, vocab []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d:", len(onnx))
	h.Write(onnx)
	h.Write(vocab)
	return hex.EncodeToString(h.Sum(nil))
}

// hashed is a content hash computed off New's goroutine.
type hashed struct {
	h   string
	err error
}

// hashModel sends the content hash of a model and its vocabulary, or the
// fault (usenet.ErrFault) of a model read in place from a file cut short.
func hashModel(hc chan<- hashed, onnx, vocab []byte) {
	var h string
	err := usenet.Guarded(func() { h = Hash(onnx, vocab) })
	hc <- hashed{h, err}
}

// Options tune an Encoder.
type Options struct {
	// Threads is ONNX Runtime's thread count per model run (0: 1). On a
	// shared 2-core machine one thread per run with Workers runs in
	// parallel is fastest (the model is matrix-multiply bound).
	Threads int
	// Workers is the number of model runs in flight (0: GOMAXPROCS).
	Workers int
	// Batch is the number of texts per model run (0: 32).
	Batch int
	// FastStart prefers a fast start to throughput, for a process that
	// embeds a question or two (reqa ask): the embedded int8 USE-Lite
	// then runs in Go (package usenet: nothing to load, ~4 ms for a
	// 15-token question on two cores) instead of through ONNX Runtime
	// (~180 ms and ~105 MB before the first text, then ~2 ms a text).
	// Vectors agree with the runtime's to a mean cosine of 1−5e-6.
	// Other models ignore it.
	FastStart bool
	// Checksummed says the model and vocabulary were read from the
	// index's own blobs, whose checksums the store verified as it read
	// them, and spec.Hash from the same index: New then takes spec.Hash
	// as their content hash instead of recomputing it (a SHA-256 pass
	// over the model, ~12 ms, that reqa ask would pay on every
	// question). reqa verify still recomputes it.
	Checksummed bool
}

// Encoder embeds texts. It is safe for concurrent use.
type Encoder struct {
	spec    Spec
	be      backend
	batch   int
	workers int
	runs    atomic.Int64 // texts handed to the backend (tests)
}

// backend is one kind of model ([Spec.Kind]): how a text becomes the token
// ids the model reads, and how a group of id sequences becomes one
// embedding per sequence. A backend is safe for concurrent use.
type backend interface {
	// tokens returns the ids the model sees for text in role r, prefix,
	// special tokens and truncation included.
	tokens(text string, r Role) []int32
	// embed returns one unit vector per sequence of role r, in order.
	// Each sequence is embedded as if it were alone.
	embed(seqs [][]int32, r Role) ([][]float32, error)
	// dim returns the embedding width, or 0 when it is not known before
	// the first run.
	dim() int
	// count returns the number of tokens text makes inside a passage: no
	// special tokens, prefix or truncation.
	count(text string) int
	// window returns how many of a passage's tokens (as count counts
	// them) the model reads, from the first; 0 when it reads them all.
	window() int
	// close releases the model.
	close() error
}

// useLite is the backend of Kind "use-lite": SentencePiece ids fed to the
// converted USE-Lite graph as sparse (indices, values) inputs.
type useLite struct {
	tok  *sentencepiece.Tokenizer
	sess *ort.Session
}

func (u *useLite) tokens(text string, _ Role) []int32                { return u.tok.Encode(text) }
func (u *useLite) embed(seqs [][]int32, _ Role) ([][]float32, error) { return u.sess.Embed(seqs) }
func (u *useLite) dim() int                                          { return 0 }
func (u *useLite) count(text string) int                             { return len(u.tok.Encode(text)) }
func (u *useLite) window() int                                       { return ort.MaxPositions }
func (u *useLite) close() error                                      { return u.sess.Close() }

// initRuntime loads the ONNX Runtime library (embedded, or REQA_ORT_LIB)
// once per process. ortlib.Load retries with the library extracted to a
// file when the loader refuses the in-memory copy.
func initRuntime() error {
	_, err := ortlib.Load(func(path string) error {
		err := ort.Init(path)
		if errors.Is(err, ort.ErrLoad) {
			return fmt.Errorf("%w: %w", ortlib.ErrRefused, err)
		}
		return err
	})
	return err
}

// New builds an encoder from a model and its vocabulary. spec.Kind selects
// the backend: "use-lite" (vocab is a SentencePiece vocabulary) or
// [KindHF] (vocab is what [LoadDir] returns: the tokenizer.json with the
// pooling settings). spec.Hash, when set, must match their content;
// spec.Dim, when zero, is filled in from the model (KindHF only).
func New(spec Spec, onnx, vocab []byte, opt Options) (*Encoder, error) {
	if spec.Kind != KindUSELite && spec.Kind != KindHF {
		return nil, fmt.Errorf("encoder %s: unsupported kind %q (want %q or %q)", spec.Name, spec.Kind, KindUSELite, KindHF)
	}
	// The content hash (a pass over the whole model) is taken while the
	// backend is built: a question's start-up waits for the longer of the
	// two, not both. A mismatch is reported before any backend error. The
	// model may be a file's memory map read in place: a fault there is
	// usenet.ErrFault, on this goroutine or that one.
	hc := make(chan hashed, 1)
	if opt.Checksummed && spec.Hash != "" {
		hc <- hashed{h: spec.Hash}
	} else {
		go hashModel(hc, onnx, vocab)
	}
	checkHash := func() error {
		r := <-hc
		if r.err != nil {
			return fmt.Errorf("encoder %s: model hash: %w", spec.Name, r.err)
		}
		h := r.h
		if spec.Hash != "" && spec.Hash != h {
			return fmt.Errorf("encoder %s: stored hash %.12s…, content hash %.12s…: %w", spec.Name, spec.Hash, h, ErrModelMismatch)
		}
		spec.Hash = h
		return nil
	}
	if opt.Batch <= 0 {
		opt.Batch = 32
	}
	if opt.Threads <= 0 {
		opt.Threads = 1
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	var (
		be  backend
		err error
	)
	switch spec.Kind {
	case KindUSELite:
		be, err = newUSELite(onnx, vocab, opt)
	case KindHF:
		be, err = newHF(onnx, vocab, opt)
	}
	if herr := checkHash(); herr != nil {
		if err == nil {
			be.close()
		}
		return nil, herr
	}
	if err != nil {
		return nil, fmt.Errorf("encoder %s: %w", spec.Name, err)
	}
	if d := be.dim(); d > 0 {
		if spec.Dim != 0 && spec.Dim != d {
			be.close()
			return nil, fmt.Errorf("encoder %s: model returns %d dimensions, spec says %d: %w", spec.Name, d, spec.Dim, ErrModelMismatch)
		}
		spec.Dim = d
	}
	batch := opt.Batch
	if spec.Kind == KindHF {
		// The USE-Lite session splits its runs itself (ort.Options.MaxBatch).
		batch = runBatch(onnx, batch)
	}
	return &Encoder{spec: spec, be: be, batch: batch, workers: opt.Workers}, nil
}

// Role is what a text is to the encoder: a question, or a passage that may
// answer one (a sentence or a context). Models trained with prefixes
// (e5's "query: " and "passage: ", bge's query instruction) embed the two
// differently; USE-Lite does not.
type Role int

// The roles of a text.
const (
	Passage Role = iota
	Query
)

// KindUSELite is the Spec.Kind of the USE-Lite encoder.
const KindUSELite = "use-lite"

// useLiteGo is the int8 USE-Lite run in Go (Options.FastStart).
type useLiteGo struct {
	tok *sentencepiece.Tokenizer
	net *usenet.Net
}

func (u *useLiteGo) tokens(text string, _ Role) []int32 { return u.tok.Encode(text) }
func (u *useLiteGo) dim() int                           { return usenet.Dim }
func (u *useLiteGo) count(text string) int              { return len(u.tok.Encode(text)) }
func (u *useLiteGo) window() int                        { return u.net.MaxLen() }
func (u *useLiteGo) close() error                       { return nil }

func (u *useLiteGo) embed(seqs [][]int32, _ Role) ([][]float32, error) {
	out := make([][]float32, len(seqs))
	for i, s := range seqs {
		v, err := u.net.Embed(s)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// newUSELite builds the USE-Lite backend: with opt.FastStart and the
// int8 model, the Go network; otherwise an ONNX Runtime session.
func newUSELite(onnx, vocab []byte, opt Options) (backend, error) {
	// The vocabulary is parsed while the model loads.
	type parsed struct {
		tok *sentencepiece.Tokenizer
		err error
	}
	vc := make(chan parsed, 1)
	go func() {
		var tok *sentencepiece.Tokenizer
		var err error
		if ferr := usenet.Guarded(func() { tok, err = sentencepiece.FromJSON(vocab) }); ferr != nil {
			err = ferr
		}
		vc <- parsed{tok, err}
	}()
	if opt.FastStart {
		net, err := usenet.Load(onnx)
		if err == nil {
			v := <-vc
			if v.err != nil {
				return nil, v.err
			}
			return &useLiteGo{tok: v.tok, net: net}, nil
		}
		if !errors.Is(err, usenet.ErrUnsupported) {
			<-vc
			return nil, err
		}
	}
	v := <-vc
	if v.err != nil {
		return nil, v.err
	}
	if err := initRuntime(); err != nil {
		return nil, err
	}
	sess, err := ort.NewSession(onnx, ort.Options{Threads: opt.Threads, MaxBatch: runBatch(onnx, opt.Batch)})
	if err != nil {
		return nil, err
	}
	return &useLite{tok: v.tok, sess: sess}, nil
}

// runBatch is the number of texts one model run may take: batch, or 1 for a
// model with dynamically quantized activations (the int8 USE-Lite, see
// onnxmodel.QuantizeMatMuls). Such a model scales each run's activations
// by their range over the whole run, so a text's vector would depend on
// the texts sharing its run; one text per run keeps every vector a
// function of its text alone, so an index built in one go, appended to, or
// asked one question at a time agrees. (It costs about a sixth of int8's
// throughput and saves all padding.)
func runBatch(onnx []byte, batch int) int {
	if bytes.Contains(onnx, []byte("DynamicQuantize")) {
		return 1
	}
	return batch
}

// The engines an encoder runs its model on (Encoder.Engine).
const (
	EngineRuntime = "onnxruntime"
	EngineGo      = "go"
)

// Engine reports what runs the model: EngineRuntime, or EngineGo for the
// int8 USE-Lite under Options.FastStart.
func (e *Encoder) Engine() string {
	if _, ok := e.be.(*useLiteGo); ok {
		return EngineGo
	}
	return EngineRuntime
}

// Spec returns the encoder's description, hash included.
func (e *Encoder) Spec() Spec { return e.spec }

// Close releases the ONNX Runtime session.
func (e *Encoder) Close() error { return e.be.close() }

// Tokens returns the token ids the model sees for text as a passage.
func (e *Encoder) Tokens(text string) []int32 { return e.be.tokens(text, Passage) }

// PositionShares returns how much of what the model reads of the passage
// text each of its parts takes up: parts[i] = {start, end} are byte
// offsets of text, and shares[i] is the number of part i's tokens among
// the leading tokens of the passage the model reads (USE-Lite's first 128;
// a Hugging Face model's maximum length less its special tokens and
// passage prefix). A part past them gets 0, as does a part outside text,
// reversed, or not after the part before it. Tokens are counted a stretch
// at a time (a part, the text between two parts), so a boundary may be a
// token off the whole passage's tokenization, and the work is linear in
// the text up to the last part the model reads, however the text is made.
func (e *Encoder) PositionShares(text string, parts [][2]int) []int {
	shares := make([]int, len(parts))
	w := e.be.window()
	before, at := 0, 0 // the tokens of text[:at]
	for i, p := range parts {
		if p[0] < at || p[0] > p[1] || p[1] > len(text) {
			continue
		}
		// The white space around a stretch only separates it:
		// SentencePiece would count a space at either end as a token.
		before += e.be.count(strings.TrimFunc(text[at:p[0]], unicode.IsSpace))
		if w > 0 && before >= w {
			break // the rest are past it too
		}
		n := e.be.count(text[p[0]:p[1]])
		shares[i] = n
		if w > 0 {
			shares[i] = min(n, w-before)
		}
		before, at = before+n, p[1]
	}
	return shares
}

// Encode embeds texts as passages (answers: sentences, contexts),
// returning one unit vector per text in order. Texts are tokenized, sorted
// by length and run in batches so padding stays small. progress, if set,
// is called after each batch with the texts done.
func (e *Encoder) Encode(ctx context.Context, texts []string, progress func(done, total int)) ([][]float32, error) {
	return e.EncodeAs(ctx, Passage, texts, progress)
}

// EncodeQueries is Encode for questions: with a model that has a query
// prefix, each text is embedded behind it.
func (e *Encoder) EncodeQueries(ctx context.Context, texts []string, progress func(done, total int)) ([][]float32, error) {
	return e.EncodeAs(ctx, Query, texts, progress)
}

// EncodeAs embeds texts in role r (see Encode).
func (e *Encoder) EncodeAs(ctx context.Context, r Role, texts []string, progress func(done, total int)) ([][]float32, error) {
	out := make([][]float32, len(texts))
	err := e.encode(ctx, r, texts, progress, func(i int, v []float32) { out[i] = v })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EncodeFlat is Encode (passages) into one array: row i, the unit vector of texts[i],
// is out[i*Dim:(i+1)*Dim]. Only one batch's rows are held besides it, where
// Encode holds every row as its own slice and a caller wanting one array
// copies them all again (for an index build, 2 KB per text less at the
// peak).
func (e *Encoder) EncodeFlat(ctx context.Context, texts []string, progress func(done, total int)) ([]float32, error) {
	dim := e.spec.Dim
	out := make([]float32, len(texts)*dim)
	err := e.encode(ctx, Passage, texts, progress, func(i int, v []float32) { copy(out[i*dim:(i+1)*dim], v) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// encode embeds texts in length-sorted batches on e.workers goroutines and
// hands each text's vector to put (concurrently, for distinct i).
//
// Texts whose token ids are the same are embedded once: the model sees
// nothing but the ids, so their vectors are the same (exactly, for a
// model run one text at a time; to float32 rounding otherwise, as for any
// regrouping). Real documents repeat themselves — an option described the
// same way in many manual pages, a one-sentence paragraph that is its own
// context — and a repeat costs a copy instead of a model run.
func (e *Encoder) encode(ctx context.Context, r Role, texts []string, progress func(done, total int), put func(i int, v []float32)) error {
	ids := make([][]int32, len(texts))
	for i, t := range texts {
		ids[i] = e.be.tokens(t, r)
	}
	// order lists the first text of each distinct id sequence; same[k]
	// lists the later texts that repeat order[k]'s ids.
	order := make([]int, 0, len(texts))
	first := make(map[string]int, len(texts))
	var same map[int][]int
	for i, seq := range ids {
		key := idsKey(seq)
		if j, ok := first[key]; ok {
			if same == nil {
				same = make(map[int][]int)
			}
			same[j] = append(same[j], i)
			continue
		}
		first[key] = i
		order = append(order, i)
	}
	first = nil
	sort.SliceStable(order, func(a, b int) bool { return len(ids[order[a]]) < len(ids[order[b]]) })
	chunk := e.batch
	nChunks := (len(order) + chunk - 1) / chunk
	var next, done atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, e.workers)
	var progMu sync.Mutex
	for w := 0; w < e.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				c := int(next.Add(1)) - 1
				if c >= nChunks {
					return
				}
				lo, hi := c*chunk, min((c+1)*chunk, len(order))
				seqs := make([][]int32, hi-lo)
				for i, o := range order[lo:hi] {
					seqs[i] = ids[o]
				}
				e.runs.Add(int64(len(seqs)))
				vecs, err := e.be.embed(seqs, r)
				if err != nil {
					errs[w] = fmt.Errorf("encode: %w", err)
					return
				}
				n := 0
				for i, o := range order[lo:hi] {
					if len(vecs[i]) != e.spec.Dim {
						errs[w] = fmt.Errorf("encode: model returned %d dimensions, spec says %d", len(vecs[i]), e.spec.Dim)
						return
					}
					put(o, vecs[i])
					for _, d := range same[o] {
						put(d, slices.Clone(vecs[i]))
					}
					n += 1 + len(same[o])
				}
				d := done.Add(int64(n))
				if progress != nil {
					progMu.Lock()
					progress(int(d), len(texts))
					progMu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return ctx.Err()
}

// idsKey is a token id sequence as a map key: its bytes, not copied (the
// key lives no longer than ids).
func idsKey(ids []int32) string {
	if len(ids) == 0 {
		return ""
	}
	return unsafe.String((*byte)(unsafe.Pointer(&ids[0])), 4*len(ids))
}
