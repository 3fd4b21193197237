package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/store"
)

// Pseudo-questions for label-free adaptation (`reqa tune --self`): made from
// the indexed text itself, each with the sentences that answer it.
const (
	// SelfHeading: a context's heading (the last part of its heading path,
	// the first line of a document's context) asks for its sentences.
	SelfHeading = "heading"
	// SelfCloze: a sentence with its most salient words (highest inverse
	// sentence frequency) removed asks for that sentence (inverse cloze).
	SelfCloze = "cloze"
	// SelfDefinition: "X is a/an/the …" asks "what is X?".
	SelfDefinition = "definition"
)

// SelfKinds lists the pseudo-question kinds in canonical order.
var SelfKinds = []string{SelfHeading, SelfCloze, SelfDefinition}

// SelfOptions control SelfQuestions.
type SelfOptions struct {
	// Kinds are the pseudo-question kinds to make (default: all).
	Kinds []string
	// Max bounds the number of pseudo-questions (default 4000), drawn
	// evenly from the kinds that have any.
	Max int
	// Seed draws the sample.
	Seed uint64
}

var (
	wordRE = regexp.MustCompile(`[\p{L}\p{N}][\p{L}\p{N}'_\-]*`)
	// definition: "[The|A|An] X is|are a|an|the Y", X of 1–5 words.
	definitionRE = regexp.MustCompile(`^(?:(?:The|A|An) )?([\p{L}\p{N}][\p{L}\p{N}\-_.]*(?: [\p{L}\p{N}\-_.]+){0,4}) (?:is|are) (?:a|an|the|used to|what) `)
)

// SelfQuestions makes pseudo-questions from the index's own text, each
// with its gold sentences, and a group per question (its context: the
// adapter's validation then holds out whole contexts). Deterministic for a
// seed.
func SelfQuestions(e *rank.Index, opt SelfOptions) ([]Question, []int, error) {
	kinds := opt.Kinds
	if len(kinds) == 0 {
		kinds = SelfKinds
	}
	for _, k := range kinds {
		if !slices.Contains(SelfKinds, k) {
			return nil, nil, fmt.Errorf("pseudo-question kind %q: want one of %s", k, strings.Join(SelfKinds, ", "))
		}
	}
	if opt.Max <= 0 {
		opt.Max = 4000
	}
	ctxs, err := e.Store().Contexts()
	if err != nil {
		return nil, nil, err
	}
	bySrc := map[string][]selfQ{}
	for _, k := range kinds {
		switch k {
		case SelfHeading:
			bySrc[k] = headingQuestions(ctxs, e.Sentences())
		case SelfCloze:
			bySrc[k] = clozeQuestions(ctxs, e.Sentences())
		case SelfDefinition:
			bySrc[k] = definitionQuestions(ctxs, e.Sentences())
		}
	}
	picked := sampleSelf(kinds, bySrc, opt.Max, opt.Seed)
	if len(picked) == 0 {
		return nil, nil, fmt.Errorf("index %s: no text to make pseudo-questions of (kinds %s)", e.Store().Path(), strings.Join(kinds, ", "))
	}
	qs := make([]Question, len(picked))
	groups := make([]int, len(picked))
	for i, p := range picked {
		qs[i] = Question{ID: fmt.Sprintf("self-%s-%d", p.kind, i), Text: p.text, Gold: p.gold}
		groups[i] = int(p.ctx)
	}
	return qs, groups, nil
}

type selfQ struct {
	kind, text string
	gold       []uint32
	ctx        uint32
}

// sampleSelf draws up to limit questions, the same share from every kind
// (a kind with fewer gives its rest to the others).
func sampleSelf(kinds []string, by map[string][]selfQ, limit int, seed uint64) []selfQ {
	rng := rand.New(rand.NewPCG(seed, 0x5e1f))
	var out []selfQ
	left := slices.Clone(kinds)
	budget := limit
	for len(left) > 0 && budget > 0 {
		share := max(1, budget/len(left))
		var next []string
		for _, k := range left {
			qs := by[k]
			rng.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
			n := min(share, len(qs), budget)
			out = append(out, qs[:n]...)
			by[k] = qs[n:]
			budget -= n
			if len(by[k]) > 0 {
				next = append(next, k)
			}
		}
		left = next
	}
	return out
}

// headingQuestions: for every context that starts with a heading line (a
// first line holding no sentence), the heading path's last part asks for
// the context's sentences.
func headingQuestions(ctxs []store.Context, ss []store.Sentence) []selfQ {
	first := map[uint32]int{}
	sents := map[uint32][]uint32{}
	for _, s := range ss {
		if _, ok := first[s.ContextID]; !ok {
			first[s.ContextID] = s.Start
		}
		sents[s.ContextID] = append(sents[s.ContextID], s.ID)
	}
	var out []selfQ
	for _, c := range ctxs {
		nl := strings.IndexByte(c.Text, '\n')
		start, ok := first[c.ID]
		if nl <= 0 || !ok || start <= nl {
			continue
		}
		h := c.Text[:nl]
		if i := strings.LastIndex(h, "›"); i >= 0 {
			h = h[i+len("›"):]
		}
		h = strings.TrimSpace(h)
		if len(wordRE.FindAllString(h, -1)) == 0 {
			continue
		}
		out = append(out, selfQ{kind: SelfHeading, text: h, gold: sents[c.ID], ctx: c.ID})
	}
	return out
}

// clozeQuestions: every sentence of at least six words, without its two
// rarest words (inverse sentence frequency), asks for itself.
func clozeQuestions(ctxs []store.Context, ss []store.Sentence) []selfQ {
	words := make([][]string, len(ss))
	df := map[string]int{}
	for i, s := range ss {
		if int(s.ContextID) >= len(ctxs) {
			continue
		}
		ws := wordRE.FindAllString(s.Text(ctxs[s.ContextID]), -1)
		words[i] = ws
		seen := map[string]bool{}
		for _, w := range ws {
			lw := strings.ToLower(w)
			if !seen[lw] {
				seen[lw] = true
				df[lw]++
			}
		}
	}
	var out []selfQ
	for i, ws := range words {
		if len(ws) < 6 {
			continue
		}
		type wi struct {
			idf float64
			at  int
		}
		var cand []wi
		for at, w := range ws {
			if unicode.IsLetter([]rune(w)[0]) || unicode.IsDigit([]rune(w)[0]) {
				cand = append(cand, wi{math.Log(float64(len(ss)) / float64(df[strings.ToLower(w)])), at})
			}
		}
		sort.SliceStable(cand, func(a, b int) bool { return cand[a].idf > cand[b].idf })
		drop := map[int]bool{}
		for _, c := range cand[:min(2, len(cand))] {
			drop[c.at] = true
		}
		var kept []string
		for at, w := range ws {
			if !drop[at] {
				kept = append(kept, w)
			}
		}
		out = append(out, selfQ{kind: SelfCloze, text: strings.Join(kept, " "), gold: []uint32{ss[i].ID}, ctx: ss[i].ContextID})
	}
	return out
}

// definitionQuestions: "X is a …" asks "what is X?".
func definitionQuestions(ctxs []store.Context, ss []store.Sentence) []selfQ {
	var out []selfQ
	for _, s := range ss {
		if int(s.ContextID) >= len(ctxs) {
			continue
		}
		m := definitionRE.FindStringSubmatch(strings.TrimSpace(s.Text(ctxs[s.ContextID])))
		if m == nil {
			continue
		}
		out = append(out, selfQ{kind: SelfDefinition, text: "what is " + m[1] + "?", gold: []uint32{s.ID}, ctx: s.ContextID})
	}
	return out
}
