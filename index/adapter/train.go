package adapter

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"

	"github.com/reqa/reqa/index/dense"
	"github.com/reqa/reqa/internal/metric"
)

// Data is a training set: question embeddings with the rows of Answers that
// answer them.
type Data struct {
	// Questions are the frozen (unadapted) unit question embeddings.
	Questions [][]float32
	// Gold lists, per question, the rows of Answers holding an answer.
	// Questions without gold are skipped.
	Gold [][]uint32
	// Answers are the answer-tower vectors the ranker scores against.
	Answers dense.Vectors
	// Context maps every row of Answers to its context id; hard negatives
	// need it (nil otherwise).
	Context []uint32
	// Group, if set, names a group (e.g. the article) for every question;
	// the validation hold-out then takes whole groups, so that early
	// stopping measures transfer to unseen topics as the test split does.
	Group []int
}

// Options configure Train. Zero values take the defaults noted.
type Options struct {
	// Kind is the adapter's shape (default Linear).
	Kind Kind
	// Hidden is the rank of a LowRank adapter (default 64) or the hidden
	// width of an MLP (default 256).
	Hidden int
	// Epochs bounds the passes over the training questions (default 10).
	Epochs int
	// Batch is the number of questions per in-batch softmax (default 256).
	Batch int
	// Temperature τ divides the dot products (default 0.03).
	Temperature float64
	// LR is Adam's learning rate (default 1e-3 for Linear and LowRank,
	// 5e-4 for MLP).
	LR float64
	// WeightDecay is the decoupled weight decay on the residual weights:
	// every step shrinks them by the factor 1 − LR·WeightDecay, which for
	// Linear is the pull toward the identity. On SQuAD a strong pull works
	// best (see BENCHMARKS.md). Negative means none; 0 takes the default
	// 100. LR·WeightDecay must stay below 1.
	WeightDecay float64
	// Seed fixes initialisation, the validation hold-out and every shuffle.
	Seed uint64
	// ValFraction of the questions is held out for early stopping (default
	// 0.1; negative means none, the last epoch is kept).
	ValFraction float64
	// Patience is the number of epochs without a better validation P@1
	// before training stops (default 3).
	Patience int
	// HardNegatives adds, for every question of a batch, the other
	// sentences of its gold sentence's context as extra negatives.
	HardNegatives bool
	// MaxHard bounds the hard negatives per question (default 8).
	MaxHard int
	// Negatives adds this many answers drawn at random from all of Answers
	// to every batch as extra shared negatives (0: in-batch only).
	Negatives int
	// AllGolds draws each question's positive among all its gold answers
	// every epoch instead of always using the first.
	AllGolds bool
	// EncoderHash is recorded in the adapter (the index's encoder hash).
	EncoderHash string
	// Workers bounds the goroutines of the matrix loops (default
	// GOMAXPROCS). Results do not depend on it.
	Workers int
	// Progress, if set, is called after every batch and every epoch.
	Progress func(Progress)
}

// Progress reports training state.
type Progress struct {
	// Epoch is 1-based; Batch is the batch just done (0 at an epoch's end).
	Epoch, Epochs, Batch, Batches int
	// Loss is the mean training loss of the epoch so far.
	Loss float64
	// ValP1 and ValMRR (percent) are set at an epoch's end when there is a
	// validation set.
	ValP1, ValMRR float64
	// EpochDone marks the report at the end of an epoch.
	EpochDone bool
}

// Report summarises a training run.
type Report struct {
	// TrainQuestions and ValQuestions count the questions used.
	TrainQuestions, ValQuestions int
	// Epochs is the number of epochs run; BestEpoch the one kept (0: the
	// identity was best).
	Epochs, BestEpoch int
	// BaseValP1 and BaseValMRR are the validation metrics without the
	// adapter; ValP1 and ValMRR those of the adapter kept (percent).
	BaseValP1, BaseValMRR, ValP1, ValMRR float64
	// Losses holds the mean training loss of every epoch.
	Losses []float64
}

func (o *Options) defaults() {
	if o.Kind == 0 {
		o.Kind = Linear
	}
	if o.Hidden <= 0 {
		o.Hidden = 64
		if o.Kind == MLP {
			o.Hidden = 256
		}
	}
	if o.Epochs <= 0 {
		o.Epochs = 10
	}
	if o.Batch <= 0 {
		o.Batch = 256
	}
	if o.Temperature <= 0 {
		o.Temperature = 0.03
	}
	if o.LR <= 0 {
		o.LR = 1e-3
		if o.Kind == MLP {
			o.LR = 5e-4
		}
	}
	switch {
	case o.WeightDecay == 0:
		o.WeightDecay = 100
	case o.WeightDecay < 0:
		o.WeightDecay = 0
	}
	switch {
	case o.ValFraction == 0:
		o.ValFraction = 0.1
	case o.ValFraction < 0:
		o.ValFraction = 0
	}
	if o.Patience <= 0 {
		o.Patience = 3
	}
	if o.MaxHard <= 0 {
		o.MaxHard = 8
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
}

// Train fits an adapter to data with the in-batch softmax objective and
// returns it with a report. It is deterministic for opt.Seed.
func Train(ctx context.Context, data Data, opt Options) (*Adapter, Report, error) {
	opt.defaults()
	var rep Report
	dim := data.Answers.Dim
	if dim <= 0 || data.Answers.Len() == 0 {
		return nil, rep, fmt.Errorf("adapter: no answer vectors")
	}
	if len(data.Gold) != len(data.Questions) {
		return nil, rep, fmt.Errorf("adapter: %d gold lists for %d questions", len(data.Gold), len(data.Questions))
	}
	if opt.LR*opt.WeightDecay >= 1 {
		return nil, rep, fmt.Errorf("adapter: learning rate %g × weight decay %g ≥ 1 would wipe the weights every step", opt.LR, opt.WeightDecay)
	}
	if opt.HardNegatives && len(data.Context) != data.Answers.Len() {
		return nil, rep, fmt.Errorf("adapter: hard negatives need the context of all %d answers, got %d", data.Answers.Len(), len(data.Context))
	}
	if opt.Kind != Linear && opt.Hidden > dim {
		opt.Hidden = dim
	}
	ad, err := newAdapter(opt.Kind, dim, opt.Hidden, opt.EncoderHash)
	if err != nil {
		return nil, rep, err
	}
	// Usable questions: right width, at least one gold in range.
	var usable []int
	for i, q := range data.Questions {
		if len(q) != dim {
			return nil, rep, fmt.Errorf("adapter: question %d has width %d, answers %d", i, len(q), dim)
		}
		for _, g := range data.Gold[i] {
			if int(g) < data.Answers.Len() {
				usable = append(usable, i)
				break
			}
		}
	}
	if len(usable) < 2 {
		return nil, rep, fmt.Errorf("adapter: %d questions with gold answers, need at least 2", len(usable))
	}
	if data.Group != nil && len(data.Group) != len(data.Questions) {
		return nil, rep, fmt.Errorf("adapter: %d groups for %d questions", len(data.Group), len(data.Questions))
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x5eed_ada9))
	val, train := holdOut(rng, usable, data.Group, opt.ValFraction)
	nVal := len(val)
	rep.TrainQuestions, rep.ValQuestions = len(train), len(val)

	// Initialise: the residual's output weights stay zero, so training
	// starts at the identity; the input weights are random.
	if opt.Kind != Linear {
		for i := range ad.a {
			ad.a[i] = float32(rng.NormFloat64())
		}
	}
	var byCtx [][]uint32
	if opt.HardNegatives {
		nctx := 0
		for _, c := range data.Context {
			nctx = max(nctx, int(c)+1)
		}
		byCtx = make([][]uint32, nctx)
		for i, c := range data.Context {
			byCtx[c] = append(byCtx[c], uint32(i))
		}
	}
	valQ, valGold := pick(data.Questions, val), pickGold(data.Gold, val)
	if nVal > 0 {
		rep.BaseValP1, rep.BaseValMRR = Evaluate(nil, valQ, valGold, data.Answers, opt.Workers)
		rep.ValP1, rep.ValMRR = rep.BaseValP1, rep.BaseValMRR
	}
	best := append([]float32(nil), ad.p...)

	t := newTrainer(ad, opt, data, byCtx)
	batches := (len(train) + opt.Batch - 1) / opt.Batch
	stale := 0
	for ep := 1; ep <= opt.Epochs; ep++ {
		rng.Shuffle(len(train), func(i, j int) { train[i], train[j] = train[j], train[i] })
		var lossSum float64
		for b := 0; b < batches; b++ {
			if err := ctx.Err(); err != nil {
				return nil, rep, err
			}
			rows := train[b*opt.Batch : min((b+1)*opt.Batch, len(train))]
			pos := make([]uint32, len(rows))
			for i, r := range rows {
				pos[i] = firstGold(data.Gold[r], data.Answers.Len())
				if opt.AllGolds {
					pos[i] = randomGold(rng, data.Gold[r], data.Answers.Len())
				}
			}
			lossSum += t.step(rng, rows, pos)
			if opt.Progress != nil {
				opt.Progress(Progress{Epoch: ep, Epochs: opt.Epochs, Batch: b + 1, Batches: batches, Loss: lossSum / float64(b+1)})
			}
		}
		rep.Epochs = ep
		rep.Losses = append(rep.Losses, lossSum/float64(batches))
		pr := Progress{Epoch: ep, Epochs: opt.Epochs, Batches: batches, Loss: lossSum / float64(batches), EpochDone: true}
		if nVal == 0 {
			copy(best, ad.p)
			rep.BestEpoch = ep
		} else {
			p1, mrr := Evaluate(ad, valQ, valGold, data.Answers, opt.Workers)
			pr.ValP1, pr.ValMRR = p1, mrr
			if p1 > rep.ValP1 || p1 == rep.ValP1 && mrr > rep.ValMRR {
				rep.ValP1, rep.ValMRR, rep.BestEpoch = p1, mrr, ep
				copy(best, ad.p)
				stale = 0
			} else {
				stale++
			}
		}
		if opt.Progress != nil {
			opt.Progress(pr)
		}
		if nVal > 0 && stale >= opt.Patience {
			break
		}
	}
	copy(ad.p, best)
	return ad, rep, nil
}

// holdOut splits the usable questions into validation and training sets:
// a random fraction of the questions, or of the groups when groups are set
// (whole groups go to validation until it holds the fraction).
func holdOut(rng *rand.Rand, usable []int, group []int, frac float64) (val, train []int) {
	want := int(math.Round(frac * float64(len(usable))))
	want = min(want, len(usable)-1)
	if group == nil {
		rng.Shuffle(len(usable), func(i, j int) { usable[i], usable[j] = usable[j], usable[i] })
		return usable[:want], append([]int(nil), usable[want:]...)
	}
	// Groups in order of first appearance, then shuffled.
	var order []int
	members := map[int][]int{}
	for _, q := range usable {
		g := group[q]
		if _, ok := members[g]; !ok {
			order = append(order, g)
		}
		members[g] = append(members[g], q)
	}
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	for _, g := range order {
		if len(val) < want && len(val)+len(members[g]) < len(usable) {
			val = append(val, members[g]...)
		} else {
			train = append(train, members[g]...)
		}
	}
	rng.Shuffle(len(train), func(i, j int) { train[i], train[j] = train[j], train[i] })
	return val, train
}

func pick(qs [][]float32, idx []int) [][]float32 {
	out := make([][]float32, len(idx))
	for i, j := range idx {
		out[i] = qs[j]
	}
	return out
}

func pickGold(gs [][]uint32, idx []int) [][]uint32 {
	out := make([][]uint32, len(idx))
	for i, j := range idx {
		out[i] = gs[j]
	}
	return out
}

func firstGold(g []uint32, n int) uint32 {
	for _, x := range g {
		if int(x) < n {
			return x
		}
	}
	return 0
}

func randomGold(rng *rand.Rand, g []uint32, n int) uint32 {
	var ok []uint32
	for _, x := range g {
		if int(x) < n {
			ok = append(ok, x)
		}
	}
	return ok[rng.IntN(len(ok))]
}

// trainer holds the optimiser state and scratch buffers.
type trainer struct {
	ad             *Adapter
	opt            Options
	data           Data
	byCtx          [][]uint32
	grad           []float32
	m, v           []float32
	steps          int
	gd, ga, gb, gc []float32
}

func newTrainer(ad *Adapter, opt Options, data Data, byCtx [][]uint32) *trainer {
	n := len(ad.p)
	t := &trainer{ad: ad, opt: opt, data: data, byCtx: byCtx, grad: make([]float32, n), m: make([]float32, n), v: make([]float32, n)}
	g := &Adapter{Kind: ad.Kind, Dim: ad.Dim, Hidden: ad.Hidden, p: t.grad}
	g.views()
	t.gd, t.ga, t.gb, t.gc = g.d, g.a, g.b, g.c
	return t
}

// step runs one batch: forward, in-batch softmax loss, backward, Adam. It
// returns the batch's mean loss.
func (t *trainer) step(rng *rand.Rand, rows []int, pos []uint32) float64 {
	ad, dim, hd, W := t.ad, t.ad.Dim, t.ad.Hidden, t.opt.Workers
	n := len(rows)
	q := make([]float32, n*dim)
	for i, r := range rows {
		copy(q[i*dim:], t.data.Questions[r])
	}
	// Forward: h = q + delta(q); u = h/‖h‖.
	h := append([]float32(nil), q...)
	var z []float32
	switch ad.Kind {
	case Linear:
		mulABtAdd(q, ad.d, h, n, dim, dim, W)
	default:
		z = make([]float32, n*hd)
		mulABtAdd(q, ad.a, z, n, hd, dim, W)
		if ad.Kind == MLP {
			for i := 0; i < n; i++ {
				for k := 0; k < hd; k++ {
					v := z[i*hd+k] + ad.b[k]
					z[i*hd+k] = max(v, 0)
				}
			}
		}
		mulABtAdd(z, ad.c, h, n, dim, hd, W)
	}
	u := h
	nrm := make([]float32, n)
	for i := 0; i < n; i++ {
		nrm[i] = normalize(u[i*dim : (i+1)*dim])
	}
	// Columns: the positives (deduplicated), then hard negatives.
	col := map[uint32]int{}
	var cols []uint32
	posCol := make([]int, n)
	add := func(id uint32) int {
		if j, ok := col[id]; ok {
			return j
		}
		col[id] = len(cols)
		cols = append(cols, id)
		return len(cols) - 1
	}
	for i, p := range pos {
		posCol[i] = add(p)
	}
	if t.opt.HardNegatives {
		for i, p := range pos {
			taken := 0
			for _, s := range t.byCtx[t.data.Context[p]] {
				if taken >= t.opt.MaxHard {
					break
				}
				if isGold(t.data.Gold[rows[i]], s) {
					continue
				}
				add(s)
				taken++
			}
		}
	}
	for k := 0; k < t.opt.Negatives; k++ {
		add(uint32(rng.IntN(t.data.Answers.Len())))
	}
	nc := len(cols)
	cm := make([]float32, nc*dim)
	for j, id := range cols {
		copy(cm[j*dim:], t.data.Answers.Row(int(id)))
	}
	s := make([]float32, n*nc)
	mulABtAdd(u, cm, s, n, nc, dim, W)
	// Softmax over each row (other golds of the row masked out); the
	// gradient of the mean loss w.r.t. the logits, with 1/τ folded in.
	inv := 1 / t.opt.Temperature
	var loss float64
	g := make([]float32, n*nc)
	for i := 0; i < n; i++ {
		row := s[i*nc : (i+1)*nc]
		mx := math.Inf(-1)
		for j, x := range row {
			if j != posCol[i] && isGold(t.data.Gold[rows[i]], cols[j]) {
				continue
			}
			mx = math.Max(mx, float64(x)*inv)
		}
		var sum float64
		for j, x := range row {
			if j != posCol[i] && isGold(t.data.Gold[rows[i]], cols[j]) {
				continue
			}
			sum += math.Exp(float64(x)*inv - mx)
		}
		lse := mx + math.Log(sum)
		loss += lse - float64(row[posCol[i]])*inv
		gr := g[i*nc : (i+1)*nc]
		for j, x := range row {
			if j != posCol[i] && isGold(t.data.Gold[rows[i]], cols[j]) {
				continue
			}
			p := math.Exp(float64(x)*inv - lse)
			if j == posCol[i] {
				p--
			}
			gr[j] = float32(p * inv / float64(n))
		}
	}
	// gu = G·C, then through the normalisation: gh = (gu − u(u·gu))/‖h‖.
	gh := make([]float32, n*dim)
	parallel(n, W, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out := gh[i*dim : (i+1)*dim]
			for j, x := range g[i*nc : (i+1)*nc] {
				if x != 0 {
					axpy(out, x, cm[j*dim:(j+1)*dim])
				}
			}
			ui := u[i*dim : (i+1)*dim]
			d := dot(ui, out)
			for k := range out {
				out[k] = (out[k] - d*ui[k]) / nrm[i]
			}
		}
	})
	// Parameter gradients.
	clear(t.grad)
	switch ad.Kind {
	case Linear:
		mulAtB(gh, q, t.gd, n, dim, dim, W)
	default:
		mulAtB(gh, z, t.gc, n, dim, hd, W)
		ct := transpose(ad.c, dim, hd)
		gz := make([]float32, n*hd)
		mulABtAdd(gh, ct, gz, n, hd, dim, W)
		if ad.Kind == MLP {
			for i := range gz {
				if z[i] <= 0 {
					gz[i] = 0
				}
			}
			for i := 0; i < n; i++ {
				for k := 0; k < hd; k++ {
					t.gb[k] += gz[i*hd+k]
				}
			}
		}
		mulAtB(gz, q, t.ga, n, hd, dim, W)
	}
	t.adam()
	return loss / float64(n)
}

// adam applies one Adam step with decoupled weight decay on the residual
// weights (their pull toward the identity).
func (t *trainer) adam() {
	const b1, b2, eps = 0.9, 0.999, 1e-8
	t.steps++
	c1 := 1 - math.Pow(b1, float64(t.steps))
	c2 := 1 - math.Pow(b2, float64(t.steps))
	lr, wd := t.opt.LR, t.opt.WeightDecay
	p := t.ad.p
	for i, g := range t.grad {
		gf := float64(g)
		m := b1*float64(t.m[i]) + (1-b1)*gf
		v := b2*float64(t.v[i]) + (1-b2)*gf*gf
		t.m[i], t.v[i] = float32(m), float32(v)
		upd := (m / c1) / (math.Sqrt(v/c2) + eps)
		p[i] = float32(float64(p[i]) - lr*(upd+wd*float64(p[i])))
	}
}

func isGold(g []uint32, id uint32) bool {
	for _, x := range g {
		if x == id {
			return true
		}
	}
	return false
}

// Evaluate ranks every answer for each question (adapted by ad, or as is
// when ad is nil) by exact dot product and returns P@1 and MRR in percent,
// with reqa's rank semantics: a gold's rank counts the answers scoring
// higher, ties going to the lower id; a question's rank is its best gold's.
func Evaluate(ad *Adapter, qs [][]float32, gold [][]uint32, answers dense.Vectors, workers int) (p1, mrr float64) {
	if len(qs) == 0 {
		return 0, 0
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ranks := Ranks(ad, qs, gold, answers, workers)
	return metric.PAt(ranks, 1), metric.MRR(ranks)
}

// Ranks returns the 1-based rank of each question's best gold answer
// (answers.Len()+1 when it has none), as Evaluate computes it.
func Ranks(ad *Adapter, qs [][]float32, gold [][]uint32, answers dense.Vectors, workers int) []int {
	ranks := make([]int, len(qs))
	na := answers.Len()
	parallel(len(qs), max(workers, 1), func(lo, hi int) {
		scores := make([]float64, na)
		for i := lo; i < hi; i++ {
			q := qs[i]
			if ad != nil {
				q = ad.Apply(q)
			}
			dense.ScoreAll(answers, q, scores)
			best := na + 1
			for _, g := range gold[i] {
				if int(g) >= na {
					continue
				}
				sg := scores[g]
				r := 1
				for d, sd := range scores {
					if sd > sg || sd == sg && d < int(g) {
						r++
					}
				}
				best = min(best, r)
			}
			ranks[i] = best
		}
	})
	return ranks
}
