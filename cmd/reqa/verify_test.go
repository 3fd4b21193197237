package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestVerifyCommand: `reqa verify` passes a healthy index (exit 0, "ok"),
// and on an index with one damaged context record — which a question
// answered from another context never reads — exits 1 naming the record, in text
// and in JSON.
func TestVerifyCommand(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "notes.txt", "The ferry leaves at nine. It returns at noon.\n\nTickets cost five euros.\n\nGulls circle the harbour wall.\n")
	idx := filepath.Join(dir, "n.reqa")
	if code, _, errs := reqa(t, "index", "--quiet", "--dense=false", "--out", idx, in); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	code, out, errs := reqa(t, "verify", idx)
	if code != 0 || !strings.Contains(out, ": ok — ") || !strings.Contains(out, "field word/ctx") {
		t.Fatalf("healthy index: exit %d\n%s%s", code, out, errs)
	}

	db, err := bolt.Open(idx, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("contexts"))
		k := binary.BigEndian.AppendUint32(nil, 2)
		v := append([]byte(nil), b.Get(k)...)
		v[1] ^= 0x20
		return b.Put(k, v)
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	// Asking about tickets never reads context 2 and still answers.
	if code, out, _ := reqa(t, "ask", "--index", idx, "-r", "bm25-word", "-k", "1", "How much do tickets cost?"); code != 0 || !strings.Contains(out, "Tickets cost") {
		t.Fatalf("ask on the damaged index: exit %d\n%s", code, out)
	}
	code, _, errs = reqa(t, "verify", idx)
	if code != 1 || !strings.Contains(errs, "context 2: checksum mismatch") || !strings.Contains(errs, "damaged") {
		t.Fatalf("damaged index: exit %d\n%s", code, errs)
	}
	code, out, _ = reqa(t, "verify", "--json", idx)
	var rep struct {
		OK       bool     `json:"ok"`
		Problems []string `json:"problems"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 || rep.OK || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "context 2") {
		t.Fatalf("verify --json: exit %d, %v: %s", code, err, out)
	}
	if code, _, _ := reqa(t, "verify"); code != 2 {
		t.Fatalf("verify without an index: exit %d, want 2", code)
	}
}

// TestVerifyMore: verify needs no ONNX Runtime (a dense index checks out
// with REQA_ORT_LIB pointing nowhere), reports a damaged sentence record
// (which stops rank.Open) in its report, and reports a blob whose name was
// damaged (which would silently hide, e.g., fusion parameters).
func TestVerifyMore(t *testing.T) {
	idx, dense := serveIndex(t, true)
	if dense {
		t.Setenv("REQA_ORT_LIB", filepath.Join(t.TempDir(), "nowhere", "libonnxruntime.so.1"))
		code, out, errs := reqa(t, "verify", idx)
		if code != 0 || !strings.Contains(out, "model, vectors, answer vectors, ANN graph") {
			t.Fatalf("dense index without ONNX Runtime: exit %d\n%s%s", code, out, errs)
		}
		os.Unsetenv("REQA_ORT_LIB")
	} else {
		t.Log("no embeddings in this build: the ONNX-free dense check was not exercised")
	}
	damage := func(bucket string, edit func(b *bolt.Bucket) error) string {
		t.Helper()
		p := filepath.Join(t.TempDir(), "d.reqa")
		data, err := os.ReadFile(idx)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		db, err := bolt.Open(p, 0o644, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.Update(func(tx *bolt.Tx) error { return edit(tx.Bucket([]byte(bucket))) }); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sentence := damage("sentences", func(b *bolt.Bucket) error {
		k := binary.BigEndian.AppendUint32(nil, 0)
		v := append([]byte(nil), b.Get(k)...)
		v[0] ^= 1
		return b.Put(k, v)
	})
	code, out, _ := reqa(t, "verify", "--json", sentence)
	if code != 1 || !strings.Contains(out, "sentence 0: checksum mismatch") {
		t.Fatalf("damaged sentence: exit %d\n%s", code, out)
	}
	renamed := damage("blobs", func(b *bolt.Bucket) error {
		return b.Put([]byte("fusion/pbrams"), append([]byte("[]"), 0x1c, 0x3c, 0x8e, 0x07)) // any record
	})
	code, _, errs := reqa(t, "verify", renamed)
	if code != 1 || !strings.Contains(errs, `blob "fusion/pbrams": not a blob reqa writes`) {
		t.Fatalf("unknown blob name: exit %d\n%s", code, errs)
	}
}

// TestServeRefusesDamagedPages: serve checks an index's pages before
// opening it (a damaged page can make bbolt hand out wild pointers), so a
// file with a leaf element pointing past its page is refused with the
// reason instead of being served; verify reports the same.
func TestServeRefusesDamagedPages(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "notes.txt", strings.Repeat("The ferry leaves at nine. It returns at noon.\n\n", 200))
	idx := filepath.Join(dir, "n.reqa")
	if code, _, errs := reqa(t, "index", "--quiet", "--dense=false", "--out", idx, in); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	damaged := false
	for off := 2 * page; off+page <= len(b); off += page {
		if binary.LittleEndian.Uint16(b[off+8:]) == 0x02 && binary.LittleEndian.Uint16(b[off+10:]) > 1 { // a leaf page
			binary.LittleEndian.PutUint32(b[off+16+4:], 1<<30) // its first element's key offset
			damaged = true
			break
		}
	}
	if !damaged {
		t.Fatal("no leaf page found")
	}
	if err := os.WriteFile(idx, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "serve", "--index", idx, "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "REQA_RUN_MAIN=1")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil || err == nil || !strings.Contains(string(out), "runs past the page") {
		t.Fatalf("serve on damaged pages: %v\n%s", err, out)
	}
	if code, _, errs := reqa(t, "verify", idx); code != 1 || !strings.Contains(errs, "runs past the page") {
		t.Fatalf("verify: exit %d: %s", code, errs)
	}
}
