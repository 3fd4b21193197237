package ingest

// EstimateBuildMemory returns a rough estimate, in bytes, of the peak
// memory `reqa index` needs to index c (with embeddings when dense). The
// BM25 build holds the text, one tokenizer's postings at a time — over
// contexts and over sentences, since sentence + context documents are
// stored as context postings — and the index file being written, mapped
// by bbolt. The coefficients were fitted to peak RSS measured on the
// development VM (BENCHMARKS.md, "Context layout": 1, 10 and 100 MB of
// paragraphs, 10 and 100 MB on one line, 200,000 one-sentence files,
// SQuAD) and err high by 14–51% on all of them; with embeddings ≈ 300 MB
// fixed and ≈ 4.5 KB per sentence. Use it to refuse builds that clearly
// cannot fit, not as a promise.
func EstimateBuildMemory(c *Corpus, dense bool) int64 {
	const (
		perTextByte    = 5.5    // × bytes of context text
		perContextByte = 0.01   // × Σ over sentences of len(context)
		perSentence    = 300    // bytes per sentence (records, document lengths)
		perContext     = 330    // bytes per context
		fixed          = 55e6   // runtime, tokenizer vocabularies
		denseFixed     = 300e6  // model + ONNX Runtime
		densePer       = 4500.0 // vectors, mixed vectors, graph
	)
	var sum, text float64
	for _, s := range c.Sentences {
		if int(s.ContextID) < len(c.Contexts) {
			sum += float64(len(c.Contexts[s.ContextID].Text))
		}
	}
	for _, x := range c.Contexts {
		text += float64(len(x.Text))
	}
	est := perTextByte*text + perContextByte*sum + perSentence*float64(len(c.Sentences)) + perContext*float64(len(c.Contexts)) + fixed
	if dense {
		est += denseFixed + densePer*float64(len(c.Sentences))
	}
	return int64(est)
}
