//go:build weaviatecluster || weaviatescale

// The 3-node fault test runs only with -tags weaviatecluster
// (make test-weaviate-cluster): it takes minutes and three servers. Its
// cluster helpers are shared with -tags weaviatescale (scale_test.go).

package weaviate

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestWeaviateCluster starts three nodes on loopback, imports a corpus with
// replication factor 3 over 3 shards, records every question's BM25 and
// nearVector answers, then runs the questions again while the node the
// client talks to first is SIGKILLed and later restarted: no question may
// fail and every answer must equal the healthy cluster's. Objects written
// while the node was down must reach it after it rejoins.
func TestWeaviateCluster(t *testing.T) {
	bin := serverBinary(t)
	nodes := newCluster(t, bin, 3)
	began := time.Now()
	nodes[0].Start()
	nodes[0].WaitGossip(2 * time.Minute) // the others join through it
	for _, nd := range nodes[1:] {
		nd.Start()
	}
	for _, nd := range nodes {
		nd.WaitReady(5 * time.Minute)
	}
	addrs := make([]string, len(nodes))
	for i, nd := range nodes {
		addrs[i] = nd.Addr()
	}
	c, err := New(strings.Join(addrs, ","), WithConsistency("QUORUM"),
		WithRetry(Retry{Attempts: 10, Base: 100 * time.Millisecond, Max: 2 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, c, 3, 3*time.Minute)
	t.Logf("3 nodes healthy in %v", time.Since(began).Round(time.Millisecond))

	corpus := makeCorpus(t, 400, 300, 32)
	layout := Layout{Replicas: 3, Shards: 3, AsyncReplication: true}
	s := ImportSpec{Collection: "ReqaCluster", ModelHash: "synthetic-32", Dim: corpus.dim, Count: len(corpus.sentences),
		BatchSize: 128, Layout: layout}
	t0 := time.Now()
	ctx, end := phase(t, "import", 10*time.Minute)
	if err := c.Import(ctx, s, corpus.at); err != nil {
		t.Fatalf("phase %q: %v", "import", err)
	}
	end()
	t.Logf("imported %d sentences (RF 3, 3 shards) in %v", s.Count, time.Since(t0).Round(time.Millisecond))
	// Every replica holds every object before the healthy answers are
	// taken: a write is acknowledged by a quorum, and a replica that
	// missed one (seen on a loaded machine: 1811 of 1813) is repaired by
	// async replication later. Its BM25 statistics meanwhile differ (N),
	// and so would its answers from the healthy ones.
	ctx, end = phase(t, "replicas in sync", 5*time.Minute)
	for {
		counts, err := shardCounts(ctx, c)
		synced := err == nil
		for _, nd := range nodes {
			synced = synced && counts[nd.Name+"/"+s.Collection] == s.Count
		}
		if synced || ctx.Err() != nil {
			if !synced {
				t.Logf("replica counts: %v (%v)", counts, err)
			}
			break
		}
		time.Sleep(2 * time.Second)
	}
	end()
	col, err := c.Open(context.Background(), s.Collection, s.ModelHash)
	if err != nil {
		t.Fatal(err)
	}

	type answer struct{ bm25, dense []Hit }
	ask := func(ctx context.Context, i int) (answer, error) {
		b, err := col.BM25(ctx, corpus.questions[i], 10)
		if err != nil {
			return answer{}, err
		}
		d, err := col.NearVector(ctx, corpus.qvecs[i], 10)
		return answer{b, d}, err
	}
	// The healthy answers, once two passes agree (the nodes flush their
	// memtables 1 s after writes; see PERSISTENCE_MEMTABLES_FLUSH_DIRTY_AFTER_SECONDS).
	healthy := make([]answer, len(corpus.questions))
	ctx, end = phase(t, "healthy answers", 10*time.Minute)
	for pass := 0; ; pass++ {
		same := 0
		for i := range healthy {
			a, err := ask(ctx, i)
			if err != nil {
				t.Fatalf("healthy question %d: %v", i, err)
			}
			if reflect.DeepEqual(a, healthy[i]) {
				same++
			}
			healthy[i] = a
		}
		if same == len(healthy) {
			t.Logf("healthy answers stable after %d passes", pass)
			break
		}
		if pass == 30 {
			t.Fatalf("healthy answers still change after %d passes (%d of %d the same)", pass, same, len(healthy))
		}
		time.Sleep(time.Second)
	}
	end()

	// The fault run: 3 passes over the questions; node0 (first in the
	// client's list) is killed during the first pass and restarted during
	// the second, while a second collection is written.
	victim := nodes[0]
	var (
		mu              sync.Mutex
		failed, differ  int
		bm25Diff, dDiff int
		scoreOnly       int     // answers whose ranking is the same but scores differ slightly
		maxRel          float64 // the largest relative score difference among those
		asked           int
		firstErr        string
		killAt, startAt = len(corpus.questions) / 3, len(corpus.questions) + len(corpus.questions)/3
		lat             []time.Duration
	)
	late := ImportSpec{Collection: "ReqaLate", ModelHash: "synthetic-32", Dim: corpus.dim, Count: 200, BatchSize: 50, Layout: layout}
	var lateErr error
	var lateWG sync.WaitGroup
	ctx, end = phase(t, "fault run (node0 killed, then restarted)", 20*time.Minute)
	for pass := 0; pass < 3 && ctx.Err() == nil; pass++ {
		for i := range corpus.questions {
			step := pass*len(corpus.questions) + i
			if step == killAt {
				victim.Kill()
				t.Logf("SIGKILLed %s at question %d", victim.Name, step)
				lateWG.Add(1)
				go func() { defer lateWG.Done(); lateErr = c.Import(ctx, late, corpus.at) }()
			}
			if step == startAt {
				lateWG.Wait()
				victim.Start()
				t.Logf("restarted %s at question %d", victim.Name, step)
			}
			q0 := time.Now()
			got, err := ask(ctx, i)
			d := time.Since(q0)
			mu.Lock()
			asked++
			lat = append(lat, d)
			if err != nil {
				failed++
				if firstErr == "" {
					firstErr = fmt.Sprintf("question %d: %v", i, err)
				}
			} else {
				rb, okb := sameRanking(got.bm25, healthy[i].bm25)
				rd, okd := sameRanking(got.dense, healthy[i].dense)
				maxRel = max(maxRel, rb, rd)
				if !okb || !okd {
					differ++
					if bm25Diff+dDiff < 3 {
						t.Logf("step %d question %d\n got %v\nwant %v", step, i, got, healthy[i])
					}
				}
				if !okb {
					bm25Diff++
				}
				if !okd {
					dDiff++
				}
				if rb > 0 || rd > 0 {
					scoreOnly++
				}
			}
			mu.Unlock()
		}
	}
	lateWG.Wait()
	end()
	victim.WaitReady(5 * time.Minute)
	t.Logf("fault run: %d questions asked (BM25 + nearVector each), %d failed, %d rankings differ from the healthy cluster's (BM25 %d, nearVector %d); "+
		"%d same rankings with scores differing by at most %.2g (relative); slowest question %v",
		asked, failed, differ, bm25Diff, dDiff, scoreOnly, maxRel, maxDur(lat))
	if lateErr != nil {
		t.Errorf("import while %s was down: %v", victim.Name, lateErr)
	}
	if failed > 0 {
		t.Errorf("fault run: %d questions failed; first failure %s", failed, firstErr)
	}
	// Replicas of a shard do not hold bit-identical BM25 statistics (scores
	// differ in the 5th digit, which flips near ties), and Weaviate
	// 1.35.2's BlockMax WAND occasionally misses a document on one replica:
	// measured 5 of 900 BM25 rankings differing, nearVector none. More than
	// 2% means something else broke.
	if differ*50 > asked {
		t.Errorf("fault run: %d of %d rankings differ from the healthy cluster's", differ, asked)
	}

	// Catch-up: the restarted node holds every object of both collections.
	t1 := time.Now()
	ctx, end = phase(t, "catch-up", 4*time.Minute)
	defer end()
	for {
		counts, err := shardCounts(ctx, c)
		if err == nil && counts[victim.Name+"/ReqaLate"] == late.Count && counts[victim.Name+"/ReqaCluster"] == s.Count {
			t.Logf("%s caught up in %v after it was ready: %v", victim.Name, time.Since(t1).Round(time.Millisecond), counts)
			break
		}
		if time.Since(t1) > 3*time.Minute {
			t.Errorf("%s did not catch up within 3 min: %v (%v)", victim.Name, counts, err)
			break
		}
		time.Sleep(2 * time.Second)
	}
}

// phase bounds one phase of a test: its context ends after d, and end
// fails the test, naming the phase, when the phase ran out of time (the
// calls made under the context then fail fast, so the test stops there
// instead of at the go test timeout).
func phase(t *testing.T, name string, d time.Duration) (ctx context.Context, end func()) {
	// Within the go test timeout, so that a phase running out fails
	// naming itself rather than as the timeout's panic.
	if dl, ok := t.Deadline(); ok {
		d = max(min(d, time.Until(dl)-time.Minute), time.Second)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t0 := time.Now()
	return ctx, func() {
		t.Helper()
		defer cancel()
		if ctx.Err() != nil {
			t.Fatalf("phase %q: not done within %v (ran %v)", name, d, time.Since(t0).Round(time.Second))
		}
		t.Logf("phase %q: %v", name, time.Since(t0).Round(time.Millisecond))
	}
}

// sameRanking reports whether two answers hold the same ids in the same
// order with scores within 1e-4 (relative) — replicas of one shard may
// differ in the last float32 digits of their BM25 statistics — and the
// largest relative score difference among the places holding the same id.
func sameRanking(a, b []Hit) (maxRel float64, same bool) {
	if len(a) != len(b) {
		return 0, false
	}
	same = true
	for i := range a {
		if a[i].ID != b[i].ID {
			same = false
			continue
		}
		if d := math.Abs(a[i].Score-b[i].Score) / math.Max(math.Abs(b[i].Score), 1e-9); d > 0 {
			maxRel = math.Max(maxRel, d)
			if d > 1e-4 {
				same = false
			}
		}
	}
	return maxRel, same
}

func maxDur(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}

type nodeStatus struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Shards []struct {
		Class       string `json:"class"`
		ObjectCount int    `json:"objectCount"`
	} `json:"shards"`
}

func nodesStatus(ctx context.Context, c *Client) ([]nodeStatus, error) {
	var out struct {
		Nodes []nodeStatus `json:"nodes"`
	}
	err := c.do(ctx, http.MethodGet, "/v1/nodes", map[string][]string{"output": {"verbose"}}, nil, &out, nil)
	return out.Nodes, err
}

// shardCounts sums each node's object counts per collection, keyed
// "node/collection". (Counts Weaviate reports may lag writes by seconds.)
func shardCounts(ctx context.Context, c *Client) (map[string]int, error) {
	ns, err := nodesStatus(ctx, c)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, n := range ns {
		for _, s := range n.Shards {
			out[n.Name+"/"+s.Class] += s.ObjectCount
		}
	}
	return out, nil
}

func waitHealthy(t *testing.T, c *Client, n int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ns, err := nodesStatus(context.Background(), c)
		healthy := 0
		for _, x := range ns {
			if x.Status == "HEALTHY" {
				healthy++
			}
		}
		if err == nil && healthy == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d nodes healthy after %v: %v %v", healthy, n, timeout, ns, err)
		}
		time.Sleep(time.Second)
	}
}
