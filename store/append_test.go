package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// addContext appends one context to the index being written and returns the
// meta to commit.
func addContext(t *testing.T, w *Writer, m Meta, title string) Meta {
	t.Helper()
	err := w.Update(func(tx *WriteTx) error {
		return tx.PutContext(Context{ID: uint32(m.Contexts), Title: title, Text: "x"})
	})
	if err != nil {
		t.Fatal(err)
	}
	m.Contexts++
	return m
}

// TestCreateFromSnapshot: CreateFrom starts from the committed index;
// readers keep the old state until Commit; Abort leaves the file alone.
func TestCreateFromSnapshot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.reqa")
	build(t, path, "T1")
	before, _ := os.ReadFile(path)

	w, m, err := CreateFrom(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Contexts != 1 {
		t.Fatalf("snapshot meta %+v", m)
	}
	m = addContext(t, w, m, "T2")
	r, err := Open(path) // a reader while the writer works: the old state
	if err != nil {
		t.Fatalf("reader during append: %v", err)
	}
	if r.Meta().Contexts != 1 {
		t.Errorf("reader sees %d contexts during the append", r.Meta().Contexts)
	}
	w.Abort()
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("aborted append changed the index")
	}

	w, m, err = CreateFrom(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	m = addContext(t, w, m, "T2")
	if err := w.Commit(m); err != nil {
		t.Fatal(err)
	}
	if r.Meta().Contexts != 1 { // the open reader keeps its file
		t.Errorf("old reader now sees %d contexts", r.Meta().Contexts)
	}
	if c, err := r.Context(0); err != nil || c.Title != "T1" {
		t.Errorf("old reader: %+v %v", c, err)
	}
	r.Close()
	r, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if c, err := r.Context(1); err != nil || c.Title != "T2" || r.Meta().Contexts != 2 {
		t.Fatalf("after commit: %+v %v, meta %+v", c, err, r.Meta())
	}
	if m, _ := filepath.Glob(tmpPattern(path)); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// TestWritersTakeTurns: a second appender waits for the first (told once
// through waiting) and then appends to its result, so no append is lost; a
// rebuild's commit waits for a running append too.
func TestWritersTakeTurns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.reqa")
	build(t, path, "T1")
	w1, m1, err := CreateFrom(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		w2, m2, err := CreateFrom(context.Background(), path, func() { waited <- struct{}{} })
		if err != nil {
			done <- err
			return
		}
		m2 = addContext(t, w2, m2, "second")
		done <- w2.Commit(m2)
	}()
	select {
	case <-waited:
	case err := <-done:
		t.Fatalf("second writer did not wait: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("second writer neither waited nor finished")
	}
	// Cancelling a waiting writer gives up cleanly.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := CreateFrom(ctx, path, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: %v", err)
	}
	m1 = addContext(t, w1, m1, "first")
	if err := w1.Commit(m1); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cs, err := r.Contexts()
	if err != nil || len(cs) != 3 || cs[1].Title != "first" || cs[2].Title != "second" {
		t.Fatalf("after two appends: %+v %v", cs, err)
	}

	// A rebuild committing during an append waits for it, then replaces
	// the index whole.
	w3, m3, err := CreateFrom(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	rebuilt := make(chan struct{})
	go func() {
		build(t, path, "rebuilt")
		close(rebuilt)
	}()
	select {
	case <-rebuilt:
		t.Fatal("a rebuild committed in the middle of an append")
	case <-time.After(300 * time.Millisecond):
	}
	m3 = addContext(t, w3, m3, "third")
	if err := w3.Commit(m3); err != nil {
		t.Fatal(err)
	}
	<-rebuilt
	r2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if c, _ := r2.Context(0); c.Title != "rebuilt" || r2.Meta().Contexts != 1 {
		t.Errorf("after rebuild: %+v", r2.Meta())
	}
}

func TestCreateFromMissing(t *testing.T) {
	_, _, err := CreateFrom(context.Background(), filepath.Join(t.TempDir(), "none.reqa"), nil)
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("got %v", err)
	}
}

// TestRebuildReleasesLock: replacing an existing index takes its writer
// lock only for the rename and then releases it (no descriptor, and so no
// unlinked old file, is kept open).
func TestRebuildReleasesLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.reqa")
	build(t, path, "T0")
	fds := func() int {
		es, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			// May skip in CI: /proc/self/fd exists on every Linux (CI's OS); this is for other systems (store does not import internal/testenv).
			t.Skipf("no /proc/self/fd: %v", err)
		}
		return len(es)
	}
	before := fds()
	for i := 0; i < 5; i++ {
		build(t, path, "T")
	}
	if after := fds(); after > before {
		t.Fatalf("%d open descriptors after 5 rebuilds, %d before", after, before)
	}
}

// TestRebuildsTakeTurns: a rebuild started while another rebuild of the
// same index (not there yet) is building waits for it, says so, then
// replaces its index; an append started during a rebuild waits for the
// rebuild and appends to its index. Nothing is silently lost.
func TestRebuildsTakeTurns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.reqa")
	w1, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := CreateWait(ctx, path, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
	waited := make(chan struct{}, 1)
	created := make(chan *Writer, 1)
	go func() {
		w2, err := CreateWait(context.Background(), path, func() { waited <- struct{}{} })
		if err != nil {
			t.Error(err)
		}
		created <- w2
	}()
	select {
	case <-waited:
	case <-created:
		t.Fatal("a second rebuild started while the first was building")
	case <-time.After(10 * time.Second):
		t.Fatal("the second rebuild neither waited nor started")
	}
	select {
	case <-created:
		t.Fatal("the second rebuild started while the first was building")
	case <-time.After(300 * time.Millisecond):
	}
	m1 := addContext(t, w1, Meta{}, "first")
	if err := w1.Commit(m1); err != nil {
		t.Fatal(err)
	}
	w2 := <-created
	if w2 == nil {
		t.FailNow()
	}
	m2 := addContext(t, w2, Meta{}, "second")
	if err := w2.Commit(m2); err != nil {
		t.Fatal(err)
	}
	titles := func() []string {
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		cs, err := r.Contexts()
		if err != nil {
			t.Fatal(err)
		}
		var ts []string
		for _, c := range cs {
			ts = append(ts, c.Title)
		}
		return ts
	}
	if got := titles(); !slices.Equal(got, []string{"second"}) {
		t.Fatalf("after two rebuilds: %q", got)
	}

	// An append during a rebuild waits for it.
	w3, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	appended := make(chan error, 1)
	waited2 := make(chan struct{}, 1)
	go func() {
		w, m, err := CreateFrom(context.Background(), path, func() { waited2 <- struct{}{} })
		if err != nil {
			appended <- err
			return
		}
		m = addContext(t, w, m, "appended")
		appended <- w.Commit(m)
	}()
	select {
	case <-waited2:
	case err := <-appended:
		t.Fatalf("an append ran during a rebuild: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the append neither waited nor finished")
	}
	m3 := addContext(t, w3, Meta{}, "third")
	if err := w3.Commit(m3); err != nil {
		t.Fatal(err)
	}
	if err := <-appended; err != nil {
		t.Fatal(err)
	}
	if got := titles(); !slices.Equal(got, []string{"third", "appended"}) {
		t.Fatalf("after a rebuild and an append: %q", got)
	}
}
