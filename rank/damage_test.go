package rank_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/index/ann"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/reqa/reqa/index/encoder/uselite"
	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/store"
)

// damageQuestion is asked of every damaged index; its terms ("Bell",
// "Rock", "light") have postings in both BM25 fields.
const damageQuestion = "Who kept the Bell Rock light?"

// damageRankers are the ways an index is asked: each BM25 field, dense
// exact search and search over the ANN graph (both reading the stored
// answer vectors), the sentence-only dense ranker (mixing the sentence
// vectors itself), and a fusion.
func damageRankers(dense bool) []string {
	rs := []string{"bm25-word", "bm25-wpm"}
	if dense {
		rs = append(rs, "dense", "dense-ann", "dense/sent", "fusion-zscore")
	}
	return rs
}

// askDamaged opens path afresh with o and asks damageQuestion with ranker
// name; a panic is returned as an error starting "PANIC".
func askDamaged(path, name string, o rank.OpenOptions) (answers []rank.Answer, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("PANIC: %v", p)
		}
	}()
	e, err := rank.OpenWith(path, o)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	var r rank.Ranker
	switch name {
	case "dense-ann":
		d, err := e.DenseRanker(rank.Spec{Dense: rank.DenseOptions{ANN: true}})
		if err != nil {
			return nil, err
		}
		if !d.UsesANN() {
			return nil, errors.New("dense-ann: the index's ANN graph is not used")
		}
		r = d
	case "fusion-zscore":
		r, err = e.Fused(rank.DefaultFusion(), rank.Spec{})
	default:
		r, err = e.Ranker(name)
	}
	if err != nil {
		return nil, err
	}
	return e.Ask(context.Background(), r, damageQuestion, 3)
}

// checkDamaged asks the damaged index at path with every ranker, the
// answer vectors read in place and through a cache (damageOpens): none may
// panic; each either fails with an error wrapping store.ErrCorrupt or
// store.ErrNotIndex, or answers exactly as the undamaged index did. The
// rankers in mustFail must fail, with an error naming wantName. It returns
// how many rankers reported an error, both ways counted.
func checkDamaged(t *testing.T, what, path string, want map[string][]rank.Answer, mustFail []string, wantName string) int {
	t.Helper()
	failed := 0
	for _, o := range damageOpens {
		failed += checkDamagedWith(t, what+o.what, path, o.opt, want, mustFail, wantName)
	}
	return failed
}

// damageOpens are the ways damage is asked about: the answer vectors in
// place, and read through a cache of two chunks (reqa serve's way).
var damageOpens = []struct {
	what string
	opt  rank.OpenOptions
}{
	{"", rank.OpenOptions{}},
	{" (vectors cached)", rank.OpenOptions{VectorCache: 1}},
}

// checkDamagedWith is checkDamaged for one way of opening the index.
func checkDamagedWith(t *testing.T, what, path string, o rank.OpenOptions, want map[string][]rank.Answer, mustFail []string, wantName string) int {
	t.Helper()
	failed := 0
	for name, good := range want {
		got, err := askDamaged(path, name, o)
		switch {
		case err != nil && strings.HasPrefix(err.Error(), "PANIC"):
			t.Errorf("%s, %s: %v", what, name, err)
		case err != nil:
			failed++
			if !errors.Is(err, store.ErrCorrupt) && !errors.Is(err, store.ErrNotIndex) {
				t.Errorf("%s, %s: error does not say the index is damaged: %v", what, name, err)
			}
		case !reflect.DeepEqual(got, good):
			t.Errorf("%s, %s: answered differently without an error:\n got %+v\nwant %+v", what, name, got, good)
		}
		for _, m := range mustFail {
			if m != name {
				continue
			}
			if err == nil {
				t.Errorf("%s, %s: no error", what, name)
			} else if !strings.Contains(err.Error(), wantName) {
				t.Errorf("%s, %s: error does not name %q: %v", what, name, wantName, err)
			}
		}
	}
	return failed
}

// TestTruncatedIndex cuts a real index file at many points: asking never
// panics and never answers wrongly; what is cut away is reported as damage.
func TestTruncatedIndex(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.reqa")
	dense := buildTestIndex(t, good)
	want := map[string][]rank.Answer{}
	for _, name := range damageRankers(dense) {
		a, err := askDamaged(good, name, rank.OpenOptions{})
		if err != nil || len(a) == 0 {
			t.Fatalf("undamaged index, %s: %v (%d answers)", name, err, len(a))
		}
		want[name] = a
	}
	orig, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	n := int64(len(orig))
	cuts := []int64{0, 1, 100, 4095, 4096, 8191, 8192, 3 * 4096, n / 16, n / 8, n / 4, n / 3, n / 2, 2 * n / 3, 3 * n / 4, 7 * n / 8, n - 3*4096, n - 4096, n - 1}
	for _, cut := range cuts {
		if cut < 0 || cut >= n {
			continue
		}
		p := filepath.Join(dir, "cut.reqa")
		if err := os.WriteFile(p, orig[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		failed := checkDamaged(t, fmt.Sprintf("cut at %d of %d bytes", cut, n), p, want, nil, "")
		t.Logf("cut at %9d of %d bytes: %d of %d rankers report damage, the rest answer as before", cut, n, failed, len(want))
	}
}

// sealed returns payload with its CRC-32C appended, as package store seals
// records (for damage that keeps checksums valid).
func sealed(payload []byte) []byte {
	return binary.BigEndian.AppendUint32(append([]byte(nil), payload...), crc32.Checksum(payload, crc32.MakeTable(crc32.Castagnoli)))
}

// rowsKey is the key of chunk c of a row set.
func rowsKey(c uint64) []byte { return binary.BigEndian.AppendUint64(nil, c) }

// resealedRows recomputes the checksum of a row-set chunk (v, as stored).
func resealedRows(v []byte) []byte {
	p := v[:len(v)-4]
	return binary.BigEndian.AppendUint32(append([]byte(nil), p...), crc32.Checksum(p, crc32.MakeTable(crc32.Castagnoli)))
}

func chunkKey(name string, i uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte(name+"\x00"), i)
}

// rewrite changes one value of the index at path through bbolt, keeping
// the file a valid bbolt database: bucket is a path of nested buckets,
// edit returns the new value (nil deletes the key).
func rewrite(t *testing.T, path string, bucket []string, key []byte, edit func(v []byte) []byte) {
	t.Helper()
	updateFile(t, path, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(bucket[0]))
		for _, name := range bucket[1:] {
			if b == nil {
				break
			}
			b = b.Bucket([]byte(name))
		}
		if b == nil {
			return fmt.Errorf("no bucket %q", bucket)
		}
		v := b.Get(key)
		if v == nil {
			return fmt.Errorf("no key %q in bucket %q", key, bucket)
		}
		nv := edit(append([]byte(nil), v...))
		if nv == nil {
			return b.Delete(key)
		}
		return b.Put(key, nv)
	})
}

// updateFile runs fn in one bbolt transaction on the index file at path.
func updateFile(t *testing.T, path string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
}

// flipAt returns an edit that flips the bits of one byte at off (negative:
// from the end).
func flipAt(off int) func([]byte) []byte {
	return func(v []byte) []byte {
		if off < 0 {
			off += len(v)
		}
		v[min(off, len(v)-1)] ^= 0x5a
		return v
	}
}

// TestDamagedParts damages one named part of a real index at a time —
// a postings record, the document lengths, a context, a sentence, the meta,
// the ANN graph, the model, the vectors — keeping the bbolt structure valid,
// and checks that asking reports the damage by name with an error wrapping
// store.ErrCorrupt: never a panic, never a wrong answer.
func TestDamagedParts(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.reqa")
	dense := buildTestIndex(t, good)
	rankers := damageRankers(dense)
	want := map[string][]rank.Answer{}
	for _, name := range rankers {
		a, err := askDamaged(good, name, rank.OpenOptions{})
		if err != nil || len(a) == 0 {
			t.Fatalf("undamaged index, %s: %v (%d answers)", name, err, len(a))
		}
		want[name] = a
	}
	// The context of the top answer, whose record every ranker reads.
	topCtx, topSent := uint32(0), want["bm25-word"][0].SentenceID
	{
		r, err := store.Open(good)
		if err != nil {
			t.Fatal(err)
		}
		ss, _ := r.Sentences()
		topCtx = ss[want["bm25-word"][0].SentenceID].ContextID
		r.Close()
	}
	idKey := func(id uint32) []byte { return binary.BigEndian.AppendUint32(nil, id) }
	allBut := func(skip ...string) []string {
		var out []string
	next:
		for _, r := range rankers {
			for _, s := range skip {
				if r == s {
					continue next
				}
			}
			out = append(out, r)
		}
		return out
	}
	type damage struct {
		name     string
		bucket   []string
		key      []byte
		edit     func([]byte) []byte
		dense    bool
		mustFail []string
		wantName string
	}
	cases := []damage{
		{"word postings of Bell, flipped payload byte", []string{"field/word/ctx", "postings"}, []byte("Bell"), flipAt(0), false,
			[]string{"bm25-word"}, `field word/ctx postings of "Bell": checksum mismatch`},
		{"wpm postings of bell, flipped checksum byte", []string{"field/wpm/ctx", "postings"}, []byte("bell"), flipAt(-1), false,
			[]string{"bm25-wpm"}, "field wpm/ctx"},
		{"word postings of Bell, deleted", []string{"field/word/ctx", "postings"}, []byte("Bell"), func([]byte) []byte { return nil }, false,
			[]string{"bm25-word"}, "field word/ctx: term dictionary damaged"},
		{"word postings of Bell, resealed garbage", []string{"field/word/ctx", "postings"}, []byte("Bell"),
			func([]byte) []byte { return sealed([]byte{0xff, 0xff, 0xff}) }, false,
			[]string{"bm25-word"}, "field word/ctx: term dictionary damaged"},
		{"word document lengths", []string{"field/word/ctx"}, []byte("doclens"), flipAt(1), false,
			[]string{"bm25-word"}, "field word/ctx document lengths: checksum mismatch"},
		{"context of the top answer", []string{"contexts"}, idKey(topCtx), flipAt(2), false,
			rankers, fmt.Sprintf("context %d: checksum mismatch", topCtx)},
		// Sentence records are read for the answers given (and every one
		// by a fusion scoring every candidate, for its corpus).
		{"a sentence record", []string{"sentences"}, idKey(0), flipAt(0), false,
			[]string{"fusion-zscore"}, "sentence 0: checksum mismatch"},
		{"the top answer's sentence record", []string{"sentences"}, idKey(topSent), flipAt(0), false,
			[]string{"bm25-word"}, fmt.Sprintf("sentence %d: checksum mismatch", topSent)},
		{"meta", []string{"meta"}, []byte("meta"), flipAt(10), false,
			rankers, "meta: checksum mismatch"},
		{"meta, resealed with another sentence count", []string{"meta"}, []byte("meta"), func(v []byte) []byte {
			p := string(v[:len(v)-4])
			i := strings.Index(p, `"sentences":`)
			return sealed([]byte(p[:i] + `"sentences":1` + strings.TrimLeft(p[i+len(`"sentences":`):], "0123456789")))
		}, false, rankers, "meta says 1"},
		// The whole graph is read by verify, append and sync; ask searches
		// it split (its upper layers and its layer-0 slots, below).
		{"ANN graph chunk", []string{"blobs"}, chunkKey(store.BlobDenseGraph, 0), flipAt(100), true,
			nil, "blob dense/graph chunk 0: checksum mismatch"},
		{"ANN graph header", []string{"blobs"}, []byte(store.BlobDenseGraph), flipAt(3), true,
			nil, "blob dense/graph: checksum mismatch"},
		{"ANN graph, resealed garbage", []string{"blobs"}, chunkKey(store.BlobDenseGraph, 0), func(v []byte) []byte {
			p := v[:len(v)-4]
			for i := range p {
				p[i] = byte(i * 7)
			}
			return sealed(p)
		}, true, nil, "ANN graph"},
		{"ANN graph upper layers", []string{"blobs"}, chunkKey(store.BlobDenseGraphUpper, 0), flipAt(20), true,
			[]string{"dense-ann"}, "blob dense/graph-upper chunk 0: checksum mismatch"},
		{"ANN graph upper layers, resealed garbage", []string{"blobs"}, chunkKey(store.BlobDenseGraphUpper, 0), func(v []byte) []byte {
			p := v[:len(v)-4]
			for i := 8; i < len(p); i++ {
				p[i] = byte(i * 7)
			}
			return sealed(p)
		}, true, []string{"dense-ann"}, "graph-upper"},
		{"ANN graph slots", []string{"rows", store.RowsDenseGraphSlots}, rowsKey(0), flipAt(100), true,
			[]string{"dense-ann"}, "rows dense/graph-slots chunk 0"},
		{"ANN graph slots, resealed with a neighbour out of range", []string{"rows", store.RowsDenseGraphSlots}, rowsKey(0), func(v []byte) []byte {
			for s := 0; s+4 < len(v)-4; s += 4 * (2*ann.DefaultM + 1) { // every slot's first neighbour
				binary.LittleEndian.PutUint32(v[s+4:], 1<<30)
			}
			return resealedRows(v)
		}, true, []string{"dense-ann"}, "rows dense/graph-slots chunk 0"},
		{"ANN graph slots, chunk deleted", []string{"rows", store.RowsDenseGraphSlots}, rowsKey(0), func([]byte) []byte { return nil }, true,
			[]string{"dense-ann"}, "rows dense/graph-slots chunk 0"},
		{"model chunk 0", []string{"blobs"}, chunkKey(store.BlobDenseModel, 0), flipAt(1 << 20), true,
			allBut("bm25-word", "bm25-wpm"), "blob dense/model.onnx chunk 0: checksum mismatch"},
		{"model chunk 1, deleted", []string{"blobs"}, chunkKey(store.BlobDenseModel, 1), func([]byte) []byte { return nil }, true,
			allBut("bm25-word", "bm25-wpm"), "blob dense/model.onnx chunk 1: missing"},
		{"vocabulary", []string{"blobs"}, chunkKey(store.BlobDenseVocab, 0), flipAt(5000), true,
			allBut("bm25-word", "bm25-wpm"), "blob dense/vocab.json chunk 0: checksum mismatch"},
		// The sentence and context vectors are read by what mixes them
		// itself (the sentence-only ranker, append, sync) and by verify;
		// the index's own λ reads the stored answer vectors instead.
		{"sentence vectors", []string{"blobs"}, chunkKey(store.BlobDenseSent, 0), flipAt(64), true,
			[]string{"dense/sent"}, "blob dense/sentences chunk 0: checksum mismatch"},
		{"context vectors", []string{"blobs"}, chunkKey(store.BlobDenseCtx, 0), flipAt(-9), true,
			[]string{"dense/sent"}, "blob dense/contexts chunk 0: checksum mismatch"},
		{"sentence vectors, resealed one vector short", []string{"blobs"}, chunkKey(store.BlobDenseSent, 0), func(v []byte) []byte {
			return sealed(v[:len(v)-4-4*uselite.Dim])
		}, true, []string{"dense/sent"}, store.BlobDenseSent},
		// Checksums valid, values not numbers: a dense ranker refuses them
		// before scoring (they are checked as the norms are taken).
		{"sentence vectors, resealed with a NaN", []string{"blobs"}, chunkKey(store.BlobDenseSent, 0), func(v []byte) []byte {
			p := v[:len(v)-4]
			binary.LittleEndian.PutUint32(p[12+4*(uselite.Dim+7):], 0x7fc00000) // sentence 1
			return sealed(p)
		}, true, []string{"dense/sent"}, store.BlobDenseSent},
		{"context vectors, resealed with an infinity", []string{"blobs"}, chunkKey(store.BlobDenseCtx, 0), func(v []byte) []byte {
			p := v[:len(v)-4]
			binary.LittleEndian.PutUint32(p[12+4*3:], 0xff800000) // context 0
			return sealed(p)
		}, true, nil, store.BlobDenseCtx},
		// The answer vectors, read in place chunk by chunk.
		{"answer vectors", []string{"rows", store.RowsDenseAnswers}, rowsKey(0), flipAt(100), true,
			[]string{"dense", "dense-ann", "fusion-zscore"}, "rows dense/answers chunk 0"},
		{"answer vectors, resealed with a NaN", []string{"rows", store.RowsDenseAnswers}, rowsKey(0), func(v []byte) []byte {
			binary.LittleEndian.PutUint32(v[4*(uselite.Dim+5):], 0x7fc00000) // sentence 1
			return resealedRows(v)
		}, true, []string{"dense", "dense-ann", "fusion-zscore"}, "is NaN"},
		{"answer vectors, chunk deleted", []string{"rows", store.RowsDenseAnswers}, rowsKey(0), func([]byte) []byte { return nil }, true,
			[]string{"dense", "dense-ann", "fusion-zscore"}, "rows dense/answers chunk 0"},
	}
	for _, tc := range cases {
		if tc.dense && !dense {
			t.Logf("%s: skipped (no embeddings in this build)", tc.name)
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "bad.reqa")
			copyIndex(t, good, p)
			rewrite(t, p, tc.bucket, tc.key, tc.edit)
			failed := checkDamaged(t, tc.name, p, want, tc.mustFail, tc.wantName)
			// Verify finds every one of these, naming the part.
			rep, err := index.Verify(p, index.VerifyOptions{Fusions: rank.CheckFusions})
			found := fmt.Sprint(err)
			for _, e := range rep.Problems {
				found += "\n" + e.Error()
			}
			if err == nil && rep.OK() {
				t.Errorf("verify found nothing wrong")
			} else if !strings.Contains(found, tc.wantName) {
				t.Errorf("verify did not name %q:\n%s", tc.wantName, found)
			}
			if len(tc.mustFail) > 0 {
				e, err := askDamaged(p, tc.mustFail[0], rank.OpenOptions{})
				t.Logf("%d of %d rankers report the damage, e.g. %v (%d answers)", failed, len(want), err, len(e))
			}
		})
	}
}

// TestDamagedTermsFastStart: a fast start (reqa ask) checks BM25 term
// dictionaries by their filters instead of reading them whole: a deleted
// term key is still reported, as ErrCorrupt naming the damaged
// dictionary, by a question that needs the term, and a question that does
// not answers as the undamaged index does.
func TestDamagedTermsFastStart(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.reqa")
	buildTestIndex(t, good)
	bad := filepath.Join(dir, "bad.reqa")
	copyIndex(t, good, bad)
	rewrite(t, bad, []string{"field/word/ctx", "postings"}, []byte("Bell"), func([]byte) []byte { return nil })
	ask := func(path, question string) ([]rank.Answer, error) {
		return askWord(path, rank.OpenOptions{FastStart: true}, question)
	}
	if _, err := ask(bad, damageQuestion); !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), "field word/ctx: term dictionary damaged") {
		t.Errorf("a question needing the deleted term: %v, want the damaged dictionary reported", err)
	}
	const other = "Who kept the light on the rock?"
	want, err := ask(good, other)
	if err != nil || len(want) == 0 {
		t.Fatalf("undamaged index: %v (%d answers)", err, len(want))
	}
	got, err := ask(bad, other)
	if err != nil {
		t.Fatalf("a question not needing the deleted term: %v", err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("a question not needing the deleted term answers\n%v\nwant\n%v", got, want)
	}
}
