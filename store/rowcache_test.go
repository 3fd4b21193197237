package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/reqa/reqa/internal/testenv"
)

// rowModes are the two ways a row set is read: in place, and through a
// cache of two rows (so that reading a set evicts all the time).
var rowModes = []struct {
	name   string
	cached bool
	open   func(r *Reader, name string) (*Rows, error)
}{
	{"in place", false, func(r *Reader, name string) (*Rows, error) { return r.Rows(name) }},
	{"cached", true, func(r *Reader, name string) (*Rows, error) { return r.RowsCached(name, 1) }},
}

// TestRowsCachedConcurrent reads random rows of a set from many goroutines
// through caches of several sizes: every row read is the row stored; a
// cache that holds the set reads each row at most once (its chunk whole,
// checked, the first time), a smaller one reads rows again (run it with
// -race: slots are replaced under readers).
func TestRowsCachedConcurrent(t *testing.T) {
	const rows, width = 5000, 256
	path := filepath.Join(t.TempDir(), "rows.reqa")
	putRowsIndex(t, path, map[string][2]int{"v": {rows, width}})
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, budget := range []int64{1, 8 << 10, 64 << 10, 1 << 30} {
		rs, err := r.RowsCached("v", budget)
		if err != nil {
			t.Fatal(err)
		}
		if !rs.Cached() {
			t.Fatal("read in place")
		}
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rnd := rand.New(rand.NewPCG(uint64(g), uint64(budget)))
				for range 2000 {
					i := rnd.IntN(rows)
					var bad bool
					err := rs.WithRow(i, func(row []byte) {
						for j, v := range row {
							bad = bad || v != rowByte(i, j)
						}
						bad = bad || len(row) != width
					})
					if err == nil && bad {
						err = errors.New("row " + strconv.Itoa(i) + " differs")
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("budget %d: %v", budget, err)
		}
		if budget >= 1<<30 && rs.Reads() > rows {
			t.Errorf("budget %d: %d reads of %d rows: a cache that holds the set reads each once", budget, rs.Reads(), rows)
		} else if budget < 64<<10 && rs.Reads() <= int64(rs.NumChunks()) {
			t.Errorf("budget %d: %d reads of %d chunks: a small cache must read rows again", budget, rs.Reads(), rs.NumChunks())
		}
	}
}

// TestRowsCachedCutShort cuts the file short under an open cached set:
// reading a chunk past the end is ErrCorrupt, not a crash.
func TestRowsCachedCutShort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rows.reqa")
	putRowsIndex(t, path, map[string][2]int{"v": {20000, 512}})
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rs, err := r.RowsCached("v", 1)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if err := os.Truncate(path, st.Size()/2); err != nil {
		t.Fatal(err)
	}
	var bad error
	for c := range rs.NumChunks() {
		if err := rs.With(c, func([]byte) {}); err != nil {
			bad = err
			break
		}
	}
	if !errors.Is(bad, ErrCorrupt) || !strings.Contains(bad.Error(), "rows v chunk") {
		t.Fatalf("a chunk past the end: %v", bad)
	}
}

// TestRowsCachedReleasesMap reads every chunk of a 20 MB set through a
// small cache: the process maps almost none of the set's pages (read in
// place, it maps all of them).
func TestRowsCachedReleasesMap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rows.reqa")
	putRowsIndex(t, path, map[string][2]int{"v": {10000, 2048}})
	for _, mode := range rowModes {
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := mode.open(r, "v")
		if err != nil {
			t.Fatal(err)
		}
		if err := rs.Check(); err != nil {
			t.Fatal(err)
		}
		kb := testenv.ResidentKB(t, path)
		r.Close()
		if set := 10000 * 2048 / 1024; mode.cached && kb > set/10 || !mode.cached && kb < set/2 {
			t.Errorf("%s: %d KB of the file mapped after reading a %d KB set", mode.name, kb, set)
		}
	}
}

func ExampleReader_RowsCached() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "rows.reqa")
	w, _ := Create(path)
	// 5,000 rows of eight bytes: row i holds i³.
	w.PutRows("cubes", 5000, 8, func(lo, hi int, dst []byte) {
		for i := lo; i < hi; i++ {
			binary.LittleEndian.PutUint64(dst[8*(i-lo):], uint64(i*i*i))
		}
	})
	w.Commit(Meta{})

	r, _ := Open(path)
	defer r.Close()
	rs, _ := r.RowsCached("cubes", 64<<10) // at most 64 KiB of rows held
	rs.WithRow(1234, func(row []byte) { fmt.Println(binary.LittleEndian.Uint64(row)) })
	rs.WithRow(1234, func([]byte) {}) // from the cache this time
	st := rs.CacheStats()
	fmt.Println(rs.Cached(), st.Rows, st.Hits, st.Misses)
	// Output:
	// 1879080904
	// true 1 1 1
}
