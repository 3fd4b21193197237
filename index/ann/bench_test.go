package ann

import (
	"fmt"
	mathrand "math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/coder/hnsw"
)

// Benchmark data sets: the 20k×384 set everywhere, the 200k×512 set (the
// size of a large reqa corpus at the dual encoder's width) only with
// REQA_BENCH_LARGE=1.
type benchSet struct {
	name    string
	n, nq   int
	dim     int
	seed    uint64
	enabled func() bool
	cfgs    []Config // construction parameters benchmarked
	efs     []int    // search beam widths benchmarked
	// load reads the set from disk (nil: synthesised from seed).
	load func() (dataset, error)
}

// m16 is hnswlib's usual construction setting, the one compared with
// testdata/hnswlib_bench.py; the large set also runs M=32, which pays off
// on its harder, high-dimensional clusters. REQA_BENCH_SEED replaces the
// graph seed (not the data's), to see how much recall varies with levels.
var (
	m16 = Config{M: 16, EfConstruction: 200, Seed: benchSeed()}
	m32 = Config{M: 32, EfConstruction: 200, Seed: benchSeed()}
)

func benchSeed() int64 {
	if s, err := strconv.ParseInt(os.Getenv("REQA_BENCH_SEED"), 10, 64); err == nil {
		return s
	}
	return 1
}

var benchSets = []benchSet{
	{
		name: "clustered-20000x384", n: 20000, nq: 500, dim: 384, seed: 1,
		enabled: func() bool { return true },
		cfgs:    []Config{m16},
		efs:     []int{10, 16, 20, 32, 64, 128},
	},
	{
		name: "clustered-200000x512", n: 200000, nq: 500, dim: 512, seed: 2,
		enabled: func() bool { return os.Getenv("REQA_BENCH_LARGE") == "1" },
		cfgs:    []Config{m16, m32},
		efs:     []int{32, 64, 128, 256, 512},
	},
	{
		// The SQuAD answer vectors and 2,000 question embeddings of a
		// reqa index, written by rank's TestWriteSQuADVectors into
		// $REQA_ANN_SQUAD (`make bench-peers`), so that this package and
		// testdata/hnswlib_bench.py --name squad build over the same data.
		name:    "squad",
		enabled: func() bool { return os.Getenv("REQA_ANN_SQUAD") != "" },
		cfgs:    []Config{m16},
		efs:     []int{10, 16, 20, 32, 64, 128},
		load: func() (dataset, error) {
			dir := os.Getenv("REQA_ANN_SQUAD")
			base, dim, err := readNpyF32(filepath.Join(dir, "squad-base.npy"))
			if err != nil {
				return dataset{}, err
			}
			qs, qdim, err := readNpyF32(filepath.Join(dir, "squad-queries.npy"))
			if err != nil {
				return dataset{}, err
			}
			if qdim != dim {
				return dataset{}, fmt.Errorf("%s: queries of width %d, base of width %d", dir, qdim, dim)
			}
			return dataset{dim: dim, base: base, queries: qs}, nil
		},
	},
}

// Fixtures are built once per test binary and shared between benchmarks.
var fixtures struct {
	sync.Mutex
	data   map[string]dataset
	truth  map[string][][]uint32
	graphs map[string]*Graph
	builds map[string]buildTime
	loaded map[string]dataset
}

// preload reads a set that comes from disk (others need nothing).
func preload(s benchSet) error {
	if s.load == nil {
		return nil
	}
	fixtures.Lock()
	defer fixtures.Unlock()
	if _, ok := fixtures.loaded[s.name]; ok {
		return nil
	}
	d, err := s.load()
	if err != nil {
		return fmt.Errorf("bench set %s: %w", s.name, err)
	}
	if fixtures.loaded == nil {
		fixtures.loaded = map[string]dataset{}
	}
	fixtures.loaded[s.name] = d
	return nil
}

// buildTime is a build's wall-clock and CPU time.
type buildTime struct{ wall, cpu time.Duration }

func (t buildTime) report(b *testing.B) {
	b.ReportMetric(t.wall.Seconds(), "build-s")
	b.ReportMetric(t.cpu.Seconds(), "build-cpu-s")
}

func fixture(s benchSet) (dataset, [][]uint32) {
	fixtures.Lock()
	defer fixtures.Unlock()
	if fixtures.data == nil {
		fixtures.data = map[string]dataset{}
		fixtures.truth = map[string][][]uint32{}
	}
	d, ok := fixtures.data[s.name]
	if !ok {
		if s.load != nil {
			d = fixtures.loaded[s.name] // read by preload
		} else {
			d = clusteredSet(s.n, s.nq, s.dim, s.seed)
		}
		fixtures.data[s.name] = d
		fixtures.truth[s.name] = groundTruth(d, 10)
	}
	return d, fixtures.truth[s.name]
}

func fixtureGraph(b *testing.B, s benchSet, cfg Config) (*Graph, buildTime) {
	d, _ := fixture(s)
	key := fmt.Sprintf("%s/%+v", s.name, cfg)
	fixtures.Lock()
	defer fixtures.Unlock()
	if fixtures.graphs == nil {
		fixtures.graphs = map[string]*Graph{}
		fixtures.builds = map[string]buildTime{}
	}
	if g, ok := fixtures.graphs[key]; ok {
		return g, fixtures.builds[key]
	}
	t0, c0 := time.Now(), cpuTime()
	g := buildGraph(b, d, cfg)
	fixtures.graphs[key] = g
	fixtures.builds[key] = buildTime{wall: time.Since(t0), cpu: cpuTime() - c0}
	return g, fixtures.builds[key]
}

// searchStats runs every query once for recall@10, then times single
// queries in the benchmark loop and reports recall@10, wall-clock p50-µs and
// p99-µs, and cpu-µs/op, the process CPU time per query.
func searchStats(b *testing.B, d dataset, gt [][]uint32, search func(q []float32) []Result) {
	recall := recallAt(10, gt, func(i int) []Result { return search(d.query(i)) })
	lat := make([]time.Duration, 0, 4096)
	i := 0
	c0 := cpuTime()
	for b.Loop() {
		t0 := time.Now()
		search(d.query(i % d.nq()))
		lat = append(lat, time.Since(t0))
		i++
	}
	cpu := cpuTime() - c0
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Nanoseconds()) / 1e3
	}
	b.ReportMetric(recall, "recall@10")
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
	b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(len(lat)), "cpu-µs/op")
}

// BenchmarkHNSW measures this package: recall@10 against Exact, query
// latency percentiles and build time, at several ef.
//
//	go test -run '^$' -bench 'BenchmarkHNSW$' -benchtime 2000x ./index/ann/
//	REQA_BENCH_LARGE=1 go test -run '^$' -bench 'BenchmarkHNSW$' -benchtime 2000x -timeout 2h ./index/ann/
func BenchmarkHNSW(b *testing.B) {
	for _, s := range benchSets {
		if !s.enabled() {
			continue
		}
		if err := preload(s); err != nil {
			b.Fatal(err)
		}
		for _, cfg := range s.cfgs {
			for _, ef := range s.efs {
				name := fmt.Sprintf("%s/M=%d/efC=%d/ef=%d", s.name, cfg.M, cfg.EfConstruction, ef)
				b.Run(name, func(b *testing.B) {
					// Inside the sub-benchmark, so a -bench filter that skips
					// this set does not build it; fixtures are cached.
					d, gt := fixture(s)
					g, build := fixtureGraph(b, s, cfg)
					searchStats(b, d, gt, func(q []float32) []Result { return g.Search(q, 10, ef) })
					build.report(b)
				})
			}
		}
	}
}

// BenchmarkExact is the brute-force reference Search is measured against.
func BenchmarkExact(b *testing.B) {
	s := benchSets[0]
	d, gt := fixture(s)
	b.Run(s.name, func(b *testing.B) {
		searchStats(b, d, gt, func(q []float32) []Result { return Exact(d.base, d.dim, q, 10) })
	})
}

// BenchmarkLoad measures Load of the 20k graph (validation included).
func BenchmarkLoad(b *testing.B) {
	s := benchSets[0]
	d, _ := fixture(s)
	g, _ := fixtureGraph(b, s, m16)
	data, err := g.MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Load(data, d.base, d.dim); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCoderHNSW reproduces the measurement of github.com/coder/hnsw
// v0.6.1 (the design card's choice) on the 20k set: recall@10 against Exact
// for EfSearch 20, 64 and 200, with the library's defaults otherwise (M=16,
// Ml=0.25, cosine distance) and a seeded generator.
//
//	go test -run '^$' -bench 'BenchmarkCoderHNSW$' -benchtime 500x ./index/ann/
func BenchmarkCoderHNSW(b *testing.B) {
	s := benchSets[0]
	d, gt := fixture(s)
	g := hnsw.NewGraph[uint32]()
	g.Rng = mathrand.New(mathrand.NewSource(1))
	t0, c0 := time.Now(), cpuTime()
	for i := range d.n() {
		g.Add(hnsw.MakeNode(uint32(i), d.vec(i)))
	}
	build := buildTime{wall: time.Since(t0), cpu: cpuTime() - c0}
	for _, ef := range []int{20, 64, 200} {
		b.Run(fmt.Sprintf("%s/M=%d/ef=%d", s.name, g.M, ef), func(b *testing.B) {
			g.EfSearch = ef
			searchStats(b, d, gt, func(q []float32) []Result {
				nodes := g.Search(q, 10)
				out := make([]Result, len(nodes))
				for i, n := range nodes {
					out[i] = Result{ID: n.Key}
				}
				return out
			})
			build.report(b)
		})
	}
}
