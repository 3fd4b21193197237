package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// rowByte is byte j of row i of the test sets.
func rowByte(i, j int) byte { return byte(i*31 + j*7 + 1) }

func putRowsIndex(t *testing.T, path string, sets map[string][2]int) {
	t.Helper()
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range sets {
		rows, width := s[0], s[1]
		err := w.PutRows(name, rows, width, func(lo, hi int, dst []byte) {
			for i := lo; i < hi; i++ {
				for j := range width {
					dst[(i-lo)*width+j] = rowByte(i, j)
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(Meta{}); err != nil {
		t.Fatal(err)
	}
}

// TestRowsRoundTrip stores row sets of several shapes and reads every row
// back in place; sets of any real size lie 8-byte aligned (no copies).
func TestRowsRoundTrip(t *testing.T) {
	cases := map[string][2]int{
		"empty":    {0, 16},
		"one":      {1, 3},
		"odd":      {1001, 13},
		"vectors":  {20000, 4 * 96},
		"wide":     {5, 100000}, // a row wider than a chunk: one row per chunk
		"answers2": {3000, 1536},
	}
	path := filepath.Join(t.TempDir(), "rows.reqa")
	putRowsIndex(t, path, cases)
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, mode := range rowModes {
		for name, s := range cases {
			rows, width := s[0], s[1]
			rs, err := mode.open(r, name)
			if err != nil {
				t.Fatalf("%s %s: %v", mode.name, name, err)
			}
			name := mode.name + " " + name
			if rs.Len() != rows || rs.RowBytes() != width {
				t.Fatalf("%s: %d×%d, want %d×%d", name, rs.Len(), rs.RowBytes(), rows, width)
			}
			for c := range rs.NumChunks() {
				b, err := rs.Chunk(c)
				if err != nil {
					t.Fatalf("%s chunk %d: %v", name, c, err)
				}
				lo := c * rs.PerChunk()
				if len(b) != (min(lo+rs.PerChunk(), rows)-lo)*width {
					t.Fatalf("%s chunk %d: %d bytes", name, c, len(b))
				}
				for k, v := range b {
					if v != rowByte(lo+k/width, k%width) {
						t.Fatalf("%s row %d byte %d: %d", name, lo+k/width, k%width, v)
					}
				}
			}
			if rows*width > 1<<20 && rs.Copied() != 0 {
				t.Errorf("%s: %d of %d chunks were not aligned in the map", name, rs.Copied(), rs.NumChunks())
			}
			if err := rs.Check(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if mode.cached && rows*width > 1<<20 && !rs.Cached() {
				t.Errorf("%s: read in place", name)
			}
		}
	}
	if _, err := r.Rows("none"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing set: %v", err)
	}
	if rep := r.Check(); len(rep.Problems) != 0 {
		t.Fatalf("check: %v", rep.Problems)
	}
}

// TestRowsDamage damages one chunk of a set: only that chunk's rows fail,
// with ErrCorrupt naming it, and Check reports it; a missing chunk too.
func TestRowsDamage(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(v []byte) []byte
	}{
		{"flipped byte", func(v []byte) []byte { v[10] ^= 1; return v }},
		{"flipped checksum", func(v []byte) []byte { v[len(v)-1] ^= 1; return v }},
		{"cut short, resealed", func(v []byte) []byte { return sealAligned(v[:100]) }},
		{"deleted", func([]byte) []byte { return nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rows.reqa")
			putRowsIndex(t, path, map[string][2]int{"v": {5000, 64}})
			editRows(t, path, "v", func(b *bolt.Bucket) error {
				v := tc.edit(append([]byte(nil), b.Get(rowsChunkKey(2))...))
				if v == nil {
					return b.Delete(rowsChunkKey(2))
				}
				return b.Put(rowsChunkKey(2), v)
			})
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			for _, mode := range rowModes {
				rs, err := mode.open(r, "v")
				if err != nil {
					t.Fatal(err)
				}
				if _, err := rs.Chunk(1); err != nil {
					t.Fatalf("%s: undamaged chunk: %v", mode.name, err)
				}
				for range 2 { // the verdict is kept
					err := rs.WithRow(2*rs.PerChunk()+1, func([]byte) { t.Errorf("%s: damaged row handed out", mode.name) })
					if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "rows v chunk 2") {
						t.Fatalf("%s: a row of the damaged chunk: %v", mode.name, err)
					}
					err = rs.With(2, func([]byte) { t.Errorf("%s: damaged rows handed out", mode.name) })
					if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "rows v chunk 2") {
						t.Fatalf("%s: damaged chunk: %v", mode.name, err)
					}
				}
			}
			rep := r.Check()
			if len(rep.Problems) == 0 || !errors.Is(rep.Problems[0], ErrCorrupt) || !strings.Contains(rep.Problems[0].Error(), "rows v chunk 2") {
				t.Fatalf("check: %v", rep.Problems)
			}
		})
	}
}

// TestRowsReplace stores a set twice: the second replaces the first.
func TestRowsReplace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rows.reqa")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{3000, 10} {
		if err := w.PutRows("v", n, 8, func(lo, hi int, dst []byte) {
			for i := lo; i < hi; i++ {
				binary.LittleEndian.PutUint64(dst[(i-lo)*8:], uint64(n*1000+i))
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(Meta{}); err != nil {
		t.Fatal(err)
	}
	r, _ := Open(path)
	defer r.Close()
	rs, err := r.Rows("v")
	if err != nil || rs.Len() != 10 {
		t.Fatalf("replaced set: %v, %d rows", err, rs.Len())
	}
	b, _ := rs.Chunk(0)
	if binary.LittleEndian.Uint64(b[9*8:]) != 10009 {
		t.Fatalf("row 9: %d", binary.LittleEndian.Uint64(b[9*8:]))
	}
	if err := rs.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestRowsPerChunk checks the chunk shapes: runs of two to four pages as
// full as they can be, one row at least.
func TestRowsPerChunk(t *testing.T) {
	for _, tc := range []struct{ rowBytes, want int }{
		{1536, 5},   // 384-d float32: 7,680 of two pages
		{2048, 7},   // 512-d float32: 14,336 of four pages
		{384, 21},   // 384-d int8
		{16384, 1},  // wider than a run: one a chunk
		{100000, 1}, // far wider
		{1, 16328},
	} {
		if got := rowsPerChunk(tc.rowBytes); got != tc.want {
			t.Errorf("rows of %d bytes: %d a chunk, want %d", tc.rowBytes, got, tc.want)
		}
	}
}

// FuzzRows stores a row set, replaces its header and its first chunk with
// the fuzzer's bytes (sealed or not), and reads it back, in place and
// through a cache: never a panic,
// and every failure is ErrCorrupt (or ErrNotFound).
func FuzzRows(f *testing.F) {
	f.Add([]byte(`{"rows":10,"row_bytes":16,"per_chunk":4,"chunks":3}`), []byte("0123456789abcdef"), true, true)
	f.Add([]byte(`{"rows":1e9,"row_bytes":16,"per_chunk":1,"chunks":1000000000}`), []byte{}, true, false)
	f.Add([]byte(`{"rows":-1}`), []byte{1, 2, 3}, false, true)
	f.Add([]byte(`{"rows":10,"row_bytes":0,"per_chunk":4,"chunks":3}`), make([]byte, 64), true, true)
	base := filepath.Join(f.TempDir(), "base.reqa")
	w, err := Create(base)
	if err != nil {
		f.Fatal(err)
	}
	if err := w.PutRows("v", 10, 16, func(lo, hi int, dst []byte) {}); err != nil {
		f.Fatal(err)
	}
	if err := w.Commit(Meta{}); err != nil {
		f.Fatal(err)
	}
	orig, err := os.ReadFile(base)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, header, chunk []byte, sealHeader, sealChunk bool) {
		path := filepath.Join(t.TempDir(), "x.reqa")
		if err := os.WriteFile(path, orig, 0o644); err != nil {
			t.Fatal(err)
		}
		editRows(t, path, "v", func(b *bolt.Bucket) error {
			h, c := header, chunk
			if sealHeader {
				h = sealAligned(header)
			}
			if sealChunk {
				c = sealAligned(chunk)
			}
			if err := b.Put(rowsHeaderKey, h); err != nil {
				return err
			}
			return b.Put(rowsChunkKey(0), c)
		})
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		ok := func(err error) {
			if err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNotFound) {
				t.Fatalf("error neither ErrCorrupt nor ErrNotFound: %v", err)
			}
		}
		for _, mode := range rowModes {
			rs, err := mode.open(r, "v")
			ok(err)
			if err != nil {
				return
			}
			for c := range min(rs.NumChunks(), 8) {
				b, err := rs.Chunk(c)
				ok(err)
				if err == nil && len(b) > rs.PerChunk()*rs.RowBytes() {
					t.Fatalf("%s: chunk %d: %d bytes for %d rows of %d", mode.name, c, len(b), rs.PerChunk(), rs.RowBytes())
				}
			}
			for i := range min(rs.Len(), 16) {
				ok(rs.WithRow(i, func(row []byte) {
					if len(row) != rs.RowBytes() {
						t.Fatalf("%s: row %d: %d bytes, not %d", mode.name, i, len(row), rs.RowBytes())
					}
				}))
			}
			if rs.NumChunks() <= 8 {
				ok(rs.Check())
			}
		}
		rep := r.Check()
		for _, p := range rep.Problems {
			ok(p)
		}
	})
}

func ExampleWriter_PutRows() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "rows.reqa")
	w, _ := Create(path)
	// Ten rows of two bytes: row i holds i and i².
	w.PutRows("squares", 10, 2, func(lo, hi int, dst []byte) {
		for i := lo; i < hi; i++ {
			dst[2*(i-lo)], dst[2*(i-lo)+1] = byte(i), byte(i*i)
		}
	})
	w.Commit(Meta{})

	r, _ := Open(path)
	defer r.Close()
	rs, _ := r.Rows("squares")
	chunk, _ := rs.Chunk(0) // in place, checked on this first use
	fmt.Println(rs.Len(), rs.RowBytes(), chunk[2*7:2*7+2])
	// Output: 10 2 [7 49]
}

// editRows runs fn on the bucket of row set name in the file at path.
func editRows(t *testing.T, path, name string, fn func(b *bolt.Bucket) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bolt.Tx) error { return fn(tx.Bucket(bucketRows).Bucket([]byte(name))) }); err != nil {
		t.Fatal(err)
	}
}
