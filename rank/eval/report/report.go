// Package report turns evaluation outcomes into reqa's evaluation report:
// every ranker side by side, the sparse–dense analyses of the MultiReQA
// paper (top-1 disagreement, the oracle that is right when either ranker
// is, P@1 by question–answer token overlap), the sentence-only ablation,
// each ranker paired with the first question by question (the questions
// only one of the two answers first, and an exact sign test on them), every
// question's gold rank under every ranker (JSON), questions that every
// ranker gets wrong, and the fusion-weight sweep as an SVG plot. The same
// inputs always give byte-identical JSON and Markdown.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/reqa/reqa/rank/eval"
	"github.com/reqa/reqa/rank/fuse"
)

// Question is one evaluated question with what the analyses need.
type Question struct {
	ID   string
	Text string
	// Overlap is the fraction of the question's tokens that occur in its
	// (first) gold sentence.
	Overlap float64
	// Gold is the first gold sentence's text, for the failure examples.
	Gold string
}

// Run is one ranker's outcome on every question (same order as Questions).
type Run struct {
	Name    string
	Results []eval.QuestionResult
	Summary eval.Result
}

// Input is everything a report is built from.
type Input struct {
	Dataset, Split, Document string
	Candidates               int
	Questions                []Question
	Runs                     []Run
	// Ablation holds sentence-only runs of the same rankers, if made.
	Ablation []Run
	// Sparse and Dense name the two rankers compared by the disagreement
	// analysis (e.g. "bm25-wpm" and "dense").
	Sparse, Dense string
	// Fusions are the fusion parameters used, with their sweeps.
	Fusions []fuse.Params
	Sweep   []SweepSeries
	// TopText returns a candidate's text (for failure examples).
	TopText func(id uint32) string
}

// SweepSeries is one curve of the fusion-weight sweep: P@1 against the
// weight of the first fusion input.
type SweepSeries struct {
	Label  string            `json:"label"`
	Points []fuse.SweepPoint `json:"points"`
}

// Header says what was evaluated; `reqa eval --json` prints it with the
// results, and the full report starts with it.
type Header struct {
	Dataset    string `json:"dataset"`
	Split      string `json:"split"`
	Document   string `json:"document"`
	Questions  int    `json:"questions"`
	Candidates int    `json:"candidates"`
}

// Report is the evaluation report.
type Report struct {
	Header
	Results      []eval.Result   `json:"results"`
	Ablation     []eval.Result   `json:"ablation_sentence_only,omitempty"`
	Fusions      []fuse.Params   `json:"fusions,omitempty"`
	Disagreement *Disagreement   `json:"disagreement,omitempty"`
	Paired       []Paired        `json:"paired,omitempty"`
	Overlap      []OverlapBucket `json:"p_at_1_by_overlap,omitempty"`
	Failures     []Failure       `json:"both_fail_examples,omitempty"`
	Sweep        []SweepSeries   `json:"fusion_sweep,omitempty"`
	// Outcomes holds every question's gold rank under every ranker, in
	// question order (JSON only).
	Outcomes []Outcome `json:"questions,omitempty"`
}

// Paired compares one ranker's first answers with the baseline's (the
// first ranker evaluated), question by question: a P@1 difference is
// Wins − Losses questions, and P says how often a difference at least this
// lopsided comes from two rankers equally good (the two-sided exact sign
// test on Wins and Losses; ties, right or wrong under both, say nothing).
type Paired struct {
	Ranker   string `json:"ranker"`
	Baseline string `json:"baseline"`
	// Wins counts the questions only Ranker answers first, Losses those
	// only Baseline does.
	Wins   int     `json:"wins"`
	Losses int     `json:"losses"`
	P      float64 `json:"sign_test_p"`
}

// Outcome is one question's gold rank under each ranker (0: no gold
// among the candidates).
type Outcome struct {
	ID    string         `json:"id"`
	Ranks map[string]int `json:"ranks"`
}

// SignTest is the two-sided exact sign test of wins against losses: the
// probability, were each of the wins + losses questions a fair coin's
// toss, of a split at least as uneven.
func SignTest(wins, losses int) float64 {
	n := wins + losses
	if n == 0 {
		return 1
	}
	k := min(wins, losses)
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x + 1)); return v }
	var tail float64
	for i := 0; i <= k; i++ {
		tail += math.Exp(lg(n) - lg(i) - lg(n-i) - float64(n)*math.Ln2)
	}
	return math.Min(1, 2*tail)
}

// Disagreement compares the top-1 answers of a sparse and a dense ranker.
type Disagreement struct {
	Sparse string `json:"sparse"`
	Dense  string `json:"dense"`
	// TopDisagree is the percentage of questions whose first answers differ.
	TopDisagree float64 `json:"top1_disagreement"`
	// Oracle is the P@1 of an oracle that picks whichever is right.
	Oracle     float64 `json:"oracle_p_at_1"`
	BothRight  int     `json:"both_right"`
	SparseOnly int     `json:"sparse_only_right"`
	DenseOnly  int     `json:"dense_only_right"`
	BothWrong  int     `json:"both_wrong"`
}

// OverlapBucket is P@1 per ranker for questions in an overlap range.
type OverlapBucket struct {
	Range     string             `json:"range"`
	Questions int                `json:"questions"`
	P1        map[string]float64 `json:"p_at_1"`
}

// Failure is a question every ranker got wrong.
type Failure struct {
	Question string            `json:"question"`
	Gold     string            `json:"gold"`
	Top      map[string]string `json:"top_answers"`
}

// Build computes the report.
func Build(in Input) Report {
	r := Report{Header: Header{Dataset: in.Dataset, Split: in.Split, Document: in.Document, Questions: len(in.Questions), Candidates: in.Candidates}, Fusions: in.Fusions, Sweep: in.Sweep}
	runs := map[string]Run{}
	for _, run := range in.Runs {
		r.Results = append(r.Results, round(run.Summary))
		runs[run.Name] = run
	}
	for _, run := range in.Ablation {
		r.Ablation = append(r.Ablation, round(run.Summary))
	}
	sp, okS := runs[in.Sparse]
	de, okD := runs[in.Dense]
	if okS && okD && len(in.Questions) > 0 {
		d := &Disagreement{Sparse: in.Sparse, Dense: in.Dense}
		diff := 0
		for i := range in.Questions {
			a, b := sp.Results[i], de.Results[i]
			if a.Top != b.Top {
				diff++
			}
			switch {
			case a.Rank == 1 && b.Rank == 1:
				d.BothRight++
			case a.Rank == 1:
				d.SparseOnly++
			case b.Rank == 1:
				d.DenseOnly++
			default:
				d.BothWrong++
			}
		}
		n := float64(len(in.Questions))
		d.TopDisagree = r2(100 * float64(diff) / n)
		d.Oracle = r2(100 * float64(d.BothRight+d.SparseOnly+d.DenseOnly) / n)
		r.Disagreement = d
	}
	// Every ranker against the first, question by question.
	if len(in.Runs) > 1 {
		base := in.Runs[0]
		for _, run := range in.Runs[1:] {
			pr := Paired{Ranker: run.Name, Baseline: base.Name}
			for i := range in.Questions {
				a, b := run.Results[i].Rank == 1, base.Results[i].Rank == 1
				switch {
				case a && !b:
					pr.Wins++
				case b && !a:
					pr.Losses++
				}
			}
			pr.P = sig(SignTest(pr.Wins, pr.Losses))
			r.Paired = append(r.Paired, pr)
		}
	}
	if len(in.Runs) > 0 {
		for i, q := range in.Questions {
			o := Outcome{ID: q.ID, Ranks: map[string]int{}}
			for _, run := range in.Runs {
				o.Ranks[run.Name] = run.Results[i].Rank
			}
			r.Outcomes = append(r.Outcomes, o)
		}
	}
	// P@1 by overlap bucket.
	bounds := []float64{0, 0.2, 0.4, 0.6, 0.8, 1.0000001}
	for b := 0; b+1 < len(bounds); b++ {
		lo, hi := bounds[b], bounds[b+1]
		bk := OverlapBucket{Range: fmt.Sprintf("[%.1f, %.1f%s", lo, math.Min(hi, 1), map[bool]string{true: "]", false: ")"}[hi > 1]), P1: map[string]float64{}}
		var idx []int
		for i, q := range in.Questions {
			if q.Overlap >= lo && q.Overlap < hi {
				idx = append(idx, i)
			}
		}
		bk.Questions = len(idx)
		if len(idx) == 0 {
			continue
		}
		for _, run := range in.Runs {
			hits := 0
			for _, i := range idx {
				if run.Results[i].Rank == 1 {
					hits++
				}
			}
			bk.P1[run.Name] = r2(100 * float64(hits) / float64(len(idx)))
		}
		r.Overlap = append(r.Overlap, bk)
	}
	// Questions every ranker got wrong: the first few, in question order.
	for i, q := range in.Questions {
		if len(r.Failures) == 6 || len(in.Runs) == 0 {
			break
		}
		all := true
		for _, run := range in.Runs {
			if run.Results[i].Rank == 1 {
				all = false
				break
			}
		}
		if !all {
			continue
		}
		f := Failure{Question: q.Text, Gold: q.Gold, Top: map[string]string{}}
		for _, run := range in.Runs {
			if in.TopText != nil {
				f.Top[run.Name] = in.TopText(run.Results[i].Top)
			}
		}
		r.Failures = append(r.Failures, f)
	}
	return r
}

func r2(x float64) float64 { return math.Round(x*100) / 100 }

// sig rounds x to four significant digits (a p-value).
func sig(x float64) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	return f
}

func round(res eval.Result) eval.Result {
	res.PAt1, res.MRR, res.PAt5, res.RecallAt10 = r2(res.PAt1), r2(res.MRR), r2(res.PAt5), r2(res.RecallAt10)
	return res
}

// JSON returns the report as indented JSON (deterministic: maps are
// encoded with sorted keys).
func (r Report) JSON() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	enc.Encode(r)
	return b.Bytes()
}

// Markdown returns the report as Markdown. svgName, if set, is linked as
// the sweep plot.
func (r Report) Markdown(svgName string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# reqa evaluation: %s (%s split)\n\n", r.Dataset, r.Split)
	fmt.Fprintf(&b, "%d questions, %d candidates; documents: %s. Metrics in percent.\n\n", r.Questions, r.Candidates, r.Document)
	b.WriteString("| ranker | P@1 | MRR | P@5 | R@10 |\n|---|---:|---:|---:|---:|\n")
	for _, x := range r.Results {
		fmt.Fprintf(&b, "| %s | %.2f | %.2f | %.2f | %.2f |\n", x.Ranker, x.PAt1, x.MRR, x.PAt5, x.RecallAt10)
	}
	if len(r.Ablation) > 0 {
		b.WriteString("\n## Sentence-only ablation (no context in the candidate)\n\n| ranker | P@1 | MRR | P@5 | R@10 |\n|---|---:|---:|---:|---:|\n")
		for _, x := range r.Ablation {
			fmt.Fprintf(&b, "| %s | %.2f | %.2f | %.2f | %.2f |\n", x.Ranker, x.PAt1, x.MRR, x.PAt5, x.RecallAt10)
		}
	}
	if d := r.Disagreement; d != nil {
		fmt.Fprintf(&b, "\n## %s vs %s\n\n", d.Sparse, d.Dense)
		fmt.Fprintf(&b, "- top-1 answers differ on **%.2f%%** of questions\n", d.TopDisagree)
		fmt.Fprintf(&b, "- oracle (right when either is right): P@1 **%.2f**\n", d.Oracle)
		fmt.Fprintf(&b, "- both right %d, only %s right %d, only %s right %d, both wrong %d\n", d.BothRight, d.Sparse, d.SparseOnly, d.Dense, d.DenseOnly, d.BothWrong)
	}
	if len(r.Paired) > 0 {
		fmt.Fprintf(&b, "\n## Paired with %s, question by question\n\nQuestions only one of the two answers first, and the two-sided exact sign test on them.\n\n| ranker | right first only here | only under %s | sign test p |\n|---|---:|---:|---:|\n", r.Paired[0].Baseline, r.Paired[0].Baseline)
		for _, p := range r.Paired {
			fmt.Fprintf(&b, "| %s | %d | %d | %.4g |\n", p.Ranker, p.Wins, p.Losses, p.P)
		}
	}
	if len(r.Overlap) > 0 {
		var names []string
		for _, x := range r.Results {
			names = append(names, x.Ranker)
		}
		b.WriteString("\n## P@1 by question–answer token overlap\n\nOverlap: share of the question's WordPiece tokens found in the gold sentence.\n\n| overlap | questions |")
		for _, n := range names {
			fmt.Fprintf(&b, " %s |", n)
		}
		b.WriteString("\n|---|---:|" + strings.Repeat("---:|", len(names)) + "\n")
		for _, bk := range r.Overlap {
			fmt.Fprintf(&b, "| %s | %d |", bk.Range, bk.Questions)
			for _, n := range names {
				fmt.Fprintf(&b, " %.2f |", bk.P1[n])
			}
			b.WriteString("\n")
		}
	}
	if len(r.Fusions) > 0 {
		b.WriteString("\n## Fusion parameters (learned on the tune split only)\n\n")
		for _, p := range r.Fusions {
			fmt.Fprintf(&b, "- %s: %s over %s", p.Name, p.Method, strings.Join(p.Inputs, " + "))
			switch p.Method {
			case "rrf":
				fmt.Fprintf(&b, ", k = %g", p.K)
			case "adaptive":
				fmt.Fprintf(&b, ", margin bounds %v, bucket weights %v", p.Bounds, p.BucketWeights)
			case "rerank":
				if p.Rerank != nil {
					fmt.Fprintf(&b, ", a bilinear re-ranker of %d candidate × %d question features over the top %d of %s",
						len(p.Rerank.Features), len(p.Rerank.QFeatures), p.Rerank.Depth, strings.Join(p.Rerank.PoolInputs, ", "))
				}
			default:
				fmt.Fprintf(&b, ", weights %v", p.Weights)
			}
			if p.TunedOn != "" {
				fmt.Fprintf(&b, " (tuned on %s, P@1 there %.2f)", p.TunedOn, p.TuneP1)
			}
			b.WriteString("\n")
		}
	}
	if len(r.Sweep) > 0 && svgName != "" {
		fmt.Fprintf(&b, "\n## Fusion-weight sweep\n\n![P@1 against the weight of the first input](%s)\n", svgName)
	}
	if len(r.Failures) > 0 {
		b.WriteString("\n## Questions every ranker gets wrong (first few)\n\n")
		for _, f := range r.Failures {
			fmt.Fprintf(&b, "- **Q:** %s\n  - gold: %s\n", md(f.Question), md(f.Gold))
			names := make([]string, 0, len(f.Top))
			for n := range f.Top {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				fmt.Fprintf(&b, "  - %s: %s\n", n, md(f.Top[n]))
			}
		}
	}
	return []byte(b.String())
}

func md(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.NewReplacer("|", "\\|", "<", "&lt;", ">", "&gt;").Replace(s)
}

// SVG plots the sweep series: P@1 against the first input's weight.
func (r Report) SVG() []byte {
	const w, h, left, bottom, top, right = 640.0, 400.0, 60.0, 50.0, 30.0, 160.0
	minY, maxY := math.Inf(1), math.Inf(-1)
	for _, s := range r.Sweep {
		for _, p := range s.Points {
			minY, maxY = math.Min(minY, p.P1), math.Max(maxY, p.P1)
		}
	}
	if math.IsInf(minY, 0) {
		minY, maxY = 0, 100
	}
	minY, maxY = math.Floor(minY-1), math.Ceil(maxY+1)
	x := func(v float64) float64 { return left + v*(w-left-right) }
	y := func(v float64) float64 { return h - bottom - (v-minY)/(maxY-minY)*(h-bottom-top) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", left, h-bottom, w-right, h-bottom)
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", left, top, left, h-bottom)
	for i := 0; i <= 10; i += 2 {
		v := float64(i) / 10
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%.1f</text>`+"\n", x(v), h-bottom+16, v)
	}
	for k := 0; k <= 4; k++ {
		v := minY + (maxY-minY)*float64(k)/4
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%.1f</text>`+"\n", left-6, y(v)+4, v)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, y(v), w-right, y(v))
	}
	label := "weight of the first input"
	if len(r.Fusions) > 0 && len(r.Fusions[0].Inputs) > 0 {
		label = "weight of " + r.Fusions[0].Inputs[0] + " (rest to the other input)"
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", (left+w-right)/2, h-12, esc(label))
	fmt.Fprintf(&b, `<text x="14" y="%.1f" transform="rotate(-90 14 %.1f)" text-anchor="middle">P@1 (%%)</text>`+"\n", (top+h-bottom)/2, (top+h-bottom)/2)
	colors := []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"}
	for i, s := range r.Sweep {
		c := colors[i%len(colors)]
		var pts []string
		for _, p := range s.Points {
			if len(p.Weights) == 0 {
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(p.Weights[0]), y(p.P1)))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", c, strings.Join(pts, " "))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="%s">%s</text>`+"\n", w-right+8, top+16+float64(i)*18, c, esc(s.Label))
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
