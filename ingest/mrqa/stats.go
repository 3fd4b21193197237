package mrqa

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/reqa/reqa/index/tokenize"
	"github.com/reqa/reqa/ingest"
)

// DatasetStats describes one dataset of a ReQA directory, as the
// MultiReQA paper's Tables 3 and 4 do. Lengths are mean token counts;
// overlaps are mean fractions of a question's distinct word tokens (lower
// case, with a letter or digit) that also occur in its answer sentence or in
// that sentence's context, taking the best gold sentence when there are
// several.
type DatasetStats struct {
	Dataset    string `json:"dataset"`
	Questions  int    `json:"questions"`
	Candidates int    `json:"candidates"`
	Contexts   int    `json:"contexts"`
	// QuestionLen is the mean question length; AnswerLen the mean length of
	// gold sentences over (question, gold sentence) pairs; CandidateLen the
	// mean length of all candidates; ContextLen the mean context length.
	QuestionLen  float64 `json:"question_tokens"`
	AnswerLen    float64 `json:"answer_tokens"`
	CandidateLen float64 `json:"candidate_tokens"`
	ContextLen   float64 `json:"context_tokens"`
	// QAOverlap and QCOverlap are the question–answer-sentence and
	// question–context token overlaps.
	QAOverlap float64 `json:"question_answer_overlap"`
	QCOverlap float64 `json:"question_context_overlap"`
}

// Stats describes a ReQA dataset directory per dataset (the prefix of the
// candidate ids, "SQuAD" in "SQuAD_…").
type Stats struct {
	Dir       string          `json:"dir"`
	Tokenizer string          `json:"tokenizer"`
	Datasets  []*DatasetStats `json:"datasets"`
	// All sums up every dataset when there are several.
	All *DatasetStats `json:"all,omitempty"`
}

// datasetOf is the dataset prefix of a candidate id.
func datasetOf(id, fallback string) string {
	if i := strings.IndexByte(id, '_'); i > 0 {
		return id[:i]
	}
	return fallback
}

// wordSet is the set of lower-cased tokens with a letter or digit.
func wordSet(toks []string) map[string]bool {
	m := make(map[string]bool, len(toks))
	for _, t := range toks {
		if strings.IndexFunc(t, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			m[strings.ToLower(t)] = true
		}
	}
	return m
}

func overlap(q, x map[string]bool) float64 {
	if len(q) == 0 {
		return 0
	}
	n := 0
	for t := range q {
		if x[t] {
			n++
		}
	}
	return float64(n) / float64(len(q))
}

// ComputeStats reads the ReQA dataset in dir and describes each dataset in
// it, tokenizing with tok (the paper's BM25 used word tokens: "word").
func ComputeStats(dir string, tok tokenize.Tokenizer) (*Stats, error) {
	d, err := ingest.ReadDataset(dir)
	if err != nil {
		return nil, err
	}
	c := d.Corpus
	fallback := filepath.Base(filepath.Clean(dir))
	type acc struct {
		s                                   *DatasetStats
		qLen, aLen, candLen, ctxLen, qa, qc float64
		aN, ctxN, ovN                       int
		ctxSeen                             map[uint32]bool
	}
	var order []*acc
	by := map[string]*acc{}
	get := func(name string) *acc {
		a := by[name]
		if a == nil {
			a = &acc{s: &DatasetStats{Dataset: name}, ctxSeen: map[uint32]bool{}}
			by[name] = a
			order = append(order, a)
		}
		return a
	}
	sentLen := make([]int, len(c.Sentences))
	ctxTok := map[uint32][]string{}
	ctxTokens := func(id uint32) []string {
		t, ok := ctxTok[id]
		if !ok {
			t = tok.Tokenize(c.Contexts[id].Text)
			ctxTok[id] = t
		}
		return t
	}
	sentIdx := make(map[string]int, len(c.Sentences))
	for i, s := range c.Sentences {
		sentIdx[s.ExtID] = i
		a := get(datasetOf(s.ExtID, fallback))
		a.s.Candidates++
		sentLen[i] = len(tok.Tokenize(s.Text(c.Contexts[s.ContextID])))
		a.candLen += float64(sentLen[i])
		if !a.ctxSeen[s.ContextID] {
			a.ctxSeen[s.ContextID] = true
			a.s.Contexts++
			a.ctxLen += float64(len(ctxTokens(s.ContextID)))
			a.ctxN++
		}
	}
	ctxSets := map[uint32]map[string]bool{}
	for _, q := range d.Questions {
		if len(q.Gold) == 0 {
			continue
		}
		a := get(datasetOf(q.Gold[0], fallback))
		a.s.Questions++
		qt := tok.Tokenize(q.Text)
		a.qLen += float64(len(qt))
		qs := wordSet(qt)
		bestA, bestC := 0.0, 0.0
		for _, g := range q.Gold {
			i, ok := sentIdx[g]
			if !ok {
				continue
			}
			s := c.Sentences[i]
			a.aLen += float64(sentLen[i])
			a.aN++
			bestA = max(bestA, overlap(qs, wordSet(tok.Tokenize(s.Text(c.Contexts[s.ContextID])))))
			cs, ok := ctxSets[s.ContextID]
			if !ok {
				cs = wordSet(ctxTokens(s.ContextID))
				ctxSets[s.ContextID] = cs
			}
			bestC = max(bestC, overlap(qs, cs))
		}
		if len(qs) > 0 {
			a.qa += bestA
			a.qc += bestC
			a.ovN++
		}
	}
	mean := func(sum float64, n int) float64 {
		if n == 0 {
			return 0
		}
		return sum / float64(n)
	}
	st := &Stats{Dir: dir, Tokenizer: tok.Name()}
	var all acc
	all.s = &DatasetStats{Dataset: "all"}
	for _, a := range order {
		a.s.QuestionLen = mean(a.qLen, a.s.Questions)
		a.s.AnswerLen = mean(a.aLen, a.aN)
		a.s.CandidateLen = mean(a.candLen, a.s.Candidates)
		a.s.ContextLen = mean(a.ctxLen, a.ctxN)
		a.s.QAOverlap = mean(a.qa, a.ovN)
		a.s.QCOverlap = mean(a.qc, a.ovN)
		st.Datasets = append(st.Datasets, a.s)
		all.s.Questions += a.s.Questions
		all.s.Candidates += a.s.Candidates
		all.s.Contexts += a.s.Contexts
		all.qLen += a.qLen
		all.aLen += a.aLen
		all.aN += a.aN
		all.candLen += a.candLen
		all.ctxLen += a.ctxLen
		all.ctxN += a.ctxN
		all.qa += a.qa
		all.qc += a.qc
		all.ovN += a.ovN
	}
	if len(order) > 1 {
		all.s.QuestionLen = mean(all.qLen, all.s.Questions)
		all.s.AnswerLen = mean(all.aLen, all.aN)
		all.s.CandidateLen = mean(all.candLen, all.s.Candidates)
		all.s.ContextLen = mean(all.ctxLen, all.ctxN)
		all.s.QAOverlap = mean(all.qa, all.ovN)
		all.s.QCOverlap = mean(all.qc, all.ovN)
		st.All = all.s
	}
	return st, nil
}

// WriteTable prints the statistics as an aligned table.
func (s *Stats) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "%s (tokens: %s)\n\n", s.Dir, s.Tokenizer)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "dataset\tquestions\tcandidates\tcontexts\tquestion len\tanswer len\tcandidate len\tcontext len\tq–a overlap\tq–c overlap\t")
	rows := s.Datasets
	if s.All != nil {
		rows = append(append([]*DatasetStats(nil), rows...), s.All)
	}
	for _, d := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.3f\t%.3f\t\n", d.Dataset, d.Questions, d.Candidates, d.Contexts,
			d.QuestionLen, d.AnswerLen, d.CandidateLen, d.ContextLen, d.QAOverlap, d.QCOverlap)
	}
	return tw.Flush()
}
