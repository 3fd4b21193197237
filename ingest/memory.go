package ingest

import (
	"errors"
	"fmt"
)

// Coefficients of the build memory estimate. They were fitted to peak RSS
// measured on the development VM (BENCHMARKS.md, "Context layout": 1, 10
// and 100 MB of paragraphs, 10 and 100 MB on one line, 200,000
// one-sentence files, SQuAD) and err high by 14–51% on all of them; with
// embeddings ≈ 300 MB fixed and ≈ 4.5 KB per sentence.
const (
	memPerTextByte    = 5.5    // × bytes of context text
	memPerContextByte = 0.01   // × Σ over sentences of len(context)
	memPerSentence    = 300    // bytes per sentence (records, document lengths)
	memPerContext     = 330    // bytes per context
	memFixed          = 55e6   // runtime, tokenizer vocabularies
	memDenseFixed     = 300e6  // model + ONNX Runtime
	memDensePer       = 4500.0 // vectors, mixed vectors, graph
)

// EstimateBuildMemory returns a rough estimate, in bytes, of the peak
// memory `reqa index` needs to index c (with embeddings when dense). The
// BM25 build holds the text, one tokenizer's postings at a time — over
// contexts and over sentences, since sentence + context documents are
// stored as context postings — and the index file being written, mapped
// by bbolt. Use it to refuse builds that clearly cannot fit, not as a
// promise. [ReadInputsContext] applies the same estimate while reading
// (ReadOptions.MemoryLimit), before the memory is spent.
func EstimateBuildMemory(c *Corpus, dense bool) int64 {
	var e memEstimator
	e.update(c)
	return e.bytes(dense)
}

// memEstimator keeps the sums EstimateBuildMemory needs as a corpus grows,
// so that checking them after every record costs only the new records.
type memEstimator struct {
	text, sum           float64
	contexts, sentences int // how many of the corpus's records are counted
}

// update counts the records appended to c since the last call.
func (e *memEstimator) update(c *Corpus) {
	for ; e.contexts < len(c.Contexts); e.contexts++ {
		e.text += float64(len(c.Contexts[e.contexts].Text))
	}
	for ; e.sentences < len(c.Sentences); e.sentences++ {
		if id := int(c.Sentences[e.sentences].ContextID); id < len(c.Contexts) {
			e.sum += float64(len(c.Contexts[id].Text))
		}
	}
}

// bytes returns the estimate for the records counted.
func (e *memEstimator) bytes(dense bool) int64 {
	est := memPerTextByte*e.text + memPerContextByte*e.sum + memPerSentence*float64(e.sentences) + memPerContext*float64(e.contexts) + memFixed
	if dense {
		est += memDenseFixed + memDensePer*float64(e.sentences)
	}
	return int64(est)
}

// ErrMemoryLimit is wrapped by a *MemoryLimitError.
var ErrMemoryLimit = errors.New("over the memory limit")

// MemoryLimitError reports that the inputs read so far already need more
// memory to index than ReadOptions.MemoryLimit allows: reading stopped
// there.
type MemoryLimitError struct {
	// Need is the estimated peak memory of indexing what was read so far
	// (a lower bound of what the whole input needs); Limit the limit.
	Need, Limit int64
	// Bytes is how many bytes of input were read; Sentences and Contexts
	// how many were found so far.
	Bytes               int64
	Sentences, Contexts int
	// File is the input being read when the limit was reached.
	File string
}

func (e *MemoryLimitError) Error() string {
	return fmt.Sprintf("reading %s: after %s of input (%d sentences from %d contexts so far) indexing already needs about %s of memory, more than the limit of %s",
		e.File, HumanBytes(e.Bytes), e.Sentences, e.Contexts, HumanBytes(e.Need), HumanBytes(e.Limit))
}

// Unwrap makes errors.Is(err, ErrMemoryLimit) true.
func (e *MemoryLimitError) Unwrap() error { return ErrMemoryLimit }

// HumanBytes formats a byte count for messages (GiB, MiB, KiB).
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", n>>10)
}
