package index_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/ingest"
	"github.com/reqa/reqa/store"
	bolt "go.etcd.io/bbolt"
)

// syncPool is the text the property test's files are made of: sentences
// on the topics of appendQuestions, and some that answer none.
var syncPool = []string{
	"The lighthouse was first lit in 1823 by the harbour master.",
	"Its lamp burned whale oil until the keepers switched to kerosene.",
	"Bees tell each other where flowers are with a waggle dance.",
	"The angle of the dance points the way relative to the sun.",
	"Sourdough rises because wild yeast and bacteria make gas.",
	"A starter is fed flour and water every day.",
	"Glass is made by melting sand with soda ash and lime.",
	"The molten glass is blown or floated on tin.",
	"Riders replace a bicycle chain when it stretches and wears the gears.",
	"A worn chain skips under load.",
	"A sundial shows the solar time by the shadow of its gnomon.",
	"Sundials are wrong by up to sixteen minutes without the equation of time.",
	"The ferry leaves at noon and returns at six.",
	"Cats sleep for most of the day.",
	"The library opens at nine on weekdays.",
	"Tides follow the moon.",
}

// syncTree is the property test's tree of files: it writes them with
// distinct modification times so that a change is always seen.
type syncTree struct {
	dir   string
	rng   *rand.Rand
	clock time.Time
	n     int // files ever made, for new names
}

// newSyncTree makes a tree of files random files (seeded) in a temporary
// directory, and names the synced and fresh indexes beside it.
func newSyncTree(t *testing.T, seed uint64, files int) (s *syncTree, synced, fresh string) {
	t.Helper()
	root := t.TempDir()
	s = &syncTree{dir: filepath.Join(root, "tree"), rng: rand.New(rand.NewPCG(seed, 29)), clock: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	if err := os.Mkdir(s.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for range files {
		s.write(t, s.newName())
	}
	return s, filepath.Join(root, "synced.reqa"), filepath.Join(root, "fresh.reqa")
}

// build builds an index of the tree at out.
func (s *syncTree) build(t *testing.T, out string, opt index.Options) {
	t.Helper()
	c, err := ingest.ReadInputs([]string{s.dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.Build(context.Background(), c, out, opt); err != nil {
		t.Fatal(err)
	}
}

func (s *syncTree) files(t *testing.T) []string {
	t.Helper()
	var names []string
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// write gives the file name random content (Markdown or text by its name).
func (s *syncTree) write(t *testing.T, name string) {
	t.Helper()
	var b strings.Builder
	if strings.HasSuffix(name, ".md") {
		fmt.Fprintf(&b, "# Notes %d\n\n", s.rng.IntN(100))
	}
	for p := 0; p < 1+s.rng.IntN(2); p++ {
		for k := 0; k < 1+s.rng.IntN(3); k++ {
			b.WriteString(syncPool[s.rng.IntN(len(syncPool))] + " ")
		}
		b.WriteString("\n\n")
	}
	s.touch(t, name, []byte(b.String()))
}

func (s *syncTree) touch(t *testing.T, name string, data []byte) {
	t.Helper()
	p := filepath.Join(s.dir, name)
	if data != nil {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s.clock = s.clock.Add(time.Second)
	if err := os.Chtimes(p, s.clock, s.clock); err != nil {
		t.Fatal(err)
	}
}

func (s *syncTree) newName() string {
	s.n++
	if s.n%2 == 0 {
		return fmt.Sprintf("f%02d.md", s.n)
	}
	return fmt.Sprintf("f%02d.txt", s.n)
}

// syncIndex runs what `reqa index --sync` does: files unchanged by size
// and modification time are not read.
func syncIndex(t *testing.T, dir, out string, opt index.Options) index.SyncResult {
	t.Helper()
	files, err := index.IndexedFiles(out)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ingest.ReadInputsContext(context.Background(), []string{dir}, ingest.ReadOptions{Unchanged: func(p string, st os.FileInfo) bool {
		f, ok := files[p]
		return ok && f.Size == st.Size() && f.ModTime.Equal(st.ModTime())
	}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := index.Sync(context.Background(), c, out, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSyncEqualsFreshBuild is the property test of `reqa index --sync`:
// random sequences of adds, changes (of content, or of the modification
// time alone) and removals over a small tree, each synced into one index,
// which after every step must be the index a fresh build of the tree
// makes — the same records, postings, document lengths and statistics
// (the mean idf up to 1e-12), the same answers with BM25 scores within
// 1e-12 — and pass Verify. Most sequences are BM25 only; two have
// embeddings when the encoder is available, one with context vectors
// made from the sentences'.
func TestSyncEqualsFreshBuild(t *testing.T) {
	for seed := range uint64(5) {
		withDense := seed >= 3
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			opt := appendOptions(t, withDense)
			if seed == 4 {
				opt.ContextVectors = store.ContextVectorsWindow
			}
			if !withDense {
				opt.Tokenizers = []string{"word", "wpm"}
			}
			s, synced, fresh := newSyncTree(t, seed, 3)
			build := func(out string) { s.build(t, out, opt) }
			build(synced)
			steps := 8
			if withDense {
				steps = 3
			}
			sopt := index.Options{} // the index's own encoder and settings
			for step := range steps {
				names := s.files(t)
				var did []string
				for range 1 + s.rng.IntN(3) {
					switch op := s.rng.IntN(4); {
					case op == 0 || len(names) == 0:
						n := s.newName()
						s.write(t, n)
						names = append(names, n)
						did = append(did, "add "+n)
					case op == 1:
						n := names[s.rng.IntN(len(names))]
						s.write(t, n)
						did = append(did, "change "+n)
					case op == 2:
						n := names[s.rng.IntN(len(names))]
						s.touch(t, n, nil)
						did = append(did, "touch "+n)
					case len(names) > 1:
						k := s.rng.IntN(len(names))
						if err := os.Remove(filepath.Join(s.dir, names[k])); err != nil {
							t.Fatal(err)
						}
						did = append(did, "remove "+names[k])
						names = slices.Delete(names, k, k+1)
					}
				}
				res := syncIndex(t, s.dir, synced, sopt)
				t.Logf("step %d: %s → added %d, changed %d, removed %d, unchanged %d; %d sentences tokenized, %d embedded; graph %q",
					step, strings.Join(did, ", "), res.Added, res.Changed, res.Removed, res.Unchanged, res.Tokenized, res.Embedded, res.Graph)
				if withDense && res.Embedded != res.Tokenized {
					t.Errorf("step %d: %d sentences embedded, %d tokenized", step, res.Embedded, res.Tokenized)
				}
				build(fresh)
				compareIndexes(t, fresh, synced)
				compareAnswers(t, fresh, synced, withDense)
				rep, err := index.Verify(synced, index.VerifyOptions{})
				if err != nil || len(rep.Problems) > 0 {
					t.Fatalf("step %d: verify: %v %v", step, err, rep.Problems)
				}
				if t.Failed() {
					t.FailNow()
				}
			}
			if m, _ := filepath.Glob(filepath.Join(filepath.Dir(synced), ".*")); len(m) != 0 {
				t.Errorf("temporary files left: %v", m)
			}
		})
	}
}

// TestSyncNothingChanged: a sync with nothing to do leaves the file as it
// was, byte for byte.
func TestSyncNothingChanged(t *testing.T) {
	root := t.TempDir()
	s := &syncTree{dir: filepath.Join(root, "tree"), rng: rand.New(rand.NewPCG(7, 7)), clock: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	os.Mkdir(s.dir, 0o755)
	s.write(t, "a.md")
	s.write(t, "b.txt")
	out := filepath.Join(root, "x.reqa")
	c, err := ingest.ReadInputs([]string{s.dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.Build(context.Background(), c, out, index.Options{Tokenizers: []string{"word"}}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(out)
	res := syncIndex(t, s.dir, out, index.Options{})
	after, _ := os.ReadFile(out)
	if res.Written || res.Unchanged != 2 || string(before) != string(after) {
		t.Errorf("nothing to sync: %+v, file changed: %v", res, string(before) != string(after))
	}
}

// TestSyncRefusals: indexes without a record of their files, and engine
// and dataset indexes, are refused with ErrCannotSync.
func TestSyncRefusals(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "mem.reqa")
	c := &index.Corpus{}
	id := c.AddContext(store.Context{Text: "The ferry leaves at noon."})
	c.Sentences = append(c.Sentences, store.Sentence{ContextID: id, End: 25})
	if _, err := index.Build(context.Background(), c, out, index.Options{Tokenizers: []string{"word"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := index.IndexedFiles(out); !errors.Is(err, index.ErrCannotSync) || !strings.Contains(err.Error(), "rebuild it once") {
		t.Errorf("index without source files: %v", err)
	}
	if _, err := index.Sync(context.Background(), c, out, index.Options{}); !errors.Is(err, index.ErrCannotSync) {
		t.Errorf("sync of an index without source files: %v", err)
	}
}

// TestSyncUpdatesGraph: a sync that keeps most sentences updates the
// stored ANN graph instead of building it again, and the index still
// answers as a fresh build of the same files does (dense through the graph
// included) and verifies; a sync that replaces most of the tree builds it
// afresh.
func TestSyncUpdatesGraph(t *testing.T) {
	opt := appendOptions(t, true)
	s, synced, fresh := newSyncTree(t, 7, 12)
	build := func(out string) { s.build(t, out, opt) }
	build(synced)
	check := func(want string) {
		t.Helper()
		res := syncIndex(t, s.dir, synced, index.Options{})
		if res.Graph != want {
			t.Errorf("added %d, changed %d, removed %d of %d files: graph %q, want %q", res.Added, res.Changed, res.Removed, res.Added+res.Changed+res.Unchanged, res.Graph, want)
		}
		build(fresh)
		compareIndexes(t, fresh, synced)
		compareAnswers(t, fresh, synced, true)
		if rep, err := index.Verify(synced, index.VerifyOptions{}); err != nil || len(rep.Problems) > 0 {
			t.Fatalf("verify: %v %v", err, rep.Problems)
		}
	}
	names := s.files(t)
	s.write(t, names[3])
	if err := os.Remove(filepath.Join(s.dir, names[7])); err != nil {
		t.Fatal(err)
	}
	s.write(t, s.newName())
	check(index.GraphUpdated)
	for _, n := range s.files(t)[:10] {
		s.write(t, n)
	}
	check(index.GraphBuilt)
}

// TestSyncStoresAnswers: a sync of an index written before the answer
// vectors were stored rewrites it with them although no file changed, and
// the index then answers as a fresh build; the next sync leaves it alone.
func TestSyncStoresAnswers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string // meta flags the earlier reqa did not write
		rows  []string // row sets it did not write (nil: none)
		blobs []string // blobs it did not write
	}{
		{"before f4722bb", []string{`,"answers":true`, `,"context_of":true`, `,"graph_slots":true`}, nil, []string{store.BlobDenseGraphUpper}},
		{"before the split graph (e24ee2e)", []string{`,"graph_slots":true`}, []string{store.RowsDenseGraphSlots}, []string{store.BlobDenseGraphUpper}},
		// Term filters came after everything else: an index with all
		// but them is brought up to date by committing it as it is.
		{"before the term filters (4b080ac)", nil, []string{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) { testSyncUpgrades(t, tc.flags, tc.rows, tc.blobs) })
	}
}

// testSyncUpgrades checks that a sync with no file changed rewrites an
// index an earlier reqa wrote (without the meta flags, row sets and blobs
// named, and without BM25 term filters) as a build of today would.
func testSyncUpgrades(t *testing.T, flags, rowSets, blobs []string) {
	opt := appendOptions(t, true) // skips (fails under CI) without the encoder
	s, synced, fresh := newSyncTree(t, 11, 6)
	s.build(t, synced, opt)
	db, err := bolt.Open(synced, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		if rowSets == nil {
			if err := tx.DeleteBucket([]byte("rows")); err != nil {
				return err
			}
		}
		for _, name := range rowSets {
			if err := tx.Bucket([]byte("rows")).DeleteBucket([]byte(name)); err != nil {
				return err
			}
		}
		bb := tx.Bucket([]byte("blobs"))
		var del [][]byte
		bb.ForEach(func(k, _ []byte) error {
			for _, name := range blobs {
				if string(k) == name || strings.HasPrefix(string(k), name+"\x00") {
					del = append(del, append([]byte(nil), k...))
				}
			}
			return nil
		})
		for _, k := range del {
			if err := bb.Delete(k); err != nil {
				return err
			}
		}
		if err := tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			if strings.HasPrefix(string(name), "field/") {
				return b.Delete([]byte("termfilter"))
			}
			return nil
		}); err != nil {
			return err
		}
		mb := tx.Bucket([]byte("meta"))
		v := mb.Get([]byte("meta"))
		p := string(v[:len(v)-4])
		for _, f := range flags {
			if !strings.Contains(p, f) {
				t.Fatalf("meta has no %s: %s", f, p)
			}
			p = strings.Replace(p, f, "", 1)
		}
		return mb.Put([]byte("meta"), binary.BigEndian.AppendUint32([]byte(p), crc32.Checksum([]byte(p), crc32.MakeTable(crc32.Castagnoli))))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	res := syncIndex(t, s.dir, synced, index.Options{})
	if !res.Written || !res.Upgraded || !res.Meta.Dense.Answers || !res.Meta.Dense.GraphSlots || !res.Meta.ContextOf || res.Embedded != 0 {
		t.Fatalf("sync of an index from an earlier reqa: %+v", res)
	}
	s.build(t, fresh, opt)
	compareIndexes(t, fresh, synced)
	compareAnswers(t, fresh, synced, true)
	if rep, err := index.Verify(synced, index.VerifyOptions{}); err != nil || len(rep.Problems) > 0 {
		t.Fatalf("verify: %v %v", err, rep.Problems)
	}
	if res := syncIndex(t, s.dir, synced, index.Options{}); res.Written || res.Upgraded {
		t.Errorf("second sync: %+v", res)
	}
}
