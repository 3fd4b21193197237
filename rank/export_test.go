package rank

// Unshared returns a copy of f that scores each dense input on its own
// (no scoreShared): the reference the shared pass is tested against.
func Unshared(f *FusedRanker) *FusedRanker {
	g := &FusedRanker{params: f.params, inputs: f.inputs, scorers: f.scorers, corpus: f.corpus}
	g.pool.New = f.pool.New
	return g
}

// SetCombineMax sets the bound on combined answer vectors (combineMax) and
// returns what restores it: tests set it to 0 to score by mixing.
func SetCombineMax(n int64) (restore func()) {
	old := combineMax
	combineMax = n
	return func() { combineMax = old }
}

// Repeated is repeated: weighted query tokens as an engine's BM25 query
// sends them.
var Repeated = repeated

// SetStoredAnswers sets whether rankers read the answer vectors an index
// stores (useStoredAnswers) and returns what restores it: tests turn it
// off to score as an index without them is scored.
func SetStoredAnswers(on bool) (restore func()) {
	old := useStoredAnswers
	useStoredAnswers = on
	return func() { useStoredAnswers = old }
}

// SetPooled sets whether a file's fusions are pooled when they can be
// (usePooled) and returns what restores it.
func SetPooled(on bool) (restore func()) {
	old := usePooled
	usePooled = on
	return func() { usePooled = old }
}

// QuestionEngine is what embeds x's questions (encoder.Engine), once a
// dense ranker has loaded the encoder; "" before.
func QuestionEngine(x *Index) string {
	if x.dense == nil || x.dense.enc == nil {
		return ""
	}
	return x.dense.enc.Engine()
}
