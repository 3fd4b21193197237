package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/store"
)

// ErrReplacing reports an index file being rewritten in place: its open
// mapping can no longer be trusted, and the server waits for the new bytes
// to be complete.
var ErrReplacing = errors.New("the index file is being replaced in place")

// closeWait is how long closing a generation's engine may take before it is
// abandoned (a reader stuck in a mapping whose file was truncated).
const closeWait = 2 * time.Second

// stamp is what identifies the bytes of an index file: the file (device
// and inode), its size and modification time. A write changes the
// modification time before the data can be read, so a stamp taken before
// and after reading tells whether the bytes read can have changed.
type stamp struct {
	fi    os.FileInfo
	size  int64
	mtime time.Time
}

func stampOf(fi os.FileInfo) stamp { return stamp{fi: fi, size: fi.Size(), mtime: fi.ModTime()} }

// sameFile reports whether a and b are the same file (inode).
func (a stamp) sameFile(b stamp) bool { return a.fi != nil && b.fi != nil && os.SameFile(a.fi, b.fi) }

// same reports whether a and b are the same file with the same size and
// modification time.
func (a stamp) same(b stamp) bool {
	return a.sameFile(b) && a.size == b.size && a.mtime.Equal(b.mtime)
}

// generation is one open generation of the served index. Requests hold it
// (hold/drop) while they use it; once retired and dropped by all it is
// closed.
type generation struct {
	e       *rank.Index
	f       *os.File // the file e mapped, for fstat
	opened  stamp    // of f when opened
	path    string
	name    string // file name, for clients and messages
	pick    RankerFunc
	threads int

	rankers       []string
	defaultRanker string

	mu    sync.Mutex
	cache map[string]rank.Ranker

	poisoned        chan struct{} // closed once the file changed in place
	poisonOnce      sync.Once
	why             error
	poisonedNoticed atomic.Bool // logged and Watch woken

	life    sync.Mutex
	users   int
	retired bool
}

// Open opens the index at path for serving after checking its pages
// (store.CheckPages reads the whole file once): bbolt trusts its pages, and
// a damaged one could stop a long-running server for good, where a refused
// file leaves it serving, or not starting, with the reason.
func Open(path string) (*rank.Index, error) { return OpenWith(path, rank.OpenOptions{}) }

// OpenWith is Open with the options of an index kept in an engine.
func OpenWith(path string, o rank.OpenOptions) (*rank.Index, error) {
	if err := store.CheckPages(path); err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	return rank.OpenWith(path, o)
}

// openGeneration opens the index at path as a generation, checking that
// the file is the one stamped want (zero: whatever is there) before and
// after. A fault reading a file that changes under it is an error, not a
// crash.
func openGeneration(path string, want *stamp, pick RankerFunc, threads int, o rank.OpenOptions) (g *generation, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("open index %s: unreadable (%v): %w", path, p, store.ErrCorrupt)
		}
	}()
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	st := stampOf(fi)
	if want != nil && !st.same(*want) {
		f.Close()
		return nil, fmt.Errorf("open index %s: %w", path, errChangedWhileOpening)
	}
	e, err := OpenWith(path, o)
	if err != nil {
		f.Close()
		return nil, err
	}
	g, err = newGeneration(e, f, st, pick, threads)
	if err != nil {
		e.Close()
		f.Close()
		return nil, err
	}
	// The engine opened what is at path now: the same file, unchanged?
	now, err := os.Stat(path)
	if err != nil || !stampOf(now).same(st) || !g.intact() {
		g.closeNow()
		return nil, fmt.Errorf("open index %s: %w", path, errChangedWhileOpening)
	}
	return g, nil
}

// errChangedWhileOpening reports a file that changed while it was opened:
// tried again once it is stable.
var errChangedWhileOpening = errors.New("the file changed while it was opened")

// newGeneration prepares a generation over e, opened from the file f
// stamped st; it loads the default ranker (and so the dense encoder, when
// the index has embeddings) so that a broken model is reported now, not at
// the first question.
func newGeneration(e *rank.Index, f *os.File, st stamp, pick RankerFunc, threads int) (*generation, error) {
	path := e.Store().Path()
	g := &generation{e: e, f: f, opened: st, path: path, name: filepath.Base(path), pick: pick, threads: threads,
		cache: map[string]rank.Ranker{}, poisoned: make(chan struct{})}
	r, err := g.ranker("")
	if err != nil {
		return nil, fmt.Errorf("serve: default ranker: %w", err)
	}
	g.defaultRanker = r.Name()
	if g.rankers, err = e.Available(); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	return g, nil
}

// ranker returns the ranker called name ("" for the default), built once
// per generation and shared, whatever k a request asks for: every
// rank.Ranker is safe for concurrent use and takes k per question.
func (g *generation) ranker(name string) (rank.Ranker, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if r, ok := g.cache[name]; ok {
		return r, nil
	}
	r, err := g.pick(g.e, name, rank.DenseOptions{ANN: true, Threads: g.threads})
	if err != nil {
		return nil, err
	}
	g.cache[name] = r
	return r, nil
}

// intact reports whether the open file still has the size and modification
// time it had when opened; if not, the generation is poisoned for good.
func (g *generation) intact() bool {
	select {
	case <-g.poisoned:
		return false
	default:
	}
	fi, err := g.f.Stat()
	if err != nil {
		g.poison(fmt.Errorf("%w: %v", ErrReplacing, err))
		return false
	}
	if now := stampOf(fi); now.size != g.opened.size || !now.mtime.Equal(g.opened.mtime) {
		g.poison(fmt.Errorf("%w: %s changed (%d bytes, modified %s; opened at %d bytes, modified %s)", ErrReplacing,
			g.name, now.size, now.mtime.Format(time.RFC3339Nano), g.opened.size, g.opened.mtime.Format(time.RFC3339Nano)))
		return false
	}
	return true
}

// poison marks the generation untrustworthy; it reports whether this call
// did it.
func (g *generation) poison(why error) bool {
	did := false
	g.poisonOnce.Do(func() {
		g.why = why
		close(g.poisoned)
		did = true
	})
	return did
}

// isPoisoned reports whether the generation was poisoned.
func (g *generation) isPoisoned() bool {
	select {
	case <-g.poisoned:
		return true
	default:
		return false
	}
}

// hold takes a use of g; false when g is retired (a newer one is current).
func (g *generation) hold() bool {
	g.life.Lock()
	defer g.life.Unlock()
	if g.retired {
		return false
	}
	g.users++
	return true
}

// drop gives back a use; the last one out of a retired generation closes it.
func (g *generation) drop() {
	g.life.Lock()
	g.users--
	last := g.retired && g.users == 0
	g.life.Unlock()
	if last {
		g.closeSoon()
	}
}

// retire marks g replaced; it is closed once no request uses it. A request
// stuck in it (see the package doc) keeps it open for good: abandoned, not
// waited for.
func (g *generation) retire() {
	g.life.Lock()
	was := g.retired
	g.retired = true
	last := !was && g.users == 0
	g.life.Unlock()
	if last {
		g.closeSoon()
	}
}

// closeSoon closes the engine and the file in the background; done is
// closed when that finished (it may never, see closeWait).
func (g *generation) closeSoon() <-chan struct{} {
	done := make(chan struct{})
	go func() {
		g.closeNow()
		close(done)
	}()
	return done
}

func (g *generation) closeNow() {
	g.e.Close()
	g.f.Close()
}

// addUse takes another use of g for a request that already holds it.
func (g *generation) addUse() {
	g.life.Lock()
	g.users++
	g.life.Unlock()
}
