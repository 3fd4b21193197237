package ingest

// EstimateBuildMemory returns a rough estimate, in bytes, of the peak
// memory `reqa index` needs to index c (with embeddings when dense). The
// build holds every posting in memory, and a sentence's BM25 document is
// the sentence plus its whole context, so the dominant term is the sum over
// sentences of their context's length. The coefficients were fitted to
// peak RSS measured on the development VM (RELIABILITY.md, Limits: 1 MB of
// paragraphs 111 MB, 10 MB on one line 2.06 GB, a million one-sentence
// files 3.49 GB; with embeddings ≈ 300 MB fixed and ≈ 4.5 KB per sentence);
// it errs low by about a quarter on SQuAD (estimate 478 MB, measured
// 625 MB), so use it to refuse builds that clearly cannot fit, not as a
// promise.
func EstimateBuildMemory(c *Corpus, dense bool) int64 {
	const (
		perContextByte = 3.3    // × Σ over sentences of len(context)
		perSentence    = 3400   // bytes per sentence (records, doc lengths, tokens)
		fixed          = 70e6   // runtime, tokenizer vocabularies
		denseFixed     = 300e6  // model + ONNX Runtime
		densePer       = 4500.0 // vectors, mixed vectors, graph
	)
	var sum float64
	for _, s := range c.Sentences {
		if int(s.ContextID) < len(c.Contexts) {
			sum += float64(len(c.Contexts[s.ContextID].Text))
		}
	}
	est := perContextByte*sum + perSentence*float64(len(c.Sentences)) + fixed
	if dense {
		est += denseFixed + densePer*float64(len(c.Sentences))
	}
	return int64(est)
}
