//go:build weaviatescale

// The scale measurement runs only with -tags weaviatescale
// (make bench-weaviate): REQA_WEAVIATE_SCALE sentences (default 100,000)
// of synthetic tokens and synthetic unit vectors of dimension
// REQA_WEAVIATE_DIM (default 512, USE-Lite's), then the same questions
// asked of every engine named in REQA_WEAVIATE_ENGINES (default
// "embedded,1,3"):
//
//   - embedded: index/bm25 and index/ann built in this process (the BM25
//     field is also written to a bbolt index file to measure its size);
//   - N (a number): a local Weaviate cluster of N nodes on 127.0.0.1, the
//     collection in N shards with replication factor
//     min(N, REQA_WEAVIATE_REPLICAS) (default 3) and, with more than one
//     node, consistency level QUORUM for writes and reads.
//
// For each engine it logs the import (build) rate, BM25 and nearVector
// latency (p50/p99 over sequential questions), queries/s with
// REQA_WEAVIATE_CONC (default 4) concurrent clients, recall@10 of the
// vector search against exact search, peak RSS, on-disk size and the load
// average next to each, then one table of all of them.

package weaviate

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/reqa/reqa/index/ann"
	"github.com/reqa/reqa/index/bm25"
	"github.com/reqa/reqa/store"
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// scaleRow is one engine's measurements.
type scaleRow struct {
	engine                 string
	importDur              time.Duration
	importLoad             string
	importCPU              time.Duration // CPU time the import took (all the engine's processes)
	bp50, bp99, vp50, vp99 time.Duration
	latLoad                string
	bqps, vqps             float64
	qpsLoad                string
	recall                 float64
	rss                    string // peak RSS, MiB (one per process)
	disk                   string // on-disk size, MiB
}

// cpuTime is the user + system CPU time of process pid ("self" for this
// one) so far, from /proc/PID/stat (clock ticks of 10 ms).
func cpuTime(pid string) time.Duration {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // fields from the 3rd on
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// loadavg returns the 1-minute load average.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

// procKB reads a "Field: N kB" line of /proc/PID/status.
func procKB(pid, field string) int64 {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return -1
}

// diskUsage is the space the files under dir take (allocated blocks).
func diskUsage(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				if st, ok := fi.Sys().(*syscall.Stat_t); ok {
					n += st.Blocks * 512
				} else {
					n += fi.Size()
				}
			}
		}
		return nil
	})
	return n
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// timeQueries asks question 0..nq-1 once in turn (latencies) and then
// passes×nq questions from conc goroutines (throughput).
func timeQueries(t *testing.T, nq, conc, passes int, ask func(worker, i int, seq bool) error) (lat []time.Duration, qps float64) {
	t.Helper()
	for i := 0; i < nq; i++ {
		q0 := time.Now()
		if err := ask(0, i, true); err != nil {
			t.Fatalf("question %d: %v", i, err)
		}
		lat = append(lat, time.Since(q0))
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr atomic.Value
	t0 := time.Now()
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1)) - 1
				if k >= nq*passes {
					return
				}
				if err := ask(w, k%nq, false); err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, _ := firstErr.Load().(error); err != nil {
		t.Fatal(err)
	}
	return lat, float64(nq*passes) / time.Since(t0).Seconds()
}

func TestWeaviateScale(t *testing.T) {
	n, dim, nq := envInt("REQA_WEAVIATE_SCALE", 100_000), envInt("REQA_WEAVIATE_DIM", 512), 500
	conc, passes, maxRF := envInt("REQA_WEAVIATE_CONC", 4), 2, envInt("REQA_WEAVIATE_REPLICAS", 3)
	engines := strings.Split(cmpOr(os.Getenv("REQA_WEAVIATE_ENGINES"), "embedded,1,3"), ",")
	var bin string
	for _, e := range engines {
		if e != "embedded" {
			bin = serverBinary(t)
			break
		}
	}
	t0 := time.Now()
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string { u := r.Float64(); return words[int(float64(len(words))*u*u*u)] }
	sent := func() []string {
		s := make([]string, 5+r.IntN(10))
		for i := range s {
			s[i] = word()
		}
		return s
	}
	// Contexts of 5 sentences: a document is the sentence then its context.
	tokens := make([][]string, n)
	for c := 0; c < n; c += 5 {
		var ctx []string
		var ss [][]string
		for i := c; i < min(c+5, n); i++ {
			s := sent()
			ss = append(ss, s)
			ctx = append(ctx, s...)
		}
		for i, s := range ss {
			tokens[c+i] = append(slices.Clip(s), ctx...)
		}
	}
	vectors := make([]float32, 0, n*dim)
	for i := 0; i < n; i++ {
		vectors = append(vectors, unit(r, dim)...)
	}
	qs := make([][]string, nq)
	qv := make([][]float32, nq)
	for i := range qs {
		qs[i] = sent()[:4]
		qv[i] = unit(r, dim)
	}
	const nRecall = 100
	exact := make([]map[int]bool, nRecall)
	for i := range exact {
		exact[i] = map[int]bool{}
		for _, h := range ann.Exact(vectors, dim, qv[i], 10) {
			exact[i][int(h.ID)] = true
		}
	}
	t.Logf("generated %d synthetic sentences (vocabulary %d words, dim %d unit vectors), %d questions and exact top 10 of %d in %v; load %s",
		n, len(words), dim, nq, nRecall, time.Since(t0).Round(time.Millisecond), loadavg())
	at := func(i int) (Sentence, error) {
		return Sentence{ID: i, Text: "s", Context: "c", Tokens: tokens[i], Vector: vectors[i*dim : (i+1)*dim]}, nil
	}

	var rows []scaleRow
	for _, e := range engines {
		var row scaleRow
		if e == "embedded" {
			row = scaleEmbedded(t, n, dim, nq, conc, passes, tokens, vectors, qs, qv, exact)
		} else {
			nodes, err := strconv.Atoi(e)
			if err != nil || nodes < 1 {
				t.Fatalf("REQA_WEAVIATE_ENGINES: %q is neither \"embedded\" nor a node count", e)
			}
			row = scaleWeaviate(t, bin, nodes, min(nodes, maxRF), n, dim, nq, conc, passes, at, qs, qv, exact)
		}
		rows = append(rows, row)
	}

	var sb strings.Builder
	fmt.Fprintf(&sb, "%d synthetic sentences, dim %d, %d questions, %d concurrent clients for q/s (load = 1-min load average at the end of that step)\n\n", n, dim, nq, conc)
	sb.WriteString("| engine | import s/s (load) | import CPU ms/sentence | BM25 p50 / p99 | nearVector p50 / p99 (load) | BM25 q/s | nearVector q/s (load) | recall@10 | peak RSS MiB | disk MiB |\n")
	sb.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, w := range rows {
		fmt.Fprintf(&sb, "| %s | %.0f in %v (%s) | %.2f | %v / %v | %v / %v (%s) | %.0f | %.0f (%s) | %.3f | %s | %s |\n",
			w.engine, float64(n)/w.importDur.Seconds(), w.importDur.Round(time.Second), w.importLoad, float64(w.importCPU.Microseconds())/1000/float64(n),
			w.bp50, w.bp99, w.vp50, w.vp99, w.latLoad, w.bqps, w.vqps, w.qpsLoad, w.recall, w.rss, w.disk)
	}
	t.Logf("table:\n%s", sb.String())
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// scaleEmbedded builds index/bm25 and index/ann in process and queries them.
func scaleEmbedded(t *testing.T, n, dim, nq, conc, passes int, tokens [][]string, vectors []float32, qs [][]string, qv [][]float32, exact []map[int]bool) scaleRow {
	row := scaleRow{engine: "embedded (index/bm25 + index/ann, in process)"}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heap0 := ms.HeapInuse
	rss0 := procKB("self", "VmRSS")
	// Reset VmHWM to the current RSS (Linux ≥ 4.0), so the peak below is
	// the build's (the generated corpus stays resident throughout).
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)

	t0, cpu0 := time.Now(), cpuTime("self")
	b := bm25.NewBuilder()
	for _, toks := range tokens {
		b.Add(toks)
	}
	field := bm25.FromBuilder(b, "wpm-ctx", "wpm", true, bm25.Params{Variant: "lucene", K1: BM25K1, B: BM25B})
	tBM25 := time.Since(t0)
	t1 := time.Now()
	g := ann.New(dim, ann.Config{})
	g.Grow(n)
	last := time.Now()
	for i := 0; i < n; i++ {
		if _, err := g.Add(vectors[i*dim : (i+1)*dim]); err != nil {
			t.Fatal(err)
		}
		if time.Since(last) > time.Minute {
			t.Logf("  HNSW %d/%d after %v, load %s", i, n, time.Since(t1).Round(time.Second), loadavg())
			last = time.Now()
		}
	}
	tANN := time.Since(t1)
	row.importDur, row.importLoad, row.importCPU = time.Since(t0), loadavg(), cpuTime("self")-cpu0
	hwm := procKB("self", "VmHWM")
	runtime.GC()
	runtime.ReadMemStats(&ms)
	heapIdx := int64(ms.HeapInuse) - int64(heap0)

	// Size on disk: the BM25 field written to a bbolt index file
	// (measured), the HNSW graph as MarshalBinary encodes it (measured
	// length) and the vectors as float32 (n·dim·4, derived).
	path := filepath.Join(t.TempDir(), "scale.reqa")
	w, err := store.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.WriteField(context.Background(), w, "wpm-ctx", nil); err != nil {
		w.Abort()
		t.Fatal(err)
	}
	if err := w.Commit(store.Meta{Sentences: n, Fields: []store.FieldMeta{b.Stats("wpm-ctx", "wpm", true)}}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	gb, err := g.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	vecBytes := int64(n) * int64(dim) * 4
	row.disk = fmt.Sprintf("%.0f (BM25 file %.0f + graph %.0f + vectors %.0f)", mib(fi.Size()+int64(len(gb))+vecBytes), mib(fi.Size()), mib(int64(len(gb))), mib(vecBytes))
	gbLen := len(gb)
	gb = nil
	b = nil
	row.rss = fmt.Sprintf("%.0f (process; %.0f before the build; Go heap of the indexes %.0f)", float64(hwm)/1024, float64(rss0)/1024, mib(heapIdx))
	t.Logf("embedded: bm25 built in %v, HNSW (M 16, efConstruction 200, one writer) in %v (%.0f vectors/s); load %s; peak RSS %s; BM25 file %d bytes, graph %d bytes",
		tBM25.Round(time.Millisecond), tANN.Round(time.Millisecond), float64(n)/tANN.Seconds(), row.importLoad, row.rss, fi.Size(), gbLen)

	accs := make([]*bm25.Accumulator, conc)
	for i := range accs {
		accs[i] = bm25.NewAccumulator(field.Docs())
	}
	// Beam width 100: Weaviate's dynamic ef for a limit of 10
	// (max(8·limit, dynamicEfMin 100), capped at dynamicEfMax 500).
	const ef = 100
	lb, bqps := timeQueries(t, nq, conc, passes, func(w, i int, seq bool) error {
		accs[w].Reset()
		field.Score(qs[i], accs[w])
		accs[w].TopK(10)
		return nil
	})
	var recall float64
	la, vqps := timeQueries(t, nq, conc, passes, func(w, i int, seq bool) error {
		res := g.Search(qv[i], 10, ef)
		if seq && i < len(exact) {
			for _, h := range res {
				if exact[i][int(h.ID)] {
					recall += 0.1
				}
			}
		}
		return nil
	})
	row.bp50, row.bp99, row.vp50, row.vp99 = pct(lb, 50), pct(lb, 99), pct(la, 50), pct(la, 99)
	row.bqps, row.vqps, row.recall = bqps, vqps, recall/float64(len(exact))
	row.latLoad, row.qpsLoad = loadavg(), loadavg()
	t.Logf("embedded: bm25 p50 %v p99 %v, HNSW (ef 100) p50 %v p99 %v, %d clients: bm25 %.0f q/s, HNSW %.0f q/s (recall@10 %.3f); load %s",
		row.bp50, row.bp99, row.vp50, row.vp99, conc, bqps, vqps, row.recall, row.qpsLoad)
	runtime.KeepAlive(field)
	runtime.KeepAlive(g)
	return row
}

// scaleWeaviate starts a local cluster of nodes, imports the corpus into
// shards = nodes with replication factor rf, queries it and stops it.
func scaleWeaviate(t *testing.T, bin string, nodes, rf, n, dim, nq, conc, passes int, at func(int) (Sentence, error),
	qs [][]string, qv [][]float32, exact []map[int]bool) scaleRow {
	runtime.GC()
	row := scaleRow{engine: fmt.Sprintf("Weaviate %s, %d node(s), %d shard(s), RF %d", TestedVersion, nodes, nodes, rf)}
	cl := newCluster(t, bin, nodes)
	cl[0].Start()
	if nodes > 1 {
		cl[0].WaitGossip(2 * time.Minute)
		for _, nd := range cl[1:] {
			nd.Start()
		}
	}
	addrs := make([]string, nodes)
	for i, nd := range cl {
		nd.WaitReady(5 * time.Minute)
		addrs[i] = nd.Addr()
	}
	var opts []Option
	if nodes > 1 {
		opts = append(opts, WithConsistency("QUORUM"))
		row.engine += ", QUORUM"
	}
	c, err := New(strings.Join(addrs, ","), opts...)
	if err != nil {
		t.Fatal(err)
	}
	if nodes > 1 {
		waitHealthy(t, c, nodes, 3*time.Minute)
	}
	ctx := context.Background()
	spec := ImportSpec{Collection: "ReqaScale", ModelHash: "synthetic", Dim: dim, Count: n, BatchSize: 500,
		Layout: Layout{Replicas: rf, Shards: nodes}}
	cpus := func() (d time.Duration) {
		for _, nd := range cl {
			d += cpuTime(strconv.Itoa(nd.Pid()))
		}
		return d
	}
	t0, cpu0 := time.Now(), cpus()
	last := time.Now()
	spec.Progress = func(done, total int) {
		if time.Since(last) > time.Minute {
			t.Logf("  %d nodes: %d/%d after %v (%.0f/s), load %s", nodes, done, total, time.Since(t0).Round(time.Second),
				float64(done)/time.Since(t0).Seconds(), loadavg())
			last = time.Now()
		}
	}
	if err := c.Import(ctx, spec, at); err != nil {
		t.Fatal(err)
	}
	row.importDur, row.importLoad, row.importCPU = time.Since(t0), loadavg(), cpus()-cpu0
	t.Logf("%s: imported %d sentences in %v (%.0f sentences/s, batches of %d through node0; %v CPU in the nodes, %.2f ms per sentence); load %s",
		row.engine, n, row.importDur.Round(time.Millisecond), float64(n)/row.importDur.Seconds(), spec.BatchSize,
		row.importCPU.Round(time.Second), float64(row.importCPU.Microseconds())/1000/float64(n), row.importLoad)
	// Let the nodes flush their memtables (1 s after the last write).
	time.Sleep(3 * time.Second)
	col, err := c.Open(ctx, spec.Collection, spec.ModelHash)
	if err != nil {
		t.Fatal(err)
	}
	// Concurrent clients talk to the nodes in turn (each node coordinates
	// some of the questions); the sequential pass goes through node0.
	cols := make([]*Collection, conc)
	for w := range cols {
		cw, err := New(addrs[w%nodes], opts...)
		if err != nil {
			t.Fatal(err)
		}
		if cols[w], err = cw.Open(ctx, spec.Collection, spec.ModelHash); err != nil {
			t.Fatal(err)
		}
	}
	cols[0] = col
	lb, bqps := timeQueries(t, nq, conc, passes, func(w, i int, seq bool) error {
		_, err := cols[w].BM25(ctx, qs[i], 10)
		return err
	})
	var recall float64
	la, vqps := timeQueries(t, nq, conc, passes, func(w, i int, seq bool) error {
		hits, err := cols[w].NearVector(ctx, qv[i], 10)
		if err == nil && seq && i < len(exact) {
			for _, h := range hits {
				if exact[i][h.ID] {
					recall += 0.1
				}
			}
		}
		return err
	})
	row.bp50, row.bp99, row.vp50, row.vp99 = pct(lb, 50), pct(lb, 99), pct(la, 50), pct(la, 99)
	row.bqps, row.vqps, row.recall = bqps, vqps, recall/float64(len(exact))
	row.latLoad, row.qpsLoad = loadavg(), loadavg()
	var rss, disk []string
	var rssSum, nowSum, diskSum int64
	for _, nd := range cl {
		pid := strconv.Itoa(nd.Pid())
		h, now := procKB(pid, "VmHWM"), procKB(pid, "VmRSS")
		d := diskUsage(nd.Dir)
		rssSum += h * 1024
		nowSum += now * 1024
		diskSum += d
		rss = append(rss, fmt.Sprintf("%.0f", float64(h)/1024))
		disk = append(disk, fmt.Sprintf("%.0f", mib(d)))
	}
	row.rss = fmt.Sprintf("%.0f (%s; after the queries %.0f)", mib(rssSum), strings.Join(rss, " + "), mib(nowSum))
	row.disk = fmt.Sprintf("%.0f (%s)", mib(diskSum), strings.Join(disk, " + "))
	t.Logf("%s: bm25 p50 %v p99 %v, nearVector p50 %v p99 %v, %d clients: bm25 %.0f q/s, nearVector %.0f q/s (recall@10 vs exact %.3f); load %s; peak RSS MiB %s; disk MiB %s",
		row.engine, row.bp50, row.bp99, row.vp50, row.vp99, conc, bqps, vqps, row.recall, row.qpsLoad, row.rss, row.disk)
	for _, nd := range cl {
		nd.Stop()
	}
	// Free the data directories now (the next engine may need the space).
	for _, nd := range cl {
		os.RemoveAll(nd.Dir)
	}
	return row
}

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)].Round(10 * time.Microsecond)
}
