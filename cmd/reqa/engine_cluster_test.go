//go:build weaviatecluster

// The 3-node fault test of an engine index runs only with -tags
// weaviatecluster (make test-weaviate-cluster): it takes minutes, three
// servers and the shared SQuAD set.

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reqa/reqa/index/weaviate/weaviatetest"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/internal/testenv"
	"github.com/reqa/reqa/rank"
)

// TestEngineCluster indexes the shared SQuAD set into three Weaviate
// nodes on loopback (replication factor 3 over 3 shards) with `reqa index
// --engine`, records the default ranker's top 10 for the test questions
// on the healthy cluster, then asks them all again while the first node
// is SIGKILLed, and again while it restarts and rejoins: no question may
// fail and every answer must equal the healthy cluster's. A collection
// imported while the node is down must reach it once it is back.
func TestEngineCluster(t *testing.T) {
	requireDense(t)
	squad := "../../../shared/data/squad-multireqa-test"
	if _, err := os.Stat(squad); err != nil {
		testenv.Skip(t, "no shared SQuAD set at %s", squad)
	}
	nodes := weaviatetest.NewCluster(t, weaviatetest.Binary(t, "../.."), 3)
	began := time.Now()
	nodes[0].Start()
	nodes[0].WaitGossip(2 * time.Minute)
	for _, nd := range nodes[1:] {
		nd.Start()
	}
	var hosts []string
	for _, nd := range nodes {
		nd.WaitReady(5 * time.Minute)
		hosts = append(hosts, strings.TrimPrefix(nd.Addr(), "http://"))
	}
	waitNodes(t, nodes[1].Addr(), 3, 3*time.Minute)
	t.Logf("3 nodes healthy in %v", time.Since(began).Round(time.Second))

	dir := t.TempDir()
	eng := filepath.Join(dir, "squad.reqa")
	t0 := time.Now()
	if code, _, errs := reqa(t, "index", "-q", "--engine", "weaviate://"+strings.Join(hosts, ",")+"/Squad",
		"--replicas", "3", "--shards", "3", "--out", eng, squad); code != 0 {
		t.Fatalf("index --engine: exit %d: %s", code, errs)
	}
	t.Logf("indexed the SQuAD set (embedding included) into 3 nodes in %v", time.Since(t0).Round(time.Second))
	ds, err := ingest.ReadDataset(squad)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := ds.SplitQuestions("test")
	if err != nil {
		t.Fatal(err)
	}
	n := min(len(qs), envInt("REQA_CLUSTER_QUESTIONS", 900))
	questions := make([]string, n)
	for i := range questions {
		questions[i] = qs[i].Text
	}
	e, err := rank.Open(eng)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.Ranker("")
	if err != nil {
		t.Fatal(err)
	}
	ask := func(ctx context.Context, i int) ([]uint32, error) {
		as, err := e.Ask(ctx, r, questions[i], 10)
		ids := make([]uint32, len(as))
		for j, a := range as {
			ids[j] = a.SentenceID
		}
		return ids, err
	}
	// Every replica holds every object before the healthy answers are
	// taken (a write is acknowledged by a quorum; a replica that missed
	// one is repaired by async replication later, and its BM25
	// statistics differ meanwhile).
	sctx, end := clusterPhase(t, "replicas in sync", 5*time.Minute)
	for synced := false; !synced && sctx.Err() == nil; {
		synced = true
		for _, nd := range nodes {
			got, err := countOn(nd, "Squad")
			synced = synced && err == nil && got == e.Meta().Sentences
		}
		if !synced {
			time.Sleep(2 * time.Second)
		}
	}
	end()
	healthy := make([][]uint32, n)
	hctx, end2 := clusterPhase(t, "healthy answers", 15*time.Minute)
	for pass := 0; ; pass++ {
		same := 0
		for i := range healthy {
			ids, err := ask(hctx, i)
			if err != nil {
				t.Fatalf("healthy question %d: %v", i, err)
			}
			if slices.Equal(ids, healthy[i]) {
				same++
			}
			healthy[i] = ids
		}
		if same == n {
			t.Logf("healthy answers of %d questions stable after %d passes", n, pass)
			break
		}
		if pass == 20 {
			t.Fatalf("healthy answers still change after %d passes (%d of %d the same)", pass, same, n)
		}
		time.Sleep(time.Second)
	}
	end2()

	type phase struct {
		name                    string
		asked, failed, top1Diff int
		top10Diff               int
		firstErr                string
	}
	// Each phase is bounded: 15 minutes for n questions (4 at a time,
	// each within rank.QuestionTimeout) is ample on 2 loaded cores.
	run := func(name string, during func(ctx context.Context, done *atomic.Int64)) phase {
		p := phase{name: name}
		ctx, end := clusterPhase(t, name, 15*time.Minute)
		defer end()
		var mu sync.Mutex
		var done atomic.Int64
		var wg sync.WaitGroup
		next := atomic.Int64{}
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1)) - 1
					if i >= n || ctx.Err() != nil {
						return
					}
					ids, err := ask(ctx, i)
					mu.Lock()
					p.asked++
					switch {
					case err != nil:
						p.failed++
						if p.firstErr == "" {
							p.firstErr = err.Error()
						}
					case !slices.Equal(ids, healthy[i]):
						p.top10Diff++
						if len(ids) == 0 || ids[0] != healthy[i][0] {
							p.top1Diff++
						}
					}
					mu.Unlock()
					done.Add(1)
				}
			}()
		}
		if during != nil {
			during(ctx, &done)
		}
		wg.Wait()
		t.Logf("%s: %d asked, %d failed, %d top-1 and %d top-10 differ from the healthy cluster's %s",
			p.name, p.asked, p.failed, p.top1Diff, p.top10Diff, p.firstErr)
		return p
	}
	victim := nodes[0]
	waitDone := func(ctx context.Context, done *atomic.Int64, at int64) {
		for done.Load() < at && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
	}
	var phases []phase
	phases = append(phases, run("node0 SIGKILLed a third of the way", func(ctx context.Context, done *atomic.Int64) {
		waitDone(ctx, done, int64(n/3))
		victim.Kill()
	}))
	// Written while node0 is down: it must reach node0 when it rejoins.
	late := filepath.Join(dir, "late.reqa")
	if code, _, errs := reqa(t, "index", "-q", "--engine", "weaviate://"+strings.Join(hosts[1:], ",")+"/Late",
		"--replicas", "3", "--shards", "3", "--out", late, "democorpus"); code != 0 {
		t.Fatalf("index --engine with node0 down: exit %d: %s", code, errs)
	}
	phases = append(phases, run("node0 down", nil))
	var restarted time.Time
	phases = append(phases, run("node0 restarting and rejoining", func(ctx context.Context, done *atomic.Int64) {
		waitDone(ctx, done, int64(n/10))
		restarted = time.Now()
		victim.Start()
	}))
	victim.WaitReady(5 * time.Minute)
	waitNodes(t, nodes[1].Addr(), 3, 5*time.Minute)
	t.Logf("node0 back and healthy %v after its restart", time.Since(restarted).Round(time.Second))
	phases = append(phases, run("node0 rejoined", nil))
	for _, p := range phases {
		if p.failed > 0 || p.top1Diff > 0 {
			t.Errorf("%s: %d failed, %d top-1 answers differ (%s)", p.name, p.failed, p.top1Diff, p.firstErr)
		}
	}
	// node0's own shards hold every object of both collections once
	// (async) replication has repaired them.
	lateIndex, err := rank.Open(late)
	if err != nil {
		t.Fatal(err)
	}
	lateSentences := lateIndex.Meta().Sentences
	lateIndex.Close()
	for coll, want := range map[string]int{"Squad": e.Meta().Sentences, "Late": lateSentences} {
		deadline := time.Now().Add(3 * time.Minute)
		for {
			got, err := countOn(victim, coll)
			if err == nil && got == want {
				t.Logf("node0 holds all %d objects of %s", want, coll)
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("node0 holds %d of %d objects of %s (%v)", got, want, coll, err)
				break
			}
			time.Sleep(2 * time.Second)
		}
	}
}

// countOn counts the objects of a collection in the node's own shards
// (every shard is on every node with replication factor 3), from its
// verbose node status.
func countOn(nd *weaviatetest.Node, coll string) (int, error) {
	resp, err := statusClient.Get(nd.Addr() + "/v1/nodes/" + coll + "?output=verbose")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var st struct {
		Nodes []struct {
			Name   string `json:"name"`
			Shards []struct {
				Class       string `json:"class"`
				ObjectCount int    `json:"objectCount"`
			} `json:"shards"`
		} `json:"nodes"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return 0, err
	}
	for _, x := range st.Nodes {
		if x.Name != nd.Name {
			continue
		}
		total := 0
		for _, sh := range x.Shards {
			if sh.Class == coll {
				total += sh.ObjectCount
			}
		}
		return total, nil
	}
	return 0, fmt.Errorf("node %s not in the node status", nd.Name)
}

// waitNodes waits until the node at addr reports n healthy nodes.
func waitNodes(t *testing.T, addr string, n int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		resp, err := statusClient.Get(addr + "/v1/nodes")
		healthy := 0
		if err == nil {
			var b strings.Builder
			buf := make([]byte, 32<<10)
			for {
				k, rerr := resp.Body.Read(buf)
				b.Write(buf[:k])
				if rerr != nil {
					break
				}
			}
			resp.Body.Close()
			healthy = strings.Count(b.String(), `"status":"HEALTHY"`)
		}
		if healthy >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d nodes healthy after %v (%v)", healthy, n, timeout, err)
		}
		time.Sleep(time.Second)
	}
}

// statusClient asks nodes for their status, each request bounded.
var statusClient = &http.Client{Timeout: 10 * time.Second}

// clusterPhase bounds one phase of the cluster test: its context ends
// after d, and end fails the test naming the phase when it ran out (the
// questions asked under the context then fail fast, so the test stops
// there instead of at the go test timeout).
func clusterPhase(t *testing.T, name string, d time.Duration) (context.Context, func()) {
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
		t.Logf("phase %q: %v", name, time.Since(t0).Round(time.Second))
	}
}

func envInt(name string, def int) int {
	var v int
	if _, err := fmt.Sscan(os.Getenv(name), &v); err == nil && v > 0 {
		return v
	}
	return def
}
