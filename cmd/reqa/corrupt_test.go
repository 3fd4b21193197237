package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/reqa/reqa/rank"
	"github.com/reqa/reqa/store"
)

// damageValue flips one byte of the value under key in the nested bucket
// path of the bbolt file p, keeping the database structure valid (only a
// record's checksum can see the change).
func damageValue(t *testing.T, p string, bucket []string, key []byte, off int) {
	t.Helper()
	db, err := bolt.Open(p, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(bucket[0]))
		for _, name := range bucket[1:] {
			if b == nil {
				break
			}
			b = b.Bucket([]byte(name))
		}
		if b == nil || b.Get(key) == nil {
			return fmt.Errorf("no key %q in bucket %q", key, bucket)
		}
		v := append([]byte(nil), b.Get(key)...)
		v[min(off, len(v)-1)] ^= 0x5a
		return b.Put(key, v)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func blobChunk(name string, i uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte(name+"\x00"), i)
}

// TestDamagedIndexCommands damages a real index (truncation and flipped
// bytes in named parts) and runs ask, stats and serve on it: each fails
// with exit code 1 and a message naming what is damaged — no panic, no
// answer.
func TestDamagedIndexCommands(t *testing.T) {
	good, dense := serveIndex(t, true)
	if !dense {
		t.Log("dense encoder not embedded in this build (run via make): only BM25 damage is checked")
	}
	orig, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	const question = "When does the ferry return?"
	type damage struct {
		name   string
		dense  bool
		damage func(t *testing.T, p string)
		ranker string
		// want is a substring of the error message.
		want string
	}
	cases := []damage{
		{"truncated to 6000 bytes", false, func(t *testing.T, p string) { os.Truncate(p, 6000) }, "bm25-wpm", "truncated to 6000 of its"},
		{"truncated to a third", false, func(t *testing.T, p string) { os.Truncate(p, int64(len(orig)/3)) }, "bm25-word", "truncated to"},
		{"meta", false, func(t *testing.T, p string) { damageValue(t, p, []string{"meta"}, []byte("meta"), 20) }, "bm25-wpm", "meta: checksum mismatch"},
		{"postings of ferry", false, func(t *testing.T, p string) {
			damageValue(t, p, []string{"field/wpm/ctx", "postings"}, []byte("ferry"), 0)
		}, "bm25-wpm", `field wpm/ctx postings of "ferry": checksum mismatch`},
		{"the answer's context", false, func(t *testing.T, p string) {
			damageValue(t, p, []string{"contexts"}, []byte{0, 0, 0, 0}, 5)
		}, "bm25-word", "context 0: checksum mismatch"},
		{"model", true, func(t *testing.T, p string) {
			damageValue(t, p, []string{"blobs"}, blobChunk(store.BlobDenseModel, 0), 4096)
		}, "dense", "blob dense/model.onnx chunk 0: checksum mismatch"},
		{"answer vectors", true, func(t *testing.T, p string) {
			damageValue(t, p, []string{"rows", store.RowsDenseAnswers}, make([]byte, 8), 100)
		}, "fusion-zscore", "rows dense/answers chunk 0"},
		// ask searches the graph split: its upper layers and layer-0 slots.
		{"ANN graph upper layers", true, func(t *testing.T, p string) {
			damageValue(t, p, []string{"blobs"}, blobChunk(store.BlobDenseGraphUpper, 0), 50)
		}, "dense", "blob dense/graph-upper chunk 0: checksum mismatch"},
		{"ANN graph slots", true, func(t *testing.T, p string) {
			damageValue(t, p, []string{"rows", store.RowsDenseGraphSlots}, make([]byte, 8), 100)
		}, "dense", "rows dense/graph-slots chunk 0"},
	}
	for _, tc := range cases {
		if tc.dense && !dense {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "bad.reqa")
			if err := os.WriteFile(p, orig, 0o644); err != nil {
				t.Fatal(err)
			}
			tc.damage(t, p)
			code, out, errs := reqa(t, "ask", "--index", p, "--ranker", tc.ranker, "--json", question)
			if code != 1 || out != "" || !strings.Contains(errs, tc.want) ||
				!strings.Contains(errs, "index is damaged") && !strings.Contains(errs, "not a reqa index") {
				t.Fatalf("ask: exit %d, stdout %q, stderr %q (want exit 1 naming %q)", code, out, errs, tc.want)
			}
			t.Logf("ask: %s", strings.TrimSpace(errs))

			// serve refuses to start on an index whose default ranker is
			// damaged; otherwise asking the damaged part gives a 500 naming it.
			ts, err := openServer(t, p)
			if err != nil {
				if !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("serve refused to start without saying the index is damaged: %v", err)
				}
				t.Logf("serve: %v", err)
				return
			}
			resp, body := get(t, ts, "GET", "/v1/ask?q="+url.QueryEscape(question)+"&ranker="+tc.ranker)
			var reply struct{ Error string }
			json.Unmarshal(body, &reply)
			if resp.StatusCode != 500 || !strings.Contains(reply.Error, "index is damaged") || !strings.Contains(reply.Error, tc.want) {
				t.Fatalf("serve: %d %s", resp.StatusCode, body)
			}
			t.Logf("serve: %d %s", resp.StatusCode, strings.TrimSpace(string(body)))
		})
	}
}

// openServer opens the index p and starts a server on it as `reqa serve`
// does, returning the error instead of failing.
func openServer(t *testing.T, p string) (*httptest.Server, error) {
	t.Helper()
	e, err := rank.Open(p)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { e.Close() })
	s, err := newServer(e, serverOptions{Log: log.New(io.Discard, "", 0)})
	if err != nil {
		return nil, err
	}
	ts := httptest.NewServer(s.handler())
	t.Cleanup(ts.Close)
	return ts, nil
}
