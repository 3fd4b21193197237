package index

import "github.com/reqa/reqa/store"

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

// TextByteCost is the estimated build memory of one byte of context text:
// what a reader may count for text read but not yet turned into contexts.
const TextByteCost = memPerTextByte

// EstimateBuildMemory returns a rough estimate, in bytes, of the peak
// memory Build needs to index c (with embeddings when dense). The
// BM25 build holds the text, one tokenizer's postings at a time — over
// contexts and over sentences, since sentence + context documents are
// stored as context postings — and the index file being written, mapped
// by bbolt. Use it to refuse builds that clearly cannot fit, not as a
// promise. A reader can apply the same estimate while it reads, with a
// [MemoryEstimator], before the memory is spent.
func EstimateBuildMemory(c *Corpus, dense bool) int64 {
	var e MemoryEstimator
	e.Update(c)
	return e.Bytes(dense)
}

// AppendHeldBytes returns the memory an append to the index m holds
// besides the new corpus's estimate: the index's vectors and graph, loaded
// to be extended (none for an index without embeddings, or kept in an
// engine).
func AppendHeldBytes(m store.Meta) int64 {
	if m.Dense == nil || m.Engine != nil {
		return 0
	}
	return int64(float64(m.Sentences) * memDensePer)
}

// MemoryEstimator keeps the sums EstimateBuildMemory needs as a corpus
// grows, so that checking them after every record costs only the new
// records. Its zero value counts nothing yet.
type MemoryEstimator struct {
	text, sum           float64
	contexts, sentences int // how many of the corpus's records are counted
}

// Update counts the records appended to c since the last call.
func (e *MemoryEstimator) Update(c *Corpus) {
	for ; e.contexts < len(c.Contexts); e.contexts++ {
		e.text += float64(len(c.Contexts[e.contexts].Text))
	}
	for ; e.sentences < len(c.Sentences); e.sentences++ {
		if id := int(c.Sentences[e.sentences].ContextID); id < len(c.Contexts) {
			e.sum += float64(len(c.Contexts[id].Text))
		}
	}
}

// Bytes returns the estimate for the records counted.
func (e *MemoryEstimator) Bytes(dense bool) int64 {
	est := memPerTextByte*e.text + memPerContextByte*e.sum + memPerSentence*float64(e.sentences) + memPerContext*float64(e.contexts) + memFixed
	if dense {
		est += memDenseFixed + memDensePer*float64(e.sentences)
	}
	return int64(est)
}
