//go:build weaviate || weaviatecluster || weaviatescale

package weaviate

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/index/tokenize/wordpiece"
)

// words is a small hand-written vocabulary for synthetic sentences; the
// generator draws from it with Zipf-like weights, so frequent words make
// idf low (and, for gensim, negative) as in real text.
var words = strings.Fields(`the of and a to in is was for on that with as by it from at his an were
are which this be or has had not first one their its new after who they have her she two been other
when there all during into school also time would more year most only over city university some
world may between later many american these him than used state century known united such states
film during three war team early before since group season under several national called most
river bridge harbour ferry engine library museum garden tower castle village mountain island coast
ocean lake forest desert valley canal railway station airport market theatre cathedral palace
monastery fortress lighthouse windmill observatory orchestra choir painter sculptor poet novelist
composer architect engineer physicist chemist biologist astronomer mathematician philosopher
historian senator governor mayor admiral general emperor queen king prince duke bishop abbot
treaty charter constitution parliament council assembly tribunal court election referendum
rebellion revolution siege battle armistice alliance dynasty empire republic province county
district parish borough harvest famine plague flood earthquake eruption drought blizzard comet
eclipse telescope microscope compass sextant printing press steam turbine dynamo telegraph
telephone radio television computer satellite rocket submarine zeppelin locomotive tramway
aqueduct reservoir quarry foundry brewery distillery tannery mill warehouse granary orchard
vineyard meadow pasture hedge Déjà vu naïve café résumé façade 1066 1492 1789 1815 1914 1945
unbelievable misunderstanding reconstruction internationalization`)

// synthCorpus makes contexts of 3-6 sentences of 5-14 words each, the
// questions drawn from them (a few of a sentence's words plus noise), and
// unit vectors of dimension dim with question vectors near a target.
type synthCorpus struct {
	sentences []Sentence
	questions [][]string  // WordPiece tokens
	qvecs     [][]float32 // question vectors
	vectors   []float32   // flat, sentence i at [i·dim, (i+1)·dim)
	dim       int
}

func makeCorpus(t testing.TB, contexts, questions, dim int) *synthCorpus {
	t.Helper()
	tk, err := wordpiece.New()
	if err != nil {
		t.Fatalf("WordPiece vocabulary: %v (run `make assets`)", err)
	}
	r := rand.New(rand.NewPCG(15, 2026))
	word := func() string {
		// Zipf-like: index ~ len·u³.
		u := r.Float64()
		return words[int(float64(len(words))*u*u*u)]
	}
	c := &synthCorpus{dim: dim}
	var texts []string
	for ci := 0; ci < contexts; ci++ {
		n := 3 + r.IntN(4)
		sents := make([]string, n)
		for i := range sents {
			ws := make([]string, 5+r.IntN(10))
			for j := range ws {
				ws[j] = word()
			}
			sents[i] = strings.ToUpper(ws[0][:1]) + strings.Join(ws, " ")[1:] + "."
		}
		ctx := strings.Join(sents, " ")
		ctxTok := tk.Tokenize(ctx)
		for _, s := range sents {
			id := len(c.sentences)
			toks := append(tk.Tokenize(s), ctxTok...)
			c.sentences = append(c.sentences, Sentence{ID: id, Text: s, Context: ctx, Title: "Synthetic",
				Source: "synth", Tokens: toks, Vector: unit(r, dim)})
			texts = append(texts, s)
		}
	}
	for _, s := range c.sentences {
		c.vectors = append(c.vectors, s.Vector...)
	}
	for q := 0; q < questions; q++ {
		target := r.IntN(len(texts))
		ws := strings.Fields(strings.TrimSuffix(texts[target], "."))
		r.Shuffle(len(ws), func(i, j int) { ws[i], ws[j] = ws[j], ws[i] })
		ws = ws[:min(len(ws), 2+r.IntN(4))]
		ws = append(ws, word())
		c.questions = append(c.questions, tk.Tokenize("Which "+strings.Join(ws, " ")+"?"))
		// A question vector near its target's.
		v := unit(r, dim)
		tv := c.sentences[target].Vector
		for i := range v {
			v[i] = tv[i] + 0.6*v[i]
		}
		c.qvecs = append(c.qvecs, normalize(v))
	}
	return c
}

func unit(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return normalize(v)
}

func normalize(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	n := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= n
	}
	return v
}

func (c *synthCorpus) at(i int) (Sentence, error) { return c.sentences[i], nil }

// bm25Field is reqa's own BM25 over the same documents (sentence tokens
// then context tokens).
func (c *synthCorpus) bm25Field(params bm25.Params) *bm25.Field {
	b := bm25.NewBuilder()
	for _, s := range c.sentences {
		b.Add(s.Tokens)
	}
	return bm25.FromBuilder(b, "wpm-ctx", "wpm", true, params)
}

func topK(f *bm25.Field, q []string, k int) []bm25.Hit {
	a := bm25.NewAccumulator(f.Docs())
	f.Score(q, a)
	return a.TopK(k)
}
