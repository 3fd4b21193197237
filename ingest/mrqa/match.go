package mrqa

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// Matching annotated contexts to input contexts by text.
//
// MultiReQA names an annotated context by the MRQA question ids of its
// questions. SQuAD JSON has SQuAD's own ids instead, so an annotated context
// is found by where its sentences fall in the text: its last sentence ends
// where the text's last non-space character does, it has no more question
// ids than the paragraph has questions, and its sentence ends agree with the
// places where a sentence plainly ends (".", "?" or "!", closing quotes or
// brackets, then white space). Among the candidates of one length, pairs are
// made greedily, the pair that beats its runner-up by most first.

// fitScore scores how well an annotated context's sentences fit a text:
// two points per sentence end that is a plain sentence end of the text,
// minus one per sentence end that is not and per plain sentence end that is
// no sentence end, minus five per sentence that starts with white space or
// follows text that is not white space.
func fitScore(runes []rune, g *annGroup) int {
	e := len(runes)
	for e > 0 && unicode.IsSpace(runes[e-1]) {
		e--
	}
	plain := map[int]bool{}
	for i := 0; i < e; i++ {
		if runes[i] != '.' && runes[i] != '?' && runes[i] != '!' {
			continue
		}
		j := i + 1
		for j < e && strings.ContainsRune(`"'”’)]}`, runes[j]) {
			j++
		}
		if j < e && unicode.IsSpace(runes[j]) {
			plain[j] = true
		}
	}
	last := g.lastEnd()
	ends := map[int]bool{}
	score := 0
	spans := append([]annSpan(nil), g.spans...)
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	prev := 0
	for _, s := range spans {
		if s.end != last {
			ends[s.end] = true
		}
		if s.start < len(runes) && unicode.IsSpace(runes[s.start]) {
			score -= 5
		}
		for k := prev; k < s.start && k < len(runes); k++ {
			if !unicode.IsSpace(runes[k]) {
				score -= 5
				break
			}
		}
		prev = max(prev, s.end)
	}
	for p := range ends {
		if plain[p] {
			score += 2
		} else {
			score--
		}
	}
	for p := range plain {
		if !ends[p] {
			score--
		}
	}
	return score
}

// textLen is a text's length in code points, trailing white space left
// out.
func textLen(runes []rune) int {
	e := len(runes)
	for e > 0 && unicode.IsSpace(runes[e-1]) {
		e--
	}
	return e
}

// matchByText pairs units (plain-layout contexts without a qid match) with
// unused annotated contexts of their dataset by fitting the boundaries to
// the text.
func (c *converter) matchByText(units []*unit) {
	if len(units) == 0 {
		return
	}
	br := c.rep.Boundaries
	type inp struct {
		u     *unit
		runes []rune
		nq    int
	}
	byLen := map[string]map[int][]int{} // dataset → text length → unit indices
	inps := make([]inp, len(units))
	for i, u := range units {
		r := []rune(u.ctx.Text)
		inps[i] = inp{u: u, runes: r, nq: len(u.ctx.QIDs)}
		m := byLen[u.ds.Name]
		if m == nil {
			m = map[int][]int{}
			byLen[u.ds.Name] = m
		}
		m[textLen(r)] = append(m[textLen(r)], i)
	}
	// Annotated contexts by dataset and last end, in file order.
	type bucketKey struct {
		ds  string
		end int
	}
	buckets := map[bucketKey][]*annGroup{}
	var keys []bucketKey
	for _, g := range c.ann.order {
		if g.used || byLen[g.dataset] == nil {
			continue
		}
		k := bucketKey{g.dataset, g.lastEnd()}
		if buckets[k] == nil {
			keys = append(keys, k)
		}
		buckets[k] = append(buckets[k], g)
	}
	type score struct{ fit, sameQ int }
	better := func(a, b score) bool { return a.fit > b.fit || (a.fit == b.fit && a.sameQ > b.sameQ) }
	for _, k := range keys {
		groups := buckets[k]
		cand := byLen[k.ds][k.end]
		if len(cand) == 0 {
			continue
		}
		scores := map[[2]int]score{}
		ok := map[[2]int]bool{}
		for gi, g := range groups {
			for _, ui := range cand {
				in := inps[ui]
				if len(g.qids) > in.nq || g.spans[len(g.spans)-1].end > len(in.runes) {
					continue
				}
				s := score{fit: fitScore(in.runes, g)}
				if len(g.qids) == in.nq {
					s.sameQ = 1
				}
				scores[[2]int{gi, ui}] = s
				ok[[2]int{gi, ui}] = true
			}
		}
		leftG := map[int]bool{}
		for gi := range groups {
			leftG[gi] = true
		}
		leftU := map[int]bool{}
		for _, ui := range cand {
			leftU[ui] = true
		}
		for len(leftG) > 0 && len(leftU) > 0 {
			bestG, bestU := -1, -1
			var bestS score
			var bestMargin score
			bestTie := false
			for gi := range groups {
				if !leftG[gi] {
					continue
				}
				first, second := -1, -1
				for _, ui := range cand {
					if !leftU[ui] || !ok[[2]int{gi, ui}] {
						continue
					}
					s := scores[[2]int{gi, ui}]
					switch {
					case first < 0 || better(s, scores[[2]int{gi, first}]):
						first, second = ui, first
					case second < 0 || better(s, scores[[2]int{gi, second}]):
						second = ui
					}
				}
				if first < 0 {
					continue
				}
				s := scores[[2]int{gi, first}]
				m := score{1 << 30, 0}
				tie := false
				if second >= 0 {
					t := scores[[2]int{gi, second}]
					m = score{s.fit - t.fit, s.sameQ - t.sameQ}
					tie = m.fit == 0 && m.sameQ == 0
				}
				if bestG < 0 || better(m, bestMargin) || (m == bestMargin && better(s, bestS)) {
					bestG, bestU, bestS, bestMargin, bestTie = gi, first, s, m, tie
				}
			}
			if bestG < 0 {
				break
			}
			g, u := groups[bestG], inps[bestU].u
			g.used = true
			u.group = g
			u.byTxt = true
			br.Matched++
			br.ByText++
			if bestTie {
				br.Ambiguous++
			}
			if bestS.fit < 0 {
				br.TextFitMismatch++
				if len(br.TextFitMismatchX) < c.opt.MaxExamples {
					br.TextFitMismatchX = append(br.TextFitMismatchX, fmt.Sprintf("%s: best annotated context %s fits poorly (score %d)", u.where(), truncate(g.key, 60), bestS.fit))
				}
			}
			delete(leftG, bestG)
			delete(leftU, bestU)
		}
	}
}
