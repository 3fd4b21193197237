package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reqa/reqa/index/adapter"
	"github.com/reqa/reqa/index/dense"
	"github.com/reqa/reqa/store"
)

// TestAdapterForOtherModelRefused stores an adapter trained for another
// encoder in a dense index: the dense ranker must refuse it with a clear
// error, and --no-adapter must still answer.
func TestAdapterForOtherModelRefused(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "notes.txt", "The ferry leaves at nine. It returns at noon.\n\nTickets cost five euros.\n")
	idx := filepath.Join(dir, "n.reqa")
	if code, _, errs := reqa(t, "index", "--out", idx, in); code != 0 {
		t.Fatalf("index: %s", errs)
	}
	if code, out, _ := reqa(t, "stats", idx); code != 0 || !strings.Contains(out, "dense") {
		skipUnlessCI(t, "dense encoder not embedded in this build (run via make)")
	}
	// A tiny adapter for a 512-d encoder with another hash.
	ans := dense.Vectors{Dim: 512, Data: make([]float32, 4*512)}
	for i := 0; i < 4; i++ {
		ans.Data[i*512+i] = 1
	}
	data := adapter.Data{Answers: ans}
	for i := 0; i < 16; i++ {
		q := make([]float32, 512)
		q[i%4] = 1
		q[100+i] = 0.5
		dense.Normalize(q)
		data.Questions = append(data.Questions, q)
		data.Gold = append(data.Gold, []uint32{uint32(i % 4)})
	}
	ad, _, err := adapter.Train(context.Background(), data, adapter.Options{Epochs: 1, EncoderHash: "some-other-model"})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Amend(idx, func(tx *store.WriteTx) error { return tx.PutBlob(store.BlobAdapter, ad.Marshal()) }); err != nil {
		t.Fatal(err)
	}
	code, _, errs := reqa(t, "ask", "--index", idx, "-r", "dense", "ferry")
	if code != 1 || !strings.Contains(errs, "adapter") {
		t.Fatalf("mismatched adapter: exit %d, stderr %q", code, errs)
	}
	if code, out, errs := reqa(t, "ask", "--index", idx, "-r", "dense", "--no-adapter", "ferry"); code != 0 || !strings.Contains(out, "ferry") {
		t.Fatalf("--no-adapter: exit %d: %s%s", code, out, errs)
	}
}
