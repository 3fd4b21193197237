// Package weaviatetest runs Weaviate servers on loopback for tests, as
// net/http/httptest runs HTTP servers: [Binary] finds the weaviate-server
// that `make weaviate-server` builds, [NewCluster] prepares nodes (each
// with its own data directory and loopback ports) and [Node] starts,
// stops and kills them. Nodes listen on 127.0.0.1 only (the gRPC port
// excepted: Weaviate has no setting for its host), advertise 127.0.0.1,
// and run with telemetry off.
package weaviatetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reqa/reqa/internal/testenv"
)

// Binary returns the weaviate-server that `make weaviate-server` builds
// into third_party/weaviate/bin (found from root, the repository's top
// directory), or $REQA_WEAVIATE_SERVER. Without one the test skips, except
// under CI=true, where it fails naming the make target.
func Binary(t testing.TB, root string) string {
	t.Helper()
	bin := os.Getenv("REQA_WEAVIATE_SERVER")
	if bin == "" {
		bin, _ = filepath.Abs(filepath.Join(root, "third_party/weaviate/bin/weaviate-server"))
	}
	if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
		testenv.Skip(t, "no Weaviate server at %s: run `make weaviate-server` (builds it into third_party/weaviate/bin, several minutes)", bin)
	}
	return bin
}

// Start starts a one-node cluster and returns its node, ready; it is
// killed when the test ends.
func Start(t testing.TB, bin string) *Node { return StartEnv(t, bin) }

// StartEnv is Start with extra environment for the node ("NAME=VALUE",
// overriding the defaults: e.g. API-key authentication).
func StartEnv(t testing.TB, bin string, env ...string) *Node {
	t.Helper()
	nd := NewCluster(t, bin, 1)[0]
	nd.extraEnv = append(nd.extraEnv, env...)
	nd.Start()
	nd.WaitReady(3 * time.Minute)
	return nd
}

// APIKeyEnv is the environment of a node that admits only the API key
// key (user "reqa"), anonymous access off.
func APIKeyEnv(key string) []string {
	return []string{
		"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=false",
		"AUTHENTICATION_APIKEY_ENABLED=true",
		"AUTHENTICATION_APIKEY_ALLOWED_KEYS=" + key,
		"AUTHENTICATION_APIKEY_USERS=reqa",
	}
}

// portRange is where node ports are drawn from: below Linux's ephemeral
// range (/proc/sys/net/ipv4/ip_local_port_range), where the kernel picks
// the local ports of outgoing connections. A port drawn inside it can be
// taken by any connection while its node is down, and the node then
// cannot start again (seen: "bind: address already in use" on restart).
func portRange() (lo, hi int) {
	lo, hi = 10000, 32768 // Linux's default ephemeral range starts at 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			elo, err1 := strconv.Atoi(f[0])
			ehi, err2 := strconv.Atoi(f[1])
			switch {
			case err1 != nil || err2 != nil:
			case elo-lo >= 2000:
				hi = elo
			case 65535-ehi >= 2000:
				lo, hi = ehi+1, 65536
			}
		}
	}
	return lo, hi
}

// freeBase returns a port p such that p..p+n-1 are free (on every
// interface: Weaviate's gRPC port listens on all of them), drawn outside
// the ephemeral port range (portRange).
func freeBase(t testing.TB, n int) int {
	t.Helper()
	lo, hi := portRange()
	for try := 0; try < 200; try++ {
		base := lo + rand.IntN(hi-lo-n)
		var ls []net.Listener
		ok := true
		for p := base; p < base+n; p++ {
			l, err := net.Listen("tcp", ":"+strconv.Itoa(p))
			if err != nil {
				ok = false
				break
			}
			ls = append(ls, l)
		}
		for _, l := range ls {
			l.Close()
		}
		if ok {
			return base
		}
	}
	t.Fatal("no free loopback ports")
	return 0
}

// NewCluster prepares n nodes (not started), each with its own data dir
// under t.TempDir() and six consecutive loopback ports; extra environment
// for every node comes from $REQA_WEAVIATE_NODE_ENV (space-separated).
func NewCluster(t testing.TB, bin string, n int) []*Node {
	t.Helper()
	dir := t.TempDir()
	nodes := make([]*Node, n)
	for i := range nodes {
		p := freeBase(t, 6)
		nodes[i] = &Node{t: t, bin: bin, Name: fmt.Sprintf("node%d", i), Dir: filepath.Join(dir, fmt.Sprintf("node%d", i)),
			logPath: filepath.Join(dir, fmt.Sprintf("node%d.log", i)),
			rest:    p, grpc: p + 1, gossip: p + 2, data: p + 3, raft: p + 4, raftR: p + 5}
	}
	extra := strings.Fields(os.Getenv("REQA_WEAVIATE_NODE_ENV"))
	for _, nd := range nodes {
		nd.join = nodes
		nd.extraEnv = extra
	}
	t.Cleanup(func() {
		for _, nd := range nodes {
			nd.Kill()
		}
	})
	return nodes
}

// Node is one weaviate-server process on loopback ports.
type Node struct {
	t                                     testing.TB
	bin, Name, Dir, logPath               string
	rest, grpc, gossip, data, raft, raftR int
	join                                  []*Node // the cluster (all nodes, itself included)
	extraEnv                              []string
	started                               int // times started
	cmd                                   *exec.Cmd
	done                                  chan error
}

// Pid is the node's process id while it runs, else 0.
func (nd *Node) Pid() int {
	if nd.cmd == nil || nd.cmd.Process == nil {
		return 0
	}
	return nd.cmd.Process.Pid
}

// Addr is the node's REST address, http://127.0.0.1:PORT.
func (nd *Node) Addr() string { return "http://127.0.0.1:" + strconv.Itoa(nd.rest) }

func (nd *Node) env() []string {
	var raftJoin []string
	for _, o := range nd.join {
		raftJoin = append(raftJoin, fmt.Sprintf("%s:%d", o.Name, o.raft))
	}
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + nd.Dir,
		"PERSISTENCE_DATA_PATH=" + nd.Dir,
		"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true",
		"DEFAULT_VECTORIZER_MODULE=none",
		"ENABLE_MODULES=",
		"DISABLE_TELEMETRY=true",
		"GO_PROFILING_DISABLE=true",
		"PROMETHEUS_MONITORING_ENABLED=false",
		"QUERY_DEFAULTS_LIMIT=25",
		"LOG_LEVEL=warning",
		"GOMAXPROCS=2",
		// Weaviate 1.35.2's BlockMax WAND misses top-k documents whose
		// postings are still in a memtable (fixed upstream by
		// weaviate/weaviate#11780, in no release the Go proxy serves):
		// flush written memtables after 1 s instead of the default 60 s.
		"PERSISTENCE_MEMTABLES_FLUSH_DIRTY_AFTER_SECONDS=1",
		"CLUSTER_HOSTNAME=" + nd.Name,
		"CLUSTER_ADVERTISE_ADDR=127.0.0.1",
		// Several nodes on one host: each has its own raft port, and its
		// raft RPC port is raft port + 1 (as set below).
		"CLUSTER_IN_LOCALHOST=true",
		"CLUSTER_BIND_ADDR=127.0.0.1",
		"CLUSTER_GOSSIP_BIND_PORT=" + strconv.Itoa(nd.gossip),
		"CLUSTER_DATA_BIND_PORT=" + strconv.Itoa(nd.data),
		"GRPC_PORT=" + strconv.Itoa(nd.grpc),
		"RAFT_PORT=" + strconv.Itoa(nd.raft),
		"RAFT_INTERNAL_RPC_PORT=" + strconv.Itoa(nd.raftR),
		"RAFT_JOIN=" + strings.Join(raftJoin, ","),
		"RAFT_BOOTSTRAP_EXPECT=" + strconv.Itoa(len(nd.join)),
	}
	env = append(env, nd.extraEnv...)
	// Memberlist: the first node's first start joins no one (a failed join
	// is fatal); every other start joins the other nodes (any one that
	// answers is enough), so a restarted first node finds its cluster.
	if nd != nd.join[0] || nd.started > 0 {
		var others []string
		for _, o := range nd.join {
			if o != nd {
				others = append(others, fmt.Sprintf("127.0.0.1:%d", o.gossip))
			}
		}
		env = append(env, "CLUSTER_JOIN="+strings.Join(others, ","))
	}
	return env
}

// start launches the process (its output appended to the node's log).
func (nd *Node) Start() {
	nd.t.Helper()
	if err := os.MkdirAll(nd.Dir, 0o755); err != nil {
		nd.t.Fatal(err)
	}
	logf, err := os.OpenFile(nd.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		nd.t.Fatal(err)
	}
	cmd := exec.Command(nd.bin, "--host", "127.0.0.1", "--port", strconv.Itoa(nd.rest), "--scheme", "http",
		"--read-timeout", "600s", "--write-timeout", "600s")
	cmd.Env = nd.env()
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = nodeProcAttr()
	if err := cmd.Start(); err != nil {
		logf.Close()
		nd.t.Fatalf("start %s: %v", nd.bin, err)
	}
	nd.cmd, nd.done = cmd, make(chan error, 1)
	nd.started++
	go func() { nd.done <- cmd.Wait(); logf.Close() }()
}

// failIfExited fails the test when the node's process has exited.
func (nd *Node) failIfExited() {
	nd.t.Helper()
	select {
	case err := <-nd.done:
		nd.done <- err
		nd.t.Fatalf("%s exited while starting: %v\n%s", nd.Name, err, nd.Tail())
	default:
	}
}

// WaitGossip waits until the node's gossip port accepts connections (the
// other nodes join through it).
func (nd *Node) WaitGossip(timeout time.Duration) {
	nd.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		nd.failIfExited()
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(nd.gossip), time.Second); err == nil {
			c.Close()
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	nd.t.Fatalf("%s: gossip port %d not open after %v\n%s", nd.Name, nd.gossip, timeout, nd.Tail())
}

// WaitReady polls /v1/.well-known/ready until it answers 200.
func (nd *Node) WaitReady(timeout time.Duration) {
	nd.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		nd.failIfExited()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, nd.Addr()+"/v1/.well-known/ready", nil)
		resp, err := http.DefaultClient.Do(req)
		cancel()
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	nd.t.Fatalf("%s not ready after %v\n%s", nd.Name, timeout, nd.Tail())
}

// kill sends SIGKILL and waits for the process to go.
func (nd *Node) Kill() {
	if nd.cmd == nil {
		return
	}
	syscall.Kill(-nd.cmd.Process.Pid, syscall.SIGKILL)
	<-nd.done
	nd.cmd = nil
}

// stop sends SIGTERM and waits (SIGKILL after 30 s).
func (nd *Node) Stop() {
	if nd.cmd == nil {
		return
	}
	syscall.Kill(-nd.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-nd.done:
	case <-time.After(30 * time.Second):
		syscall.Kill(-nd.cmd.Process.Pid, syscall.SIGKILL)
		<-nd.done
	}
	nd.cmd = nil
}

func (nd *Node) Tail() string {
	b, _ := os.ReadFile(nd.logPath)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}
