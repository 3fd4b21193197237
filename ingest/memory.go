package ingest

// EstimateBuildMemory returns a rough estimate, in bytes, of the peak
// memory `reqa index` needs to index c (with embeddings when dense). The
// BM25 build holds one tokenizer's postings at a time, and a sentence's
// BM25 document is the sentence plus its whole context, so the dominant
// term is the sum over sentences of their context's length; the index file
// being written, mapped by bbolt, counts too. The coefficients were fitted
// to peak RSS measured on the development VM (BENCHMARKS.md, "Build
// memory": 1, 10 and 100 MB of paragraphs, 10 and 100 MB on one line,
// 200,000 one-sentence files, SQuAD) and err high by 4–39% on all of them;
// with embeddings ≈ 300 MB fixed and ≈ 4.5 KB per sentence. Use it to
// refuse builds that clearly cannot fit, not as a promise.
func EstimateBuildMemory(c *Corpus, dense bool) int64 {
	const (
		perContextByte = 1.1    // × Σ over sentences of len(context)
		perSentence    = 600    // bytes per sentence (records, document lengths)
		perContext     = 150    // bytes per context
		fixed          = 45e6   // runtime, tokenizer vocabularies
		denseFixed     = 300e6  // model + ONNX Runtime
		densePer       = 4500.0 // vectors, mixed vectors, graph
	)
	var sum float64
	for _, s := range c.Sentences {
		if int(s.ContextID) < len(c.Contexts) {
			sum += float64(len(c.Contexts[s.ContextID].Text))
		}
	}
	est := perContextByte*sum + perSentence*float64(len(c.Sentences)) + perContext*float64(len(c.Contexts)) + fixed
	if dense {
		est += denseFixed + densePer*float64(len(c.Sentences))
	}
	return int64(est)
}
